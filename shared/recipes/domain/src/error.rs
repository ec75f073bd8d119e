//! What a recipe operation can answer instead of its result. No HTTP here: the recipes
//! function maps each variant to its status and body.

use platform::dynamo::DynamoError;
use platform::Invalid;

#[derive(Debug, thiserror::Error)]
pub enum RecipesError {
    /// The input broke a rule; every field problem is named.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// No such recipe among the caller's own (another user's recipe is not there either).
    #[error("recipe not found")]
    NotFound,
    /// The caller's account was deleted (its token may still be valid for a while).
    #[error("the account was deleted")]
    AccountDeleted,
    /// The cleanup of a deleted account could not be queued.
    #[error(transparent)]
    Queue(#[from] platform::queue::QueueError),
    /// Other requests kept changing the recipe while this one tried to.
    #[error("the recipe was changed concurrently")]
    ConcurrentChange,
    /// The model could not be asked, or gave nothing usable.
    #[error(transparent)]
    Llm(#[from] llm::LlmError),
    /// The model answered, but nothing in it passes the recipe rules and the user's diet and
    /// allergies.
    #[error("the model's answer is unusable: {0}")]
    Unusable(String),
    /// The user's preferences could not be read from identity.
    #[error(transparent)]
    Preferences(#[from] crate::ai::PreferencesError),
    #[error(transparent)]
    Store(#[from] DynamoError),
}

impl From<crate::store::CreateError> for RecipesError {
    fn from(e: crate::store::CreateError) -> Self {
        match e {
            crate::store::CreateError::AccountDeleted => Self::AccountDeleted,
            crate::store::CreateError::Store(e) => Self::Store(e),
        }
    }
}

impl RecipesError {
    pub fn is_concurrent_change(&self) -> bool {
        matches!(self, Self::ConcurrentChange)
    }
}
