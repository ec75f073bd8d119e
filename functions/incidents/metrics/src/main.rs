//! Lambda entry point of the incident metrics function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(incidents_metrics_function::router)
}
