//! Lambda entry point of the content function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_function::router)
}
