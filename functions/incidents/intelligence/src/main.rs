//! Lambda entry point of the incident intelligence function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(incidents_intelligence_function::router)
}
