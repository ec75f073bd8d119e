//! Lambda entry point of the digest scheduler.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_digest_scheduler_function::handler)
}
