//! Lambda entry point of the feed worker.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_feed_worker_function::handler)
}
