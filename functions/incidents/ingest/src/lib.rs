//! The incidents ingestion function: `POST /api/v1/logs` of the incident platform's
//! platform. It checks one log or a batch of up to 500, gives each its id, scrubs each
//! `logContent` of secrets (the analysis's redaction), and answers 202 `{accepted, ids}` only
//! once every log is on the ingest queue (`incidents::queue`: many logs per message,
//! SendMessageBatch calls of at most 10 messages and 256 KiB); a queue that failed or
//! refused an entry is a 503, never a 202. The `incidents-processor` function stores them,
//! keeps the timeline and evaluates the alert rules.
//!
//! Authorised by an ingest key in `X-Api-Key` (`incidents::keys`: issued by an admin and
//! stored hashed, or given at deploy time in `INGEST_API_KEYS`; compared by hash in constant
//! time) or an OPERATOR's (or ADMIN's) token, for manual tests. Neither is a 401, a plain
//! USER's token a 403, a key bound to services that the batch goes beyond a 403. Each key is
//! counted against its own rate limit in `RATE_LIMIT_TABLE` (one UpdateItem per request; a
//! spent limit is a 429 with `Retry-After`); an issued key costs one more GetItem.

mod alertmanager;
mod loki;
mod otlp;
mod pagerduty;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{FromRef, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use incidents::input::{LogBatch, LogSubmission, LogsRequest};
use incidents::keys::{ConfiguredKeys, IngestKeys, KeyHolder, KeyRateLimit, LAST_USED_EVERY};
use incidents::model::IngestAccepted;
use incidents::IngestQueue;
use platform::auth::MaybeUser;
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::openapi::{ErrorBody, SecuritySchemes};
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, Rule, WhenUnavailable};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Clock, Env, ErrorStyle};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{RefOr, Response as OpenApiResponse};
use utoipa::{IntoResponses, OpenApi};

/// The largest request body: 500 logs of several KiB each.
pub const BODY_LIMIT: usize = 6 * 1024 * 1024;
/// The header of ingest keys.
pub const API_KEY_HEADER: &str = "x-api-key";
/// The OpenAPI name of the ingest key scheme.
pub const INGEST_KEY_SCHEME: &str = "ingestApiKey";
/// The OpenAPI names of an ingest key given as shippers give it: the Basic auth password,
/// or a Bearer token (the Loki push and OTLP routes).
pub const INGEST_BASIC_SCHEME: &str = "ingestBasic";
pub const INGEST_BEARER_SCHEME: &str = "ingestBearer";
/// The rate limit's name in the limits table.
const KEY_LIMIT: &str = "ingest-key";
/// Items one key's count is spread over: a key sending 2,000 requests a second (1M logs)
/// writes each 250 times a second, a quarter of a partition.
const KEY_LIMIT_SHARDS: u32 = 8;

#[derive(Clone)]
pub struct AppState {
    queue: IngestQueue,
    loki: Arc<incidents::input::loki::LokiConfig>,
    verifier: Arc<TokenVerifier>,
    configured: Arc<ConfiguredKeys>,
    issued: IngestKeys,
    limiter: Option<RateLimiter>,
    /// When this instance last wrote each issued key's `lastUsed`.
    touched: Arc<Mutex<HashMap<String, Instant>>>,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment (`INGEST_QUEUE_URL`,
/// `INGEST_API_KEYS`, `INCIDENTS_TABLE` for issued keys, `RATE_LIMIT_TABLE` and
/// `INGEST_KEY_RATE_LIMIT`): what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let queue = IngestQueue::from_env(&env, aws.sqs())?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let issued = IngestKeys::new(
        Table::from_env(&env, &aws, "INCIDENTS_TABLE")?,
        Clock::system(),
        default_key_limit(&env)?,
    );
    let limiter = RateLimiter::from_env(&env, &aws);
    if limiter.is_none() {
        tracing::warn!("RATE_LIMIT_TABLE is unset: ingest keys have no rate limits");
    }
    app(queue, verifier, issued, limiter, &env)
}

/// `INGEST_KEY_RATE_LIMIT` (`COUNT/SECONDS`): the limit of the deployment's keys.
pub fn default_key_limit(env: &Env) -> Result<KeyRateLimit, platform::ConfigError> {
    KeyRateLimit::parse(
        env.get("INGEST_KEY_RATE_LIMIT")
            .unwrap_or(incidents::keys::DEFAULT_RATE_LIMIT),
    )
    .map_err(|reason| platform::ConfigError::Invalid {
        name: "INGEST_KEY_RATE_LIMIT".to_string(),
        reason,
    })
}

/// The router over given services.
pub fn app(
    queue: IngestQueue,
    verifier: TokenVerifier,
    issued: IngestKeys,
    limiter: Option<RateLimiter>,
    env: &Env,
) -> Result<Router, BoxError> {
    let state = AppState {
        queue,
        loki: Arc::new(incidents::input::loki::LokiConfig::from_list(
            &env.list("LOKI_SERVICE_LABELS"),
        )),
        verifier: Arc::new(verifier),
        configured: Arc::new(ConfiguredKeys::new(&env.list("INGEST_API_KEYS"))),
        issued,
        limiter,
        touched: Arc::new(Mutex::new(HashMap::new())),
    };
    let routes = Router::new()
        .route("/api/v1/logs", post(ingest))
        .route(alertmanager::PATH, post(alertmanager::receive))
        .route(pagerduty::PATH, post(pagerduty::enqueue))
        .route(loki::PATH, post(loki::push))
        .route(otlp::PATH, post(otlp::export))
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
                "An ingest key of the incident-log platform: issued by an admin \
                 (POST /api/v1/ingest/keys) or given at deploy time (IngestApiKeys).",
            ))),
        );
        components.add_security_scheme(
            INGEST_BASIC_SCHEME,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Basic)
                    .description(Some(
                        "An ingest key as the password (any user name): how Promtail, Alloy, \
                         Fluent Bit and Vector send it to a Loki push or OTLP route, and \
                         Alertmanager's basic_auth.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            INGEST_BEARER_SCHEME,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "An ingest key as a Bearer token, at the Loki push, OTLP and Alertmanager \
                         routes (Alertmanager's http_config.authorization).",
                    ))
                    .build(),
            ),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    paths(ingest, loki::push, otlp::export, alertmanager::receive, pagerduty::enqueue),
    components(schemas(
        IngestAccepted,
        LogsRequest,
        LogBatch,
        LogSubmission,
        ErrorBody,
        Protobuf,
        loki::LokiPush,
        loki::LokiStream,
        otlp::ExportLogsServiceRequest,
        otlp::ExportLogsServiceResponse,
        otlp::ExportLogsPartialSuccess,
        otlp::RpcStatus,
        alertmanager::AlertmanagerNotification,
        alertmanager::AlertmanagerAlert,
        pagerduty::PagerDutyEvent,
        pagerduty::PagerDutyPayload,
        pagerduty::PagerDutyImage,
        pagerduty::PagerDutyLink,
        pagerduty::PagerDutyProcessed,
        pagerduty::PagerDutyRefused,
        pagerduty::PagerDutyThrottled
    )),
    modifiers(&SecuritySchemes, &IngestKeyScheme),
    tags((name = "incidents", description = "The incident platform: logs, incidents, alerts, logbook"))
)]
struct IngestApi;

/// The ingestion function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    IngestApi::openapi()
}

/// The documented 429 of a key whose limit is spent.
pub(crate) struct KeyLimited;

impl IntoResponses for KeyLimited {
    fn responses() -> std::collections::BTreeMap<String, RefOr<OpenApiResponse>> {
        std::collections::BTreeMap::from([platform::openapi::too_many_requests(
            "This ingest key's rate limit is spent; retry after Retry-After seconds",
            "ErrorBody",
        )])
    }
}

/// Who is ingesting.
pub(crate) enum Sender {
    Key(KeyHolder),
    Operator,
}

/// The ingest key `presented`, when it is one (configured or issued).
pub(crate) async fn key_holder(
    state: &AppState,
    presented: &str,
) -> Result<Option<KeyHolder>, ApiError> {
    if let Some(holder) = state.configured.find(presented) {
        return Ok(Some(holder));
    }
    match state.issued.find(presented).await {
        Ok(found) => Ok(found),
        Err(error) if error.is_unavailable() => {
            tracing::warn!(%error, "ingest keys unreadable");
            Err(ApiError::unavailable(
                "Ingest keys cannot be checked right now; retry",
            ))
        }
        Err(error) => Err(ApiError::internal("ingest keys", error)),
    }
}

/// The key a shipper presents as its clients send one: `X-Api-Key`, the password of Basic
/// auth (any user name: Promtail, Alloy, Fluent Bit, Vector) or a Bearer token.
pub(crate) fn shipper_key(headers: &HeaderMap) -> Option<String> {
    use base64::Engine;
    if let Some(key) = headers
        .get(API_KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty())
    {
        return Some(key.to_string());
    }
    let authorization = headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .trim();
    let (scheme, credentials) = authorization.split_once(' ')?;
    let credentials = credentials.trim();
    if scheme.eq_ignore_ascii_case("bearer") {
        return Some(credentials.to_string()).filter(|k| !k.is_empty());
    }
    if scheme.eq_ignore_ascii_case("basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(credentials)
            .ok()?;
        let text = String::from_utf8(decoded).ok()?;
        let (_, password) = text.split_once(':')?;
        return Some(password.to_string()).filter(|k| !k.is_empty());
    }
    None
}

/// A shipper's ingest key (see [`shipper_key`]), counted against its rate limit: a missing
/// or unknown key is a 401 (shippers carry no user token).
pub(crate) async fn shipper(state: &AppState, headers: &HeaderMap) -> Result<Sender, ApiError> {
    let Some(presented) = shipper_key(headers) else {
        return Err(ApiError::unauthorized(
            "An ingest key is required: as the Basic auth password, a Bearer token or X-Api-Key",
        ));
    };
    let Some(holder) = key_holder(state, &presented).await? else {
        return Err(ApiError::unauthorized("This ingest key is not valid"));
    };
    state.admit(&holder).await?;
    Ok(Sender::Key(holder))
}

/// The key in `X-Api-Key` when it is one, else an OPERATOR's (or ADMIN's) token.
async fn sender(
    state: &AppState,
    headers: &HeaderMap,
    user: MaybeUser,
) -> Result<Sender, ApiError> {
    if let Some(presented) = headers
        .get(API_KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty())
    {
        if let Some(holder) = key_holder(state, presented).await? {
            return Ok(Sender::Key(holder));
        }
    }
    match user.0 {
        Some(user) if user.is_operator() => Ok(Sender::Operator),
        Some(_) => Err(ApiError::forbidden(
            "An ingest key (X-Api-Key) or the OPERATOR role is required: this token is a plain USER's",
        )),
        None => Err(ApiError::unauthorized(
            "An ingest key (X-Api-Key) or an OPERATOR's token is required",
        )),
    }
}

impl AppState {
    /// Counts one request against `holder`'s own limit.
    async fn admit(&self, holder: &KeyHolder) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        let own = match holder {
            KeyHolder::Issued(key) => key.rate_limit,
            KeyHolder::Configured { .. } => self.issued.default_limit(),
        };
        let limit = Limit::new(
            KEY_LIMIT,
            vec![Rule {
                limit: own.requests,
                window: Duration::from_secs(own.window_seconds),
            }],
        )
        .sharded(KEY_LIMIT_SHARDS);
        // Refusing every sender over a side table would stop ingestion: logged, served.
        ratelimit::enforce(
            limiter,
            &[(&limit, ClientKey::api_key(holder.id()))],
            WhenUnavailable::Allow,
        )
        .await
    }

    /// Writes an issued key's `lastUsed`, at most once per [`LAST_USED_EVERY`] here.
    async fn touch(&self, holder: &KeyHolder) {
        let KeyHolder::Issued(key) = holder else {
            return;
        };
        let due = {
            let mut touched = self
                .touched
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let due = touched
                .get(&key.id)
                .is_none_or(|at| at.elapsed() >= LAST_USED_EVERY);
            if due {
                touched.insert(key.id.clone(), Instant::now());
            }
            due
        };
        if due {
            if let Err(error) = self.issued.touch(&key.id).await {
                tracing::warn!(%error, key = %key.id, "lastUsed not written");
            }
        }
    }
}

/// The services a bound key may not send, as `details` (`[i].serviceName: ...`).
pub(crate) fn services_beyond(
    holder: &KeyHolder,
    logs: &[incidents::input::LogInput],
    batch: bool,
) -> Vec<String> {
    logs.iter()
        .enumerate()
        .filter(|(_, log)| !holder.may_send(&log.service_name))
        .map(|(i, log)| {
            let field = if batch {
                format!("[{i}].serviceName")
            } else {
                "serviceName".to_string()
            };
            format!("{field}: this ingest key may not send {}", log.service_name)
        })
        .collect()
}

/// Accepts one log or a batch of up to 500 for the timeline, incidents and alerts. Each
/// `logContent` is scrubbed of secrets before it is queued or stored.
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
        (status = 401, description = "No valid ingest key, and no valid token", body = ErrorBody),
        (status = 403, description = "A plain USER's token (an ingest key or the OPERATOR or ADMIN role is required), or a key bound to services the logs go beyond (`details` name each log)", body = ErrorBody),
        (status = 413, description = "The body is over 6 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        KeyLimited,
        (status = 503, description = "The ingest queue did not take every log, or an issued key could not be checked: nothing is acknowledged, retry", body = ErrorBody),
    )
)]
async fn ingest(
    State(state): State<AppState>,
    headers: HeaderMap,
    user: MaybeUser,
    body: Bytes,
) -> Result<(StatusCode, axum::Json<IngestAccepted>), ApiError> {
    let sender = sender(&state, &headers, user).await?;
    if let Sender::Key(holder) = &sender {
        state.admit(holder).await?;
    }
    check_content_type(&headers)?;
    // Through a JSON value first: a key given twice is its last, as the JSON parser keeps it.
    let value: serde_json::Value = platform::http::parse_json(&body)?;
    let request = LogsRequest::from_json(&value).map_err(ApiError::from)?;
    let batch = request.is_batch();
    let now = Clock::system().now();
    let inputs = request.check(now).map_err(ApiError::from)?;
    let logs = deliver(&state, &sender, inputs, batch, now).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(IngestAccepted {
            accepted: logs.len(),
            ids: logs.into_iter().map(|l| l.id).collect(),
        }),
    ))
}

/// The one way checked logs go in, whatever path brought them: a bound key's services
/// checked (beyond them, nothing is taken: 403), ids given and content scrubbed
/// ([`incidents::service::assign`]), every log on the ingest queue or a 503.
pub(crate) async fn deliver(
    state: &AppState,
    sender: &Sender,
    inputs: Vec<incidents::input::LogInput>,
    batch: bool,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<incidents::model::Log>, ApiError> {
    if let Sender::Key(holder) = sender {
        let beyond = services_beyond(holder, &inputs, batch);
        if !beyond.is_empty() {
            return Err(ApiError::forbidden(
                "This ingest key may not send some of these services; nothing was accepted",
            )
            .with_details(beyond));
        }
    }
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let logs = incidents::service::assign(inputs, now);
    match state.queue.send_logs(&logs).await {
        Ok(messages) => {
            tracing::info!(logs = logs.len(), messages, "logs queued");
            if let Sender::Key(holder) = sender {
                state.touch(holder).await;
            }
            Ok(logs)
        }
        Err(error) => {
            tracing::warn!(%error, logs = logs.len(), "logs not queued");
            Err(ApiError::unavailable(
                "The logs could not be queued; none is acknowledged, retry",
            ))
        }
    }
}

/// A binary protobuf body, as the contract documents it.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String, format = Binary)]
#[allow(dead_code)]
pub struct Protobuf(Vec<u8>);

/// A shipper's body, read whole up to `limit` bytes.
async fn read_body(
    body: axum::body::Body,
    limit: usize,
) -> Result<Bytes, incidents::input::shipped::BodyError> {
    axum::body::to_bytes(body, limit).await.map_err(|_| {
        incidents::input::shipped::BodyError::TooLarge(format!(
            "request body too large: limit {limit} bytes"
        ))
    })
}

pub(crate) fn check_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(mime) = platform::http::media_type(headers) else {
        return Ok(());
    };
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
    fn shippers_present_their_key_as_their_clients_send_it() {
        let key = |pairs: &[(&str, &str)]| {
            let mut headers = HeaderMap::new();
            for (name, value) in pairs {
                headers.insert(
                    axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                    value.parse().unwrap(),
                );
            }
            shipper_key(&headers)
        };
        // Basic auth, any user name: "promtail:ik_1" (Promtail, Alloy, Fluent Bit, Vector).
        assert_eq!(
            key(&[("authorization", "Basic cHJvbXRhaWw6aWtfMQ==")]).as_deref(),
            Some("ik_1")
        );
        assert_eq!(
            key(&[("authorization", "bearer ik_2")]).as_deref(),
            Some("ik_2")
        );
        assert_eq!(
            key(&[("x-api-key", " ik_3 "), ("authorization", "Bearer other")]).as_deref(),
            Some("ik_3")
        );
        // No password, not base64, another scheme: no key.
        assert_eq!(key(&[("authorization", "Basic cHJvbXRhaWw=")]), None);
        assert_eq!(key(&[("authorization", "Basic %%%")]), None);
        assert_eq!(key(&[("authorization", "Digest x")]), None);
        assert_eq!(key(&[]), None);
    }

    #[test]
    fn a_bound_key_names_each_log_beyond_its_services() {
        let at = Clock::system().now();
        let log = |service: &str| incidents::input::LogInput {
            service_name: service.to_string(),
            log_type: "APP".into(),
            severity: incidents::model::Severity::Info,
            log_content: "x".into(),
            timestamp: at,
            fingerprint: None,
            attributes: Default::default(),
            trace_id: None,
            span_id: None,
            source: Default::default(),
            action: Default::default(),
            event_key: None,
        };
        let key = KeyHolder::Issued(incidents::keys::IngestKey {
            id: "a".repeat(32),
            name: "payments".into(),
            services: vec!["payments".into()],
            rate_limit: KeyRateLimit {
                requests: 1,
                window_seconds: 1,
            },
            created_by: "admin".into(),
            created_at: "2026-11-24T12:00:00.000Z".into(),
            last_used: None,
        });
        let logs = [log("payments"), log("orders"), log("payments"), log("auth")];
        assert_eq!(
            services_beyond(&key, &logs, true),
            [
                "[1].serviceName: this ingest key may not send orders",
                "[3].serviceName: this ingest key may not send auth"
            ]
        );
        assert_eq!(
            services_beyond(&key, &logs[1..2], false),
            ["serviceName: this ingest key may not send orders"]
        );
        let configured = KeyHolder::Configured {
            id: "configured-0".into(),
        };
        assert!(services_beyond(&configured, &logs, true).is_empty());
    }
}
