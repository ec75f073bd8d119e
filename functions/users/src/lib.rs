//! The users function: Document A's user service behind `/api/users/{proxy+}`.
//!
//! Accounts, tokens (user logins and OAuth2 client credentials), the JWKS, profile and
//! settings, news source subscriptions and account deletion. All domain logic lives in the
//! `identity` crate; this crate maps HTTP to it, and calls the content service (through the
//! public API, `INTERNAL_API_URL`) for subscriptions.

pub mod content;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRef, Path, State};
use axum::http::{header, Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use identity::model::{Profile, Role, Settings, SettingsUpdate, SummaryLength, Theme};
use identity::{Identity, ProfileUpdate, Registration};
use platform::auth::AuthUser;
use platform::aws::AwsClients;
use platform::http::{form_pairs, Json};
use platform::openapi::{ErrorBody, Health, SecuritySchemes};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Env, ErrorStyle};
use serde::{Deserialize, Serialize};
use utoipa::{OpenApi, ToSchema};

/// The public path prefix of this route family.
pub const PREFIX: &str = "/api/users";

use crate::content::{plausible_source_id, ContentError, ContentService};

/// How long a call to the content service may take.
const CONTENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Clone)]
pub struct AppState {
    identity: Arc<Identity>,
    verifier: Arc<TokenVerifier>,
    content: ContentService,
    /// `INTERNAL_API_URL`; when unset, the API the request came through.
    internal_api_url: Option<String>,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment: what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let identity = Identity::from_env(&env, &aws)?;
    app(
        Arc::new(identity),
        env.get("INTERNAL_API_URL").map(str::to_string),
    )
}

pub fn app(identity: Arc<Identity>, internal_api_url: Option<String>) -> Result<Router, BoxError> {
    let verifier = Arc::new(identity.verifier());
    let state = AppState {
        identity,
        verifier,
        content: ContentService::new(CONTENT_TIMEOUT)?,
        internal_api_url,
    };
    let routes = Router::new()
        .route("/auth/register", post(register))
        .route("/auth/login", post(login))
        .route("/users/me", get(me).put(update_me).delete(delete_me))
        .route(
            "/users/me/subscriptions/{source_id}",
            post(subscribe).delete(unsubscribe),
        )
        .route("/users/me/settings", get(settings).put(update_settings))
        .route("/.well-known/jwks.json", get(jwks))
        .route("/oauth2/token", post(token))
        .route("/actuator/health", get(health))
        .with_state(state);
    Ok(platform::http::finish(
        Router::new().nest(PREFIX, routes),
        ErrorStyle::Detailed {
            strip_prefix: PREFIX,
        },
        64 * 1024,
    ))
}

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(
        register,
        login,
        me,
        update_me,
        delete_me,
        subscribe,
        unsubscribe,
        settings,
        update_settings,
        jwks,
        token,
        health
    ),
    components(schemas(
        Registration,
        Login,
        LoginToken,
        Profile,
        ProfileUpdate,
        Role,
        Settings,
        SettingsUpdate,
        Theme,
        SummaryLength,
        TokenRequest,
        ServiceToken,
        ErrorBody,
        Health
    )),
    modifiers(&SecuritySchemes),
    tags((name = "users", description = "Document A's user service: accounts, tokens, profile, settings and source subscriptions"))
)]
struct UsersApi;

/// The users function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    UsersApi::openapi()
}

/// Registers an account.
#[utoipa::path(
    post,
    path = "/api/users/auth/register",
    operation_id = "registerUser",
    tag = "users",
    request_body = Registration,
    responses(
        (status = 201, description = "The new account's profile", body = Profile),
        (status = 400, description = "A field is missing or invalid (`details` names each)", body = ErrorBody),
        (status = 409, description = "The username or email is taken", body = ErrorBody),
    )
)]
async fn register(
    State(state): State<AppState>,
    Json(input): Json<Registration>,
) -> Result<Response, ApiError> {
    let profile = state.identity.register(input).await?;
    Ok((StatusCode::CREATED, axum::Json(profile)).into_response())
}

/// A login: the username and password given at registration.
#[derive(Deserialize, ToSchema)]
struct Login {
    #[schema(required = true, value_type = String)]
    username: Option<String>,
    #[schema(required = true, value_type = String, format = Password)]
    password: Option<String>,
}

/// A user token: a JWT to send as `Authorization: Bearer <token>`.
#[derive(Serialize, ToSchema)]
struct LoginToken {
    token: String,
}

/// Logs in.
#[utoipa::path(
    post,
    path = "/api/users/auth/login",
    operation_id = "loginUser",
    tag = "users",
    request_body = Login,
    responses(
        (status = 200, description = "A user token (lifetime JWT_TTL_SECONDS)", body = LoginToken),
        (status = 400, description = "The body is not a login", body = ErrorBody),
        (status = 401, description = "Unknown user or wrong password (the same answer for both)", body = ErrorBody),
    )
)]
async fn login(
    State(state): State<AppState>,
    Json(input): Json<Login>,
) -> Result<Response, ApiError> {
    let issued = state.identity.login(input.username, input.password).await?;
    Ok(no_store(axum::Json(LoginToken {
        token: issued.token,
    })))
}

/// The logged-in user's profile.
#[utoipa::path(
    get,
    path = "/api/users/users/me",
    operation_id = "getMyProfile",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The profile", body = Profile),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 404, description = "The account no longer exists", body = ErrorBody),
    )
)]
async fn me(State(state): State<AppState>, user: AuthUser) -> Result<Response, ApiError> {
    let profile = state.identity.profile(&user.id).await?;
    Ok(axum::Json(profile).into_response())
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
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 409, description = "The email is taken", body = ErrorBody),
    )
)]
async fn update_me(
    State(state): State<AppState>,
    user: AuthUser,
    Json(update): Json<ProfileUpdate>,
) -> Result<Response, ApiError> {
    let profile = state.identity.update_profile(&user.id, update).await?;
    Ok(axum::Json(profile).into_response())
}

impl AppState {
    fn content_base(&self, extensions: &Extensions) -> Result<String, ApiError> {
        platform::http::internal_api_base(self.internal_api_url.as_deref(), extensions).ok_or_else(
            || {
                ApiError::internal(
                    "content service",
                    "INTERNAL_API_URL is not set and the request did not come through API Gateway",
                )
            },
        )
    }
}

/// Subscribes the user to a source (through the content service, with a `source.write`
/// service token) and enables it in the user's settings.
#[utoipa::path(
    post,
    path = "/api/users/users/me/subscriptions/{sourceId}",
    operation_id = "subscribeToSource",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("sourceId" = String, Path, description = "The source's id")),
    responses(
        (status = 200, description = "The source, with its new subscriberCount (subscribing twice changes nothing)", body = ref("#/components/schemas/Source")),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 404, description = "No such source", body = ErrorBody),
        (status = 502, description = "The content service failed", body = ErrorBody),
    )
)]
async fn subscribe(
    State(state): State<AppState>,
    user: AuthUser,
    Path(source_id): Path<String>,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    if !plausible_source_id(&source_id) {
        return Err(ContentError::SourceNotFound.into());
    }
    let base = state.content_base(&extensions)?;
    let source = state
        .content
        .subscribe(&state.identity, &base, &source_id, &user.id)
        .await?;
    state
        .identity
        .record_subscription(&user.id, &source_id, true)
        .await?;
    Ok(axum::Json(source).into_response())
}

/// Unsubscribes the user from a source; the last subscriber leaving deletes the source and
/// its articles.
#[utoipa::path(
    delete,
    path = "/api/users/users/me/subscriptions/{sourceId}",
    operation_id = "unsubscribeFromSource",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("sourceId" = String, Path, description = "The source's id")),
    responses(
        (status = 200, description = "The remaining source, with its new subscriberCount", body = ref("#/components/schemas/Source")),
        (status = 204, description = "The user was the last subscriber: the source is deleted"),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 404, description = "No such source", body = ErrorBody),
        (status = 502, description = "The content service failed", body = ErrorBody),
    )
)]
async fn unsubscribe(
    State(state): State<AppState>,
    user: AuthUser,
    Path(source_id): Path<String>,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    if !plausible_source_id(&source_id) {
        return Err(ContentError::SourceNotFound.into());
    }
    let base = state.content_base(&extensions)?;
    let outcome = state
        .content
        .unsubscribe(&state.identity, &base, &source_id, &user.id)
        .await;
    let remaining = match outcome {
        Ok(unsubscribed) => unsubscribed.source,
        // Already gone on the content side: finish our half if we still hold it.
        Err(ContentError::SourceNotFound) => {
            let subscribed = state.identity.subscriptions(&user.id).await?;
            if !subscribed.contains(&source_id) {
                return Err(ContentError::SourceNotFound.into());
            }
            None
        }
        Err(e) => return Err(e.into()),
    };
    state
        .identity
        .record_subscription(&user.id, &source_id, false)
        .await?;
    Ok(match remaining {
        Some(source) => axum::Json(source).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}

/// Deletes the account: first every subscription (the last-subscriber rule applies), then
/// the user's records. Safe to repeat after a failure part-way.
#[utoipa::path(
    delete,
    path = "/api/users/users/me",
    operation_id = "deleteMyAccount",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "The account is deleted"),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 502, description = "The content service failed; nothing of the account was deleted yet, or the rest can be deleted by repeating the call", body = ErrorBody),
    )
)]
async fn delete_me(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let subscriptions = state.identity.subscriptions(&user.id).await?;
    if !subscriptions.is_empty() {
        let base = state.content_base(&extensions)?;
        for source_id in &subscriptions {
            match state
                .content
                .unsubscribe(&state.identity, &base, source_id, &user.id)
                .await
            {
                Ok(_) | Err(ContentError::SourceNotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    state.identity.delete_account(&user.id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
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
        (status = 401, description = "No valid user token", body = ErrorBody),
    )
)]
async fn settings(State(state): State<AppState>, user: AuthUser) -> Result<Response, ApiError> {
    let settings = state.identity.settings(&user.id).await?;
    Ok(axum::Json(settings).into_response())
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
        (status = 401, description = "No valid user token", body = ErrorBody),
    )
)]
async fn update_settings(
    State(state): State<AppState>,
    user: AuthUser,
    Json(update): Json<SettingsUpdate>,
) -> Result<Response, ApiError> {
    let settings = state.identity.update_settings(&user.id, update).await?;
    Ok(axum::Json(settings).into_response())
}

/// The public keys tokens are verified with.
#[utoipa::path(
    get,
    path = "/api/users/.well-known/jwks.json",
    operation_id = "getJwks",
    tag = "users",
    responses((status = 200, description = "RFC 7517 JSON Web Key Set: `{keys: [{kty: OKP, crv: Ed25519, x, kid, alg: EdDSA, use: sig}]}`", body = Object))
)]
async fn jwks(State(state): State<AppState>) -> Response {
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        axum::Json(state.identity.issuer().jwks()),
    )
        .into_response()
}

/// The users service and its table.
#[utoipa::path(
    get,
    path = "/api/users/actuator/health",
    operation_id = "usersHealth",
    tag = "users",
    responses(
        (status = 200, description = "Up", body = Health),
        (status = 503, description = "The users table cannot be reached", body = Health),
    )
)]
async fn health(State(state): State<AppState>) -> Response {
    platform::http::health(state.identity.healthy().await)
}

/// A client-credentials token request (RFC 6749 4.4), form-encoded.
#[derive(ToSchema)]
#[allow(dead_code)]
struct TokenRequest {
    /// Always `client_credentials`.
    #[schema(example = "client_credentials")]
    grant_type: String,
    /// Space-separated scopes; all the client's scopes when absent.
    #[schema(example = "source.write")]
    scope: Option<String>,
    /// With `client_secret`, instead of HTTP Basic.
    client_id: Option<String>,
    client_secret: Option<String>,
}

/// A service token (RFC 6749 5.1).
#[derive(Serialize, ToSchema)]
struct ServiceToken {
    access_token: String,
    /// Always `Bearer`.
    token_type: &'static str,
    /// Seconds until the token expires.
    expires_in: i64,
    /// The granted scopes, space-separated.
    scope: String,
}

/// RFC 6749 section 4.4: client credentials, client authenticated by HTTP Basic (or, as the
/// RFC allows, `client_id`/`client_secret` in the form). Errors carry the RFC's `error` code.
#[utoipa::path(
    post,
    path = "/api/users/oauth2/token",
    operation_id = "issueServiceToken",
    tag = "users",
    summary = "Issues a service token to an OAuth2 client (client credentials grant)",
    security(("clientBasic" = []), ()),
    request_body(content = TokenRequest, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The token", body = ServiceToken),
        (status = 400, description = "`invalid_request`, `unsupported_grant_type` or `invalid_scope` (in the body's `error`)", body = ErrorBody),
        (status = 401, description = "`invalid_client`: missing or wrong client credentials", body = ErrorBody),
        (status = 415, description = "The body is not form-encoded", body = ErrorBody),
    )
)]
async fn token(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let form_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !form_type {
        return Err(oauth_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "invalid_request",
            "Send the token request as application/x-www-form-urlencoded",
        ));
    }
    let form = form_pairs(std::str::from_utf8(&body).unwrap_or(""));
    let field = |name: &str| {
        form.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    match field("grant_type") {
        None => {
            return Err(oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "grant_type is required",
            ))
        }
        Some("client_credentials") => {}
        Some(_) => {
            return Err(oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "Only grant_type=client_credentials is supported",
            ))
        }
    }
    let (id, secret) = match basic_credentials(&headers) {
        Some(pair) => pair,
        None => match (field("client_id"), field("client_secret")) {
            (Some(id), Some(secret)) => (id.to_string(), secret.to_string()),
            _ => {
                return Err(oauth_error(
                    StatusCode::UNAUTHORIZED,
                    "invalid_client",
                    "Client authentication is required",
                ))
            }
        },
    };
    let client = state
        .identity
        .clients()
        .authenticate(&id, &secret)
        .ok_or_else(|| {
            oauth_error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "Client authentication failed",
            )
        })?;
    let scopes: Vec<String> = match field("scope") {
        Some(requested) if !requested.trim().is_empty() => {
            let requested: Vec<String> = requested.split_whitespace().map(str::to_string).collect();
            if let Some(bad) = requested.iter().find(|s| !client.scopes.contains(s)) {
                return Err(oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_scope",
                    &format!("Scope {bad} is not allowed for this client"),
                ));
            }
            requested
        }
        _ => client.scopes.clone(),
    };
    let issued = state
        .identity
        .issuer()
        .service_token(&client.id, &scopes)
        .map_err(|e| ApiError::internal("sign token", e))?;
    Ok(no_store(axum::Json(ServiceToken {
        access_token: issued.token,
        token_type: "Bearer",
        expires_in: issued.expires_in,
        scope: scopes.join(" "),
    })))
}

fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = STANDARD.decode(encoded.trim()).ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    // RFC 6749 2.3.1: both parts are form-urlencoded before Basic encoding.
    let decode = |s: &str| {
        form_pairs(&format!("v={s}"))
            .pop()
            .map(|(_, v)| v)
            .unwrap_or_default()
    };
    Some((decode(id), decode(secret)))
}

fn oauth_error(status: StatusCode, code: &'static str, message: &str) -> ApiError {
    let mut error = ApiError::new(platform::ErrorKind::from_status(status), message)
        .with_extra("error", code)
        .with_extra("error_description", message.to_string());
    error.challenge = (status == StatusCode::UNAUTHORIZED).then_some("Basic");
    error
}

fn no_store(body: impl IntoResponse) -> Response {
    let mut response = body.into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    response
}
