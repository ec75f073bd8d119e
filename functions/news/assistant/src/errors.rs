//! The edge's reading of the assistant's failures: each one's status and message. Handlers
//! return [`Error`], and `?` converts the assistant's errors and the platform's; the router's
//! error layer renders it and logs its cause once.

use assistant::{ArticleError, AssistantError};
use axum::response::{IntoResponse, Response};
use llm::{LlmError, ProviderFailure};
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

impl From<AssistantError> for Error {
    fn from(error: AssistantError) -> Self {
        Self(to_api(error))
    }
}

impl From<LlmError> for Error {
    fn from(error: LlmError) -> Self {
        Self(llm_error(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// 400 for an article without text, 404 for an unknown article, 502 for a content service
/// or model provider that failed, 503 when the answer cache cannot be reached (the model is
/// not asked then), 500 for configuration problems. Crate-visible for the streamed answers,
/// whose mid-answer failure is an event, not a response.
pub(crate) fn to_api(e: AssistantError) -> ApiError {
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
    use assistant::ArticleId;
    use llm::{InvalidSetting, ProviderKind};

    #[test]
    fn configuration_is_500_and_the_provider_502() {
        let config = llm_error(LlmError::Config(InvalidSetting {
            variable: "LLM_PROVIDER",
            reason: "\"openai\" is not a provider".into(),
        }));
        assert_eq!(config.status().as_u16(), 500);
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
            assert_eq!(api.status().as_u16(), 502);
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
            (AssistantError::NoContent(id.clone()), 400),
            (ArticleError::NotFound(id.clone()).into(), 404),
            (
                ArticleError::Unavailable {
                    id,
                    reason: "unreachable".into(),
                }
                .into(),
                502,
            ),
            (ArticleError::Misconfigured("no URL".into()).into(), 500),
        ];
        for (error, status) in cases {
            let text = error.to_string();
            let api = to_api(error);
            assert_eq!(api.status().as_u16(), status, "{text}");
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
