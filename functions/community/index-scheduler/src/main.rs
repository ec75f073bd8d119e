//! Lambda entry point of the community index scheduler.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_index_scheduler_function::handler)
}
