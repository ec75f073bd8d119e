//! The other services' internal routes, called through the public API with the internal
//! service token: the [`TopicFollowers`] port and the account-deletion cleanup of the
//! community ([`CommunityAccounts`]), through the community's client, and the recipe
//! service's cleanup ([`RecipeAccounts`], `DELETE /api/recipes/internal/users/{id}`: no body
//! either way).

use std::collections::BTreeMap;
use std::time::Duration;

use community_client::{CommunityClient, FollowerDeltasRequest};
use identity::{
    CommunityAccounts, FollowersError, RecipeAccounts, RecipesServiceError, TopicFollowers,
};
use platform::call::{send, CallError, INTERNAL_TOKEN_HEADER};

/// The HTTP client and the token, built once per cold start.
#[derive(Clone)]
pub struct InternalServices {
    http: reqwest::Client,
    token: Option<String>,
    community: CommunityClient,
}

impl InternalServices {
    pub fn new(timeout: Duration, token: Option<String>) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self {
            community: CommunityClient::with_http(http.clone(), token.clone()),
            http,
            token,
        })
    }

    /// The services behind the API at `base` (`None`: every call fails).
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
    /// `DELETE /api/recipes/internal/users/{id}` with the internal token.
    async fn forget_recipe_account(&self, user_id: &str) -> Result<(), CallError> {
        let base = self.base.as_deref().ok_or(CallError::NoBase)?;
        let token = self.service.token.as_deref().ok_or(CallError::NoToken)?;
        let response = send(
            self.service
                .http
                .delete(format!("{base}/api/recipes/internal/users/{user_id}"))
                .header(INTERNAL_TOKEN_HEADER, token),
        )
        .await?;
        match response.status() {
            s if s.is_success() => Ok(()),
            s => Err(CallError::Status(s)),
        }
    }
}

impl CommunityAccounts for InternalApi<'_> {
    async fn forget(&self, user_id: &str) -> Result<(), FollowersError> {
        self.service
            .community
            .at(self.base.clone())
            .forget_account(user_id)
            .await
            .map_err(|e| FollowersError(e.to_string()))
    }
}

impl RecipeAccounts for InternalApi<'_> {
    async fn forget(&self, user_id: &str) -> Result<(), RecipesServiceError> {
        self.forget_recipe_account(user_id)
            .await
            .map_err(|e| RecipesServiceError(e.to_string()))
    }
}

impl TopicFollowers for InternalApi<'_> {
    async fn apply(&self, key: &str, deltas: &BTreeMap<String, i64>) -> Result<(), FollowersError> {
        self.service
            .community
            .at(self.base.clone())
            .follower_deltas(key, &FollowerDeltasRequest::new(deltas.clone()))
            .await
            .map_err(|e| FollowersError(e.to_string()))
    }
}
