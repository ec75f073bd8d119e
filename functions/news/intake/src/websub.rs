//! The WebSub callback of each source, `/websub/{sourceId}`: hubs verify subscriptions with a
//! GET and deliver new entries with a POST. No token: a verification only confirms what this
//! service asked for, and a delivery is authenticated by its `X-Hub-Signature` HMAC with the
//! source's secret.

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use news::responses::IdTooLong;
use news::websub::{MAX_CHALLENGE_CHARS, MAX_DELIVERY_BYTES};
use news::{Delivery, HubMode, SourceId, Verification};
use platform::openapi::ErrorBody;
use platform::{ApiError, Invalid};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;

/// The callback routes, relative to [`crate::PREFIX`]; deliveries may be as large as a feed.
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router.route(
        "/websub/{source_id}",
        get(verify)
            .post(deliver)
            .layer(DefaultBodyLimit::max(MAX_DELIVERY_BYTES)),
    )
}

/// A hub's verification of intent (WebSub 5.3).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct VerificationQuery {
    /// `subscribe`, `unsubscribe`, or `denied` (the hub refused the subscription).
    #[serde(rename = "hub.mode")]
    #[param(rename = "hub.mode", required = true, value_type = String, pattern = "^(subscribe|unsubscribe|denied)$")]
    mode: Option<String>,
    /// The topic (feed URL) the subscription is for.
    #[serde(rename = "hub.topic")]
    #[param(rename = "hub.topic", required = true, value_type = String, max_length = 2048)]
    topic: Option<String>,
    /// The string to echo (required but for `denied`).
    #[serde(rename = "hub.challenge")]
    #[param(rename = "hub.challenge", value_type = Option<String>, max_length = 1024)]
    challenge: Option<String>,
    /// The lease the hub grants, in seconds (for `subscribe`).
    #[serde(rename = "hub.lease_seconds")]
    #[param(rename = "hub.lease_seconds", value_type = Option<i64>, minimum = 1)]
    lease_seconds: Option<String>,
    /// Why the hub denied the subscription.
    #[serde(rename = "hub.reason")]
    #[param(rename = "hub.reason", value_type = Option<String>)]
    reason: Option<String>,
}

impl VerificationQuery {
    fn parse(self) -> Result<(HubMode, String, Option<String>, Option<i64>), Invalid> {
        let mode = match self.mode.as_deref() {
            Some("subscribe") => HubMode::Subscribe,
            Some("unsubscribe") => HubMode::Unsubscribe,
            Some("denied") => HubMode::Denied,
            Some(_) => {
                return Err(Invalid::field(
                    "hub.mode",
                    "must be subscribe, unsubscribe or denied",
                ))
            }
            None => return Err(Invalid::field("hub.mode", "is required")),
        };
        let topic = match self.topic {
            Some(t) if t.chars().count() > news::input::MAX_FEED_URL_CHARS => {
                return Err(Invalid::field(
                    "hub.topic",
                    "must be at most 2048 characters",
                ))
            }
            Some(t) if !t.trim().is_empty() => t,
            _ => return Err(Invalid::field("hub.topic", "is required")),
        };
        let challenge = match self.challenge {
            Some(c) if c.chars().count() > MAX_CHALLENGE_CHARS => {
                return Err(Invalid::field(
                    "hub.challenge",
                    format!("must be at most {MAX_CHALLENGE_CHARS} characters"),
                ))
            }
            Some(c) if !c.is_empty() => Some(c),
            _ if mode == HubMode::Denied => None,
            _ => return Err(Invalid::field("hub.challenge", "is required")),
        };
        let lease = match self.lease_seconds.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(raw) => match raw.parse::<i64>() {
                Ok(l) if l > 0 => Some(l),
                _ => {
                    return Err(Invalid::field(
                        "hub.lease_seconds",
                        "must be a positive whole number",
                    ))
                }
            },
        };
        if let Some(reason) = &self.reason {
            tracing::info!(reason = %reason.chars().take(200).collect::<String>(), "hub gave a reason");
        }
        Ok((mode, topic, challenge, lease))
    }
}

/// A hub verifies a subscription (or unsubscription) this service asked for, or says it
/// denied one. Confirmed: the challenge echoed as text; not asked for: 404.
#[utoipa::path(
    get,
    path = "/api/content/websub/{sourceId}",
    operation_id = "verifyWebSub",
    tag = "content",
    security(()),
    params(
        ("sourceId" = String, Path, max_length = 200, description = "The source the callback is for"),
        VerificationQuery,
    ),
    responses(
        (status = 200, description = "Confirmed: the `hub.challenge`, as sent", content_type = "text/plain", body = String),
        (status = 204, description = "A denial, recorded: the source is polled only"),
        (status = 400, description = "`hub.mode`, `hub.topic`, `hub.challenge` or `hub.lease_seconds` is missing or malformed (`details`: `field: reason`)", body = ErrorBody),
        (status = 404, description = "No such subscription was asked for (unknown source, another topic, or one that is not waiting)", body = ErrorBody),
        IdTooLong,
    )
)]
pub(crate) async fn verify(
    State(state): State<AppState>,
    Path(source_id): Path<String>,
    platform::http::Query(query): platform::http::Query<VerificationQuery>,
) -> Result<Response, ApiError> {
    let id = SourceId::parse("sourceId", source_id)?;
    let (mode, topic, challenge, lease) = query.parse()?;
    match state.intake.verify_push(&id, mode, &topic, lease).await? {
        Verification::Refused => Err(ApiError::not_found(
            "No subscription to this topic was asked for at this callback",
        )),
        Verification::Confirmed => match challenge {
            Some(challenge) => Ok((
                StatusCode::OK,
                [
                    (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
                    (header::CACHE_CONTROL, "no-store"),
                ],
                challenge,
            )
                .into_response()),
            None => Ok(StatusCode::NO_CONTENT.into_response()),
        },
    }
}

/// A hub delivers the topic's new content. Signed with the source's secret
/// (`X-Hub-Signature: sha256=...`; sha1, sha384 and sha512 too), it is stored like a poll's
/// entries (a repeat changes nothing); a missing or wrong signature, or a body that is not a
/// feed, is acknowledged all the same and nothing is stored (and it is logged).
#[utoipa::path(
    post,
    path = "/api/content/websub/{sourceId}",
    operation_id = "deliverWebSub",
    tag = "content",
    security(()),
    params(
        ("sourceId" = String, Path, max_length = 200, description = "The source the callback is for"),
        ("X-Hub-Signature" = Option<String>, Header, description = "`sha1=`, `sha256=`, `sha384=` or `sha512=` and the hex HMAC of the raw body with the subscription's secret (anything else is acknowledged and stores nothing)"),
    ),
    request_body(content = String, description = "The feed document (RSS, Atom or JSON Feed), at most 4 MiB", content_type = "application/atom+xml"),
    responses(
        (status = 202, description = "Acknowledged (stored when signed with the source's secret and a feed)"),
        (status = 410, description = "The source has no live subscription (gone, retired or unsubscribed): the hub should stop delivering", body = ErrorBody),
        (status = 413, description = "The body is larger than 4 MiB", body = ErrorBody),
        IdTooLong,
    )
)]
pub(crate) async fn deliver(
    State(state): State<AppState>,
    Path(source_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let id = SourceId::parse("sourceId", source_id)?;
    let signature = headers.get("x-hub-signature").and_then(|v| v.to_str().ok());
    match state.intake.deliver(&id, signature, &body).await? {
        // The error layer renders the bare status in the product's error shape.
        Delivery::Gone => Ok(StatusCode::GONE.into_response()),
        Delivery::Stored(_) | Delivery::Unsigned(_) | Delivery::Unreadable(_) => {
            Ok(StatusCode::ACCEPTED.into_response())
        }
    }
}
