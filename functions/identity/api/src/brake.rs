//! The brake on password guessing: each login attempt is counted per client address and per
//! username tried, in the limits table, before the password is checked; a spent limit is a
//! 429 with `Retry-After`.
//!
//! When the limits table fails, logins go on (logged): refusing would lock every reader out
//! over a side table, while each guess still costs an Argon2id hash and the stage's login
//! throttle still holds. (The AI routes choose the other way: see the assistant function.)

use axum::http::Extensions;
use platform::aws::AwsClients;
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, WhenUnavailable};
use platform::{ApiError, ConfigError, Env};

/// The default limits (template parameters `LoginRateLimitPer*`): 20 a minute and 200 an hour
/// from one address; 5 a minute and 20 an hour on one username.
pub const DEFAULT_PER_ADDRESS: &str = "20/60,200/3600";
pub const DEFAULT_PER_USERNAME: &str = "5/60,20/3600";

pub struct LoginBrake {
    limiter: Option<RateLimiter>,
    per_address: Limit,
    per_username: Limit,
}

impl LoginBrake {
    /// `RATE_LIMIT_TABLE` (unset: no brake, logged), `LOGIN_RATE_LIMIT_PER_ADDRESS`,
    /// `LOGIN_RATE_LIMIT_PER_USERNAME`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!("RATE_LIMIT_TABLE is unset: logins have no rate limits");
        }
        Ok(Self {
            limiter,
            per_address: Limit::from_env(
                env,
                "LOGIN_RATE_LIMIT_PER_ADDRESS",
                "login-address",
                DEFAULT_PER_ADDRESS,
            )?,
            per_username: Limit::from_env(
                env,
                "LOGIN_RATE_LIMIT_PER_USERNAME",
                "login-username",
                DEFAULT_PER_USERNAME,
            )?,
        })
    }

    /// Counts one attempt on `username` (its case-insensitive form) from the request's client.
    pub async fn admit(&self, extensions: &Extensions, username: &str) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        // Outside API Gateway (a router in a test) every caller is one client.
        let address =
            platform::http::client_address(extensions).unwrap_or_else(|| "unknown".into());
        let checks = [
            (&self.per_address, ClientKey::address(&address)),
            (&self.per_username, ClientKey::username(username)),
        ];
        ratelimit::enforce(limiter, &checks, WhenUnavailable::Allow).await
    }
}
