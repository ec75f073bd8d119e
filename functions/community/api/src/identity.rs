//! The [`Identity`] port over HTTP: the users service's internal
//! `GET /api/users/internal/users/{id}`, authorised by the internal service token. The users
//! table stays private to identity.

use std::time::Duration;

use community::input::UserId;
use community::{Identity, IdentityError, Profile};
use platform::auth::INTERNAL_TOKEN_HEADER;
use serde::Deserialize;

/// The HTTP client and the token, built once per cold start.
#[derive(Clone)]
pub struct UsersDirectory {
    http: reqwest::Client,
    token: Option<String>,
}

impl UsersDirectory {
    pub fn new(timeout: Duration, token: Option<String>) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self { http, token })
    }

    /// The users service behind the API at `base` (`None`: it cannot be located, and every
    /// lookup fails as unreachable).
    pub fn at(&self, base: Option<String>) -> Directory<'_> {
        Directory { users: self, base }
    }
}

/// The users service for one request.
pub struct Directory<'a> {
    users: &'a UsersDirectory,
    base: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    id: String,
    username: String,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    roles: Vec<String>,
    #[serde(default)]
    show_bookmarks: bool,
    #[serde(default)]
    show_likes: bool,
}

impl Identity for Directory<'_> {
    async fn profile(&self, user: &UserId) -> Result<Option<Profile>, IdentityError> {
        let base = self.base.as_deref().ok_or_else(|| {
            IdentityError::Failed(
                "INTERNAL_API_URL is not set and the request did not come through API Gateway"
                    .into(),
            )
        })?;
        let token = self
            .users
            .token
            .as_deref()
            .ok_or_else(|| IdentityError::Failed("INTERNAL_SERVICE_TOKEN is not set".into()))?;
        let response = self
            .users
            .http
            .get(format!("{base}/api/users/internal/users/{user}"))
            .header(INTERNAL_TOKEN_HEADER, token)
            .send()
            .await
            .map_err(|e| IdentityError::Failed(e.to_string()))?;
        match response.status() {
            s if s.is_success() => {
                let answer: Answer = response
                    .json()
                    .await
                    .map_err(|e| IdentityError::Failed(format!("unreadable profile: {e}")))?;
                Ok(Some(Profile {
                    display_name: answer
                        .display_name
                        .filter(|d| !d.trim().is_empty())
                        .unwrap_or_else(|| answer.username.clone()),
                    id: answer.id,
                    username: answer.username,
                    roles: answer.roles,
                    show_bookmarks: answer.show_bookmarks,
                    show_likes: answer.show_likes,
                }))
            }
            reqwest::StatusCode::NOT_FOUND => Ok(None),
            s @ (reqwest::StatusCode::SERVICE_UNAVAILABLE
            | reqwest::StatusCode::TOO_MANY_REQUESTS) => {
                Err(IdentityError::Busy(format!("HTTP {s}")))
            }
            s => Err(IdentityError::Failed(format!("HTTP {s}"))),
        }
    }
}
