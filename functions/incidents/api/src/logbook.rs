//! The logbook (`/api/v1/logbook`): operators' notes and postmortems, optionally about an
//! incident; an entry is replaced against the version read, and only its author or an ADMIN
//! changes it.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use incidents::fingerprint::is_hex_id;
use incidents::input::{parse_logbook, parse_logbook_replace};
use incidents::model::{LogbookEntry, LogbookKind};
use platform::auth::OperatorUser;
use platform::http::{Json, Query};
use platform::openapi::ErrorBody;
use platform::{ApiError, Invalid};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use crate::{actor, list_cursor, list_limit, paged, Answer, AppState};

/// The logbook routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/logbook", get(entries).post(create_entry))
        .route(
            "/api/v1/logbook/{id}",
            get(entry).put(replace_entry).delete(delete_entry),
        )
}

/// A logbook entry, created or replaced.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub(crate) struct LogbookRequest {
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
pub(crate) struct LogbookReplaceRequest {
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
pub(crate) struct LogbookQuery {
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
pub(crate) async fn entries(
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
        .await?;
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
pub(crate) async fn create_entry(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<LogbookEntry>), ApiError> {
    let input = parse_logbook(&body)?;
    let entry = state.incidents.create_entry(input, &actor(&user)).await?;
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
pub(crate) async fn entry(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Answer<LogbookEntry> {
    entry_id(&id)?;
    Ok(axum::Json(state.incidents.entry(&id).await?))
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
pub(crate) async fn replace_entry(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Answer<LogbookEntry> {
    entry_id(&id)?;
    let (input, read) = parse_logbook_replace(&body)?;
    Ok(axum::Json(
        state
            .incidents
            .replace_entry(&id, input, read, &actor(&user))
            .await?,
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
pub(crate) async fn delete_entry(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    entry_id(&id)?;
    state.incidents.delete_entry(&id, &actor(&user)).await?;
    Ok(StatusCode::NO_CONTENT)
}
