//! Comments: `GET` and `POST /posts/{id}/comments`, `PATCH` and `DELETE /comments/{id}` (the
//! author's edit and delete, or an admin's removal with a reason), `PUT /comments/{id}/reaction`.

use axum::extract::{Path, State};
use axum::http::{Extensions, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, put};
use axum::Router;
use community::input::{CommentId, CommentLike, CommentText, PostId};
use community::model::comments::{Comment, LikeResult};
use platform::auth::{AuthUser, MaybeUser};
use platform::http::Json;
use platform::openapi::ReasonErrorBody;
use platform::ratelimit::ClientKey;
use platform::ApiError;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::brake::{self, TooManyWrites};
use crate::moderation::{admin_reason, RemovalQuery};
use crate::{maybe_user_id, number, user_id, Answer, AppState};

/// The comment routes, relative to `/api/v1`.
/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/posts/{id}/comments", get(list_comments).post(add_comment))
        .route("/comments/{id}", patch(edit_comment).delete(delete_comment))
        .route("/comments/{id}/reaction", put(like_comment))
}

/// The query of a post's comments: without `limit` or `cursor`, every thread at once.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct CommentsQuery {
    /// Top-level comments a page holds, each with all its replies: 1 to 100.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `X-Next-Cursor` of the previous page: the threads after it (a comment's place,
    /// which starts `C#`, `4323` encoded).
    #[param(max_length = 400, pattern = "^4323(?:[2-7][0-9a-f]){0,198}$")]
    cursor: Option<String>,
}

/// The most top-level comments one page holds.
const MAX_THREADS_PER_PAGE: usize = 100;

/// A post's comments as a tree: every thread, or with `limit`/`cursor` a page of threads.
#[utoipa::path(
    get,
    path = "/api/v1/posts/{id}/comments",
    operation_id = "listComments",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id"), CommentsQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "Top-level comments oldest first, each with its replies (with `limit` or `cursor`, a page of them: when more follow, the `X-Next-Cursor` header holds the next page's cursor)", body = Vec<Comment>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "id, limit or cursor is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
    )
)]
pub(crate) async fn list_comments(
    State(state): State<AppState>,
    user: MaybeUser,
    Path(id): Path<String>,
    platform::http::Query(query): platform::http::Query<CommentsQuery>,
) -> Result<Response, ApiError> {
    let id = PostId::parse("id", &id)?;
    let caller = maybe_user_id(&user)?;
    let limit = number("limit", query.limit.as_deref())?;
    if limit.is_none() && query.cursor.is_none() {
        let all = state.community.comments(&id, caller.as_ref()).await?;
        return Ok(axum::Json(all).into_response());
    }
    let limit = limit.unwrap_or(20);
    let limit = usize::try_from(limit)
        .ok()
        .filter(|l| (1..=MAX_THREADS_PER_PAGE).contains(l))
        .ok_or_else(|| ApiError::field("limit", "must be between 1 and 100"))?;
    let (page, next) = state
        .community
        .comment_page(&id, caller.as_ref(), limit, query.cursor.as_deref())
        .await?;
    let mut response = axum::Json(page).into_response();
    if let Some(cursor) = next.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert("x-next-cursor", cursor);
    }
    Ok(response)
}

/// A comment to add.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct CommentRequest {
    /// 1 to 500 characters once trimmed; no control characters but line breaks and tabs.
    #[schema(
        required = true,
        value_type = String,
        min_length = 1,
        pattern = "^[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000](?:[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]{0,498}[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000])?[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$"
    )]
    text: Option<String>,
    /// The comment replied to, on the same post (nesting at most 16 deep), or null.
    #[schema(value_type = Option<String>, format = "uuid")]
    parent_id: Option<String>,
}

/// Adds the caller's comment to a published post.
#[utoipa::path(
    post,
    path = "/api/v1/posts/{id}/comments",
    operation_id = "addComment",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    request_body = CommentRequest,
    responses(
        (status = 201, description = "The new comment", body = Comment),
        (status = 400, description = "text or parentId is invalid, or `parentId` names no comment on this post (`message` names the field)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 404, description = "No such post, or not published", body = ReasonErrorBody),
        (status = 409, description = "The post has 1,000 comments, or it is the caller's own draft", body = ReasonErrorBody),
        TooManyWrites,
        (status = 502, description = "The identity service could not be reached", body = ReasonErrorBody),
        (status = 503, description = "The limits table cannot be reached, or the identity service is busy: retry later (`Retry-After`)", body = ReasonErrorBody),
    )
)]
pub(crate) async fn add_comment(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    Path(id): Path<String>,
    Json(body): Json<CommentRequest>,
) -> Result<Response, ApiError> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    let text = CommentText::parse(body.text.as_deref())?;
    let parent = body
        .parent_id
        .as_deref()
        .map(|p| CommentId::parse("parentId", p))
        .transpose()?;
    state
        .brake
        .admit(&brake::COMMENTS, ClientKey::user(caller.as_str()))
        .await?;
    let base = platform::http::internal_api_base(state.internal_api_url.as_deref(), &extensions);
    let comment = state
        .community
        .add_comment(&state.users.at(base), &caller, &id, &text, parent.as_ref())
        .await?;
    Ok((StatusCode::CREATED, axum::Json(comment)).into_response())
}

/// A like of a comment.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommentLikeRequest {
    /// `LIKE`, or `NONE` to take it back.
    #[serde(rename = "type")]
    #[schema(required = true, value_type = crate::schema::CommentLikeName, example = "LIKE")]
    kind: Option<String>,
}

/// Likes a comment or takes the like back.
#[utoipa::path(
    put,
    path = "/api/v1/comments/{id}/reaction",
    operation_id = "likeComment",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The comment's id")),
    security(("bearerJwt" = [])),
    request_body = CommentLikeRequest,
    responses(
        (status = 200, description = "The comment's like count and the caller's like", body = LikeResult),
        (status = 400, description = "type (LIKE or NONE) or the id is invalid", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 404, description = "No such comment", body = ReasonErrorBody),
        TooManyWrites,
    )
)]
pub(crate) async fn like_comment(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<CommentLikeRequest>,
) -> Answer<LikeResult> {
    let id = CommentId::parse("id", &id)?;
    let caller = user_id(&user)?;
    let like = CommentLike::parse(body.kind.as_deref())?;
    state
        .brake
        .admit(&brake::REACTIONS, ClientKey::user(caller.as_str()))
        .await?;
    Ok(axum::Json(
        state.community.like_comment(&id, &caller, like).await?,
    ))
}

/// A comment's new text.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommentEditRequest {
    /// 1 to 500 characters once trimmed; no control characters but line breaks and tabs.
    #[schema(
        required = true,
        value_type = String,
        min_length = 1,
        pattern = "^[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000](?:[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]{0,498}[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000])?[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$"
    )]
    text: Option<String>,
}

/// Changes the text of the caller's own comment; the comment then shows `editedAt`.
#[utoipa::path(
    patch,
    path = "/api/v1/comments/{id}",
    operation_id = "editComment",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The comment's id")),
    security(("bearerJwt" = [])),
    request_body = CommentEditRequest,
    responses(
        (status = 200, description = "The comment as changed (without its replies)", body = Comment),
        (status = 400, description = "text or the id is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 403, description = "Not the comment's author", body = ReasonErrorBody),
        (status = 404, description = "No such comment, deleted, or on a post the caller cannot see", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn edit_comment(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<CommentEditRequest>,
) -> Answer<Comment> {
    let id = CommentId::parse("id", &id)?;
    let caller = user_id(&user)?;
    let text = CommentText::parse(body.text.as_deref())?;
    state
        .brake
        .admit(&brake::COMMENTS, ClientKey::user(caller.as_str()))
        .await?;
    Ok(axum::Json(
        state.community.edit_comment(&id, &caller, &text).await?,
    ))
}

/// Deletes the caller's own comment, or (an admin, with `reason`) removes anyone's and keeps
/// the removal in the moderation log: one with replies stays in the thread as `[deleted]` (no
/// author, no text), one without leaves it; the post's `commentCount` moves.
#[utoipa::path(
    delete,
    path = "/api/v1/comments/{id}",
    operation_id = "deleteComment",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The comment's id"), RemovalQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted (and, with a reason, logged)"),
        (status = 400, description = "id or reason is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 403, description = "Not the comment's author, or a reason from someone who is not an admin", body = ReasonErrorBody),
        (status = 404, description = "No such comment, already deleted, or on a post the caller cannot see", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn delete_comment(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    platform::http::Query(query): platform::http::Query<RemovalQuery>,
) -> Result<StatusCode, ApiError> {
    let id = CommentId::parse("id", &id)?;
    let caller = user_id(&user)?;
    if let Some(reason) = admin_reason(&user, query)? {
        state
            .community
            .remove_comment(&id, &user.id, &reason)
            .await?;
        tracing::info!(comment_id = %id.as_str(), admin = %user.id, "comment removed by an admin");
        return Ok(StatusCode::NO_CONTENT);
    }
    state
        .brake
        .admit(&brake::COMMENTS, ClientKey::user(caller.as_str()))
        .await?;
    state.community.delete_comment(&id, &caller).await?;
    Ok(StatusCode::NO_CONTENT)
}
