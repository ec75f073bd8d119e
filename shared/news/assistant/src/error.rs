//! Why a request got no answer, and how each case answers ([`ApiError`]).

use llm::{LlmError, ProviderFailure};
use platform::dynamo::DynamoError;
use platform::ApiError;

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

/// 400 for an article without text, 404 for an unknown article, 502 for a content service
/// or model provider that failed, 503 when the answer cache cannot be reached (the model is
/// not asked then), 500 for configuration problems. Also what a streamed answer's
/// mid-answer failure says (an event, not a response).
impl From<AssistantError> for ApiError {
    fn from(e: AssistantError) -> Self {
        to_api(e)
    }
}

fn to_api(e: AssistantError) -> ApiError {
    match e {
        AssistantError::NoContent(id) => {
            ApiError::bad_request(format!("Article {id} has no content")).with_details(vec![
                format!("articleId: article {id} has no body text to work on"),
            ])
        }
        AssistantError::Article(e) => article_error(e),
        AssistantError::Llm(e) => llm_error(e),
        AssistantError::Cache(e) if e.is_unavailable() => {
            ApiError::unavailable("The answer cache is unavailable, try again").caused_by(format!(
                "answer cache unavailable; the model is not asked: {e}"
            ))
        }
        AssistantError::Cache(e) => ApiError::internal("answer cache", e),
    }
}

fn article_error(e: ArticleError) -> ApiError {
    match e {
        ArticleError::NotFound(id) => ApiError::not_found(format!("Article {id} not found")),
        ArticleError::Unavailable { id, reason } => ApiError::bad_gateway(format!(
            "The content service could not provide article {id}: {reason}"
        )),
        ArticleError::Misconfigured(reason) => ApiError::internal("configuration", reason),
    }
}

/// 500 for the operator's settings, 502 for everything the provider did; the provider's own
/// words (a refusal's body) stay in the log.
fn llm_error(e: LlmError) -> ApiError {
    match e {
        LlmError::Config(setting) => ApiError::internal("LLM configuration", setting),
        LlmError::Provider { provider, failure } => {
            let message = match &failure {
                ProviderFailure::NotConfigured(reason) => {
                    format!("The LLM provider ({provider}) is not configured: {reason}")
                }
                ProviderFailure::Status { status, .. } => {
                    format!("The LLM provider ({provider}) answered HTTP {status}")
                }
                other => format!("The LLM provider ({provider}) failed: {other}"),
            };
            ApiError::bad_gateway(message)
                .caused_by(format!("LLM call to {provider} failed: {failure:?}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use llm::{InvalidSetting, ProviderKind};
    use platform::ErrorKind;

    #[test]
    fn configuration_is_500_and_the_provider_502() {
        let config = llm_error(LlmError::Config(InvalidSetting {
            variable: "LLM_PROVIDER",
            reason: "\"openai\" is not a provider".into(),
        }));
        assert_eq!(config.kind, ErrorKind::Internal);
        assert!(
            !config.message.contains("openai"),
            "internals stay in the log"
        );
        for failure in [
            ProviderFailure::Timeout(Duration::from_secs(1)),
            ProviderFailure::Unreachable("refused".into()),
            ProviderFailure::Status {
                status: 401,
                body: "bad key".into(),
            },
            ProviderFailure::InvalidResponse("x".into()),
            ProviderFailure::Unusable("x".into()),
            ProviderFailure::NotConfigured("no key".into()),
        ] {
            let api = llm_error(LlmError::Provider {
                provider: ProviderKind::Cloud,
                failure,
            });
            assert_eq!(api.kind, ErrorKind::BadGateway);
            assert!(api.message.contains("(cloud)"), "{}", api.message);
            assert!(
                !api.message.contains("bad key"),
                "provider bodies stay in the log"
            );
        }
    }

    #[test]
    fn article_failures_keep_their_seed_statuses() {
        let id = ArticleId::parse("a1").expect("id");
        let cases = [
            (AssistantError::NoContent(id.clone()), ErrorKind::BadRequest),
            (
                ArticleError::NotFound(id.clone()).into(),
                ErrorKind::NotFound,
            ),
            (
                ArticleError::Unavailable {
                    id,
                    reason: "unreachable".into(),
                }
                .into(),
                ErrorKind::BadGateway,
            ),
            (
                ArticleError::Misconfigured("no URL".into()).into(),
                ErrorKind::Internal,
            ),
        ];
        for (error, status) in cases {
            let text = error.to_string();
            let api = to_api(error);
            assert_eq!(api.kind, status, "{text}");
        }
        let no_content = to_api(AssistantError::NoContent(
            ArticleId::parse("x").expect("id"),
        ));
        assert_eq!(
            no_content.details,
            ["articleId: article x has no body text to work on"]
        );
    }
}
