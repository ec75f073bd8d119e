//! Lambda entry point of the content function.

#[tokio::main]
async fn main() -> Result<(), platform::BoxError> {
    let env = platform::Env::from_process();
    platform::logging::init(&env);
    let router = content_function::router(env).await?;
    platform::lambda::run(platform::Function::Http(router)).await
}
