//! Reactions and bookmarks on posts: `PUT /posts/{id}/reaction`, `PUT` and `DELETE
//! /posts/{id}/bookmark`.

use axum::extract::{Path, State};
use axum::routing::put;
use axum::Router;
use community::input::{PostId, PostReaction};
use community::model::social::{BookmarkResult, ReactionResult};
use platform::auth::AuthUser;
use platform::http::Json;
use platform::openapi::ReasonErrorBody;
use platform::ratelimit::ClientKey;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::brake::{self, TooManyWrites};
use crate::{user_id, Answer, AppState};

/// The social routes, relative to `/api/v1`.
/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/posts/{id}/reaction", put(react))
        .route("/posts/{id}/bookmark", put(bookmark).delete(unbookmark))
}

/// A reaction to a post.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReactionRequest {
    /// `LIKE`, `DISLIKE`, or `NONE` to take a reaction back.
    #[serde(rename = "type")]
    #[schema(required = true, value_type = crate::schema::PostReactionName, example = "LIKE")]
    kind: Option<String>,
}

/// Sets the caller's reaction to a published post (one per user); NONE takes it back from any
/// post that exists, also one unpublished or removed since.
#[utoipa::path(
    put,
    path = "/api/v1/posts/{id}/reaction",
    operation_id = "reactToPost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    request_body = ReactionRequest,
    responses(
        (status = 200, description = "The post's counts and the caller's reaction", body = ReactionResult),
        (status = 400, description = "type or the id is invalid", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 404, description = "No such post, or (LIKE or DISLIKE) another author's draft", body = ReasonErrorBody),
        (status = 409, description = "LIKE or DISLIKE on the caller's own draft", body = ReasonErrorBody),
        (status = 503, description = "The reaction is saved but its count could not be queued: retry", body = ReasonErrorBody),
        TooManyWrites,
    )
)]
pub(crate) async fn react(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<ReactionRequest>,
) -> Answer<ReactionResult> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    let reaction = PostReaction::parse(body.kind.as_deref())?;
    state
        .brake
        .admit(&brake::REACTIONS, ClientKey::user(caller.as_str()))
        .await?;
    Ok(axum::Json(
        state.community.react(&id, &caller, reaction).await?,
    ))
}

/// Bookmarks a published post; bookmarking twice changes nothing.
#[utoipa::path(
    put,
    path = "/api/v1/posts/{id}/bookmark",
    operation_id = "bookmarkPost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The post's bookmark count, bookmarked by the caller", body = BookmarkResult),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
        (status = 409, description = "The caller's own draft", body = ReasonErrorBody),
        TooManyWrites,
    )
)]
pub(crate) async fn bookmark(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> Answer<BookmarkResult> {
    mark(state, user, id, true).await
}

/// Removes the caller's bookmark from any post that exists, also one unpublished or removed
/// since; removing a missing one changes nothing.
#[utoipa::path(
    delete,
    path = "/api/v1/posts/{id}/bookmark",
    operation_id = "unbookmarkPost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The post's bookmark count, not bookmarked by the caller", body = BookmarkResult),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 404, description = "No such post", body = ReasonErrorBody),
        TooManyWrites,
    )
)]
pub(crate) async fn unbookmark(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> Answer<BookmarkResult> {
    mark(state, user, id, false).await
}

async fn mark(
    state: AppState,
    user: AuthUser,
    id: String,
    bookmarked: bool,
) -> Answer<BookmarkResult> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    state
        .brake
        .admit(&brake::REACTIONS, ClientKey::user(caller.as_str()))
        .await?;
    Ok(axum::Json(
        state.community.bookmark(&id, &caller, bookmarked).await?,
    ))
}
