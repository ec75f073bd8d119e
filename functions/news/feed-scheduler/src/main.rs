//! Lambda entry point of the feed scheduler.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_feed_scheduler_function::handler)
}
