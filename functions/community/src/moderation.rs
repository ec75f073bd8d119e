//! Deleting posts: `DELETE /posts/{id}` (the author's own, soft).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use community::input::PostId;
use platform::auth::AuthUser;
use platform::openapi::ReasonErrorBody;
use platform::ApiError;

use crate::brake::{TooManyWrites, Write};
use crate::errors::to_api;
use crate::{search, user_id, AppState};

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
