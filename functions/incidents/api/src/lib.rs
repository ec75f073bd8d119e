//! The incidents function: the incident platform apart from ingestion, as the
//! API gateway routes it: the timeline (`GET` and `DELETE /api/v1/logs`,
//! `DELETE /api/v1/logs/{id}`), alert rules and alerts (`/api/v1/alerts`), incidents
//! (`/api/v1/incidents`), the logbook (`/api/v1/logbook`) and the ingest keys
//! (`/api/v1/ingest/keys`). Every route needs an OPERATOR or ADMIN token (401 without a valid
//! one, 403 for a plain USER); purging the timeline, deleting an alert rule and managing
//! ingest keys need ADMIN.
//!
//! Each handler parses its input with `incidents::input` and makes one call on
//! [`incidents::Incidents`] (its `store` module documents the table's keys); [`errors`]
//! turns the domain's errors into HTTP answers in the detailed error body. A timeline deletion
//! that names filters is queued (`incidents-processor` deletes it in steps) and answered 204.

mod channels;
pub mod errors;

use std::sync::Arc;

use axum::extract::{FromRef, Path, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use axum::Router;
use incidents::email::EmailTopic;
use incidents::fingerprint::is_hex_id;
use incidents::input::{
    is_log_id, parse_alert_patch, parse_incident_patch, parse_logbook, parse_logbook_replace,
    parse_merge, parse_rule, status_filter, RawLogQuery,
};
use incidents::keys::{
    is_key_id, parse_key, IngestKey, IngestKeys, IssuedIngestKey, KeyRateLimit, DEFAULT_RATE_LIMIT,
};
use incidents::model::{
    Alert, AlertRule, AlertStatus, Incident, IncidentDetail, IncidentEvent, IncidentStatus, Log,
    LogbookEntry, LogbookKind, Occurrence, Severity,
};
use incidents::service::Actor;
use incidents::store::DEFAULT_RULE_ID;
use incidents::{Incidents, IngestMessage, IngestQueue};
use platform::auth::{AdminUser, AuthUser, OperatorUser};
use platform::aws::AwsClients;
use platform::http::{Json, Query, DEFAULT_BODY_LIMIT};
use platform::openapi::{ErrorBody, SecuritySchemes, TableUnavailable};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Clock, Env, ErrorStyle, Invalid};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, OpenApi};

use crate::errors::to_api;

/// The header that carries the timeline's next cursor.
pub const NEXT_CURSOR_HEADER: &str = "x-next-cursor";
/// The list bounds of incidents, alerts and logbook entries.
pub const MAX_LIST: usize = 100;
pub const DEFAULT_LIST: usize = 50;

#[derive(Clone)]
pub struct AppState {
    incidents: Arc<Incidents>,
    queue: IngestQueue,
    keys: IngestKeys,
    verifier: Arc<TokenVerifier>,
    email: EmailTopic,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment (`INCIDENTS_TABLE`,
/// `INGEST_QUEUE_URL`, `EMAIL_TOPIC_ARN`): what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let incidents = Incidents::from_env(&env, &aws)?;
    let queue = IngestQueue::from_env(&env, aws.sqs())?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let email = EmailTopic::from_env(&env, &aws)?;
    let keys = IngestKeys::new(
        incidents.store().table().clone(),
        Clock::system(),
        default_key_limit(&env)?,
    );
    app(Arc::new(incidents), queue, keys, verifier, email)
}

/// `INGEST_KEY_RATE_LIMIT` (`COUNT/SECONDS`): the limit of a key issued without one.
pub fn default_key_limit(env: &Env) -> Result<KeyRateLimit, platform::ConfigError> {
    KeyRateLimit::parse(
        env.get("INGEST_KEY_RATE_LIMIT")
            .unwrap_or(DEFAULT_RATE_LIMIT),
    )
    .map_err(|reason| platform::ConfigError::Invalid {
        name: "INGEST_KEY_RATE_LIMIT".to_string(),
        reason,
    })
}

/// The router over given services.
pub fn app(
    incidents: Arc<Incidents>,
    queue: IngestQueue,
    keys: IngestKeys,
    verifier: TokenVerifier,
    email: EmailTopic,
) -> Result<Router, BoxError> {
    let state = AppState {
        incidents,
        queue,
        keys,
        verifier: Arc::new(verifier),
        email,
    };
    let routes = Router::new()
        .route("/api/v1/logs", get(timeline).delete(purge))
        .route("/api/v1/logs/{id}", delete(delete_log))
        .route("/api/v1/alerts/rules", get(rules).post(create_rule))
        .route(
            "/api/v1/alerts/rules/{id}",
            get(rule).put(replace_rule).delete(delete_rule),
        )
        .route("/api/v1/alerts", get(alerts))
        .route("/api/v1/alerts/{id}", patch(patch_alert))
        .route("/api/v1/incidents", get(list_incidents))
        .route(
            "/api/v1/incidents/{id}",
            get(incident).patch(patch_incident),
        )
        .route("/api/v1/incidents/{id}/merge", post(merge_incident))
        .route("/api/v1/logbook", get(entries).post(create_entry))
        .route(
            "/api/v1/logbook/{id}",
            get(entry).put(replace_entry).delete(delete_entry),
        )
        .route("/api/v1/ingest/keys", get(list_keys).post(issue_key))
        .route("/api/v1/ingest/keys/{id}", delete(revoke_key))
        .merge(channels::routes())
        .with_state(state)
        .layer(axum::middleware::map_response(allow_ingestion));
    Ok(platform::http::finish(
        routes,
        ErrorStyle::Detailed { strip_prefix: "" },
        DEFAULT_BODY_LIMIT,
    ))
}

/// `POST /api/v1/logs` is the ingestion function's (the gateway routes it there): a 405 on
/// the path names it among the allowed methods all the same.
async fn allow_ingestion(uri: axum::http::Uri, mut response: Response) -> Response {
    if response.status() == StatusCode::METHOD_NOT_ALLOWED && uri.path() == "/api/v1/logs" {
        response.headers_mut().insert(
            axum::http::header::ALLOW,
            HeaderValue::from_static("GET,HEAD,DELETE,POST"),
        );
    }
    response
}

#[derive(OpenApi)]
#[openapi(
    paths(
        timeline,
        purge,
        delete_log,
        rules,
        create_rule,
        rule,
        replace_rule,
        delete_rule,
        alerts,
        patch_alert,
        list_incidents,
        incident,
        merge_incident,
        patch_incident,
        entries,
        create_entry,
        entry,
        replace_entry,
        delete_entry,
        issue_key,
        list_keys,
        revoke_key
    ),
    components(schemas(
        Log,
        Severity,
        AlertRule,
        RuleRequest,
        Alert,
        AlertStatus,
        AlertPatchRequest,
        Incident,
        IncidentStatus,
        IncidentDetail,
        IncidentEvent,
        Occurrence,
        IncidentPatchRequest,
        IncidentMergeRequest,
        LogbookEntry,
        LogbookKind,
        LogbookRequest,
        LogbookReplaceRequest,
        IngestKey,
        IssuedIngestKey,
        KeyRateLimit,
        IngestKeyRequest,
        ErrorBody
    )),
    modifiers(&SecuritySchemes, &TABLE_UNAVAILABLE),
    tags((name = "incidents", description = "The incident platform: logs, incidents, alerts, logbook"))
)]
struct IncidentsApi;

const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable { except: &[] };

/// The incidents function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut api = IncidentsApi::openapi();
    api.merge(channels::ChannelsApi::openapi());
    use utoipa::Modify;
    SecuritySchemes.modify(&mut api);
    TABLE_UNAVAILABLE.modify(&mut api);
    api
}

type Answer<T> = Result<axum::Json<T>, ApiError>;

fn actor(user: &AuthUser) -> Actor {
    Actor {
        id: user.id.clone(),
        username: user.username.clone(),
        admin: user.is_admin(),
    }
}

fn list_limit(raw: Option<&str>) -> Result<usize, ApiError> {
    match raw.map(str::trim) {
        None => Ok(DEFAULT_LIST),
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=MAX_LIST).contains(&n) => Ok(n),
            _ => Err(ApiError::field(
                "limit",
                format!("must be an integer from 1 to {MAX_LIST}"),
            )),
        },
    }
}

/// The index key a list's `cursor` names (any text the contract's pattern allows).
fn list_cursor(raw: Option<&str>) -> Result<Option<String>, ApiError> {
    raw.map(|c| {
        platform::cursor::decode_cursor(c)
            .ok_or_else(|| ApiError::field("cursor", "is not a cursor this service gave out"))
    })
    .transpose()
}

/// A page of a list as a bare array, with the next page's cursor in `X-Next-Cursor`.
fn paged<T: serde::Serialize>(rows: Vec<T>, next: Option<String>) -> Response {
    let mut response = axum::Json(rows).into_response();
    if let Some(cursor) = next.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert(NEXT_CURSOR_HEADER, cursor);
    }
    response
}

// ---- the timeline -------------------------------------------------------------------------

/// The timeline's filters.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct LogQuery {
    /// Only this service's logs (exact, at most 100 characters).
    #[param(max_length = 100)]
    service_name: Option<String>,
    /// Only logs of this severity (WARN, ERROR and FATAL are read from their own index).
    #[param(value_type = Option<Severity>)]
    severity: Option<String>,
    /// Only logs of this type (exact, at most 100 characters).
    #[serde(rename = "type")]
    #[param(rename = "type", max_length = 100)]
    r#type: Option<String>,
    /// Logs at or after this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    from: Option<String>,
    /// Logs at or before this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    to: Option<String>,
    /// Only logs whose content holds this text, in any case (1 to 100 characters, spaces
    /// included, no control characters). A page compares at most 50,000 logs: one whose
    /// matches are rarer holds fewer than `limit` logs and an `X-Next-Cursor` to go on from.
    #[param(
        min_length = 1,
        max_length = 100,
        pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"
    )]
    contains: Option<String>,
    /// From 1 to 500 (default 100).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 500)]
    limit: Option<String>,
    /// The `X-Next-Cursor` of the previous page.
    #[param(max_length = 60)]
    cursor: Option<String>,
}

impl LogQuery {
    fn raw(self) -> RawLogQuery {
        RawLogQuery {
            service_name: self.service_name,
            severity: self.severity,
            log_type: self.r#type,
            from: self.from,
            to: self.to,
            limit: self.limit,
            cursor: self.cursor,
            contains: self.contains,
        }
    }
}

/// The filters of a timeline deletion.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct LogFilterQuery {
    /// Only this service's logs (exact, at most 100 characters).
    #[param(max_length = 100)]
    service_name: Option<String>,
    /// Only logs of this severity.
    #[param(value_type = Option<Severity>)]
    severity: Option<String>,
    /// Only logs of this type (exact, at most 100 characters).
    #[serde(rename = "type")]
    #[param(rename = "type", max_length = 100)]
    r#type: Option<String>,
    /// Logs at or after this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    from: Option<String>,
    /// Logs at or before this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    to: Option<String>,
}

/// The log timeline, newest first, a page at a time.
#[utoipa::path(
    get,
    path = "/api/v1/logs",
    operation_id = "listLogs",
    tag = "incidents",
    params(LogQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of logs, newest first. When more may follow, the `X-Next-Cursor` header holds the next page's cursor (a page can hold fewer than `limit` logs and still have one).",
            body = Vec<Log>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad filter, limit or cursor (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
async fn timeline(
    State(state): State<AppState>,
    _user: OperatorUser,
    Query(query): Query<LogQuery>,
) -> Result<Response, ApiError> {
    let page = query.raw().page().map_err(ApiError::from)?;
    let (logs, next) = state.incidents.timeline(&page).await.map_err(to_api)?;
    let mut response = axum::Json(logs).into_response();
    if let Some(cursor) = next.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert(NEXT_CURSOR_HEADER, cursor);
    }
    Ok(response)
}

/// Deletes every log matching the filters (all logs without any), in the background.
#[utoipa::path(
    delete,
    path = "/api/v1/logs",
    operation_id = "deleteLogs",
    tag = "incidents",
    params(LogFilterQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "The deletion is queued: the logs disappear from the timeline within moments"),
        (status = 400, description = "A bad filter (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
    )
)]
async fn purge(
    State(state): State<AppState>,
    AdminUser(user): AdminUser,
    Query(query): Query<LogFilterQuery>,
) -> Result<StatusCode, ApiError> {
    let filter = RawLogQuery {
        service_name: query.service_name,
        severity: query.severity,
        log_type: query.r#type,
        from: query.from,
        to: query.to,
        limit: None,
        cursor: None,
        contains: None,
    }
    .filter()
    .map_err(ApiError::from)?;
    let job_id = uuid::Uuid::new_v4().to_string();
    state
        .queue
        .send(&IngestMessage::Purge {
            job_id: job_id.clone(),
            filter,
            cursor: None,
        })
        .await
        .map_err(|e| to_api(e.into()))?;
    tracing::info!(%job_id, user = %user.id, "log deletion queued");
    Ok(StatusCode::NO_CONTENT)
}

/// Deletes one log.
#[utoipa::path(
    delete,
    path = "/api/v1/logs/{id}",
    operation_id = "deleteLog",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "A log id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such log", body = ErrorBody),
    )
)]
async fn delete_log(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if !is_log_id(&id) {
        return Err(ApiError::not_found("Log not found"));
    }
    state.incidents.delete_log(&id).await.map_err(to_api)?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- alert rules ----------------------------------------------------------------------------

/// An alert rule, created or replaced.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct RuleRequest {
    /// 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    name: String,
    /// The severities it counts (1 to 6).
    #[schema(min_items = 1, max_items = 6)]
    severities: Vec<Severity>,
    /// Only this service's logs.
    #[schema(max_length = 100)]
    service_name: Option<String>,
    /// Only logs of this type.
    #[schema(rename = "type", max_length = 100)]
    log_type: Option<String>,
    /// Matching logs of one fingerprint that raise the alert, 1 to 1000.
    #[schema(minimum = 1, maximum = 1000)]
    threshold: i64,
    /// The window they must fall in, 1 to 86400 seconds.
    #[schema(minimum = 1, maximum = 86400)]
    window_seconds: i64,
    /// Default true.
    enabled: Option<bool>,
    /// Minutes an incident it opens or reopens may stay unacknowledged before it escalates
    /// to each notified channel's `escalateTo` (overrides the channel's delay), 1 to 1440.
    #[schema(minimum = 1, maximum = 1440)]
    escalate_after_minutes: Option<i64>,
}

fn rule_id(id: &str) -> Result<(), ApiError> {
    if id == DEFAULT_RULE_ID || uuid::Uuid::parse_str(id).is_ok() {
        Ok(())
    } else {
        Err(ApiError::not_found("Alert rule not found"))
    }
}

/// Every alert rule (the built-in `default` rule on ERROR and FATAL first, unless deleted).
#[utoipa::path(
    get,
    path = "/api/v1/alerts/rules",
    operation_id = "listAlertRules",
    tag = "incidents",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The rules", body = Vec<AlertRule>),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
async fn rules(State(state): State<AppState>, _user: OperatorUser) -> Answer<Vec<AlertRule>> {
    Ok(axum::Json(state.incidents.rules().await.map_err(to_api)?))
}

/// Adds an alert rule (at most 50 in all).
#[utoipa::path(
    post,
    path = "/api/v1/alerts/rules",
    operation_id = "createAlertRule",
    tag = "incidents",
    request_body = RuleRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Created", body = AlertRule),
        (status = 400, description = "A bad field, or 50 rules exist (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
async fn create_rule(
    State(state): State<AppState>,
    _user: OperatorUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<AlertRule>), ApiError> {
    let input = parse_rule(&body).map_err(ApiError::from)?;
    let rule = state.incidents.create_rule(input).await.map_err(to_api)?;
    Ok((StatusCode::CREATED, axum::Json(rule)))
}

/// One alert rule.
#[utoipa::path(
    get,
    path = "/api/v1/alerts/rules/{id}",
    operation_id = "getAlertRule",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "A rule id (a uuid, or `default`)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The rule", body = AlertRule),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such rule", body = ErrorBody),
    )
)]
async fn rule(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Answer<AlertRule> {
    rule_id(&id)?;
    Ok(axum::Json(state.incidents.rule(&id).await.map_err(to_api)?))
}

/// Replaces an alert rule.
#[utoipa::path(
    put,
    path = "/api/v1/alerts/rules/{id}",
    operation_id = "replaceAlertRule",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "A rule id (a uuid, or `default`)")),
    request_body = RuleRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The rule as it is now", body = AlertRule),
        (status = 400, description = "A bad field (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such rule", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
async fn replace_rule(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<AlertRule> {
    rule_id(&id)?;
    let input = parse_rule(&body).map_err(ApiError::from)?;
    Ok(axum::Json(
        state
            .incidents
            .replace_rule(&id, input)
            .await
            .map_err(to_api)?,
    ))
}

/// Deletes an alert rule (the built-in one too: it stays deleted).
#[utoipa::path(
    delete,
    path = "/api/v1/alerts/rules/{id}",
    operation_id = "deleteAlertRule",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "A rule id (a uuid, or `default`)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
        (status = 404, description = "No such rule", body = ErrorBody),
    )
)]
async fn delete_rule(
    State(state): State<AppState>,
    _admin: AdminUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    rule_id(&id)?;
    state.incidents.delete_rule(&id).await.map_err(to_api)?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- alerts ---------------------------------------------------------------------------------

/// A list's filter and size.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct AlertQuery {
    /// Only alerts with this status.
    #[param(value_type = Option<AlertStatus>)]
    status: Option<String>,
    /// From 1 to 100 (default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `X-Next-Cursor` of the previous page: the page after it.
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
}

/// Raised alerts, newest first.
#[utoipa::path(
    get,
    path = "/api/v1/alerts",
    operation_id = "listAlerts",
    tag = "incidents",
    params(AlertQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of alerts, newest raised first. When more follow, the `X-Next-Cursor` header holds the next page's cursor", body = Vec<Alert>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad status, limit or cursor", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
async fn alerts(
    State(state): State<AppState>,
    _user: OperatorUser,
    Query(query): Query<AlertQuery>,
) -> Result<Response, ApiError> {
    let status = status_filter(
        query.status.as_deref(),
        AlertStatus::parse,
        "OPEN, ACKNOWLEDGED, RESOLVED",
    )
    .map_err(ApiError::from)?;
    let limit = list_limit(query.limit.as_deref())?;
    let after = list_cursor(query.cursor.as_deref())?;
    let (alerts, next) = state
        .incidents
        .alerts(status, limit, after.as_deref())
        .await
        .map_err(to_api)?;
    Ok(paged(alerts, next))
}

/// An alert's new status.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct AlertPatchRequest {
    /// OPEN → ACKNOWLEDGED → RESOLVED (or OPEN → RESOLVED).
    status: AlertStatus,
}

/// Acknowledges or resolves an alert.
#[utoipa::path(
    patch,
    path = "/api/v1/alerts/{id}",
    operation_id = "updateAlert",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "An alert id (32 hex digits)")),
    request_body = AlertPatchRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The alert as it is now", body = Alert),
        (status = 400, description = "A bad status, or a move the lifecycle does not allow", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such alert", body = ErrorBody),
        (status = 409, description = "The alert changed meanwhile: read it again", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
async fn patch_alert(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<Alert> {
    if !is_hex_id(&id) {
        return Err(ApiError::not_found("Alert not found"));
    }
    let to = parse_alert_patch(&body).map_err(ApiError::from)?;
    Ok(axum::Json(
        state.incidents.patch_alert(&id, to).await.map_err(to_api)?,
    ))
}

// ---- incidents ------------------------------------------------------------------------------

/// A list's filter and size.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct IncidentQuery {
    /// Only incidents with this status.
    #[param(value_type = Option<IncidentStatus>)]
    status: Option<String>,
    /// From 1 to 100 (default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `X-Next-Cursor` of the previous page: the page after it.
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
}

/// Incidents, newest opened first.
#[utoipa::path(
    get,
    path = "/api/v1/incidents",
    operation_id = "listIncidents",
    tag = "incidents",
    params(IncidentQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of incidents, newest (re)opened first. When more follow, the `X-Next-Cursor` header holds the next page's cursor", body = Vec<Incident>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad status, limit or cursor", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
async fn list_incidents(
    State(state): State<AppState>,
    _user: OperatorUser,
    Query(query): Query<IncidentQuery>,
) -> Result<Response, ApiError> {
    let status = status_filter(
        query.status.as_deref(),
        IncidentStatus::parse,
        "ACTIVE, ACKNOWLEDGED, RESOLVED",
    )
    .map_err(ApiError::from)?;
    let limit = list_limit(query.limit.as_deref())?;
    let after = list_cursor(query.cursor.as_deref())?;
    let (incidents, next) = state
        .incidents
        .incidents(status, limit, after.as_deref())
        .await
        .map_err(to_api)?;
    Ok(paged(incidents, next))
}

/// One incident with samples of its grouped logs (and why they were grouped) and its history.
#[utoipa::path(
    get,
    path = "/api/v1/incidents/{id}",
    operation_id = "getIncident",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "An incident id (32 hex digits)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The incident", body = IncidentDetail),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such incident", body = ErrorBody),
    )
)]
async fn incident(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Answer<IncidentDetail> {
    if !is_hex_id(&id) {
        return Err(ApiError::not_found("Incident not found"));
    }
    Ok(axum::Json(
        state.incidents.incident(&id).await.map_err(to_api)?,
    ))
}

/// An incident's update.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct IncidentPatchRequest {
    /// ACTIVE → ACKNOWLEDGED → RESOLVED (or ACTIVE → RESOLVED); a new occurrence reopens.
    status: IncidentStatus,
    /// At most 2000 characters, kept in the history.
    #[schema(max_length = 2000)]
    note: Option<String>,
    /// At most 100 characters.
    #[schema(max_length = 100)]
    assignee: Option<String>,
}

/// Acknowledges or resolves an incident, with an optional note and assignee.
#[utoipa::path(
    patch,
    path = "/api/v1/incidents/{id}",
    operation_id = "updateIncident",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "An incident id (32 hex digits)")),
    request_body = IncidentPatchRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The incident as it is now", body = IncidentDetail),
        (status = 400, description = "A bad field, or a move the lifecycle does not allow", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such incident", body = ErrorBody),
        (status = 409, description = "The incident changed meanwhile: read it again", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
async fn patch_incident(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<IncidentDetail> {
    if !is_hex_id(&id) {
        return Err(ApiError::not_found("Incident not found"));
    }
    let patch = parse_incident_patch(&body).map_err(ApiError::from)?;
    Ok(axum::Json(
        state
            .incidents
            .patch_incident(&id, patch, &actor(&user))
            .await
            .map_err(to_api)?,
    ))
}

/// An operator's merge of the incident into another.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct IncidentMergeRequest {
    /// The incident that stays (32 lower-case hex digits): not this one, not a merged one.
    #[schema(min_length = 32, max_length = 32, pattern = "^[0-9a-f]{32}$")]
    into: String,
    /// At most 2000 characters, kept in the merged incident's history.
    #[schema(max_length = 2000)]
    note: Option<String>,
}

/// Merges the incident into another (two fingerprints that are one problem): it is RESOLVED
/// and points at the target (`mergedInto`), its occurrences, batches and first/last seen move
/// onto the target's, and its fingerprint's new logs are grouped into the target. Merging
/// again into the same target changes nothing and answers the same.
#[utoipa::path(
    post,
    path = "/api/v1/incidents/{id}/merge",
    operation_id = "mergeIncident",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "The incident merged away (32 hex digits)")),
    request_body = IncidentMergeRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The merged incident as it is now (RESOLVED, `mergedInto` set)", body = IncidentDetail),
        (status = 400, description = "A bad field: `into` missing, not an incident, this incident, or a merged one", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such incident", body = ErrorBody),
        (status = 409, description = "The incident changed meanwhile (a status change, or logs counted): read it again", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
async fn merge_incident(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<IncidentDetail> {
    if !is_hex_id(&id) {
        return Err(ApiError::not_found("Incident not found"));
    }
    let merge = parse_merge(&body).map_err(ApiError::from)?;
    Ok(axum::Json(
        state
            .incidents
            .merge_incident(&id, merge, &actor(&user))
            .await
            .map_err(to_api)?,
    ))
}

// ---- logbook --------------------------------------------------------------------------------

/// A logbook entry, created or replaced.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct LogbookRequest {
    /// Default NOTE.
    kind: Option<LogbookKind>,
    /// 1 to 200 characters.
    #[schema(min_length = 1, max_length = 200)]
    title: String,
    /// 1 to 20000 characters.
    #[schema(min_length = 1, max_length = 20000)]
    body: String,
    /// The incident it is about (32 hex digits; it must exist).
    #[schema(max_length = 32)]
    incident_id: Option<String>,
}

/// A logbook entry's replacement, with the version it was made on.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct LogbookReplaceRequest {
    /// Default NOTE.
    kind: Option<LogbookKind>,
    /// 1 to 200 characters.
    #[schema(min_length = 1, max_length = 200)]
    title: String,
    /// 1 to 20000 characters.
    #[schema(min_length = 1, max_length = 20000)]
    body: String,
    /// The incident it is about (32 hex digits; it must exist).
    #[schema(max_length = 32)]
    incident_id: Option<String>,
    /// The entry's `version` as read: the edit is refused (409) when the entry has moved on.
    #[schema(minimum = 1, maximum = 1000000000)]
    version: i64,
}

/// A list's filter and size.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct LogbookQuery {
    /// Only entries about this incident.
    #[param(max_length = 60)]
    incident_id: Option<String>,
    /// From 1 to 100 (default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `X-Next-Cursor` of the previous page: the page after it.
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
}

fn entry_id(id: &str) -> Result<(), ApiError> {
    uuid::Uuid::parse_str(id)
        .map(|_| ())
        .map_err(|_| ApiError::not_found("Logbook entry not found"))
}

/// Logbook entries, newest first.
#[utoipa::path(
    get,
    path = "/api/v1/logbook",
    operation_id = "listLogbookEntries",
    tag = "incidents",
    params(LogbookQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of entries, newest first. When more may follow, the `X-Next-Cursor` header holds the next page's cursor (an incident's entries are a filter of the logbook reading at most 500 entries a page, so its page can hold fewer than `limit` and still have one)", body = Vec<LogbookEntry>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad incidentId, limit or cursor", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
async fn entries(
    State(state): State<AppState>,
    _user: OperatorUser,
    Query(query): Query<LogbookQuery>,
) -> Result<Response, ApiError> {
    let incident = match query.incident_id.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(id) if is_hex_id(id) => Some(id.to_string()),
        Some(_) => {
            return Err(
                Invalid::field("incidentId", "must be an incident id (32 hex digits)").into(),
            )
        }
    };
    let limit = list_limit(query.limit.as_deref())?;
    let after = list_cursor(query.cursor.as_deref())?;
    let (entries, next) = state
        .incidents
        .entries(incident.as_deref(), limit, after.as_deref())
        .await
        .map_err(to_api)?;
    Ok(paged(entries, next))
}

/// Writes a note or a postmortem.
#[utoipa::path(
    post,
    path = "/api/v1/logbook",
    operation_id = "createLogbookEntry",
    tag = "incidents",
    request_body = LogbookRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Created", body = LogbookEntry),
        (status = 400, description = "A bad field, or no such incident (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
async fn create_entry(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<LogbookEntry>), ApiError> {
    let input = parse_logbook(&body).map_err(ApiError::from)?;
    let entry = state
        .incidents
        .create_entry(input, &actor(&user))
        .await
        .map_err(to_api)?;
    Ok((StatusCode::CREATED, axum::Json(entry)))
}

/// One logbook entry.
#[utoipa::path(
    get,
    path = "/api/v1/logbook/{id}",
    operation_id = "getLogbookEntry",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "An entry id (uuid)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The entry", body = LogbookEntry),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such entry", body = ErrorBody),
    )
)]
async fn entry(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Answer<LogbookEntry> {
    entry_id(&id)?;
    Ok(axum::Json(
        state.incidents.entry(&id).await.map_err(to_api)?,
    ))
}

/// Replaces a logbook entry (its author or an admin), checked against the version read: an
/// edit made on an older copy of the entry is refused (409) and changes nothing.
#[utoipa::path(
    put,
    path = "/api/v1/logbook/{id}",
    operation_id = "replaceLogbookEntry",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "An entry id (uuid)")),
    request_body = LogbookReplaceRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The entry as it is now", body = LogbookEntry),
        (status = 400, description = "A bad field, or no such incident (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's (the OPERATOR or ADMIN role is required), or the caller is not the entry's author nor an ADMIN", body = ErrorBody),
        (status = 404, description = "No such entry", body = ErrorBody),
        (status = 409, description = "The entry changed since `version` was read: nothing is written; read it again (`details` give its version now)", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
async fn replace_entry(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<LogbookEntry> {
    entry_id(&id)?;
    let (input, read) = parse_logbook_replace(&body).map_err(ApiError::from)?;
    Ok(axum::Json(
        state
            .incidents
            .replace_entry(&id, input, read, &actor(&user))
            .await
            .map_err(to_api)?,
    ))
}

/// Deletes a logbook entry (its author or an admin).
#[utoipa::path(
    delete,
    path = "/api/v1/logbook/{id}",
    operation_id = "deleteLogbookEntry",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "An entry id (uuid)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's (the OPERATOR or ADMIN role is required), or the caller is not the entry's author nor an ADMIN", body = ErrorBody),
        (status = 404, description = "No such entry", body = ErrorBody),
    )
)]
async fn delete_entry(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    entry_id(&id)?;
    state
        .incidents
        .delete_entry(&id, &actor(&user))
        .await
        .map_err(to_api)?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- ingest keys ----------------------------------------------------------------------------

/// A service name a key is bound to: 1 to 100 characters, not blank (utoipa takes no
/// constraints on a list's items, so its schema is written here).
struct ServiceName;

impl utoipa::PartialSchema for ServiceName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .min_length(Some(1))
            .max_length(Some(100))
            .pattern(Some(NOT_BLANK))
            .into()
    }
}

impl utoipa::ToSchema for ServiceName {}

/// Holds one character that is not white space.
const NOT_BLANK: &str = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/// An ingest key to issue.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct IngestKeyRequest {
    /// What the key is for (a sender, a deployment): 1 to 100 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    name: String,
    /// The services it may send (at most 50; repeats kept once); absent or empty: any. A
    /// batch naming another service is refused whole (403).
    #[schema(max_items = 50, inline)]
    services: Option<Vec<ServiceName>>,
    /// Its own limit; absent: the deployment's default (`IngestKeyRateLimit`, 3000 a minute).
    rate_limit: Option<KeyRateLimit>,
}

/// Issues an ingest key (ADMIN). The answer is the only time its secret is shown: keep it;
/// only a hash is stored. Rotate a key by issuing a new one, moving the sender to it and
/// revoking the old one.
#[utoipa::path(
    post,
    path = "/api/v1/ingest/keys",
    operation_id = "issueIngestKey",
    tag = "incidents",
    request_body = IngestKeyRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Issued: `key` is the secret to send in `X-Api-Key`, shown this once", body = IssuedIngestKey),
        (status = 400, description = "A bad field, or 100 keys exist (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
async fn issue_key(
    State(state): State<AppState>,
    AdminUser(user): AdminUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<IssuedIngestKey>), ApiError> {
    let input = parse_key(&body).map_err(ApiError::from)?;
    let issued = state
        .keys
        .issue(input, &user.username)
        .await
        .map_err(to_api)?;
    tracing::info!(key = %issued.ingest_key.id, admin = %user.id, "ingest key issued");
    Ok((StatusCode::CREATED, axum::Json(issued)))
}

/// The issued ingest keys, newest first (ADMIN): never their secrets. Keys given at deploy
/// time (`IngestApiKeys`) are not listed.
#[utoipa::path(
    get,
    path = "/api/v1/ingest/keys",
    operation_id = "listIngestKeys",
    tag = "incidents",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The keys, newest first", body = Vec<IngestKey>),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
    )
)]
async fn list_keys(State(state): State<AppState>, _admin: AdminUser) -> Answer<Vec<IngestKey>> {
    Ok(axum::Json(
        state.keys.list().await.map_err(|e| to_api(e.into()))?,
    ))
}

/// Revokes an ingest key (ADMIN): refused from the next ingestion on.
#[utoipa::path(
    delete,
    path = "/api/v1/ingest/keys/{id}",
    operation_id = "revokeIngestKey",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "A key id (32 hex digits)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
        (status = 404, description = "No such key", body = ErrorBody),
    )
)]
async fn revoke_key(
    State(state): State<AppState>,
    AdminUser(user): AdminUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if !is_key_id(&id) || !state.keys.revoke(&id).await.map_err(|e| to_api(e.into()))? {
        return Err(ApiError::not_found("Ingest key not found"));
    }
    tracing::info!(key = %id, admin = %user.id, "ingest key revoked");
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_documents_401_and_the_role_of_its_403() {
        let doc = serde_json::to_value(openapi()).expect("json");
        let admin_only = [
            "deleteLogs",
            "deleteAlertRule",
            "issueIngestKey",
            "listIngestKeys",
            "revokeIngestKey",
        ];
        let mut operations = 0;
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                operations += 1;
                assert!(!op["security"].is_null(), "{method} {path}");
                assert!(op["responses"]["401"].is_object(), "{method} {path}");
                let forbidden = op["responses"]["403"]["description"]
                    .as_str()
                    .unwrap_or_default();
                let admin = admin_only.iter().any(|id| op["operationId"] == *id);
                let role = if admin {
                    "the ADMIN role is required"
                } else {
                    "OPERATOR"
                };
                assert!(forbidden.contains(role), "{method} {path}: {forbidden}");
            }
        }
        assert_eq!(operations, 27);
    }
}
