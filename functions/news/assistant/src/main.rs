//! Lambda entry point of the GenAI function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(assistant_function::router)
}
