//! [`IntelligenceError`]: what the facade's calls fail with, and what the parts' errors
//! become.

use llm::LlmError;
use platform::dynamo::DynamoError;
use platform::{ApiError, Invalid};

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

/// 400 naming the fields, 403, 404, 409 (changed meanwhile, or the corpus is full), 500 for
/// the operator's LLM settings, 502 for a model or embeddings provider that gave nothing
/// usable, 503 when a table or the logs bucket cannot be reached, else 500 with the details logged.
impl From<IntelligenceError> for ApiError {
    fn from(error: IntelligenceError) -> Self {
        match error {
            IntelligenceError::Invalid(invalid) => invalid.into(),
            IntelligenceError::NotFound(what) => ApiError::not_found(format!("{what} not found")),
            IntelligenceError::Forbidden(reason) => ApiError::forbidden(reason),
            IntelligenceError::Changed => ApiError::conflict(
                "It is being changed by another request: read it again and retry",
            ),
            IntelligenceError::Full(max) => ApiError::conflict(format!(
                "The corpus holds {max} documents, its most: delete some first"
            )),
            IntelligenceError::Llm(e) => provider_error("model", e),
            IntelligenceError::Embeddings(e) => provider_error("embeddings", e),
            IntelligenceError::Store(e) if e.is_unavailable() => {
                ApiError::unavailable("The intelligence service is unavailable, try again")
                    .caused_by(format!("intelligence table unavailable: {e}"))
            }
            IntelligenceError::Store(e) => ApiError::internal("intelligence table", e),
            IntelligenceError::Logs(e) if e.unavailable => {
                ApiError::unavailable("The intelligence service is unavailable, try again")
                    .caused_by(format!("logs bucket unavailable: {e}"))
            }
            IntelligenceError::Logs(e) => ApiError::internal("logs bucket", e),
        }
    }
}

/// A provider's failure: the operator's settings are a 500, anything the provider did a 502
/// (its own words stay in the log).
fn provider_error(what: &str, error: LlmError) -> ApiError {
    match error {
        LlmError::Config(setting) => ApiError::internal("LLM configuration", setting),
        LlmError::Provider { provider, failure } => ApiError::bad_gateway(format!(
            "The {what} provider ({provider}) gave no usable answer: {}",
            failure.kind().replace('_', " ")
        ))
        .caused_by(format!(
            "{what} provider ({provider}) call failed: {failure:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use llm::{InvalidSetting, ProviderFailure, ProviderKind};
    use platform::ErrorKind;

    #[test]
    fn domain_errors_become_statuses() {
        assert_eq!(
            ApiError::from(IntelligenceError::NotFound("Analysis")).message,
            "Analysis not found"
        );
        assert_eq!(
            ApiError::from(IntelligenceError::Changed).kind,
            ErrorKind::Conflict
        );
        assert_eq!(
            ApiError::from(IntelligenceError::Full(1000)).kind,
            ErrorKind::Conflict
        );
        assert_eq!(
            ApiError::from(IntelligenceError::Forbidden("no")).kind,
            ErrorKind::Forbidden
        );
        let unusable = ApiError::from(IntelligenceError::Llm(LlmError::Provider {
            provider: ProviderKind::Local,
            failure: ProviderFailure::Unusable("no JSON: secret".into()),
        }));
        assert_eq!(unusable.kind, ErrorKind::BadGateway);
        assert_eq!(
            unusable.message,
            "The model provider (local) gave no usable answer: unusable output"
        );
        let config = ApiError::from(IntelligenceError::Llm(LlmError::Config(InvalidSetting {
            variable: "LLM_PROVIDER",
            reason: "bad".into(),
        })));
        assert_eq!(config.kind, ErrorKind::Internal);
    }
}
