//! `DELETE /api/recipes/internal/users/{id}`: the account-deletion cleanup the users service
//! calls before it deletes an account.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use platform::auth::InternalService;
use platform::openapi::ErrorBody;
use platform::{ApiError, Invalid};

use crate::AppState;

/// Starts the cleanup of a deleted account: from this answer on the user can create no
/// recipe, and the recipes sweeper deletes the ones they have within seconds. Idempotent:
/// calling it again is harmless (and queues the cleanup again).
#[utoipa::path(
    delete,
    path = "/api/recipes/internal/users/{id}",
    operation_id = "cleanupDeletedRecipeAccount",
    tag = "recipes",
    security(("internalToken" = [])),
    params(("id" = String, Path, format = "uuid", description = "The deleted user's id")),
    responses(
        (status = 204, description = "The cleanup is under way (or done)"),
        (status = 400, description = "id is not a UUID", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ErrorBody),
        (status = 503, description = "The recipes table or the cleanup queue is unavailable; nothing changed, call again", body = ErrorBody),
    )
)]
pub(crate) async fn forget_account(
    State(state): State<AppState>,
    _service: InternalService,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let user = uuid::Uuid::parse_str(&id)
        .map_err(|_| Invalid::field("id", "must be a UUID"))?
        .hyphenated()
        .to_string();
    state
        .recipes
        .forget_account(&user, &state.cleanup_queue)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
