//! Lambda entry point of the OPML worker.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(news_opml_worker_function::handler)
}
