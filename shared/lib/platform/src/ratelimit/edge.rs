//! The limits at the edge: the 429 or 503 a refused request gets. Who the client is comes
//! from [`crate::http::client_address`].

use super::{ClientKey, Limit, RateLimiter, Verdict};
use crate::error::ApiError;

/// What a route does when the limits table cannot answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenUnavailable {
    /// 503: the work behind the route costs too much to do unguarded (the paid model).
    Refuse,
    /// Serve the request (logged): refusing would lock every client out over a side table.
    Allow,
}

/// Counts the request against each `(limit, key)` in order: `Ok` to go on, a 429 with
/// `Retry-After` when one is exhausted, or per `when_unavailable` when the table fails.
pub async fn enforce(
    limiter: &RateLimiter,
    checks: &[(&Limit, ClientKey)],
    when_unavailable: WhenUnavailable,
) -> Result<(), ApiError> {
    for (limit, key) in checks {
        match limiter.check(limit, key).await {
            Ok(Verdict::Allowed) => {}
            Ok(Verdict::Limited { retry_after }) => {
                tracing::info!(
                    limit = limit.name(),
                    key = key.as_str(),
                    retry_after,
                    "rate limited"
                );
                return Err(ApiError::too_many_requests(retry_after));
            }
            Err(e) => {
                tracing::error!(limit = limit.name(), error = %e, "rate limit table failed");
                return match when_unavailable {
                    WhenUnavailable::Refuse => Err(ApiError::unavailable(
                        "The service is temporarily unavailable; try again shortly",
                    )),
                    WhenUnavailable::Allow => Ok(()),
                };
            }
        }
    }
    Ok(())
}
