//! The intelligence service's errors as HTTP answers, in the detailed error body: handlers
//! return [`Error`], and `?` converts the domain's errors and the platform's. The router's
//! error layer renders it and logs its cause once.

use axum::response::{IntoResponse, Response};
use incidents_intelligence::IntelligenceError;
use llm::LlmError;
use platform::ApiError;

/// What a handler of this function fails with.
#[derive(Debug)]
pub struct Error(ApiError);

impl From<ApiError> for Error {
    fn from(error: ApiError) -> Self {
        Self(error)
    }
}

impl From<platform::Invalid> for Error {
    fn from(invalid: platform::Invalid) -> Self {
        Self(invalid.into())
    }
}

impl From<IntelligenceError> for Error {
    fn from(error: IntelligenceError) -> Self {
        Self(to_api(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// 400 naming the fields, 403, 404, 409 (changed meanwhile, or the corpus is full), 500 for
/// the operator's LLM settings, 502 for a model or embeddings provider that gave nothing
/// usable, 503 when a table or the logs bucket cannot be reached, else 500 with the details logged.
fn to_api(error: IntelligenceError) -> ApiError {
    match error {
        IntelligenceError::Invalid(invalid) => invalid.into(),
        IntelligenceError::NotFound(what) => ApiError::not_found(format!("{what} not found")),
        IntelligenceError::Forbidden(reason) => ApiError::forbidden(reason),
        IntelligenceError::Changed => {
            ApiError::conflict("It is being changed by another request: read it again and retry")
        }
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
            to_api(IntelligenceError::NotFound("Analysis")).message,
            "Analysis not found"
        );
        assert_eq!(to_api(IntelligenceError::Changed).kind, ErrorKind::Conflict);
        assert_eq!(
            to_api(IntelligenceError::Full(1000)).kind,
            ErrorKind::Conflict
        );
        assert_eq!(
            to_api(IntelligenceError::Forbidden("no")).kind,
            ErrorKind::Forbidden
        );
        let unusable = to_api(IntelligenceError::Llm(LlmError::Provider {
            provider: ProviderKind::Local,
            failure: ProviderFailure::Unusable("no JSON: secret".into()),
        }));
        assert_eq!(unusable.status().as_u16(), 502);
        assert_eq!(
            unusable.message,
            "The model provider (local) gave no usable answer: unusable output"
        );
        let config = to_api(IntelligenceError::Llm(LlmError::Config(InvalidSetting {
            variable: "LLM_PROVIDER",
            reason: "bad".into(),
        })));
        assert_eq!(config.status().as_u16(), 500);
    }
}
