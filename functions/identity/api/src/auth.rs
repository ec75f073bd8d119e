//! Signing up and in: registration, login and a session's refresh.

use axum::extract::State;
use axum::http::{Extensions, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;
use identity::input::{Credentials, Login, Registration};
use identity::model::{Profile, UserId};
use platform::auth::AuthUser;
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::ratelimit::ClientKey;
use platform::ApiError;
use serde::Serialize;
use utoipa::{OpenApi, ToSchema};

use crate::responses::{NeedsLiveUser, TooManyLogins};
use crate::{no_store, AppState};

/// This resource's routes, under the function's prefix.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/auth/register", post(register))
        .route("/auth/login", post(login))
        .route("/auth/refresh", post(refresh))
}

#[derive(OpenApi)]
#[openapi(
    paths(register, login, refresh),
    components(schemas(Registration, Login, LoginToken))
)]
pub(crate) struct AuthApi;

/// Registers an account.
#[utoipa::path(
    post,
    path = "/api/users/auth/register",
    operation_id = "registerUser",
    security(()),
    tag = "users",
    request_body = Registration,
    responses(
        (status = 201, description = "The new account's profile", body = Profile),
        (status = 400, description = "A field is missing or invalid (`details` names each)", body = ErrorBody),
        (status = 409, description = "The username is taken (an email that is another account's is not refused: the answer does not reveal whose address it is)", body = ErrorBody),
    )
)]
async fn register(
    State(state): State<AppState>,
    Json(input): Json<Registration>,
) -> Result<impl IntoResponse, ApiError> {
    let account = input.parse()?;
    let profile = state.identity.register(account).await?;
    Ok((StatusCode::CREATED, axum::Json(profile)))
}

/// A user token: a JWT to send as `Authorization: Bearer <token>`.
#[derive(Serialize, ToSchema)]
pub(crate) struct LoginToken {
    pub(crate) token: String,
}

/// Logs in.
#[utoipa::path(
    post,
    path = "/api/users/auth/login",
    operation_id = "loginUser",
    security(()),
    tag = "users",
    request_body = Login,
    responses(
        (status = 200, description = "A user token (lifetime JWT_TTL_SECONDS)", body = LoginToken),
        (status = 400, description = "The body is not a login", body = ErrorBody),
        (status = 401, description = "Unknown user or wrong password (the same answer for both)", body = ErrorBody),
        TooManyLogins,
    )
)]
async fn login(
    State(state): State<AppState>,
    extensions: Extensions,
    Json(input): Json<Login>,
) -> Result<impl IntoResponse, ApiError> {
    log_in(&state, &extensions, input.parse()?).await
}

/// A login of either system: counted by the brake before the password is checked, then the
/// platform's user token.
pub(crate) async fn log_in(
    state: &AppState,
    extensions: &Extensions,
    credentials: Credentials,
) -> Result<impl IntoResponse, ApiError> {
    // Outside API Gateway (a router in a test) every caller is one client.
    let address = platform::http::client_address(extensions).unwrap_or_else(|| "unknown".into());
    state
        .login_brake
        .admit_all([
            (&crate::LOGINS_PER_ADDRESS, ClientKey::address(&address)),
            (
                &crate::LOGINS_PER_USERNAME,
                ClientKey::username(&credentials.username_key),
            ),
        ])
        .await?;
    let issued = state.identity.login(credentials).await?;
    Ok(token_answer(issued.token))
}

/// A user token, not to be cached.
pub(crate) fn token_answer(token: String) -> impl IntoResponse {
    no_store(axum::Json(LoginToken { token }))
}

/// Renews a session: a fresh user token for a valid, unexpired one, so a reader in the middle
/// of an article is not logged out. Refused when the token's account is gone; the new token
/// belongs to the presented one's session, so it ends with it.
#[utoipa::path(
    post,
    path = "/api/users/auth/refresh",
    operation_id = "refreshToken",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A new user token (lifetime JWT_TTL_SECONDS from now)", body = LoginToken),
        NeedsLiveUser,
    )
)]
async fn refresh(
    State(state): State<AppState>,
    user: AuthUser,
) -> Result<impl IntoResponse, ApiError> {
    let issued = state
        .identity
        .refresh(&UserId::new(user.id), user.session_version)
        .await?;
    Ok(token_answer(issued.token))
}
