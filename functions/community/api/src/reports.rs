//! Reports: `POST /reports` (any member), and the admins' queue `GET /admin/reports` and
//! `POST /admin/reports/{targetType}/{targetId}/resolve`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use community::input::{ReportInput, Resolution};
use community::model::reports::{Report, ReportQueuePage, ReportResolution};
use platform::auth::{AdminUser, AuthUser};
use platform::http::Json;
use platform::openapi::ReasonErrorBody;
use platform::ApiError;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::{user_id, Answer, AppState};

/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/reports", post(report))
        .route("/admin/reports", get(report_queue))
        .route(
            "/admin/reports/{target_type}/{target_id}/resolve",
            post(resolve),
        )
}

/// A report of a post or a comment.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct ReportRequest {
    #[schema(required = true, value_type = community::model::reports::ReportTarget)]
    target_type: Option<String>,
    /// The post's or the comment's id.
    #[schema(required = true, value_type = String, format = "uuid")]
    target_id: Option<String>,
    #[schema(required = true, value_type = community::model::reports::ReportReason)]
    reason: Option<String>,
    /// What the reporter adds: at most 500 characters, line breaks allowed, no other control
    /// characters (blank: none).
    #[schema(
        max_length = 500,
        pattern = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$"
    )]
    text: Option<String>,
}

/// Reports a post or a comment the caller can see (not their own); one report per member
/// and target: a repeat answers the first, 200, and changes nothing.
#[utoipa::path(
    post,
    path = "/api/v1/reports",
    operation_id = "reportContent",
    tag = "community",
    security(("bearerJwt" = [])),
    request_body = ReportRequest,
    responses(
        (status = 201, description = "Reported", body = Report),
        (status = 200, description = "The caller had reported it already: their report", body = Report),
        (status = 400, description = "targetType, targetId, reason or text is invalid, or the target is the caller's own (`message` names the field)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token", body = ReasonErrorBody),
        (status = 404, description = "No such published post or live comment", body = ReasonErrorBody),
    )
)]
pub(crate) async fn report(
    State(state): State<AppState>,
    user: AuthUser,
    Json(body): Json<ReportRequest>,
) -> Result<Response, ApiError> {
    let caller = user_id(&user)?;
    let input = ReportInput::parse(
        body.target_type.as_deref(),
        body.target_id.as_deref(),
        body.reason.as_deref(),
        body.text.as_deref(),
    )?;
    let (report, created) = state.community.report(&caller, &input).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(report)).into_response())
}

/// The query of the admins' queue.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct QueueQuery {
    /// Groups a page holds: 1 to 100 (default 20).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `nextCursor` of the previous page.
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
}

/// The open reports grouped by post or comment, with their counts by reason, the group
/// opened most recently first (admin).
#[utoipa::path(
    get,
    path = "/api/v1/admin/reports",
    operation_id = "listReports",
    tag = "community-admin",
    params(QueueQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of the queue", body = ReportQueuePage),
        (status = 400, description = "limit or cursor is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
    )
)]
pub(crate) async fn report_queue(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    platform::http::Query(query): platform::http::Query<QueueQuery>,
) -> Answer<ReportQueuePage> {
    let limit = match query.limit.as_deref().map(str::trim) {
        None => 20,
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => return Err(ApiError::field("limit", "must be from 1 to 100")),
        },
    };
    Ok(axum::Json(
        state
            .community
            .report_queue(limit, query.cursor.as_deref())
            .await?,
    ))
}

/// An admin's resolution of a target's reports.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResolveRequest {
    /// `remove`: the admin removal of the content (logged with `note`, or else the reports'
    /// most given reason); `dismiss`: the content stays.
    #[schema(required = true, value_type = ResolveActionName)]
    action: Option<String>,
    /// Told to the reporters, and a removal's reason: one line, at most 500 characters.
    #[schema(max_length = 500, pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$")]
    note: Option<String>,
}

/// What an admin does with a target's reports.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
pub(crate) enum ResolveActionName {
    Remove,
    Dismiss,
}

/// Resolves the open reports on a post or comment by removing it or dismissing them; every
/// reporter is notified of the outcome, and a removed content's author of the removal
/// (admin).
#[utoipa::path(
    post,
    path = "/api/v1/admin/reports/{targetType}/{targetId}/resolve",
    operation_id = "resolveReports",
    tag = "community-admin",
    params(
        ("targetType" = community::model::reports::ReportTarget, Path, description = "post or comment"),
        ("targetId" = String, Path, format = "uuid", description = "The post's or the comment's id"),
    ),
    security(("bearerJwt" = [])),
    request_body = ResolveRequest,
    responses(
        (status = 200, description = "Resolved", body = ReportResolution),
        (status = 400, description = "targetType, targetId, action or note is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
        (status = 404, description = "No open reports on it", body = ReasonErrorBody),
    )
)]
pub(crate) async fn resolve(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    Path((target_type, target_id)): Path<(String, String)>,
    Json(body): Json<ResolveRequest>,
) -> Answer<ReportResolution> {
    let resolution = Resolution::parse(
        &target_type,
        &target_id,
        body.action.as_deref(),
        body.note.as_deref(),
    )?;
    Ok(axum::Json(
        state
            .community
            .resolve_reports(&admin.id, &resolution)
            .await?,
    ))
}
