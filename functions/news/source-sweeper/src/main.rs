//! Lambda entry point of the source sweeper.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_source_sweeper_function::handler)
}
