//! Lambda entry point of the community sweeper.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_sweeper_function::handler)
}
