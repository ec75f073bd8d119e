//! Lambda entry point of the community view counter.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_views_function::handler)
}
