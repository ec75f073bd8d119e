//! The community product as the other products call it: the wire types of its routes
//! ([`topics`]), which the community function's handlers serialize and read, and
//! [`CommunityClient`], which calls them.
//!
//! - `GET /api/v1/topics/stats` (public): every [`Topic`] (the digests' slug → id lookup);
//! - `POST /api/v1/internal/topics/follower-deltas` with the internal service token and an
//!   `Idempotency-Key` ([`FollowerDeltasRequest`]: identity's follows);
//! - `DELETE /api/v1/internal/users/{id}` with the internal service token (identity's
//!   account deletion).
//!
//! Failures are [`CallError`]s; each caller answers them as its port says.

pub use platform::call::CallError;
use platform::call::{read_json, send, INTERNAL_TOKEN_HEADER};

pub mod topics;

pub use topics::{FollowerDeltasRequest, Topic};

/// The HTTP client (its timeouts are the caller's) and the internal service token, built
/// once per cold start.
#[derive(Clone, Debug)]
pub struct CommunityClient {
    http: reqwest::Client,
    token: Option<String>,
}

impl CommunityClient {
    /// A client on an HTTP client the caller already holds for other products.
    pub fn with_http(http: reqwest::Client, token: Option<String>) -> Self {
        Self { http, token }
    }

    /// The community behind the API at `base` (`None`: it cannot be located, and every call
    /// fails with [`CallError::NoBase`]).
    pub fn at(&self, base: Option<String>) -> CommunityApi<'_> {
        CommunityApi { client: self, base }
    }
}

/// The community for one request or one job.
#[derive(Debug)]
pub struct CommunityApi<'a> {
    client: &'a CommunityClient,
    base: Option<String>,
}

impl CommunityApi<'_> {
    fn base(&self) -> Result<&str, CallError> {
        self.base.as_deref().ok_or(CallError::NoBase)
    }

    /// Sends `request` with the internal token; `Ok` on any 2xx.
    async fn internal(&self, request: reqwest::RequestBuilder) -> Result<(), CallError> {
        let token = self.client.token.as_deref().ok_or(CallError::NoToken)?;
        let response = send(request.header(INTERNAL_TOKEN_HEADER, token)).await?;
        match response.status() {
            s if s.is_success() => Ok(()),
            s => Err(CallError::Status(s)),
        }
    }

    /// `GET /api/v1/topics/stats`: every public topic; `None` when the route answers 404.
    pub async fn topic_stats(&self) -> Result<Option<Vec<Topic>>, CallError> {
        let url = reqwest::Url::parse(&format!("{}/api/v1/topics/stats", self.base()?))
            .map_err(|e| CallError::BadUrl(e.to_string()))?;
        let response = send(
            self.client
                .http
                .get(url)
                .header(reqwest::header::ACCEPT, "application/json"),
        )
        .await?;
        match response.status() {
            s if s.is_success() => read_json(response).await.map(Some),
            reqwest::StatusCode::NOT_FOUND => Ok(None),
            s => Err(CallError::Status(s)),
        }
    }

    /// `POST /api/v1/internal/topics/follower-deltas`: applies `deltas`; a repeated `key`
    /// changes nothing.
    pub async fn follower_deltas(
        &self,
        key: &str,
        deltas: &FollowerDeltasRequest,
    ) -> Result<(), CallError> {
        let url = format!("{}/api/v1/internal/topics/follower-deltas", self.base()?);
        self.internal(
            self.client
                .http
                .post(url)
                .header("idempotency-key", key)
                .json(deltas),
        )
        .await
    }

    /// `DELETE /api/v1/internal/users/{id}`: starts the cleanup of a deleted account.
    pub async fn forget_account(&self, user_id: &str) -> Result<(), CallError> {
        let url = format!("{}/api/v1/internal/users/{user_id}", self.base()?);
        self.internal(self.client.http.delete(url)).await
    }
}
