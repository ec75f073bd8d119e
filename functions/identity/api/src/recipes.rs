//! The recipe service's accounts (recipe service) under `/api/recipes`: register, login, read and
//! update the user. Identity owns every account of the platform, so these routes live in the
//! identity function (the template routes them here) and answer under the recipe service's
//! Credentials rules; the tokens are the platform's JWTs, valid on the news side too.

use axum::extract::State;
use axum::http::{Extensions, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use identity::recipes::{
    AboutMeEntry, PreferenceTag, PreferencesUpdate, RecipeCredentials, RecipeLanguage, RecipeTheme,
    RecipeUser, RecipeUserUpdate, UserPreferences,
};
use platform::http::Json;
use platform::openapi::{ErrorBody, SecuritySchemes, TableUnavailable};
use platform::ApiError;
use serde::Serialize;
use utoipa::{OpenApi, ToSchema};

use crate::auth::log_in;
use crate::responses::{NeedsLiveUser, NeedsUser, TooManyLogins};
use crate::{no_store, AppState, LoginToken, Me};

/// The recipe service's Message.
#[derive(Serialize, ToSchema)]
pub(crate) struct Message {
    message: String,
}

/// The recipe service's Message after an update; a password change also carries the token of this
/// session (every other one has ended).
#[derive(Serialize, ToSchema)]
pub(crate) struct UserUpdated {
    message: String,
    /// Present when the password changed: the token to use from now on.
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<String>,
}

fn message(text: &str) -> axum::Json<Message> {
    axum::Json(Message {
        message: text.to_string(),
    })
}

/// The recipe account routes, relative to `/api/recipes`.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/auth/register", post(register))
        .route("/auth/login", post(login))
        .route("/users/me", get(me).patch(update_me))
}

const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable { except: &[] };

#[derive(OpenApi)]
#[openapi(
    paths(register, login, me, update_me),
    components(schemas(
        RecipeCredentials,
        RecipeUser,
        RecipeUserUpdate,
        UserPreferences,
        PreferencesUpdate,
        PreferenceTag,
        AboutMeEntry,
        RecipeLanguage,
        RecipeTheme,
        Message,
        UserUpdated,
        LoginToken,
        ErrorBody
    )),
    modifiers(&SecuritySchemes, &TABLE_UNAVAILABLE),
    tags((name = "recipe-accounts", description = "The recipe service: accounts (the platform's one identity) and preferences"))
)]
struct RecipeAccountsApi;

pub(crate) fn openapi() -> utoipa::openapi::OpenApi {
    RecipeAccountsApi::openapi()
}

/// Registers a recipe account (an account of the whole platform, without an email).
#[utoipa::path(
    post,
    path = "/api/recipes/auth/register",
    operation_id = "registerRecipeUser",
    security(()),
    tag = "recipe-accounts",
    request_body = RecipeCredentials,
    responses(
        (status = 201, description = "Registered", body = Message),
        (status = 400, description = "A field is missing or invalid (`details` names each)", body = ErrorBody),
        (status = 409, description = "The username is taken (by an account of any system)", body = ErrorBody),
    )
)]
async fn register(
    State(state): State<AppState>,
    Json(input): Json<RecipeCredentials>,
) -> Result<impl IntoResponse, ApiError> {
    let account = input.parse()?;
    state.identity.register_recipe_account(account).await?;
    Ok((StatusCode::CREATED, message("User registered")))
}

/// Logs in with recipe credentials: the platform's user token.
#[utoipa::path(
    post,
    path = "/api/recipes/auth/login",
    operation_id = "loginRecipeUser",
    security(()),
    tag = "recipe-accounts",
    request_body = RecipeCredentials,
    responses(
        (status = 200, description = "A user token (lifetime JWT_TTL_SECONDS), valid on every system", body = LoginToken),
        (status = 400, description = "The body breaks the Credentials rules", body = ErrorBody),
        (status = 401, description = "Unknown user or wrong password (the same answer for both)", body = ErrorBody),
        TooManyLogins,
    )
)]
async fn login(
    State(state): State<AppState>,
    extensions: Extensions,
    Json(input): Json<RecipeCredentials>,
) -> Result<impl IntoResponse, ApiError> {
    log_in(&state, &extensions, input.parse_login()?).await
}

/// The signed-in user: username and recipe preferences.
#[utoipa::path(
    get,
    path = "/api/recipes/users/me",
    operation_id = "getRecipeUser",
    tag = "recipe-accounts",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The user", body = RecipeUser),
        NeedsUser,
        (status = 404, description = "The account no longer exists", body = ErrorBody),
    )
)]
async fn me(State(state): State<AppState>, Me(me): Me) -> Result<axum::Json<RecipeUser>, ApiError> {
    let user = state.identity.recipe_user(&me).await?;
    Ok(axum::Json(user))
}

/// Changes the username, the password and/or preferences (each optional; absent preference
/// fields keep their value). A new password needs `currentPassword` and ends every other
/// session of the account.
#[utoipa::path(
    patch,
    path = "/api/recipes/users/me",
    operation_id = "updateRecipeUser",
    tag = "recipe-accounts",
    security(("bearerJwt" = [])),
    request_body = RecipeUserUpdate,
    responses(
        (status = 200, description = "Updated (with a new token when the password changed)", body = UserUpdated),
        (status = 400, description = "A field is invalid (`details` names each), or `password` without `currentPassword`", body = ErrorBody),
        NeedsLiveUser,
        (status = 403, description = "`currentPassword` is wrong", body = ErrorBody),
        (status = 409, description = "The new username is taken, or the account changed concurrently", body = ErrorBody),
    )
)]
async fn update_me(
    State(state): State<AppState>,
    Me(me): Me,
    Json(update): Json<RecipeUserUpdate>,
) -> Result<impl IntoResponse, ApiError> {
    let change = update.parse()?;
    let renewed = state.identity.update_recipe_user(&me, change).await?;
    Ok(no_store(axum::Json(UserUpdated {
        message: "User updated".to_string(),
        token: renewed.map(|r| r.token.token),
    })))
}
