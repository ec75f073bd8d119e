//! Lambda entry point of the GenAI function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(genai_function::router)
}
