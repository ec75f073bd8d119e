//! Lambda entry point of the feed scheduler.

#[tokio::main]
async fn main() -> Result<(), platform::BoxError> {
    let env = platform::Env::from_process();
    platform::logging::init(&env);
    let handler = feed_scheduler_function::handler(env).await?;
    platform::lambda::run(platform::Function::Schedule(handler)).await
}
