//! `DELETE /internal/users/{id}`: the account-deletion cleanup the users service calls
//! before it deletes an account.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::delete;
use axum::Router;
use community::input::UserId;
use platform::auth::InternalService;
use platform::openapi::ReasonErrorBody;
use platform::ApiError;

use crate::AppState;

/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router.route("/internal/users/{id}", delete(forget_account))
}

/// Starts the cleanup of a deleted account: the user's writes are refused from this answer
/// on, and their posts and comments are soft-deleted, their reactions, bookmarks and comment
/// likes removed and every counter they moved moved back, by the community sweeper within
/// seconds. Idempotent: calling it again is harmless (and queues the cleanup again).
#[utoipa::path(
    delete,
    path = "/api/v1/internal/users/{id}",
    operation_id = "cleanupDeletedAccount",
    tag = "community",
    security(("internalToken" = [])),
    params(("id" = String, Path, format = "uuid", description = "The deleted user's id")),
    responses(
        (status = 204, description = "The cleanup is under way (or done)"),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ReasonErrorBody),
    )
)]
pub(crate) async fn forget_account(
    State(state): State<AppState>,
    _service: InternalService,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let user = UserId::parse("id", &id)?;
    state.community.forget_account(&user).await?;
    Ok(StatusCode::NO_CONTENT)
}
