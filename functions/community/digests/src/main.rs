//! Lambda entry point of the community digests function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_digests_function::router)
}
