//! Lambda entry point of the first administrator's custom resource.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(users_bootstrap_function::handler)
}
