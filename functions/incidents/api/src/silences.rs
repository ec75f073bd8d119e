//! Silences and maintenance windows (`/api/v1/silences`): operators list, create, read and
//! expire them. While one is active, the incidents it matches are recorded as usual but
//! neither notified nor escalated; when it ends, each still-open one notifies once
//! (`incidents::silences`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use incidents::silences::{
    parse_silence, Matchers, MatchersRequest, Silence, SilenceRequest, SilenceState, Silences,
    SilencesError,
};
use platform::auth::OperatorUser;
use platform::http::{Json, Query};
use platform::openapi::ErrorBody;
use platform::{ApiError, Clock};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, OpenApi};

use crate::{list_cursor, list_limit, paged, AppState};

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/silences", get(list_silences).post(create_silence))
        .route("/api/v1/silences/{id}", get(silence).delete(expire_silence))
}

#[derive(OpenApi)]
#[openapi(
    paths(list_silences, create_silence, silence, expire_silence),
    components(schemas(
        Silence,
        SilenceState,
        Matchers,
        SilenceRequest,
        MatchersRequest,
        ErrorBody
    ))
)]
pub(crate) struct SilencesApi;

fn silences(state: &AppState) -> Silences {
    Silences::new(state.incidents.table().clone())
}

/// A silence id is a uuid; anything else names no silence.
fn silence_id(raw: &str) -> Result<(), ApiError> {
    uuid::Uuid::parse_str(raw)
        .map(|_| ())
        .map_err(|_| ApiError::not_found("Silence not found"))
}

/// A list's filter and page.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct SilenceQuery {
    /// Only silences in this state; absent: pending and active ones.
    #[param(value_type = Option<SilenceState>)]
    state: Option<String>,
    /// From 1 to 100 (default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `X-Next-Cursor` of the previous page: the page after it.
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
}

/// Silences: active ones ending soonest first, pending ones (and the default, pending and
/// active) starting soonest first, expired ones ended latest first (kept 30 days).
#[utoipa::path(
    get,
    path = "/api/v1/silences",
    operation_id = "listSilences",
    tag = "incidents",
    params(SilenceQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of silences. When more follow, the `X-Next-Cursor` header holds the next page's cursor", body = Vec<Silence>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad state, limit or cursor", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
pub(crate) async fn list_silences(
    State(state): State<AppState>,
    _user: OperatorUser,
    Query(query): Query<SilenceQuery>,
) -> Result<Response, ApiError> {
    let wanted =
        match query.state.as_deref().map(str::trim) {
            None => None,
            Some(raw) => Some(SilenceState::parse(raw).ok_or_else(|| {
                ApiError::field("state", "must be one of active, pending, expired")
            })?),
        };
    let limit = list_limit(query.limit.as_deref())?;
    let after = list_cursor(query.cursor.as_deref())?;
    let (rows, next) = silences(&state)
        .list(wanted, limit, after.as_deref(), Clock::system().now())
        .await
        .map_err(SilencesError::from)?;
    Ok(paged(
        rows,
        next.map(|k| platform::cursor::encode_cursor(&k)),
    ))
}

/// Creates a silence: now for `durationMinutes`, or from `startsAt` (pending until then) to
/// `endsAt`. At most 100 pending or active silences.
#[utoipa::path(
    post,
    path = "/api/v1/silences",
    operation_id = "createSilence",
    tag = "incidents",
    request_body = SilenceRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Created", body = Silence),
        (status = 400, description = "A bad field (`details` name it: comment, matchers (at least one non-empty), startsAt, endsAt (after startsAt and now, at most 7 days after startsAt), durationMinutes (1-10080, not with endsAt)), or 100 pending or active silences exist", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
pub(crate) async fn create_silence(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<Silence>), ApiError> {
    let now = Clock::system().now();
    let input = parse_silence(&body, now)?;
    let id = uuid::Uuid::new_v4().to_string();
    let silence = silences(&state)
        .create(&id, &input, &user.username, now)
        .await?;
    Ok((StatusCode::CREATED, axum::Json(silence)))
}

/// One silence, its state now.
#[utoipa::path(
    get,
    path = "/api/v1/silences/{id}",
    operation_id = "getSilence",
    tag = "incidents",
    params(("id" = String, Path, max_length = 36, description = "A silence id (a uuid)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The silence", body = Silence),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such silence (or it expired over 30 days ago)", body = ErrorBody),
    )
)]
pub(crate) async fn silence(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Result<axum::Json<Silence>, ApiError> {
    silence_id(&id)?;
    silences(&state)
        .get(&id, Clock::system().now())
        .await
        .map_err(SilencesError::from)?
        .map(axum::Json)
        .ok_or_else(|| ApiError::not_found("Silence not found"))
}

/// Expires a silence now (a pending one is cancelled); it stays listed as expired. Within
/// a minute, each still-open incident it held notifies once.
#[utoipa::path(
    delete,
    path = "/api/v1/silences/{id}",
    operation_id = "expireSilence",
    tag = "incidents",
    params(("id" = String, Path, max_length = 36, description = "A silence id (a uuid)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Expired (or it had expired already)"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such silence", body = ErrorBody),
    )
)]
pub(crate) async fn expire_silence(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    silence_id(&id)?;
    silences(&state)
        .expire(&id, &user.username, Clock::system().now())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
