//! Sessions that can end (`/api/users/users/me/...`): changing the password, which needs the
//! current one, and signing out everywhere. Both end every other token of the account on every
//! system (see `platform::sessions`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{delete, put};
use axum::Router;
use identity::input::PasswordChangeRequest;
use platform::http::Json;
use platform::openapi::{ErrorBody, SecuritySchemes};
use platform::ApiError;
use utoipa::OpenApi;

use crate::auth::token_answer;
use crate::responses::NeedsLiveUser;
use crate::{AppState, LoginToken, Me};

/// The session routes, relative to `/api/users`.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/users/me/password", put(change_password))
        .route("/users/me/sessions", delete(end_sessions))
}

#[derive(OpenApi)]
#[openapi(
    paths(change_password, end_sessions),
    components(schemas(PasswordChangeRequest, LoginToken, ErrorBody)),
    modifiers(&SecuritySchemes)
)]
struct SessionsApi;

pub(crate) fn openapi() -> utoipa::openapi::OpenApi {
    SessionsApi::openapi()
}

/// Changes the password. The current password is required: a token alone cannot take the
/// account over. Every other session ends (their tokens answer 401 on every system); the
/// answer is a token for this one.
#[utoipa::path(
    put,
    path = "/api/users/users/me/password",
    operation_id = "changeMyPassword",
    tag = "users",
    security(("bearerJwt" = [])),
    request_body = PasswordChangeRequest,
    responses(
        (status = 200, description = "Changed: a new token for this session (every other one has ended)", body = LoginToken),
        (status = 400, description = "A field is missing or invalid (`details` names each)", body = ErrorBody),
        NeedsLiveUser,
        (status = 403, description = "The current password is wrong", body = ErrorBody),
    )
)]
async fn change_password(
    State(state): State<AppState>,
    Me(me): Me,
    Json(input): Json<PasswordChangeRequest>,
) -> Result<impl IntoResponse, ApiError> {
    let change = input.parse()?;
    let renewed = state.identity.change_password(&me, change).await?;
    Ok(token_answer(renewed.token.token))
}

/// Signs out everywhere: every token of the account ends, this one included.
#[utoipa::path(
    delete,
    path = "/api/users/users/me/sessions",
    operation_id = "endMySessions",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Every session of the account has ended"),
        NeedsLiveUser,
    )
)]
async fn end_sessions(State(state): State<AppState>, Me(me): Me) -> Result<StatusCode, ApiError> {
    state.identity.end_sessions(&me).await?;
    Ok(StatusCode::NO_CONTENT)
}
