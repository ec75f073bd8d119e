//! `POST /api/v1/integrations/pagerduty/enqueue`: the PagerDuty Events API v2 (`/v2/enqueue`)
//! for tools that speak it. The `routing_key` is an ingest key; a key bound to one service
//! sends that service's events, an unbound one the service `pagerduty`. Answered as
//! PagerDuty answers: 202 `{status, message, dedup_key}`, 400 `{status: "invalid event",
//! message, errors}` (an unknown routing key too), 429 over the key's limit.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use incidents::input::pagerduty::{parse_pagerduty, routing_key};
use incidents::keys::KeyHolder;
use platform::http::OwnErrorBody;
use platform::openapi::ErrorBody;
use platform::{ApiError, Clock, ErrorKind};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{deliver, key_holder, AppState, Sender};

pub const PATH: &str = "/api/v1/integrations/pagerduty/enqueue";
/// The largest event PagerDuty takes (512 KB).
pub const EVENT_BYTES: usize = 512 * 1024;
/// The service of events sent with a key bound to no service.
pub const DEFAULT_SERVICE: &str = "pagerduty";

/// An event of the PagerDuty Events API v2.
#[derive(Deserialize, ToSchema)]
#[allow(
    dead_code,
    reason = "the contract's shape of the body, which the domain parses"
)]
pub struct PagerDutyEvent {
    /// An ingest key of the platform (PagerDuty's integration key).
    #[schema(min_length = 1, max_length = 200, pattern = "\\S")]
    routing_key: String,
    #[schema(pattern = "^(trigger|acknowledge|resolve)$", example = "trigger")]
    event_action: String,
    /// The incident's key: required to acknowledge or resolve; a trigger without one gets
    /// one, answered.
    #[schema(max_length = 255)]
    dedup_key: Option<String>,
    /// Required to trigger.
    payload: Option<PagerDutyPayload>,
    images: Option<Vec<PagerDutyImage>>,
    links: Option<Vec<PagerDutyLink>>,
    client: Option<String>,
    client_url: Option<String>,
}

/// What a trigger says of the problem.
#[derive(Deserialize, ToSchema)]
#[allow(
    dead_code,
    reason = "the contract's shape of the body, which the domain parses"
)]
pub struct PagerDutyPayload {
    /// The log's message and the incident's title.
    #[schema(min_length = 1, max_length = 1024, pattern = "\\S")]
    summary: String,
    #[schema(min_length = 1, max_length = 1024, pattern = "\\S")]
    source: String,
    /// critical is FATAL, error ERROR, warning WARN, info INFO.
    #[schema(pattern = "^(critical|error|warning|info)$")]
    severity: String,
    /// ISO 8601 (`+0000` offsets too), at most a day ahead; absent: when it was received.
    #[schema(format = DateTime)]
    timestamp: Option<String>,
    #[schema(max_length = 1024)]
    component: Option<String>,
    #[schema(max_length = 1024)]
    group: Option<String>,
    #[schema(max_length = 1024)]
    class: Option<String>,
    /// Kept as JSON in the log's attributes.
    #[schema(value_type = Option<Object>)]
    custom_details: Option<serde_json::Value>,
}

#[derive(Deserialize, ToSchema)]
#[allow(
    dead_code,
    reason = "the contract's shape of the body, which the domain parses"
)]
pub struct PagerDutyImage {
    src: String,
    href: Option<String>,
    alt: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[allow(
    dead_code,
    reason = "the contract's shape of the body, which the domain parses"
)]
pub struct PagerDutyLink {
    href: String,
    text: Option<String>,
}

/// PagerDuty's answer to an accepted event.
#[derive(Serialize, ToSchema)]
pub struct PagerDutyProcessed {
    #[schema(example = "success")]
    status: &'static str,
    #[schema(example = "Event processed")]
    message: &'static str,
    dedup_key: String,
}

/// PagerDuty's answer to an event it refuses.
#[derive(Serialize, ToSchema)]
pub struct PagerDutyRefused {
    #[schema(example = "invalid event")]
    status: &'static str,
    #[schema(example = "Event object is invalid")]
    message: &'static str,
    errors: Vec<String>,
}

/// PagerDuty's answer over the limit.
#[derive(Serialize, ToSchema)]
pub struct PagerDutyThrottled {
    #[schema(example = "throttle event")]
    status: &'static str,
    message: &'static str,
}

fn refused(errors: Vec<String>) -> Response {
    own((
        StatusCode::BAD_REQUEST,
        axum::Json(PagerDutyRefused {
            status: "invalid event",
            message: "Event object is invalid",
            errors,
        }),
    ))
}

fn own(response: impl IntoResponse) -> Response {
    let mut response = response.into_response();
    response.extensions_mut().insert(OwnErrorBody);
    response
}

/// The service a key's events are of: its one bound service, `pagerduty` when unbound.
fn service_of(holder: &KeyHolder) -> Result<String, Vec<String>> {
    match holder {
        KeyHolder::Configured { .. } => Ok(DEFAULT_SERVICE.to_string()),
        KeyHolder::Issued(key) => match key.services.as_slice() {
            [] => Ok(DEFAULT_SERVICE.to_string()),
            [one] => Ok(one.clone()),
            _ => Err(vec![
                "This routing key is bound to several services: PagerDuty events need a key bound to one service (or to none)".to_string(),
            ]),
        },
    }
}

/// Enqueues a PagerDuty Events API v2 event: `trigger` opens or updates the incident of its
/// `dedup_key`, `acknowledge` and `resolve` move it (nothing when there is none, or it is
/// there already).
#[utoipa::path(
    post,
    path = "/api/v1/integrations/pagerduty/enqueue",
    operation_id = "enqueuePagerDutyEvent",
    tag = "incidents",
    request_body = PagerDutyEvent,
    security(()),
    responses(
        (status = 202, description = "The event is on the ingest queue", body = PagerDutyProcessed),
        (status = 400, description = "An invalid event, or a routing key that is no ingest key (`errors` say why)", body = PagerDutyRefused),
        (status = 413, description = "The body is over 6 MiB", body = ErrorBody),
        (status = 429, description = "The routing key's rate limit is spent; retry after Retry-After seconds", body = PagerDutyThrottled,
            headers(("Retry-After" = u32, description = "Seconds until the spent limit's window ends"))),
        (status = 503, description = "The ingest queue did not take the event, or the key could not be checked: retry", body = ErrorBody),
    )
)]
pub async fn enqueue(State(state): State<AppState>, body: Bytes) -> Response {
    match accept(&state, &body).await {
        Ok(response) | Err(response) => response,
    }
}

async fn accept(state: &AppState, body: &Bytes) -> Result<Response, Response> {
    if body.len() > EVENT_BYTES {
        return Err(refused(vec![format!(
            "Event object is too large (at most {} KB)",
            EVENT_BYTES / 1024
        )]));
    }
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|_| refused(vec!["Event object is not valid JSON".to_string()]))?;
    if !value.is_object() {
        return Err(refused(vec![
            "Event object must be a JSON object".to_string()
        ]));
    }
    let key = routing_key(&value).map_err(refused)?;
    let holder = key_holder(state, &key)
        .await
        .map_err(IntoResponse::into_response)?
        .ok_or_else(|| refused(vec!["Invalid routing key".to_string()]))?;
    if let Err(error) = state.admit(&holder).await {
        return Err(throttled(error));
    }
    let now = Clock::system().now();
    let event = parse_pagerduty(&value, now, || uuid::Uuid::new_v4().simple().to_string())
        .map_err(refused)?;
    let service = service_of(&holder).map_err(refused)?;
    let dedup_key = event.dedup_key.clone();
    deliver(
        state,
        &Sender::Key(holder),
        vec![event.into_log(&service, now)],
        false,
        now,
    )
    .await
    .map_err(IntoResponse::into_response)?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(PagerDutyProcessed {
            status: "success",
            message: "Event processed",
            dedup_key,
        }),
    )
        .into_response())
}

/// A spent limit as PagerDuty answers it (429); any other refusal as it is.
fn throttled(error: ApiError) -> Response {
    if error.kind != ErrorKind::TooManyRequests {
        return error.into_response();
    }
    let mut response = own((
        StatusCode::TOO_MANY_REQUESTS,
        axum::Json(PagerDutyThrottled {
            status: "throttle event",
            message: "Requests for this routing key are arriving too quickly. Please retry later.",
        }),
    ));
    if let Some(seconds) = error.retry_after() {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}
