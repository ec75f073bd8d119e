//! Lambda entry point of the recipes sweeper.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(recipes_sweeper_function::handler)
}
