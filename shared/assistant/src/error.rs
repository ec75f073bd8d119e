//! Why a request got no answer. The function crate maps each case to its status.

use llm::LlmError;

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
}
