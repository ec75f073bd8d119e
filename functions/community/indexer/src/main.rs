//! Lambda entry point of the community indexer.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_indexer_function::handler)
}
