//! Lambda entry point of the identity function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(identity_function::router)
}
