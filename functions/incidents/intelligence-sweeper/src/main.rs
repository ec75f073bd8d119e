//! Lambda entry point of the incident intelligence sweeper.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(incidents_intelligence_sweeper_function::handler)
}
