//! The brake on the paid model: each AI operation (generate, nutrients, ask) is counted per
//! signed-in user in the limits table after its input is parsed (a 400 costs nothing) and
//! before the model is asked; a spent limit is a 429 with `Retry-After`. When the limits
//! table fails the operation is refused (503): unguarded, the model is the bill.

use std::collections::BTreeMap;

use platform::aws::AwsClients;
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, WhenUnavailable};
use platform::{ApiError, ConfigError, Env};
use utoipa::openapi::{RefOr, Response as OpenApiResponse};
use utoipa::IntoResponses;

/// The default limit per user (template parameter `RecipesAiRateLimitPerUser`).
pub const DEFAULT_PER_USER: &str = "10/60,200/86400";

pub struct AiBrake {
    limiter: Option<RateLimiter>,
    per_user: Limit,
}

impl AiBrake {
    /// `RATE_LIMIT_TABLE` (unset: no limits, logged), `RECIPES_AI_RATE_LIMIT_PER_USER`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!(
                "RATE_LIMIT_TABLE is unset: the recipe AI operations have no rate limits"
            );
        }
        Ok(Self {
            limiter,
            per_user: Limit::from_env(
                env,
                "RECIPES_AI_RATE_LIMIT_PER_USER",
                "recipes-ai",
                DEFAULT_PER_USER,
            )?,
        })
    }

    /// Counts one AI operation of `user_id`.
    pub async fn admit(&self, user_id: &str) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        ratelimit::enforce(
            limiter,
            &[(&self.per_user, ClientKey::user(user_id))],
            WhenUnavailable::Refuse,
        )
        .await
    }
}

/// The documented 429 of a braked AI operation.
pub(crate) struct TooManyAiRequests;

impl IntoResponses for TooManyAiRequests {
    fn responses() -> BTreeMap<String, RefOr<OpenApiResponse>> {
        BTreeMap::from([platform::openapi::too_many_requests(
            "Too many AI requests by this user; retry after Retry-After seconds",
            "ErrorBody",
        )])
    }
}
