//! The platform's own services' view of accounts: one user by id, and every account's id a page at a time (internal token).

use axum::extract::{Path, State};
use axum::routing::get;
use axum::Router;
use identity::model::UserId;
use identity_client::{InternalUser, InternalUserIds};
use platform::auth::InternalService;
use platform::openapi::ErrorBody;
use platform::ApiError;
use utoipa::OpenApi;

use crate::AppState;

/// This resource's routes, under the function's prefix.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/internal/users", get(internal_users))
        .route("/internal/users/{id}", get(internal_user))
        .route(
            "/internal/usernames/{username}",
            get(internal_user_by_username),
        )
}

#[derive(OpenApi)]
#[openapi(
    paths(internal_user, internal_user_by_username, internal_users),
    components(schemas(InternalUser, InternalUserIds))
)]
pub(crate) struct DirectoryApi;

/// A user's public profile and list-privacy settings, for the platform's own services.
#[utoipa::path(
    get,
    path = "/api/users/internal/users/{id}",
    operation_id = "internalUser",
    tag = "users",
    security(("internalToken" = [])),
    params(("id" = String, Path, max_length = 200, description = "The user's id")),
    responses(
        (status = 200, description = "The user", body = InternalUser),
        (status = 400, description = "The id is longer than 200 characters", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ErrorBody),
        (status = 404, description = "No such user", body = ErrorBody),
    )
)]
async fn internal_user(
    State(state): State<AppState>,
    _service: InternalService,
    Path(id): Path<String>,
) -> Result<axum::Json<InternalUser>, ApiError> {
    let id = UserId::new(platform::validation::bounded_id("id", id)?);
    describe(&state, &id).await
}

/// A user by username (any case), for the community's `@mentions`.
#[utoipa::path(
    get,
    path = "/api/users/internal/usernames/{username}",
    operation_id = "internalUserByUsername",
    tag = "users",
    security(("internalToken" = [])),
    params(("username" = String, Path, max_length = 200, description = "The username, any case")),
    responses(
        (status = 200, description = "The user", body = InternalUser),
        (status = 400, description = "The username is longer than 200 characters", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ErrorBody),
        (status = 404, description = "No such user", body = ErrorBody),
    )
)]
async fn internal_user_by_username(
    State(state): State<AppState>,
    _service: InternalService,
    Path(username): Path<String>,
) -> Result<axum::Json<InternalUser>, ApiError> {
    let username = platform::validation::bounded_id("username", username)?;
    let id = state
        .identity
        .user_id_by_username(&username)
        .await?
        .ok_or_else(|| ApiError::not_found("No such user"))?;
    describe(&state, &id).await
}

async fn describe(state: &AppState, id: &UserId) -> Result<axum::Json<InternalUser>, ApiError> {
    let (profile, settings) =
        tokio::try_join!(state.identity.profile(id), state.identity.settings(id))?;
    Ok(axum::Json(InternalUser {
        display_name: profile
            .name
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| profile.username.clone()),
        id: profile.id,
        username: profile.username,
        roles: profile.roles,
        show_bookmarks: settings.show_bookmarks,
        show_likes: settings.show_likes,
        followed_topics: settings.followed_topics,
    }))
}

/// The page query of the user directory.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct DirectoryQuery {
    /// The previous page's `nextCursor` (absent: the first page).
    #[param(max_length = 200)]
    cursor: Option<String>,
    /// 1 to 100 (default 100).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

/// Every account's id, a page at a time in id order, for the platform's own services (the
/// daily digests' schedule).
#[utoipa::path(
    get,
    path = "/api/users/internal/users",
    operation_id = "internalUserIds",
    tag = "users",
    security(("internalToken" = [])),
    params(DirectoryQuery),
    responses(
        (status = 200, description = "A page of user ids", body = InternalUserIds),
        (status = 400, description = "limit is not 1 to 100, or cursor is longer than 200 characters", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ErrorBody),
    )
)]
async fn internal_users(
    State(state): State<AppState>,
    _service: InternalService,
    platform::http::Query(query): platform::http::Query<DirectoryQuery>,
) -> Result<axum::Json<InternalUserIds>, ApiError> {
    let limit = match query.limit.as_deref().map(str::trim) {
        None => 100,
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => return Err(ApiError::field("limit", "must be from 1 to 100")),
        },
    };
    let cursor = query
        .cursor
        .map(|c| platform::validation::bounded_id("cursor", c))
        .transpose()?
        .filter(|c| !c.is_empty());
    let (ids, next_cursor) = state.identity.user_ids(cursor.as_deref(), limit).await?;
    Ok(axum::Json(InternalUserIds { ids, next_cursor }))
}
