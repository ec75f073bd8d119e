//! Lambda entry point of the content function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(content_function::router)
}
