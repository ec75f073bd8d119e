//! The brake on feed submissions: each `POST /sources` makes the platform fetch a site the
//! caller chose, so each signed-in user may submit only so many a window (the template's
//! `SourceSubmissionRateLimit`), counted in the limits table before anything is fetched.
//!
//! When the limits table fails, submissions are refused (503): unguarded, the fetches would
//! go wherever a script points them.

use platform::aws::AwsClients;
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, WhenUnavailable};
use platform::{ApiError, ConfigError, Env};

/// The default limit: 10 a minute and 100 a day per user.
pub const DEFAULT_PER_USER: &str = "10/60,100/86400";

pub struct SubmissionBrake {
    limiter: Option<RateLimiter>,
    per_user: Limit,
}

impl SubmissionBrake {
    /// `RATE_LIMIT_TABLE` (unset: no brake, logged) and `SOURCE_SUBMISSION_RATE_LIMIT`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!("RATE_LIMIT_TABLE is unset: feed submissions have no rate limit");
        }
        Ok(Self {
            limiter,
            per_user: Limit::from_env(
                env,
                "SOURCE_SUBMISSION_RATE_LIMIT",
                "source-submission",
                DEFAULT_PER_USER,
            )?,
        })
    }

    /// Counts one submission by `user_id`.
    pub async fn admit(&self, user_id: &str) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        let checks = [(&self.per_user, ClientKey::user(user_id))];
        ratelimit::enforce(limiter, &checks, WhenUnavailable::Refuse).await
    }
}
