//! The other services' internal routes, called through the public API with the internal
//! service token: the [`TopicFollowers`] port (the community's
//! `POST /api/v1/internal/topics/follower-deltas`, with an `Idempotency-Key`), and the
//! account-deletion cleanups of the community ([`CommunityAccounts`]) and of the recipe
//! service ([`RecipeAccounts`]).

use std::collections::BTreeMap;
use std::time::Duration;

use identity::{
    CommunityAccounts, FollowersError, RecipeAccounts, RecipesServiceError, TopicFollowers,
};
use platform::auth::INTERNAL_TOKEN_HEADER;

/// The HTTP client and the token, built once per cold start.
#[derive(Clone)]
pub struct InternalServices {
    http: reqwest::Client,
    token: Option<String>,
}

impl InternalServices {
    pub fn new(timeout: Duration, token: Option<String>) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self { http, token })
    }

    /// The community service behind the API at `base` (`None`: every call fails).
    pub fn at(&self, base: Option<String>) -> InternalApi<'_> {
        InternalApi {
            service: self,
            base,
        }
    }
}

/// The internal routes for one request.
pub struct InternalApi<'a> {
    service: &'a InternalServices,
    base: Option<String>,
}

impl InternalApi<'_> {
    /// The base URL and the internal token, or why a call cannot be made.
    fn target(&self) -> Result<(&str, &str), String> {
        let base = self.base.as_deref().ok_or(
            "INTERNAL_API_URL is not set and the request did not come through API Gateway",
        )?;
        let token = self
            .service
            .token
            .as_deref()
            .ok_or("INTERNAL_SERVICE_TOKEN is not set")?;
        Ok((base, token))
    }

    /// Sends `request(base URL)` with the internal token; `Err` says why it did not succeed.
    async fn call(
        &self,
        request: impl FnOnce(&reqwest::Client, &str) -> reqwest::RequestBuilder,
    ) -> Result<(), String> {
        let (base, token) = self.target()?;
        let response = request(&self.service.http, base)
            .header(INTERNAL_TOKEN_HEADER, token)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(format!("HTTP {}", response.status()))
        }
    }
}

impl CommunityAccounts for InternalApi<'_> {
    async fn forget(&self, user_id: &str) -> Result<(), FollowersError> {
        self.call(|http, base| http.delete(format!("{base}/api/v1/internal/users/{user_id}")))
            .await
            .map_err(FollowersError)
    }
}

impl RecipeAccounts for InternalApi<'_> {
    async fn forget(&self, user_id: &str) -> Result<(), RecipesServiceError> {
        self.call(|http, base| http.delete(format!("{base}/api/recipes/internal/users/{user_id}")))
            .await
            .map_err(RecipesServiceError)
    }
}

impl TopicFollowers for InternalApi<'_> {
    async fn apply(&self, key: &str, deltas: &BTreeMap<String, i64>) -> Result<(), FollowersError> {
        self.call(|http, base| {
            http.post(format!("{base}/api/v1/internal/topics/follower-deltas"))
                .header("idempotency-key", key)
                .json(&serde_json::json!({ "deltas": deltas }))
        })
        .await
        .map_err(FollowersError)
    }
}
