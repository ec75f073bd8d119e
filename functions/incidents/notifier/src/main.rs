//! Lambda entry point of the incidents notifier.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(incidents_notifier_function::handler)
}
