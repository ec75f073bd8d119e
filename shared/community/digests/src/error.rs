//! The digest service's one error enum; the function maps each variant to a status.

use platform::dynamo::DynamoError;
use platform::Invalid;

use crate::ports::PortError;

#[derive(Debug, thiserror::Error)]
pub enum DigestError {
    /// 400 naming the fields.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// 404: no such digest, another user's PERSONAL digest, or no public digest yet.
    #[error("digest not found")]
    DigestNotFound,
    /// 404: no such job.
    #[error("job not found")]
    JobNotFound,
    /// 404: identity has no such user.
    #[error("user not found")]
    UserNotFound,
    /// 502: another service (identity, content, community) could not answer.
    #[error(transparent)]
    Port(#[from] PortError),
    /// 502 when the model failed, 500 when the LLM settings are wrong.
    #[error(transparent)]
    Llm(#[from] llm::LlmError),
    /// 503: the user's day row kept changing under concurrent generations.
    #[error("a generation for this user and day is under way, try again")]
    Busy,
    /// 503: the queue could not take the job.
    #[error("queue: {0}")]
    Queue(String),
    /// 503 when unavailable, else 500.
    #[error(transparent)]
    Store(#[from] DynamoError),
}

impl From<crate::writer::WriteError> for DigestError {
    fn from(e: crate::writer::WriteError) -> Self {
        match e {
            crate::writer::WriteError::Llm(l) => Self::Llm(l),
        }
    }
}

impl From<crate::store::WriteError> for DigestError {
    fn from(e: crate::store::WriteError) -> Self {
        match e {
            crate::store::WriteError::Changed => Self::Busy,
            crate::store::WriteError::Dynamo(d) => Self::Store(d),
        }
    }
}
