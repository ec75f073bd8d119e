//! The brake on the paid model: every operation is counted per client in the limits table
//! before it can reach the cache or the model. A signed-in reader (a valid user token) is
//! counted as a user, and their address against a ceiling for all users behind it (accounts
//! made in bulk); anyone else by address, more tightly. The routes stay public: a bad token
//! is counted as anonymous, not refused.
//!
//! When the limits table fails the operation is refused (503): unguarded, the model is the
//! bill.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use platform::aws::AwsClients;
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, WhenUnavailable};
use platform::tokens::{TokenVerifier, ROLE_USER};
use platform::{ConfigError, Env};

/// The default limits (template parameters `AiRateLimit*`).
pub const DEFAULT_ANONYMOUS: &str = "10/60,100/86400";
pub const DEFAULT_PER_USER: &str = "20/60,300/86400";
pub const DEFAULT_PER_ADDRESS: &str = "60/60,1000/86400";
/// Every client together: the model calls the platform pays for in a minute.
pub const DEFAULT_GLOBAL: &str = "600/60";
/// Items the global budget is counted over: every AI request writes one.
const GLOBAL_SHARDS: u32 = 8;

/// The limits of the AI operations, built once per cold start.
pub struct AiLimits {
    limiter: Option<RateLimiter>,
    /// `None` without `JWT_PUBLIC_KEY`: every client is anonymous.
    verifier: Option<TokenVerifier>,
    anonymous: Limit,
    per_user: Limit,
    per_address: Limit,
    /// The ceiling no crowd of clients lifts, however many addresses or accounts it has.
    global: Limit,
}

impl AiLimits {
    /// `RATE_LIMIT_TABLE` (unset: no limits, logged), `AI_RATE_LIMIT_ANONYMOUS`,
    /// `AI_RATE_LIMIT_PER_USER`, `AI_RATE_LIMIT_PER_ADDRESS`, `AI_RATE_LIMIT_GLOBAL`, and the
    /// token settings.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!("RATE_LIMIT_TABLE is unset: the AI operations have no rate limits");
        }
        let verifier = match TokenVerifier::from_env(env, &[]) {
            Ok(verifier) => Some(verifier),
            Err(ConfigError::Missing(_)) => {
                tracing::warn!("JWT_PUBLIC_KEY is unset: every AI client is limited as anonymous");
                None
            }
            Err(e) => return Err(e),
        };
        Ok(Self {
            limiter,
            verifier,
            anonymous: Limit::from_env(
                env,
                "AI_RATE_LIMIT_ANONYMOUS",
                "ai-anonymous",
                DEFAULT_ANONYMOUS,
            )?,
            per_user: Limit::from_env(env, "AI_RATE_LIMIT_PER_USER", "ai-user", DEFAULT_PER_USER)?,
            per_address: Limit::from_env(
                env,
                "AI_RATE_LIMIT_PER_ADDRESS",
                "ai-address",
                DEFAULT_PER_ADDRESS,
            )?,
            global: Limit::from_env(env, "AI_RATE_LIMIT_GLOBAL", "ai-global", DEFAULT_GLOBAL)?
                .sharded(GLOBAL_SHARDS),
        })
    }

    /// The signed-in user's id, when the request carries a valid user token.
    fn user(&self, headers: &HeaderMap) -> Option<String> {
        let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
        let (scheme, token) = value.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        let claims = self.verifier.as_ref()?.verify(token.trim()).ok()?;
        claims.has_role(ROLE_USER).then_some(claims.sub)
    }
}

/// When the request reached the function: the model's budget through the API counts from
/// here, the limit check included.
#[derive(Clone, Copy, Debug)]
pub struct Arrival(pub Instant);

/// The middleware in front of the operations: a 429 (or 503) instead of the handler when a
/// limit is spent.
pub async fn brake(
    State(limits): State<Arc<AiLimits>>,
    mut request: Request,
    next: Next,
) -> Response {
    request.extensions_mut().insert(Arrival(Instant::now()));
    let Some(limiter) = &limits.limiter else {
        return next.run(request).await;
    };
    // Outside API Gateway and function URLs (a router in a test) every caller is one client.
    let address = platform::http::client_address(request.extensions())
        .unwrap_or_else(|| "unknown".to_string());
    let address = ClientKey::address(&address);
    // The global budget last: a client already over its own limit does not spend it.
    let checks = match limits.user(request.headers()) {
        Some(user) => vec![
            (&limits.per_user, ClientKey::user(&user)),
            (&limits.per_address, address),
            (&limits.global, ClientKey::everyone()),
        ],
        None => vec![
            (&limits.anonymous, address),
            (&limits.global, ClientKey::everyone()),
        ],
    };
    match ratelimit::enforce(limiter, &checks, WhenUnavailable::Refuse).await {
        Ok(()) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}
