//! [`IntelligenceError`]: what the facade's calls fail with, and what the parts' errors
//! become.

use llm::LlmError;
use platform::dynamo::DynamoError;
use platform::Invalid;

use super::MAX_DOCUMENTS;
use crate::index::IndexError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum IntelligenceError {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Forbidden(&'static str),
    /// The item changed between read and write, or another request is changing it.
    #[error("changed concurrently")]
    Changed,
    /// The corpus holds [`MAX_DOCUMENTS`] documents.
    #[error("the corpus holds {0} documents")]
    Full(i64),
    /// The model gave no usable answer, or the LLM settings are wrong.
    #[error(transparent)]
    Llm(LlmError),
    /// The embeddings provider failed (a document is not stored without its embeddings).
    #[error("embeddings: {0}")]
    Embeddings(LlmError),
    #[error(transparent)]
    Store(#[from] DynamoError),
    /// The logs bucket failed.
    #[error(transparent)]
    Logs(#[from] incidents::objects::ObjectsError),
}

impl From<crate::logs::LookupError> for IntelligenceError {
    fn from(e: crate::logs::LookupError) -> Self {
        match e {
            crate::logs::LookupError::Table(e) => Self::Store(e),
            crate::logs::LookupError::Objects(e) => Self::Logs(e),
        }
    }
}

impl From<StoreError> for IntelligenceError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Dynamo(d) => Self::Store(d),
            StoreError::Changed => Self::Changed,
            StoreError::Full => Self::Full(MAX_DOCUMENTS),
        }
    }
}

impl From<IndexError> for IntelligenceError {
    fn from(e: IndexError) -> Self {
        match e {
            IndexError::Dynamo(d) => Self::Store(d),
            IndexError::Contended => Self::Changed,
        }
    }
}
