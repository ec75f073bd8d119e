//! Lambda entry point of the Google Reader API function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_greader_function::router)
}
