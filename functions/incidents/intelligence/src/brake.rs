//! The brake on what costs money: each analysis (a paid model call) is counted per signed-in
//! user, and so are retrieval's writes and searches (embeddings calls, and up to 60 index
//! transactions a runbook), after the input parsed (a 400 costs nothing) and before any work;
//! a spent limit is a 429 with `Retry-After`. When the limits table fails both are refused
//! (503): unguarded, the model is the bill.

use platform::aws::AwsClients;
use platform::ratelimit::{Brake, Rate, WhenUnavailable};
use platform::{ConfigError, Env};

/// The default limits per user (template parameters `IncidentsAiRateLimitPerUser`,
/// `IncidentsRagRateLimitPerUser`).
pub const DEFAULT_ANALYSES: &str = "10/60,200/86400";
pub const DEFAULT_RETRIEVAL: &str = "60/60,2000/86400";

/// `POST /api/v1/analyze`.
pub const ANALYSES: Rate = Rate {
    variable: "INCIDENTS_AI_RATE_LIMIT_PER_USER",
    name: "incidents-ai",
    default: DEFAULT_ANALYSES,
    when_unavailable: WhenUnavailable::Refuse,
};
/// A runbook added, a search, a query of analyses by text.
pub const RETRIEVAL: Rate = Rate {
    variable: "INCIDENTS_RAG_RATE_LIMIT_PER_USER",
    name: "incidents-rag",
    default: DEFAULT_RETRIEVAL,
    when_unavailable: WhenUnavailable::Refuse,
};

/// The intelligence function's brake: `RATE_LIMIT_TABLE` (unset: no limits, logged) and the
/// two rates' variables.
pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Brake, ConfigError> {
    Brake::from_env(
        env,
        aws,
        "incident analyses have no rate limits",
        &[ANALYSES, RETRIEVAL],
    )
}

platform::too_many_requests_response!(
    /// The documented 429 of a braked operation.
    pub(crate) struct TooManyRequests:
        "Too many requests of this kind by this user; retry after Retry-After seconds",
        "ErrorBody"
);
