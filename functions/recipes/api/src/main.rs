//! Lambda entry point of the recipes function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(recipes_function::router)
}
