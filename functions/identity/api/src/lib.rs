//! The identity function: the identity service behind `/api/users/{proxy+}`.
//!
//! Accounts, tokens (user logins and OAuth2 client credentials), the JWKS, profile and
//! settings, news source subscriptions and account deletion. All domain logic lives in the
//! `identity` crate: each handler parses its input and makes one call on the
//! [`Identity`] facade. Each resource is a module with its `routes()` and its part of the
//! contract: [`auth`], [`account`], [`subscriptions`], [`saved`], [`directory`], [`sessions`],
//! [`admin`] and the recipe service's accounts ([`recipes`]). This crate maps HTTP to the
//! facade ([`errors`]), speaks OAuth2 ([`oauth`]) and implements identity's port to the
//! content service over HTTP ([`content`]).

pub mod account;
pub mod admin;
pub mod app_passwords;
pub mod auth;
pub mod content;
pub mod directory;
pub mod internal;
pub mod oauth;
pub mod reader;
pub mod recipes;
pub mod responses;
pub mod saved;
pub mod sessions;
pub mod subscriptions;

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, Extensions};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use identity::model::UserId;
use identity::tokens::{Jwk, Jwks};
use identity::Identity;
use platform::auth::AuthUser;
use platform::aws::AwsClients;
use platform::openapi::{ErrorBody, Health, SecuritySchemes, TableUnavailable};
use platform::ratelimit::{Brake, Rate, WhenUnavailable};
use platform::tokens::{InternalToken, TokenVerifier};
use platform::{ApiError, BoxError, Clock, Env, ErrorStyle};
use utoipa::{Modify, OpenApi};

pub(crate) use crate::auth::LoginToken;
use crate::content::{ContentApi, ContentService};
use crate::internal::{InternalApi, InternalServices};
use crate::oauth::{ServiceToken, TokenRequest};

/// The public path prefix of this route family.
pub const PREFIX: &str = "/api/users";
/// The recipe service's account routes, which this function serves too.
pub const RECIPES_PREFIX: &str = "/api/recipes";

/// The brake on password guessing: each login attempt is counted per client address and per
/// username tried, in the limits table, before the password is checked; a spent limit is a
/// 429 with `Retry-After`. By default (template parameters `LoginRateLimitPer*`) 20 a minute
/// and 200 an hour from one address, 5 a minute and 20 an hour on one username.
///
/// When the limits table fails, logins go on (logged): refusing would lock every reader out
/// over a side table, while each guess still costs an Argon2id hash and the stage's login
/// throttle still holds. (The AI routes choose the other way: see the assistant function.)
pub const LOGINS_PER_ADDRESS: Rate = Rate {
    variable: "LOGIN_RATE_LIMIT_PER_ADDRESS",
    name: "login-address",
    default: "20/60,200/3600",
    when_unavailable: WhenUnavailable::Allow,
};
/// See [`LOGINS_PER_ADDRESS`].
pub const LOGINS_PER_USERNAME: Rate = Rate {
    variable: "LOGIN_RATE_LIMIT_PER_USERNAME",
    name: "login-username",
    default: "5/60,20/3600",
    when_unavailable: WhenUnavailable::Allow,
};

/// How long a call to the content service may take.
const CONTENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Clone)]
pub struct AppState {
    identity: Arc<Identity>,
    verifier: Arc<TokenVerifier>,
    content: ContentService,
    /// `INTERNAL_API_URL`; when unset, the API the request came through.
    internal_api_url: Option<String>,
    login_brake: Arc<Brake>,
    /// The shared secret of internal calls (`INTERNAL_SERVICE_TOKEN`).
    internal_token: InternalToken,
    /// The community's and the recipe service's internal routes.
    internal: InternalServices,
}

impl FromRef<AppState> for InternalToken {
    fn from_ref(state: &AppState) -> Self {
        state.internal_token.clone()
    }
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

impl AppState {
    /// The content service, reached through the API this request came through (or
    /// `INTERNAL_API_URL`).
    fn internal(&self, extensions: &Extensions) -> InternalApi<'_> {
        self.internal.at(platform::http::internal_api_base(
            self.internal_api_url.as_deref(),
            extensions,
        ))
    }

    fn content(&self, extensions: &Extensions) -> ContentApi<'_> {
        self.content.at(platform::http::internal_api_base(
            self.internal_api_url.as_deref(),
            extensions,
        ))
    }
}

/// Builds the function's router from its environment: what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let identity = Identity::from_env(&env, &aws, Clock::system())?;
    let login_brake = Brake::from_env(
        &env,
        &aws,
        "logins have no rate limits",
        &[LOGINS_PER_ADDRESS, LOGINS_PER_USERNAME],
    )?;
    app(
        Arc::new(identity),
        env.get("INTERNAL_API_URL").map(str::to_string),
        login_brake,
        InternalToken::from_env(&env),
        env.get("INTERNAL_SERVICE_TOKEN").map(str::to_string),
    )
}

pub fn app(
    identity: Arc<Identity>,
    internal_api_url: Option<String>,
    login_brake: Brake,
    internal_token: InternalToken,
    internal_service_token: Option<String>,
) -> Result<Router, BoxError> {
    let state = AppState {
        verifier: Arc::new(identity.verifier()),
        content: ContentService::new(CONTENT_TIMEOUT, identity.issuer())?,
        identity,
        internal_api_url,
        login_brake: Arc::new(login_brake),
        internal_token,
        internal: InternalServices::new(CONTENT_TIMEOUT, internal_service_token)?,
    };
    let routes = Router::new()
        .route("/.well-known/jwks.json", get(jwks))
        .route("/oauth2/token", post(oauth::token))
        .route("/actuator/health", get(health))
        .merge(auth::routes())
        .merge(account::routes())
        .merge(subscriptions::routes())
        .merge(saved::routes())
        .merge(directory::routes())
        .merge(sessions::routes())
        .merge(admin::routes())
        .merge(app_passwords::routes())
        .merge(reader::routes())
        .with_state(state.clone());
    let recipe_routes = recipes::routes().with_state(state.clone());
    let greader_routes = reader::client_login_routes().with_state(state);
    Ok(platform::http::finish_styled(
        Router::new()
            .nest(PREFIX, routes)
            .nest(RECIPES_PREFIX, recipe_routes)
            .nest(reader::GREADER_PREFIX, greader_routes),
        platform::http::ErrorStyles::new(
            &[
                (
                    RECIPES_PREFIX,
                    ErrorStyle::Detailed {
                        strip_prefix: RECIPES_PREFIX,
                    },
                ),
                (
                    reader::GREADER_PREFIX,
                    ErrorStyle::Detailed {
                        strip_prefix: reader::GREADER_PREFIX,
                    },
                ),
            ],
            ErrorStyle::Detailed {
                strip_prefix: PREFIX,
            },
        ),
        64 * 1024,
    ))
}

/// The JWKS and the token endpoint read configuration only.
const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable {
    except: &["getJwks", "issueServiceToken"],
};

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(jwks, oauth::token, health),
    components(schemas(Jwks, Jwk, TokenRequest, ServiceToken, ErrorBody, Health)),
    tags((name = "users", description = "The identity service: accounts, tokens, profile, settings and source subscriptions"))
)]
struct UsersApi;

/// The identity function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut api = UsersApi::openapi();
    api.merge(auth::AuthApi::openapi());
    api.merge(account::AccountApi::openapi());
    api.merge(subscriptions::SubscriptionsApi::openapi());
    api.merge(saved::SavedApi::openapi());
    api.merge(directory::DirectoryApi::openapi());
    // Over every resource's operations, as when they were one document.
    SecuritySchemes.modify(&mut api);
    TABLE_UNAVAILABLE.modify(&mut api);
    api.merge(sessions::openapi());
    api.merge(admin::openapi());
    api.merge(recipes::openapi());
    api.merge(app_passwords::openapi());
    api.merge(reader::openapi());
    api
}

/// The signed-in user's account: a verified user token's subject (401 without one, 403 for a
/// service token, as [`AuthUser`] decides).
pub(crate) struct Me(pub(crate) UserId);

impl<S> FromRequestParts<S> for Me
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let user = AuthUser::from_request_parts(parts, state).await?;
        Ok(Me(UserId::new(user.id)))
    }
}

/// The public keys tokens are verified with.
#[utoipa::path(
    get,
    path = "/api/users/.well-known/jwks.json",
    operation_id = "getJwks",
    security(()),
    tag = "users",
    responses((status = 200, description = "RFC 7517 JSON Web Key Set of the Ed25519 keys (RFC 8037) that sign the platform's tokens", body = Jwks))
)]
async fn jwks(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        axum::Json(state.identity.jwks()),
    )
}

/// The users service and its table.
#[utoipa::path(
    get,
    path = "/api/users/actuator/health",
    operation_id = "usersHealth",
    security(()),
    tag = "users",
    responses(
        (status = 200, description = "Up", body = Health),
        (status = 503, description = "The users table cannot be reached", body = Health),
    )
)]
async fn health(State(state): State<AppState>) -> Response {
    platform::http::health(state.identity.healthy().await)
}

/// A body that must not be cached (it holds a token).
pub(crate) fn no_store(body: impl IntoResponse) -> impl IntoResponse {
    ([(header::CACHE_CONTROL, "no-store")], body)
}
