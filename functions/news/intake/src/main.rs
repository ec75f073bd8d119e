//! Lambda entry point of the news intake function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_intake_function::router)
}
