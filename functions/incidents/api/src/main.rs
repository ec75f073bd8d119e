//! Lambda entry point of the incidents function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(incidents_function::router)
}
