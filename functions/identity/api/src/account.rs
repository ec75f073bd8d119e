//! The signed-in user's account: profile, settings, and deleting it.

use axum::extract::State;
use axum::http::{Extensions, StatusCode};
use axum::routing::get;
use axum::Router;
use identity::input::{ProfileUpdate, SettingsUpdate};
use identity::model::{Profile, Role, Settings, SummaryLength, Theme};
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::ApiError;
use utoipa::OpenApi;

use crate::responses::{NeedsLiveUser, NeedsUser};
use crate::{AppState, Me};

/// This resource's routes, under the function's prefix.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/users/me", get(me).put(update_me).delete(delete_me))
        .route("/users/me/settings", get(settings).put(update_settings))
}

#[derive(OpenApi)]
#[openapi(
    paths(me, update_me, delete_me, settings, update_settings),
    components(schemas(
        Profile,
        ProfileUpdate,
        Role,
        Settings,
        SettingsUpdate,
        Theme,
        SummaryLength
    ))
)]
pub(crate) struct AccountApi;

/// The logged-in user's profile.
#[utoipa::path(
    get,
    path = "/api/users/users/me",
    operation_id = "getMyProfile",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The profile", body = Profile),
        NeedsUser,
        (status = 404, description = "The account no longer exists", body = ErrorBody),
    )
)]
async fn me(State(state): State<AppState>, Me(me): Me) -> Result<axum::Json<Profile>, ApiError> {
    let profile = state.identity.profile(&me).await?;
    Ok(axum::Json(profile))
}

/// Changes the profile's email or name.
#[utoipa::path(
    put,
    path = "/api/users/users/me",
    operation_id = "updateMyProfile",
    tag = "users",
    security(("bearerJwt" = [])),
    request_body = ProfileUpdate,
    responses(
        (status = 200, description = "The updated profile", body = Profile),
        (status = 400, description = "A field is invalid", body = ErrorBody),
        NeedsLiveUser,
        (status = 409, description = "The account was changed concurrently; try again (an email that is another account's is not refused: the answer does not reveal whose address it is)", body = ErrorBody),
    )
)]
async fn update_me(
    State(state): State<AppState>,
    Me(me): Me,
    Json(update): Json<ProfileUpdate>,
) -> Result<axum::Json<Profile>, ApiError> {
    let change = update.parse()?;
    let profile = state.identity.update_profile(&me, change).await?;
    Ok(axum::Json(profile))
}

/// Deletes the account: first every subscription (the last-subscriber rule applies), then
/// the community's side (followed topics' counts, and the cleanup of the user's posts,
/// comments, reactions and bookmarks), then the recipe service's (the user's recipes), then
/// the user's records. Safe to repeat after a failure part-way.
#[utoipa::path(
    delete,
    path = "/api/users/users/me",
    operation_id = "deleteMyAccount",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "The account is deleted"),
        NeedsLiveUser,
        (status = 502, description = "The content, community or recipe service failed; the account is not deleted, and repeating the call finishes it", body = ErrorBody),
    )
)]
async fn delete_me(
    State(state): State<AppState>,
    Me(me): Me,
    extensions: Extensions,
) -> Result<StatusCode, ApiError> {
    let content = state.content(&extensions);
    let internal = state.internal(&extensions);
    state
        .identity
        .delete_account(&content, &internal, &internal, &me)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The logged-in user's settings.
#[utoipa::path(
    get,
    path = "/api/users/users/me/settings",
    operation_id = "getMySettings",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The settings (defaults until changed)", body = Settings),
        NeedsUser,
    )
)]
async fn settings(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<axum::Json<Settings>, ApiError> {
    let settings = state.identity.settings(&me).await?;
    Ok(axum::Json(settings))
}

/// Changes settings: a merge, absent fields keep their value.
#[utoipa::path(
    put,
    path = "/api/users/users/me/settings",
    operation_id = "updateMySettings",
    tag = "users",
    security(("bearerJwt" = [])),
    request_body = SettingsUpdate,
    responses(
        (status = 200, description = "The settings after the change", body = Settings),
        (status = 400, description = "A field is invalid or unknown", body = ErrorBody),
        NeedsLiveUser,
    )
)]
async fn update_settings(
    State(state): State<AppState>,
    Me(me): Me,
    extensions: Extensions,
    Json(update): Json<SettingsUpdate>,
) -> Result<axum::Json<Settings>, ApiError> {
    let change = update.parse()?;
    let settings = state.identity.update_settings(&me, change).await?;
    // Followed-topic changes (this one and any a failed send left) go to the community
    // service; the settings are saved either way, and a change not delivered stays queued.
    if let Err(e) = state
        .identity
        .flush_follow_deltas(&state.internal(&extensions), &me)
        .await
    {
        tracing::warn!(reason = %e, "followed-topic changes not flushed");
    }
    Ok(axum::Json(settings))
}
