//! Alert rules (`/api/v1/alerts/rules`: list, add, read, replace, and an ADMIN's delete) and
//! the alerts they raise (`GET /api/v1/alerts`, `PATCH /api/v1/alerts/{id}` to acknowledge or
//! resolve one).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, patch};
use axum::Router;
use incidents::fingerprint::is_hex_id;
use incidents::input::{parse_alert_patch, parse_rule, status_filter};
use incidents::model::DEFAULT_RULE_ID;
use incidents::model::{Alert, AlertRule, AlertStatus, Severity};
use platform::auth::{AdminUser, OperatorUser};
use platform::http::{Json, Query};
use platform::openapi::ErrorBody;
use platform::ApiError;
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use crate::{list_cursor, list_limit, paged, Answer, AppState};

/// The routes of alert rules and alerts.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/alerts/rules", get(rules).post(create_rule))
        .route(
            "/api/v1/alerts/rules/{id}",
            get(rule).put(replace_rule).delete(delete_rule),
        )
        .route("/api/v1/alerts", get(alerts))
        .route("/api/v1/alerts/{id}", patch(patch_alert))
}

/// An alert rule, created or replaced.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub(crate) struct RuleRequest {
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
pub(crate) async fn rules(
    State(state): State<AppState>,
    _user: OperatorUser,
) -> Answer<Vec<AlertRule>> {
    Ok(axum::Json(state.incidents.rules().await?))
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
pub(crate) async fn create_rule(
    State(state): State<AppState>,
    _user: OperatorUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<AlertRule>), ApiError> {
    let input = parse_rule(&body)?;
    let rule = state.incidents.create_rule(input).await?;
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
pub(crate) async fn rule(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Answer<AlertRule> {
    rule_id(&id)?;
    Ok(axum::Json(state.incidents.rule(&id).await?))
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
pub(crate) async fn replace_rule(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<AlertRule> {
    rule_id(&id)?;
    let input = parse_rule(&body)?;
    Ok(axum::Json(state.incidents.replace_rule(&id, input).await?))
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
pub(crate) async fn delete_rule(
    State(state): State<AppState>,
    _admin: AdminUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    rule_id(&id)?;
    state.incidents.delete_rule(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- alerts ---------------------------------------------------------------------------------

/// A list's filter and size.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct AlertQuery {
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
pub(crate) async fn alerts(
    State(state): State<AppState>,
    _user: OperatorUser,
    Query(query): Query<AlertQuery>,
) -> Result<Response, ApiError> {
    let status = status_filter(
        query.status.as_deref(),
        AlertStatus::parse,
        "OPEN, ACKNOWLEDGED, RESOLVED",
    )?;
    let limit = list_limit(query.limit.as_deref())?;
    let after = list_cursor(query.cursor.as_deref())?;
    let (alerts, next) = state
        .incidents
        .alerts(status, limit, after.as_deref())
        .await?;
    Ok(paged(alerts, next))
}

/// An alert's new status.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub(crate) struct AlertPatchRequest {
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
pub(crate) async fn patch_alert(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<Alert> {
    if !is_hex_id(&id) {
        return Err(ApiError::not_found("Alert not found"));
    }
    let to = parse_alert_patch(&body)?;
    Ok(axum::Json(state.incidents.patch_alert(&id, to).await?))
}
