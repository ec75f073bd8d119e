//! Lambda entry point of the incidents sweeper.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(incidents_sweeper_function::handler)
}
