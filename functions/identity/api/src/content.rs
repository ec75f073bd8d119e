//! The [`SourceSubscriptions`] port over HTTP: the content service's subscriber routes,
//! called through the public API with a `source.write` service token the identity issuer
//! mints.

use std::sync::Arc;
use std::time::Duration;

use identity::model::{SourceId, UserId};
use identity::tokens::TokenIssuer;
use identity::{ContentError, SourceSubscriptions, SubscribedSource, Unsubscribed};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The service identity the identity function presents to the content service.
pub const CLIENT_ID: &str = "users-service";
const SOURCE_WRITE: &str = "source.write";

/// The HTTP client and the token issuer, built once per cold start.
#[derive(Clone)]
pub struct ContentService {
    http: reqwest::Client,
    issuer: Arc<TokenIssuer>,
}

impl ContentService {
    pub fn new(timeout: Duration, issuer: Arc<TokenIssuer>) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self { http, issuer })
    }

    /// The content service behind the API at `base` (`None` when it cannot be located: every
    /// call then fails).
    pub fn at(&self, base: Option<String>) -> ContentApi<'_> {
        ContentApi {
            service: self,
            base,
        }
    }
}

/// The content service for one request: the API it came through, or `INTERNAL_API_URL`.
pub struct ContentApi<'a> {
    service: &'a ContentService,
    base: Option<String>,
}

impl ContentApi<'_> {
    async fn call<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        user: &UserId,
        source: &SourceId,
    ) -> Result<T, ContentError> {
        self.call_with(method, user, source, "").await
    }

    async fn call_with<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        user: &UserId,
        source: &SourceId,
        query: &str,
    ) -> Result<T, ContentError> {
        self.request(
            method,
            &format!("/api/content/sources/{source}/subscribers/{user}{query}"),
        )
        .await
    }

    /// A call of the content service at `path` (after the API's base).
    async fn request<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: &str,
    ) -> Result<T, ContentError> {
        let base = self.base.as_deref().ok_or_else(|| {
            ContentError::Failed(
                "INTERNAL_API_URL is not set and the request did not come through API Gateway"
                    .into(),
            )
        })?;
        self.send(method, format!("{base}{path}")).await
    }

    async fn send<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        url: String,
    ) -> Result<T, ContentError> {
        let token = self
            .service
            .issuer
            .service_token(CLIENT_ID, &[SOURCE_WRITE.to_string()])
            .map_err(|e| ContentError::Failed(format!("mint service token: {e}")))?;
        let response = self
            .service
            .http
            .request(method, url)
            .bearer_auth(token.token)
            .send()
            .await
            .map_err(|e| ContentError::Failed(e.to_string()))?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Err(ContentError::SourceNotFound);
        }
        if matches!(
            status,
            reqwest::StatusCode::SERVICE_UNAVAILABLE | reqwest::StatusCode::TOO_MANY_REQUESTS
        ) {
            return Err(ContentError::Busy(format!("HTTP {status}")));
        }
        if !status.is_success() {
            return Err(ContentError::Failed(format!("HTTP {status}")));
        }
        response
            .json()
            .await
            .map_err(|e| ContentError::Failed(format!("unreadable answer: {e}")))
    }
}

impl SourceSubscriptions for ContentApi<'_> {
    async fn subscribe(
        &self,
        user: &UserId,
        source: &SourceId,
    ) -> Result<SubscribedSource, ContentError> {
        let source: news_client::Source = self.call(reqwest::Method::POST, user, source).await?;
        Ok(SubscribedSource(fields(&source)?))
    }

    async fn unsubscribe(
        &self,
        user: &UserId,
        source: &SourceId,
    ) -> Result<Unsubscribed, ContentError> {
        let answer: news_client::Unsubscribed =
            self.call(reqwest::Method::DELETE, user, source).await?;
        outcome(&answer)
    }

    async fn forget_reader(&self, user: &UserId) -> Result<bool, ContentError> {
        let answer: ReaderForgotten = self
            .request(
                reqwest::Method::DELETE,
                &format!("/api/content/readers/{user}"),
            )
            .await?;
        Ok(answer.finished)
    }

    async fn take_back(&self, user: &UserId, source: &SourceId) -> Result<(), ContentError> {
        let _: news_client::Unsubscribed = self
            .call_with(reqwest::Method::DELETE, user, source, "?keepSource=true")
            .await?;
        Ok(())
    }
}

/// What one call deleting a reading state says (`DELETE /api/content/readers/{userId}`).
#[derive(serde::Deserialize)]
struct ReaderForgotten {
    finished: bool,
}

/// What identity passes on of the content service's answer: its fields, unchanged.
fn fields(answer: &impl serde::Serialize) -> Result<serde_json::Map<String, Value>, ContentError> {
    match serde_json::to_value(answer) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(ContentError::Failed(
            "unreadable answer: not an object".into(),
        )),
        Err(e) => Err(ContentError::Failed(format!("unreadable answer: {e}"))),
    }
}

/// The source's fields when it remains (without `deleted`), else that it was deleted.
fn outcome(answer: &news_client::Unsubscribed) -> Result<Unsubscribed, ContentError> {
    if answer.is_deleted() {
        return Ok(Unsubscribed::SourceDeleted);
    }
    let mut source = fields(answer)?;
    source.remove("deleted");
    Ok(Unsubscribed::SourceRemains(SubscribedSource(source)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsubscribe_answer_says_whether_the_source_remains() {
        let remains: news_client::Unsubscribed =
            serde_json::from_str(r#"{"id": "s1", "subscriberCount": 1, "deleted": false}"#)
                .expect("json");
        let Ok(Unsubscribed::SourceRemains(source)) = outcome(&remains) else {
            panic!("the source remains");
        };
        assert_eq!(
            serde_json::to_value(source).expect("json"),
            serde_json::json!({"id": "s1", "subscriberCount": 1})
        );
        let deleted: news_client::Unsubscribed =
            serde_json::from_str(r#"{"id": "s1", "subscriberCount": 0, "deleted": true}"#)
                .expect("json");
        assert_eq!(
            outcome(&deleted).expect("read"),
            Unsubscribed::SourceDeleted
        );
    }
}
