//! Lambda entry point of the community function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_function::router)
}
