//! Lambda entry point of the digest worker.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_digest_worker_function::handler)
}
