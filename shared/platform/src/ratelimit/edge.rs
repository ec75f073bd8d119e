//! The limits at the edge: who the client is (from the request context API Gateway or the
//! function URL gives the function), and the 429 or 503 a refused request gets.

use axum::http::Extensions;
use lambda_http::request::RequestContext;

use super::{ClientKey, Limit, RateLimiter, Verdict};
use crate::error::ApiError;

/// The client's address as API Gateway or the function URL saw it (`requestContext.http.
/// sourceIp`). Never a header: `X-Forwarded-For` is whatever the client wrote. `None` outside
/// both (a request built in a test).
pub fn client_address(extensions: &Extensions) -> Option<String> {
    match extensions.get::<RequestContext>()? {
        RequestContext::ApiGatewayV2(context) => context
            .http
            .source_ip
            .as_deref()
            .map(str::trim)
            .filter(|ip| !ip.is_empty())
            .map(str::to_string),
        _ => None,
    }
}

/// True when the request came through a function URL (`<id>.lambda-url.<region>.on.aws`)
/// rather than the HTTP API.
pub fn is_function_url(extensions: &Extensions) -> bool {
    match extensions.get::<RequestContext>() {
        Some(RequestContext::ApiGatewayV2(context)) => context
            .domain_name
            .as_deref()
            .is_some_and(|d| d.contains(".lambda-url.")),
        _ => false,
    }
}

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
