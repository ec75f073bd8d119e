//! Deleting posts: `DELETE /posts/{id}` (the author's own, soft; or, with `?reason=`, an
//! admin's removal of anyone's, kept in the moderation log), and the log itself,
//! `GET /admin/moderation`. Comments are deleted and removed the same way
//! (`DELETE /comments/{id}`, in [`crate::comments`]).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::Router;
use community::input::{admin_page, PostId, RemovalReason};
use community::model::moderation::ModerationLogPage;
use platform::auth::{AdminUser, AuthUser};
use platform::openapi::ReasonErrorBody;
use platform::ratelimit::ClientKey;
use platform::ApiError;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::brake::{self, TooManyWrites};
use crate::summaries::AdminListQuery;
use crate::{number, user_id, Answer, AppState};

/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router.route("/admin/moderation", get(moderation_log))
}

/// The query of a delete: an admin's reason makes it a removal of anyone's post or comment.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct RemovalQuery {
    /// Admins only: why they remove it, kept in the moderation log. One line, 1 to 500
    /// characters, not blank (trimmed before it is kept).
    #[param(
        min_length = 1,
        max_length = 500,
        pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$",
        example = "Spam: links to a phishing site"
    )]
    reason: Option<String>,
}

/// The admin's reason of a delete (`None`: the author's own delete); 403 when someone who is
/// not an admin gives one, 400 naming `reason` when it is not one line of 1 to 500 characters.
pub(crate) fn admin_reason(
    user: &AuthUser,
    query: RemovalQuery,
) -> Result<Option<RemovalReason>, ApiError> {
    let Some(raw) = query.reason else {
        return Ok(None);
    };
    if !user.is_admin() {
        return Err(ApiError::forbidden(
            "Only an admin may remove with a reason",
        ));
    }
    Ok(Some(RemovalReason::parse(Some(&raw))?))
}

/// Deletes the caller's own post, draft or published, or (an admin, with `reason`) removes
/// anyone's and keeps the removal in the moderation log: it answers 404 to everyone after, and
/// leaves every list, topic feed, count and (through the indexer) the search.
#[utoipa::path(
    delete,
    path = "/api/v1/posts/{id}",
    operation_id = "deletePost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id"), RemovalQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted (and, with a reason, logged)"),
        (status = 400, description = "id or reason is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 403, description = "Not the author, or a reason from someone who is not an admin", body = ReasonErrorBody),
        (status = 404, description = "No such post, already deleted, or another author's draft", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn delete_post(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    platform::http::Query(query): platform::http::Query<RemovalQuery>,
) -> Result<StatusCode, ApiError> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    if let Some(reason) = admin_reason(&user, query)? {
        state.community.remove_post(&id, &user.id, &reason).await?;
        tracing::info!(post_id = %id.as_str(), admin = %user.id, "post removed by an admin");
    } else {
        state
            .brake
            .admit(&brake::POSTS, ClientKey::user(caller.as_str()))
            .await?;
        state.community.delete_post(&id, &caller).await?;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// The admins' removals of posts and comments, newest first (admin).
#[utoipa::path(
    get,
    path = "/api/v1/admin/moderation",
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
    Ok(axum::Json(state.community.moderation_log(page).await?))
}
