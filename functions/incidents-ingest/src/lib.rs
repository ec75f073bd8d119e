//! The incidents ingestion function: `POST /api/v1/logs` of Document C's incident-log
//! platform. It checks one log or a batch of up to 500, gives each its id, and answers 202
//! `{accepted, ids}` only once every log is on the ingest queue (`incidents::queue`: many
//! logs per message, SendMessageBatch calls of at most 10 messages and 256 KiB); a queue
//! that failed or refused an entry is a 503, never a 202. The `incidents-processor` function
//! stores them, keeps the timeline and evaluates the alert rules.
//!
//! Authorised by an ingest key in `X-Api-Key` (one of `INGEST_API_KEYS`, compared in constant
//! time) or a user token; neither is a 401 in Document A's error body.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRef, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use incidents::model::IngestAccepted;
use incidents::IngestQueue;
use platform::auth::MaybeUser;
use platform::aws::AwsClients;
use platform::openapi::{ErrorBody, SecuritySchemes};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Clock, Env, ErrorStyle};
use subtle::ConstantTimeEq;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::OpenApi;

/// The largest request body: 500 logs of several KiB each.
pub const BODY_LIMIT: usize = 6 * 1024 * 1024;
/// The header of ingest keys.
pub const API_KEY_HEADER: &str = "x-api-key";
/// The OpenAPI name of the ingest key scheme.
pub const INGEST_KEY_SCHEME: &str = "ingestApiKey";

#[derive(Clone)]
pub struct AppState {
    queue: IngestQueue,
    verifier: Arc<TokenVerifier>,
    keys: Arc<Vec<String>>,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment (`INGEST_QUEUE_URL`,
/// `INGEST_API_KEYS`): what a cold start does. It reads no table.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let queue = IngestQueue::from_env(&env, aws.sqs())?;
    app(queue, &env)
}

/// The router over a given queue.
pub fn app(queue: IngestQueue, env: &Env) -> Result<Router, BoxError> {
    let state = AppState {
        queue,
        verifier: Arc::new(TokenVerifier::from_env(env, &[])?),
        keys: Arc::new(env.list("INGEST_API_KEYS")),
    };
    let routes = Router::new()
        .route("/api/v1/logs", post(ingest))
        .with_state(state);
    Ok(platform::http::finish(
        routes,
        ErrorStyle::Detailed { strip_prefix: "" },
        BODY_LIMIT,
    ))
}

struct IngestKeyScheme;

impl utoipa::Modify for IngestKeyScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            INGEST_KEY_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Api-Key",
                "An ingest key of the incident-log platform (INGEST_API_KEYS).",
            ))),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    paths(ingest),
    components(schemas(IngestAccepted, LogsRequest, LogBatch, LogSubmission, ErrorBody)),
    modifiers(&SecuritySchemes, &IngestKeyScheme),
    tags((name = "incidents", description = "Document C's incident-log platform: logs, incidents, alerts, logbook"))
)]
struct IngestApi;

/// The ingestion function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    IngestApi::openapi()
}

fn key_matches(keys: &[String], presented: &str) -> bool {
    let mut found = false;
    for key in keys {
        found |= bool::from(key.as_bytes().ct_eq(presented.as_bytes()));
    }
    found
}

/// One log as a client sends it.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct LogSubmission {
    /// 1 to 100 characters, not blank.
    #[schema(min_length = 1, max_length = 100)]
    service_name: String,
    /// Free text (DEPLOYMENT_LOG, APPLICATION_LOG, ...), 1 to 100 characters, not blank.
    #[schema(rename = "type", min_length = 1, max_length = 100)]
    log_type: String,
    severity: incidents::model::Severity,
    /// 1 to 16384 characters, not blank.
    #[schema(min_length = 1, max_length = 16384)]
    log_content: String,
    /// When it happened: RFC 3339, in the year 2000 or later and at most 24 hours ahead;
    /// absent: when it was received.
    #[schema(format = DateTime)]
    timestamp: Option<String>,
}

/// 1 to 500 logs at once.
#[derive(utoipa::ToSchema)]
#[schema(min_items = 1, max_items = 500)]
#[allow(dead_code)]
struct LogBatch(Vec<LogSubmission>);

/// One log, or a batch of 1 to 500.
#[derive(utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum LogsRequest {
    One(LogSubmission),
    Batch(LogBatch),
}

/// Accepts one log or a batch of up to 500 for the timeline, incidents and alerts.
#[utoipa::path(
    post,
    path = "/api/v1/logs",
    operation_id = "ingestLogs",
    tag = "incidents",
    request_body = LogsRequest,
    security(("ingestApiKey" = []), ("bearerJwt" = [])),
    responses(
        (status = 202, description = "Every log is on the ingest queue; ids in the order sent", body = IngestAccepted),
        (status = 400, description = "A bad log (`details` name each field, `[i].field` in a batch)", body = ErrorBody),
        (status = 401, description = "No valid ingest key or user token", body = ErrorBody),
        (status = 413, description = "The body is over 6 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        (status = 503, description = "The ingest queue did not take every log: nothing is acknowledged, retry", body = ErrorBody),
    )
)]
async fn ingest(
    State(state): State<AppState>,
    headers: HeaderMap,
    user: MaybeUser,
    body: Bytes,
) -> Result<(StatusCode, axum::Json<IngestAccepted>), ApiError> {
    let by_key = headers
        .get(API_KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|k| key_matches(&state.keys, k.trim()));
    if !by_key && user.0.is_none() {
        return Err(ApiError::unauthorized(
            "An ingest key (X-Api-Key) or a user token is required",
        ));
    }
    check_content_type(&headers)?;
    let value: serde_json::Value = platform::http::parse_json(&body)?;
    let now = Clock::system().now();
    let inputs = incidents::input::parse_logs(&value, now).map_err(ApiError::from)?;
    let logs = incidents::service::assign(inputs, now);
    match state.queue.send_logs(&logs).await {
        Ok(messages) => {
            tracing::info!(logs = logs.len(), messages, "logs queued");
            Ok((
                StatusCode::ACCEPTED,
                axum::Json(IngestAccepted {
                    accepted: logs.len(),
                    ids: logs.into_iter().map(|l| l.id).collect(),
                }),
            ))
        }
        Err(error) => {
            tracing::warn!(%error, logs = logs.len(), "logs not queued");
            Err(ApiError::unavailable(
                "The logs could not be queued; none is acknowledged, retry",
            ))
        }
    }
}

fn check_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(axum::http::header::CONTENT_TYPE) else {
        return Ok(());
    };
    let mime = value
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if mime.is_empty()
        || mime == "application/json"
        || mime.ends_with("+json")
        || mime == "text/plain"
    {
        Ok(())
    } else {
        Err(ApiError::new(
            platform::ErrorKind::UnsupportedMediaType,
            format!("Content type {mime} is not supported; send application/json"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_whole() {
        let keys = vec!["local-ingest-key".to_string()];
        assert!(key_matches(&keys, "local-ingest-key"));
        assert!(!key_matches(&keys, "local-ingest"));
        assert!(!key_matches(&[], ""));
    }
}
