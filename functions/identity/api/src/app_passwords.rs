//! The signed-in person's app passwords (`/api/users/users/me/app-passwords`): one per device
//! or app that reads through the Google Reader API, shown once, revoked one by one, and ended
//! with the account's sessions.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{delete, get};
use axum::Router;
use identity::app_passwords::{
    AppPassword, AppPasswordPage, AppPasswordRequest, CreatedAppPassword, MAX_APP_PASSWORDS,
};
use identity::model::UserId;
use identity::IdentityError;
use platform::auth::AuthUser;
use platform::http::{Json, Query};
use platform::openapi::{ErrorBody, SecuritySchemes};
use platform::{ApiError, FieldError};
use serde::Deserialize;
use utoipa::{IntoParams, OpenApi};

use crate::responses::{NeedsLiveUser, NeedsUser};
use crate::{no_store, AppState};

/// This resource's routes, under the function's prefix.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/users/me/app-passwords",
            get(app_passwords).post(create_app_password),
        )
        .route("/users/me/app-passwords/{id}", delete(revoke_app_password))
}

#[derive(OpenApi)]
#[openapi(
    paths(app_passwords, create_app_password, revoke_app_password),
    components(schemas(AppPassword, AppPasswordPage, AppPasswordRequest, CreatedAppPassword, ErrorBody)),
    modifiers(&SecuritySchemes)
)]
struct AppPasswordsApi;

pub(crate) fn openapi() -> utoipa::openapi::OpenApi {
    AppPasswordsApi::openapi()
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct PageQuery {
    /// The previous page's `nextCursor` (absent: the first page).
    #[param(pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
    /// 1 to 20 (default 20: every app password a person may hold).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20)]
    size: Option<String>,
}

/// The person's app passwords, newest first (never their secrets).
#[utoipa::path(
    get,
    path = "/api/users/users/me/app-passwords",
    operation_id = "getMyAppPasswords",
    tag = "users",
    security(("bearerJwt" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of app passwords, newest first", body = AppPasswordPage),
        (status = 400, description = "`size` or `cursor` is invalid", body = ErrorBody),
        NeedsUser,
        (status = 403, description = "A service token: app passwords are a person's", body = ErrorBody),
    )
)]
async fn app_passwords(
    State(state): State<AppState>,
    user: AuthUser,
    Query(query): Query<PageQuery>,
) -> Result<axum::Json<AppPasswordPage>, ApiError> {
    let size = match query.size.as_deref().map(str::trim) {
        None => MAX_APP_PASSWORDS,
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=MAX_APP_PASSWORDS).contains(&n) => n,
            _ => {
                return Err(FieldError::new(
                    "size",
                    format!("must be a whole number from 1 to {MAX_APP_PASSWORDS}"),
                )
                .into())
            }
        },
    };
    let after = match query.cursor.as_deref() {
        None => None,
        Some(raw) => Some(
            platform::cursor::decode_cursor(raw)
                .ok_or_else(|| FieldError::new("cursor", "is not a cursor of this list"))?,
        ),
    };
    let page = state
        .identity
        .app_passwords(&UserId::new(user.id), after.as_deref(), size)
        .await?;
    Ok(axum::Json(page))
}

/// Creates an app password for an app or device; the answer is the only time its password is
/// shown. It signs in the Google Reader API's `ClientLogin` (never the account's password).
#[utoipa::path(
    post,
    path = "/api/users/users/me/app-passwords",
    operation_id = "createMyAppPassword",
    tag = "users",
    security(("bearerJwt" = [])),
    request_body = AppPasswordRequest,
    responses(
        (status = 201, description = "The new app password, with its password (shown this once; `Cache-Control: no-store`)", body = CreatedAppPassword),
        (status = 400, description = "`name` is missing or invalid", body = ErrorBody),
        NeedsLiveUser,
        (status = 403, description = "A service token: app passwords are a person's", body = ErrorBody),
        (status = 409, description = "The account already holds 20 app passwords: revoke one first", body = ErrorBody),
    )
)]
async fn create_app_password(
    State(state): State<AppState>,
    user: AuthUser,
    Json(input): Json<AppPasswordRequest>,
) -> Result<impl IntoResponse, ApiError> {
    let name = input.parse()?;
    let created = state
        .identity
        .create_app_password(&UserId::new(user.id), user.session_version, name)
        .await?;
    Ok((StatusCode::CREATED, no_store(axum::Json(created))))
}

/// Revokes an app password: apps signed in with it are refused from now on.
#[utoipa::path(
    delete,
    path = "/api/users/users/me/app-passwords/{id}",
    operation_id = "revokeMyAppPassword",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("id" = String, Path, description = "The app password's id")),
    responses(
        (status = 204, description = "Revoked"),
        NeedsUser,
        (status = 403, description = "A service token: app passwords are a person's", body = ErrorBody),
        (status = 404, description = "The person has no such app password", body = ErrorBody),
    )
)]
async fn revoke_app_password(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    // An id identity never makes names no app password.
    if id.len() != 16 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(IdentityError::AppPasswordNotFound.into());
    }
    state
        .identity
        .revoke_app_password(&UserId::new(user.id), &id.to_ascii_lowercase())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
