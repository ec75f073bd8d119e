//! Incidents (`/api/v1/incidents`): the list, the counts by status, one incident with its samples and history, an
//! operator's status change, and the merge of one incident into another.

use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use incidents::fingerprint::is_hex_id;
use incidents::input::{
    is_assignment, parse_assignment, parse_incident_patch, parse_merge, status_filter,
};
use incidents::model::{Incident, IncidentDetail, IncidentStatus};
use platform::auth::OperatorUser;
use platform::http::{Json, Query};
use platform::openapi::ErrorBody;
use platform::ApiError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::IntoParams;

use crate::operators::store_error;
use crate::{actor, list_cursor, list_limit, paged, Answer, AppState};

/// The incident routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/incidents", get(list_incidents))
        .route("/api/v1/incidents/counts", get(incident_counts))
        .route(
            "/api/v1/incidents/{id}",
            get(incident).patch(patch_incident),
        )
        .route("/api/v1/incidents/{id}/merge", post(merge_incident))
}

/// A list's filter and size.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct IncidentQuery {
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
pub(crate) async fn list_incidents(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Query(query): Query<IncidentQuery>,
) -> Result<Response, ApiError> {
    state.roster.seen(state.incidents.table(), &user).await?;
    let status = status_filter(
        query.status.as_deref(),
        IncidentStatus::parse,
        "ACTIVE, ACKNOWLEDGED, RESOLVED",
    )?;
    let limit = list_limit(query.limit.as_deref())?;
    let after = list_cursor(query.cursor.as_deref())?;
    let (incidents, next) = state
        .incidents
        .incidents(status, limit, after.as_deref())
        .await?;
    Ok(paged(incidents, next))
}

/// How many incidents have each status.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) struct IncidentCounts {
    #[schema(minimum = 0)]
    active: i64,
    #[schema(minimum = 0)]
    acknowledged: i64,
    #[schema(minimum = 0)]
    resolved: i64,
}

/// How many incidents are ACTIVE, ACKNOWLEDGED and RESOLVED now. The counts move in the
/// transactions that open, change, reopen and merge incidents, so they read in one Query
/// however many incidents there are.
#[utoipa::path(
    get,
    path = "/api/v1/incidents/counts",
    operation_id = "countIncidents",
    tag = "incidents",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "Incidents by status", body = IncidentCounts),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
pub(crate) async fn incident_counts(
    State(state): State<AppState>,
    _user: OperatorUser,
) -> Answer<IncidentCounts> {
    let counts = state.incidents.status_counts().await?;
    // A count seeded while an incident moved may be one off; never show it below zero.
    Ok(axum::Json(IncidentCounts {
        active: counts.active.max(0),
        acknowledged: counts.acknowledged.max(0),
        resolved: counts.resolved.max(0),
    }))
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
pub(crate) async fn incident(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Answer<IncidentDetail> {
    if !is_hex_id(&id) {
        return Err(ApiError::not_found("Incident not found"));
    }
    Ok(axum::Json(state.incidents.incident(&id).await?))
}

/// An incident's update.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub(crate) struct IncidentPatchRequest {
    /// ACTIVE → ACKNOWLEDGED → RESOLVED (or ACTIVE → RESOLVED); a new occurrence reopens.
    /// Left out with an `assignee`: only assigns, the status as it is.
    status: Option<IncidentStatus>,
    /// At most 2000 characters, kept in the history.
    #[schema(max_length = 2000)]
    note: Option<String>,
    /// The username of an operator (`GET /api/v1/operators`): anyone else is a 400 naming
    /// `assignee`. At most 100 characters.
    #[schema(max_length = 100)]
    assignee: Option<String>,
}

/// Acknowledges or resolves an incident, with an optional note and assignee; or, without a
/// `status`, assigns it (a change in its history, notified to nobody).
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
        (status = 400, description = "A bad field (an `assignee` who is not an operator), or a move the lifecycle does not allow", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such incident", body = ErrorBody),
        (status = 409, description = "The incident changed meanwhile: read it again", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
pub(crate) async fn patch_incident(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<IncidentDetail> {
    if !is_hex_id(&id) {
        return Err(ApiError::not_found("Incident not found"));
    }
    let table = state.incidents.table();
    if is_assignment(&body) {
        let mut assignment = parse_assignment(&body)?;
        state.roster.seen(table, &user).await?;
        assignment.assignee = operator(&state, &assignment.assignee).await?;
        return Ok(axum::Json(
            state
                .incidents
                .assign_incident(&id, assignment, &actor(&user))
                .await?,
        ));
    }
    let mut patch = parse_incident_patch(&body)?;
    state.roster.seen(table, &user).await?;
    if let Some(assignee) = patch.assignee.take() {
        patch.assignee = Some(operator(&state, &assignee).await?);
    }
    Ok(axum::Json(
        state
            .incidents
            .patch_incident(&id, patch, &actor(&user))
            .await?,
    ))
}

/// The roster's spelling of `assignee`, or a 400 naming the field.
async fn operator(state: &AppState, assignee: &str) -> Result<String, ApiError> {
    let known = state
        .roster
        .known(state.incidents.table(), assignee)
        .await
        .map_err(store_error)?;
    known.ok_or_else(|| {
        ApiError::field(
            "assignee",
            "must be the username of an operator (GET /api/v1/operators lists them)",
        )
    })
}

/// An operator's merge of the incident into another.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub(crate) struct IncidentMergeRequest {
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
pub(crate) async fn merge_incident(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<IncidentDetail> {
    if !is_hex_id(&id) {
        return Err(ApiError::not_found("Incident not found"));
    }
    let merge = parse_merge(&body)?;
    Ok(axum::Json(
        state
            .incidents
            .merge_incident(&id, merge, &actor(&user))
            .await?,
    ))
}
