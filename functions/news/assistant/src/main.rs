//! Lambda entry point of the assistant function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(assistant_function::router)
}
