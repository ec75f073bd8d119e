//! Post summaries: `GET /posts/{id}/summary`, the admin's re-trigger
//! `POST /admin/posts/{id}/summary/retry` (202) and failed list `GET /admin/summaries/failed`,
//! (the summary requests the post writes send are the facade's).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use community::input::{admin_page, PostId};
use community::model::summary::{FailedSummaryPage, PostSummary};
use platform::auth::{AdminUser, MaybeUser};
use platform::openapi::ReasonErrorBody;
use platform::ApiError;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{maybe_user_id, number, Answer, AppState};

/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/posts/{id}/summary", get(post_summary))
        .route("/admin/posts/{id}/summary/retry", post(retry_summary))
        .route("/admin/summaries/failed", get(failed_summaries))
}

/// The AI summary of a post: its state, and the summary once generated. A draft's is visible
/// to its author only.
#[utoipa::path(
    get,
    path = "/api/v1/posts/{id}/summary",
    operation_id = "getPostSummary",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "The summary's state", body = PostSummary),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
    )
)]
pub(crate) async fn post_summary(
    State(state): State<AppState>,
    user: MaybeUser,
    Path(id): Path<String>,
) -> Answer<PostSummary> {
    let id = PostId::parse("id", &id)?;
    let caller = maybe_user_id(&user)?;
    Ok(axum::Json(
        state.community.summary(&id, caller.as_ref()).await?,
    ))
}

/// Generates a post's summary again (admin): the state becomes PENDING and the summary event
/// is sent again (a newer request: one still on its way is then ignored); the outcome is read
/// from `GET /posts/{id}/summary`.
#[utoipa::path(
    post,
    path = "/api/v1/admin/posts/{id}/summary/retry",
    operation_id = "retryPostSummary",
    tag = "community-admin",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 202, description = "Accepted: the summary is PENDING", body = PostSummary),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
        (status = 404, description = "No such post", body = ReasonErrorBody),
        (status = 409, description = "The post is a draft: drafts have no summary", body = ReasonErrorBody),
    )
)]
pub(crate) async fn retry_summary(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = PostId::parse("id", &id)?;
    let summary = state.community.retry_summary(&id, &admin.id).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(summary)).into_response())
}

/// The query of an admin list (failed summaries, the moderation log).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct AdminListQuery {
    /// From 0 to 49 (default 0).
    #[param(value_type = Option<i32>, minimum = 0, maximum = 49)]
    pub(crate) page: Option<String>,
    /// From 1 to 100 (default 20).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    pub(crate) size: Option<String>,
    /// The `nextCursor` of the previous page: the page after it (a `page` beside it is ignored).
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    pub(crate) cursor: Option<String>,
}

/// Posts whose summary failed (every retry of the queue), most recently failed first
/// (admin).
#[utoipa::path(
    get,
    path = "/api/v1/admin/summaries/failed",
    operation_id = "failedSummaries",
    tag = "community-admin",
    params(AdminListQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of failed summaries (`totalElements` counts at most 1,000)", body = FailedSummaryPage),
        (status = 400, description = "page or size out of bounds, or a cursor this service could not have given out", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
    )
)]
pub(crate) async fn failed_summaries(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    platform::http::Query(query): platform::http::Query<AdminListQuery>,
) -> Answer<FailedSummaryPage> {
    let page = admin_page(
        number("page", query.page.as_deref())?,
        number("size", query.size.as_deref())?,
        query.cursor.as_deref(),
    )?;
    Ok(axum::Json(state.community.failed_summaries(page).await?))
}
