//! Deleting posts and comments: the author's `DELETE /posts/{id}` (soft), and an admin's
//! removal of any post or comment with a reason (`POST /admin/posts/{id}/removal`,
//! `POST /admin/comments/{id}/removal`), read back in `GET /admin/moderation-log`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use community::input::{CommentId, PostId};
use community::moderation::{ModerationLogPage, RemovalReason};
use community::summary::admin_page;
use platform::auth::{AdminUser, AuthUser};
use platform::http::Json;
use platform::openapi::ReasonErrorBody;
use platform::ApiError;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::brake::{TooManyWrites, Write};
use crate::errors::to_api;
use crate::summaries::AdminListQuery;
use crate::{number, search, user_id, Answer, AppState};

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/admin/posts/{id}/removal", post(remove_post))
        .route("/admin/comments/{id}/removal", post(remove_comment))
        .route("/admin/moderation-log", get(moderation_log))
}

/// Deletes the caller's own post, draft or published: it answers 404 to everyone after, and
/// leaves every list, topic feed, count and (through the indexer) the search.
#[utoipa::path(
    delete,
    path = "/api/v1/posts/{id}",
    operation_id = "deletePost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 403, description = "Not the author", body = ReasonErrorBody),
        (status = 404, description = "No such post, already deleted, or another author's draft", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn delete_post(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    state.brake.admit(Write::Post, caller.as_str()).await?;
    state
        .community
        .delete_post(&id, &caller)
        .await
        .map_err(to_api)?;
    search::request_index(&state, id.as_str()).await;
    Ok(StatusCode::NO_CONTENT)
}

/// An admin's removal: why, as the moderation log keeps it.
#[derive(Deserialize, ToSchema)]
pub(crate) struct RemovalRequest {
    /// One line, 1 to 500 characters, not blank (trimmed before it is kept).
    #[schema(
        required = true,
        value_type = String,
        min_length = 1,
        max_length = 500,
        pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$",
        example = "Spam: links to a phishing site"
    )]
    reason: Option<String>,
}

/// Removes any live post, draft or published (admin), as its author's delete does, and logs
/// the removal with its reason in the same transaction.
#[utoipa::path(
    post,
    path = "/api/v1/admin/posts/{id}/removal",
    operation_id = "removePost",
    tag = "community-admin",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    request_body = RemovalRequest,
    responses(
        (status = 204, description = "Removed and logged"),
        (status = 400, description = "reason or the id is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
        (status = 404, description = "No such post, or already deleted or removed", body = ReasonErrorBody),
        (status = 415, description = "Not JSON", body = ReasonErrorBody),
    )
)]
pub(crate) async fn remove_post(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    Path(id): Path<String>,
    Json(body): Json<RemovalRequest>,
) -> Result<StatusCode, ApiError> {
    let id = PostId::parse("id", &id)?;
    let reason = RemovalReason::parse(body.reason.as_deref())?;
    state
        .community
        .remove_post(&id, &admin.id, &reason)
        .await
        .map_err(to_api)?;
    tracing::info!(post_id = %id.as_str(), admin = %admin.id, "post removed by an admin");
    search::request_index(&state, id.as_str()).await;
    Ok(StatusCode::NO_CONTENT)
}

/// Removes any live comment (admin), as its author's delete does (one with replies stays as
/// `[deleted]`), and logs the removal with its reason in the same transaction.
#[utoipa::path(
    post,
    path = "/api/v1/admin/comments/{id}/removal",
    operation_id = "removeComment",
    tag = "community-admin",
    params(("id" = String, Path, format = "uuid", description = "The comment's id")),
    security(("bearerJwt" = [])),
    request_body = RemovalRequest,
    responses(
        (status = 204, description = "Removed and logged"),
        (status = 400, description = "reason or the id is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
        (status = 404, description = "No such comment, or already deleted or removed", body = ReasonErrorBody),
        (status = 415, description = "Not JSON", body = ReasonErrorBody),
    )
)]
pub(crate) async fn remove_comment(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    Path(id): Path<String>,
    Json(body): Json<RemovalRequest>,
) -> Result<StatusCode, ApiError> {
    let id = CommentId::parse("id", &id)?;
    let reason = RemovalReason::parse(body.reason.as_deref())?;
    state
        .community
        .remove_comment(&id, &admin.id, &reason)
        .await
        .map_err(to_api)?;
    tracing::info!(comment_id = %id.as_str(), admin = %admin.id, "comment removed by an admin");
    Ok(StatusCode::NO_CONTENT)
}

/// The admins' removals, newest first (admin).
#[utoipa::path(
    get,
    path = "/api/v1/admin/moderation-log",
    operation_id = "listModerationLog",
    tag = "community-admin",
    params(AdminListQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of the log (`totalElements` counts at most 1,000)", body = ModerationLogPage),
        (status = 400, description = "page or size out of bounds, or a cursor this service could not have given out", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
    )
)]
pub(crate) async fn moderation_log(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    platform::http::Query(query): platform::http::Query<AdminListQuery>,
) -> Answer<ModerationLogPage> {
    let page = admin_page(
        number("page", query.page.as_deref())?,
        number("size", query.size.as_deref())?,
        query.cursor.as_deref(),
    )?;
    state
        .community
        .moderation_log(page)
        .await
        .map(axum::Json)
        .map_err(to_api)
}
