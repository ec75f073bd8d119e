//! Lambda entry point of the news function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_function::router)
}
