//! Lambda entry point of the community uploads function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_uploads_function::router)
}
