//! Lambda entry point of the incidents processor.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(incidents_processor_function::handler)
}
