//! Lambda entry point of the web function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(web_function::router)
}
