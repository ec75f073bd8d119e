//! The users function's client of the content service: subscribe and unsubscribe calls made
//! through the public API with a `source.write` service token the identity issuer mints.

use std::time::Duration;

use identity::Identity;
use platform::ApiError;
use serde_json::Value;

/// The service identity the users function presents to the content service.
pub const CLIENT_ID: &str = "users-service";
const SOURCE_WRITE: &str = "source.write";

/// Why a content call failed.
#[derive(Debug, thiserror::Error)]
pub enum ContentError {
    #[error("source not found")]
    SourceNotFound,
    #[error("content service failed: {0}")]
    Failed(String),
}

impl From<ContentError> for ApiError {
    fn from(e: ContentError) -> Self {
        match e {
            ContentError::SourceNotFound => ApiError::not_found("Source not found"),
            ContentError::Failed(reason) => {
                tracing::error!(%reason, "content service call failed");
                ApiError::bad_gateway("The content service could not be reached")
            }
        }
    }
}

/// What an unsubscribe did.
pub struct Unsubscribed {
    /// The remaining source, absent when it was deleted.
    pub source: Option<Value>,
}

#[derive(Clone)]
pub struct ContentService {
    http: reqwest::Client,
}

impl ContentService {
    pub fn new(timeout: Duration) -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self { http })
    }

    fn url(base: &str, source_id: &str, user_id: &str) -> String {
        format!("{base}/api/content/sources/{source_id}/subscribers/{user_id}")
    }

    fn token(identity: &Identity) -> Result<String, ApiError> {
        identity
            .issuer()
            .service_token(CLIENT_ID, &[SOURCE_WRITE.to_string()])
            .map(|t| t.token)
            .map_err(|e| ApiError::internal("mint service token", e))
    }

    /// Subscribes `user_id`; returns the source.
    pub async fn subscribe(
        &self,
        identity: &Identity,
        base: &str,
        source_id: &str,
        user_id: &str,
    ) -> Result<Value, ApiError> {
        let response = self
            .http
            .post(Self::url(base, source_id, user_id))
            .bearer_auth(Self::token(identity)?)
            .send()
            .await
            .map_err(|e| ContentError::Failed(e.to_string()))?;
        Ok(read(response).await?)
    }

    /// Unsubscribes `user_id`; the last subscriber leaving deletes the source.
    pub async fn unsubscribe(
        &self,
        identity: &Identity,
        base: &str,
        source_id: &str,
        user_id: &str,
    ) -> Result<Unsubscribed, ContentError> {
        let token = Self::token(identity).map_err(|e| ContentError::Failed(e.message))?;
        let response = self
            .http
            .delete(Self::url(base, source_id, user_id))
            .bearer_auth(token)
            .send()
            .await
            .map_err(|e| ContentError::Failed(e.to_string()))?;
        let mut body = read(response).await?;
        let deleted = body["deleted"].as_bool().unwrap_or(false);
        if let Some(fields) = body.as_object_mut() {
            fields.remove("deleted");
        }
        Ok(Unsubscribed {
            source: (!deleted).then_some(body),
        })
    }
}

async fn read(response: reqwest::Response) -> Result<Value, ContentError> {
    let status = response.status();
    if status == reqwest::StatusCode::NOT_FOUND {
        return Err(ContentError::SourceNotFound);
    }
    if !status.is_success() {
        return Err(ContentError::Failed(format!("HTTP {status}")));
    }
    response
        .json()
        .await
        .map_err(|e| ContentError::Failed(format!("unreadable answer: {e}")))
}

/// Whether `id` can name a source; anything else is an unknown source without asking.
pub fn plausible_source_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}
