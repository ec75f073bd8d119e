//! Lambda entry point of the first administrator's custom resource.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(identity_bootstrap_function::handler)
}
