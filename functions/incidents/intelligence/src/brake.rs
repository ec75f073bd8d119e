//! The brake on what costs money: each analysis (a paid model call) is counted per signed-in
//! user, and so are retrieval's writes and searches (embeddings calls, and up to 60 index
//! transactions a runbook), after the input parsed (a 400 costs nothing) and before any work;
//! a spent limit is a 429 with `Retry-After`. When the limits table fails both are refused
//! (503): unguarded, the model is the bill.

use std::collections::BTreeMap;

use platform::aws::AwsClients;
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, WhenUnavailable};
use platform::{ApiError, ConfigError, Env};
use utoipa::openapi::{RefOr, Response as OpenApiResponse};
use utoipa::IntoResponses;

/// The default limits per user (template parameters `IncidentsAiRateLimitPerUser`,
/// `IncidentsRagRateLimitPerUser`).
pub const DEFAULT_ANALYSES: &str = "10/60,200/86400";
pub const DEFAULT_RETRIEVAL: &str = "60/60,2000/86400";

/// What a request is, for its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// `POST /api/v1/analyze`.
    Analysis,
    /// A runbook added, a search, a query of analyses by text.
    Retrieval,
}

pub struct Brake {
    limiter: Option<RateLimiter>,
    analyses: Limit,
    retrieval: Limit,
}

impl Brake {
    /// `RATE_LIMIT_TABLE` (unset: no limits, logged), `INCIDENTS_AI_RATE_LIMIT_PER_USER`,
    /// `INCIDENTS_RAG_RATE_LIMIT_PER_USER`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!("RATE_LIMIT_TABLE is unset: incident analyses have no rate limits");
        }
        Ok(Self {
            limiter,
            analyses: Limit::from_env(
                env,
                "INCIDENTS_AI_RATE_LIMIT_PER_USER",
                "incidents-ai",
                DEFAULT_ANALYSES,
            )?,
            retrieval: Limit::from_env(
                env,
                "INCIDENTS_RAG_RATE_LIMIT_PER_USER",
                "incidents-rag",
                DEFAULT_RETRIEVAL,
            )?,
        })
    }

    /// Counts one `work` of `user_id`.
    pub async fn admit(&self, work: Work, user_id: &str) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        let limit = match work {
            Work::Analysis => &self.analyses,
            Work::Retrieval => &self.retrieval,
        };
        ratelimit::enforce(
            limiter,
            &[(limit, ClientKey::user(user_id))],
            WhenUnavailable::Refuse,
        )
        .await
    }
}

/// The documented 429 of a braked operation.
pub(crate) struct TooManyRequests;

impl IntoResponses for TooManyRequests {
    fn responses() -> BTreeMap<String, RefOr<OpenApiResponse>> {
        BTreeMap::from([platform::openapi::too_many_requests(
            "Too many requests of this kind by this user; retry after Retry-After seconds",
            "ErrorBody",
        )])
    }
}
