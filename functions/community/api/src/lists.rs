//! Per-user lists: `GET /users/{id}/posts`, `/users/{id}/bookmarks`, `/users/{id}/likes`.

use axum::extract::{Path, State};
use axum::http::Extensions;
use axum::routing::get;
use axum::Router;
use community::input::UserList;
use community::input::{PageRequest, PostStatus, UserId};
use community::model::PostPage;
use platform::auth::MaybeUser;
use platform::http::Query;
use platform::openapi::ReasonErrorBody;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{maybe_user_id, Answer, AppState};

/// The list routes, relative to `/api/v1`.
/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/users/{id}/posts", get(user_posts))
        .route("/users/{id}/bookmarks", get(user_bookmarks))
        .route("/users/{id}/likes", get(user_likes))
}

/// The query of a user's list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct UserListQuery {
    /// From 0 to 49 (default 0).
    #[param(value_type = Option<i32>, minimum = 0, maximum = 49)]
    page: Option<String>,
    /// From 1 to 20 (default 10).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20)]
    size: Option<String>,
    /// The `nextCursor` of the previous page: the page after it (a `page` beside it is ignored).
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
}

/// The query of a user's posts.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct UserPostsQuery {
    /// From 0 to 49 (default 0).
    #[param(value_type = Option<i32>, minimum = 0, maximum = 49)]
    page: Option<String>,
    /// From 1 to 20 (default 10).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20)]
    size: Option<String>,
    /// The `nextCursor` of the previous page: the page after it (a `page` beside it is ignored).
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
    /// `PUBLISHED` (default) or `DRAFT` (the owner only).
    #[param(value_type = Option<crate::schema::PostStatusName>)]
    status: Option<String>,
}

async fn list(
    state: AppState,
    user: MaybeUser,
    extensions: Extensions,
    id: String,
    list: UserList,
    page: PageRequest,
) -> Answer<PostPage> {
    let id = UserId::parse("id", &id)?;
    let caller = maybe_user_id(&user)?;
    let base = platform::http::internal_api_base(state.internal_api_url.as_deref(), &extensions);
    Ok(axum::Json(
        state
            .community
            .user_list(&state.users.at(base), &id, list, caller.as_ref(), page)
            .await?,
    ))
}

/// Posts by a user, newest first: published for everyone, drafts for the owner only.
#[utoipa::path(
    get,
    path = "/api/v1/users/{id}/posts",
    operation_id = "userPosts",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The user's id"), UserPostsQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of the user's posts", body = PostPage),
        (status = 400, description = "id, status, page, size or cursor is invalid", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        (status = 403, description = "Another user's drafts", body = ReasonErrorBody),
    )
)]
pub(crate) async fn user_posts(
    State(state): State<AppState>,
    user: MaybeUser,
    extensions: Extensions,
    Path(id): Path<String>,
    Query(query): Query<UserPostsQuery>,
) -> Answer<PostPage> {
    let status = match query.status.as_deref() {
        None => PostStatus::Published,
        Some(raw) => PostStatus::parse(raw)?,
    };
    let kind = UserList::Posts(status);
    let page = crate::page_request(query.page, query.size, query.cursor)?;
    list(state, user, extensions, id, kind, page).await
}

/// Posts a user bookmarked, newest bookmark first; others see it only when the user shows
/// their bookmarks.
#[utoipa::path(
    get,
    path = "/api/v1/users/{id}/bookmarks",
    operation_id = "userBookmarks",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The user's id"), UserListQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of bookmarked posts", body = PostPage),
        (status = 400, description = "id, page, size or cursor is invalid", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        (status = 403, description = "The user does not show their bookmarks", body = ReasonErrorBody),
        (status = 404, description = "No such user", body = ReasonErrorBody),
        (status = 502, description = "The identity service could not be reached", body = ReasonErrorBody),
    )
)]
pub(crate) async fn user_bookmarks(
    State(state): State<AppState>,
    user: MaybeUser,
    extensions: Extensions,
    Path(id): Path<String>,
    Query(query): Query<UserListQuery>,
) -> Answer<PostPage> {
    let kind = UserList::Bookmarks;
    let page = crate::page_request(query.page, query.size, query.cursor)?;
    list(state, user, extensions, id, kind, page).await
}

/// Posts a user liked, newest like first; others see it only when the user shows their likes.
#[utoipa::path(
    get,
    path = "/api/v1/users/{id}/likes",
    operation_id = "userLikes",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The user's id"), UserListQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of liked posts", body = PostPage),
        (status = 400, description = "id, page, size or cursor is invalid", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        (status = 403, description = "The user does not show their likes", body = ReasonErrorBody),
        (status = 404, description = "No such user", body = ReasonErrorBody),
        (status = 502, description = "The identity service could not be reached", body = ReasonErrorBody),
    )
)]
pub(crate) async fn user_likes(
    State(state): State<AppState>,
    user: MaybeUser,
    extensions: Extensions,
    Path(id): Path<String>,
    Query(query): Query<UserListQuery>,
) -> Answer<PostPage> {
    let kind = UserList::Likes;
    let page = crate::page_request(query.page, query.size, query.cursor)?;
    list(state, user, extensions, id, kind, page).await
}
