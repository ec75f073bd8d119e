//! The [`TopicFollowers`] port over HTTP: Document B's
//! `POST /api/v1/internal/topics/follower-deltas`, called through the public API with the
//! internal service token and an `Idempotency-Key`.

use std::collections::BTreeMap;
use std::time::Duration;

use identity::{CommunityAccounts, FollowersError, TopicFollowers};
use platform::auth::INTERNAL_TOKEN_HEADER;

/// The HTTP client and the token, built once per cold start.
#[derive(Clone)]
pub struct CommunityService {
    http: reqwest::Client,
    token: Option<String>,
}

impl CommunityService {
    pub fn new(timeout: Duration, token: Option<String>) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self { http, token })
    }

    /// The community service behind the API at `base` (`None`: every call fails).
    pub fn at(&self, base: Option<String>) -> CommunityApi<'_> {
        CommunityApi {
            service: self,
            base,
        }
    }
}

/// The community service for one request.
pub struct CommunityApi<'a> {
    service: &'a CommunityService,
    base: Option<String>,
}

impl CommunityApi<'_> {
    /// The base URL and the internal token, or why a call cannot be made.
    fn target(&self) -> Result<(&str, &str), FollowersError> {
        let base = self.base.as_deref().ok_or_else(|| {
            FollowersError(
                "INTERNAL_API_URL is not set and the request did not come through API Gateway"
                    .into(),
            )
        })?;
        let token = self
            .service
            .token
            .as_deref()
            .ok_or_else(|| FollowersError("INTERNAL_SERVICE_TOKEN is not set".into()))?;
        Ok((base, token))
    }
}

impl CommunityAccounts for CommunityApi<'_> {
    async fn forget(&self, user_id: &str) -> Result<(), FollowersError> {
        let (base, token) = self.target()?;
        let response = self
            .service
            .http
            .delete(format!("{base}/api/v1/internal/users/{user_id}"))
            .header(INTERNAL_TOKEN_HEADER, token)
            .send()
            .await
            .map_err(|e| FollowersError(e.to_string()))?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(FollowersError(format!("HTTP {}", response.status())))
        }
    }
}

impl TopicFollowers for CommunityApi<'_> {
    async fn apply(&self, key: &str, deltas: &BTreeMap<String, i64>) -> Result<(), FollowersError> {
        let (base, token) = self.target()?;
        let response = self
            .service
            .http
            .post(format!("{base}/api/v1/internal/topics/follower-deltas"))
            .header(INTERNAL_TOKEN_HEADER, token)
            .header("idempotency-key", key)
            .json(&serde_json::json!({ "deltas": deltas }))
            .send()
            .await
            .map_err(|e| FollowersError(e.to_string()))?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(FollowersError(format!("HTTP {}", response.status())))
        }
    }
}
