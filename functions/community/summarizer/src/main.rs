//! Lambda entry point of the community summarizer.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(community_summarizer_function::handler)
}
