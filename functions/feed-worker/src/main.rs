//! Lambda entry point of the feed worker.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(feed_worker_function::handler)
}
