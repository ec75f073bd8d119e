//! The timeline: `GET /api/v1/logs` (a page of logs, newest first), `DELETE /api/v1/logs`
//! (an ADMIN's deletion of every log matching filters, queued: `incidents-processor` deletes
//! it in steps) and `DELETE /api/v1/logs/{id}`.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use axum::Router;
use incidents::input::{is_log_id, RawLogQuery};
use incidents::model::{Log, Severity};
use platform::auth::{AdminUser, OperatorUser};
use platform::http::Query;
use platform::openapi::ErrorBody;
use platform::ApiError;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{AppState, NEXT_CURSOR_HEADER};

/// The timeline's routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/logs", get(timeline).delete(purge))
        .route("/api/v1/logs/{id}", delete(delete_log))
}

/// The timeline's filters.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LogQuery {
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
pub(crate) struct LogFilterQuery {
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
pub(crate) async fn timeline(
    State(state): State<AppState>,
    _user: OperatorUser,
    Query(query): Query<LogQuery>,
) -> Result<Response, ApiError> {
    let page = query.raw().page()?;
    let (logs, next) = state.incidents.timeline(&page).await?;
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
pub(crate) async fn purge(
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
    .filter()?;
    let job_id = state.incidents.queue_purge(filter).await?;
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
pub(crate) async fn delete_log(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if !is_log_id(&id) {
        return Err(ApiError::not_found("Log not found"));
    }
    state.incidents.delete_log(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}
