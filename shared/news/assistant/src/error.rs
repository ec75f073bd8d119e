//! Why a request got no answer. The function crate maps each case to its status.

use llm::LlmError;
use platform::dynamo::DynamoError;

use crate::article::ArticleError;
use crate::model::ArticleId;

#[derive(Debug, thiserror::Error)]
pub enum AssistantError {
    /// The article was read but has no body text to work on: the client's mistake.
    #[error("article {0} has no body text to work on")]
    NoContent(ArticleId),
    /// The article could not be read.
    #[error(transparent)]
    Article(#[from] ArticleError),
    /// The LLM settings are wrong, or the model gave no usable answer.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The answer cache could not be read. The model is not asked: without the cache every
    /// request would go to the paid model.
    #[error("answer cache: {0}")]
    Cache(#[from] DynamoError),
}

impl AssistantError {
    /// True when a table could not be reached or is throttling: worth answering 503.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::Cache(e) if e.is_unavailable())
    }
}
