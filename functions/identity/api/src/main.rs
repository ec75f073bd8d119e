//! Lambda entry point of the users function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(identity_function::router)
}
