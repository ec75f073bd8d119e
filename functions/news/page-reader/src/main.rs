//! Lambda entry point of the page reader.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_page_reader_function::handler)
}
