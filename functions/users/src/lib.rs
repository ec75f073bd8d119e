//! The users function: Document A's user service behind `/api/users/{proxy+}`.
//!
//! Accounts, tokens (user logins and OAuth2 client credentials), the JWKS, profile and
//! settings, news source subscriptions and account deletion. All domain logic lives in the
//! `identity` crate: each handler parses its input and makes one call on the
//! [`Identity`] facade. This crate maps HTTP to it ([`errors`]), speaks OAuth2 ([`oauth`]) and
//! implements identity's port to the content service over HTTP ([`content`]).

pub mod admin;
pub mod brake;
pub mod content;
pub mod errors;
pub mod internal;
pub mod oauth;
pub mod recipes;
pub mod responses;
pub mod sessions;

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, Extensions, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use identity::input::{Login, ProfileUpdate, Registration, SavedArticleIdsMerge, SettingsUpdate};
use identity::model::{
    Profile, Role, SavedArticleId, SavedArticleIds, Settings, SourceId, Subscriptions,
    SummaryLength, Theme, UserId,
};
use identity::tokens::{Jwk, Jwks};
use identity::{Identity, IdentityError, SubscribedSource, Unsubscribed};
use platform::auth::{AuthUser, InternalService};
use platform::aws::AwsClients;
use platform::http::Json;
use platform::openapi::{ErrorBody, Health, SecuritySchemes, TableUnavailable};
use platform::tokens::{InternalToken, TokenVerifier};
use platform::{ApiError, BoxError, Clock, Env, ErrorStyle};
use serde::Serialize;
use utoipa::{OpenApi, ToSchema};

use crate::brake::LoginBrake;
use crate::content::{ContentApi, ContentService};
use crate::errors::to_api;
use crate::internal::{InternalApi, InternalServices};
use crate::oauth::{ServiceToken, TokenRequest};
use crate::responses::{NeedsLiveUser, NeedsUser, SubscriptionErrors, TooManyLogins};

/// The public path prefix of this route family.
pub const PREFIX: &str = "/api/users";
/// The recipe service's account routes (Document C), which this function serves too.
pub const RECIPES_PREFIX: &str = "/api/recipes";

/// How long a call to the content service may take.
const CONTENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Clone)]
pub struct AppState {
    identity: Arc<Identity>,
    verifier: Arc<TokenVerifier>,
    content: ContentService,
    /// `INTERNAL_API_URL`; when unset, the API the request came through.
    internal_api_url: Option<String>,
    login_brake: Arc<LoginBrake>,
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
    let login_brake = LoginBrake::from_env(&env, &aws)?;
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
    login_brake: LoginBrake,
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
        .route("/auth/register", post(register))
        .route("/auth/login", post(login))
        .route("/auth/refresh", post(refresh))
        .route("/users/me", get(me).put(update_me).delete(delete_me))
        .route("/users/me/subscriptions", get(subscriptions))
        .route(
            "/users/me/subscriptions/{source_id}",
            post(subscribe).delete(unsubscribe),
        )
        .route("/users/me/settings", get(settings).put(update_settings))
        .route("/users/me/saved", get(saved).post(merge_saved))
        .route(
            "/users/me/saved/{article_id}",
            axum::routing::put(save_article).delete(unsave_article),
        )
        .route("/.well-known/jwks.json", get(jwks))
        .route("/oauth2/token", post(oauth::token))
        .route("/internal/users", get(internal_users))
        .route("/internal/users/{id}", get(internal_user))
        .route("/actuator/health", get(health))
        .merge(sessions::routes())
        .merge(admin::routes())
        .with_state(state.clone());
    let recipe_routes = recipes::routes().with_state(state);
    Ok(platform::http::finish_styled(
        Router::new()
            .nest(PREFIX, routes)
            .nest(RECIPES_PREFIX, recipe_routes),
        platform::http::ErrorStyles::new(
            &[(
                RECIPES_PREFIX,
                ErrorStyle::Detailed {
                    strip_prefix: RECIPES_PREFIX,
                },
            )],
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
    paths(
        register,
        login,
        refresh,
        me,
        update_me,
        delete_me,
        subscriptions,
        subscribe,
        unsubscribe,
        settings,
        update_settings,
        saved,
        merge_saved,
        save_article,
        unsave_article,
        jwks,
        oauth::token,
        internal_user,
        internal_users,
        health
    ),
    components(schemas(
        InternalUser,
        InternalUserIds,
        Registration,
        Login,
        LoginToken,
        Profile,
        ProfileUpdate,
        Role,
        Settings,
        SettingsUpdate,
        SavedArticleIds,
        SavedArticleIdsMerge,
        Subscriptions,
        Theme,
        SummaryLength,
        Jwks,
        Jwk,
        TokenRequest,
        ServiceToken,
        ErrorBody,
        Health
    )),
    modifiers(&SecuritySchemes, &TABLE_UNAVAILABLE),
    tags((name = "users", description = "Document A's user service: accounts, tokens, profile, settings and source subscriptions"))
)]
struct UsersApi;

/// The users function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut api = UsersApi::openapi();
    api.merge(sessions::openapi());
    api.merge(admin::openapi());
    api.merge(recipes::openapi());
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
) -> Result<impl IntoResponse, ApiError> {
    let account = input.parse()?;
    let profile = state.identity.register(account).await.map_err(to_api)?;
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
    let credentials = input.parse()?;
    state
        .login_brake
        .admit(&extensions, &credentials.username_key)
        .await?;
    let issued = state.identity.login(credentials).await.map_err(to_api)?;
    Ok(no_store(axum::Json(LoginToken {
        token: issued.token,
    })))
}

/// Renews a session: a fresh user token for a valid, unexpired one, so a reader in the middle
/// of an article is not logged out. Refused when the token's account is gone.
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
async fn refresh(State(state): State<AppState>, Me(me): Me) -> Result<impl IntoResponse, ApiError> {
    let issued = state.identity.refresh(&me).await.map_err(to_api)?;
    Ok(no_store(axum::Json(LoginToken {
        token: issued.token,
    })))
}

/// A user as other services of the platform see them (Document B's authors and list
/// privacy).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct InternalUser {
    #[schema(format = Uuid)]
    id: String,
    username: String,
    /// The profile's name, else the username.
    display_name: String,
    roles: Vec<Role>,
    /// Whether others may see the user's bookmarks (false until the user turns it on).
    show_bookmarks: bool,
    /// Whether others may see the user's likes (false until the user turns it on).
    show_likes: bool,
    /// The topic slugs the user follows (Document B's personal digests).
    followed_topics: Vec<String>,
}

/// A user's public profile and list-privacy settings, for the platform's own services.
#[utoipa::path(
    get,
    path = "/api/users/internal/users/{id}",
    operation_id = "internalUser",
    tag = "users",
    security(("internalToken" = [])),
    params(("id" = String, Path, max_length = 200, description = "The user's id")),
    responses(
        (status = 200, description = "The user", body = InternalUser),
        (status = 400, description = "The id is longer than 200 characters", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ErrorBody),
        (status = 404, description = "No such user", body = ErrorBody),
    )
)]
async fn internal_user(
    State(state): State<AppState>,
    _service: InternalService,
    Path(id): Path<String>,
) -> Result<axum::Json<InternalUser>, ApiError> {
    let id = UserId::new(
        platform::validation::bounded_id("id", id)
            .map_err(|e| ApiError::field(e.field, e.reason))?,
    );
    let (profile, settings) =
        tokio::try_join!(state.identity.profile(&id), state.identity.settings(&id))
            .map_err(to_api)?;
    Ok(axum::Json(InternalUser {
        display_name: profile
            .name
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| profile.username.clone()),
        id: profile.id,
        username: profile.username,
        roles: profile.roles,
        show_bookmarks: settings.show_bookmarks,
        show_likes: settings.show_likes,
        followed_topics: settings.followed_topics,
    }))
}

/// A page of the user directory.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct InternalUserIds {
    /// User ids in id order.
    ids: Vec<String>,
    /// The `cursor` of the next page; null on the last one.
    next_cursor: Option<String>,
}

/// The page query of the user directory.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct DirectoryQuery {
    /// The previous page's `nextCursor` (absent: the first page).
    #[param(max_length = 200)]
    cursor: Option<String>,
    /// 1 to 100 (default 100).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

/// Every account's id, a page at a time in id order, for the platform's own services (the
/// daily digests' schedule).
#[utoipa::path(
    get,
    path = "/api/users/internal/users",
    operation_id = "internalUserIds",
    tag = "users",
    security(("internalToken" = [])),
    params(DirectoryQuery),
    responses(
        (status = 200, description = "A page of user ids", body = InternalUserIds),
        (status = 400, description = "limit is not 1 to 100, or cursor is longer than 200 characters", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ErrorBody),
    )
)]
async fn internal_users(
    State(state): State<AppState>,
    _service: InternalService,
    platform::http::Query(query): platform::http::Query<DirectoryQuery>,
) -> Result<axum::Json<InternalUserIds>, ApiError> {
    let limit = match query.limit.as_deref().map(str::trim) {
        None => 100,
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => return Err(ApiError::field("limit", "must be from 1 to 100")),
        },
    };
    let cursor = query
        .cursor
        .map(|c| platform::validation::bounded_id("cursor", c))
        .transpose()
        .map_err(|e| ApiError::field(e.field, e.reason))?
        .filter(|c| !c.is_empty());
    let (ids, next_cursor) = state
        .identity
        .user_ids(cursor.as_deref(), limit)
        .await
        .map_err(to_api)?;
    Ok(axum::Json(InternalUserIds { ids, next_cursor }))
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
        NeedsUser,
        (status = 404, description = "The account no longer exists", body = ErrorBody),
    )
)]
async fn me(State(state): State<AppState>, Me(me): Me) -> Result<axum::Json<Profile>, ApiError> {
    let profile = state.identity.profile(&me).await.map_err(to_api)?;
    Ok(axum::Json(profile))
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
        NeedsLiveUser,
        (status = 409, description = "The email is taken", body = ErrorBody),
    )
)]
async fn update_me(
    State(state): State<AppState>,
    Me(me): Me,
    Json(update): Json<ProfileUpdate>,
) -> Result<axum::Json<Profile>, ApiError> {
    let change = update.parse()?;
    let profile = state
        .identity
        .update_profile(&me, change)
        .await
        .map_err(to_api)?;
    Ok(axum::Json(profile))
}

/// A source id from the path; one that cannot name a source is an unknown source.
fn source_id(raw: &str) -> Result<SourceId, ApiError> {
    SourceId::parse(raw).ok_or_else(|| to_api(IdentityError::SourceNotFound))
}

/// The sources the user subscribes to, enabled or not.
#[utoipa::path(
    get,
    path = "/api/users/users/me/subscriptions",
    operation_id = "getMySubscriptions",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The subscribed source ids", body = Subscriptions),
        NeedsUser,
    )
)]
async fn subscriptions(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<axum::Json<Subscriptions>, ApiError> {
    let subscriptions = state.identity.subscriptions(&me).await.map_err(to_api)?;
    Ok(axum::Json(subscriptions))
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
        NeedsLiveUser,
        SubscriptionErrors,
    )
)]
async fn subscribe(
    State(state): State<AppState>,
    Me(me): Me,
    Path(source_id_raw): Path<String>,
    extensions: Extensions,
) -> Result<axum::Json<SubscribedSource>, ApiError> {
    let source = source_id(&source_id_raw)?;
    let content = state.content(&extensions);
    let subscribed = state
        .identity
        .subscribe(&content, &me, &source)
        .await
        .map_err(to_api)?;
    Ok(axum::Json(subscribed))
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
        (status = 200, description = "The remaining source, with its new subscriberCount (unchanged when the user was not subscribed)", body = ref("#/components/schemas/Source")),
        (status = 204, description = "The user was the last subscriber: the source is deleted"),
        NeedsLiveUser,
        SubscriptionErrors,
    )
)]
async fn unsubscribe(
    State(state): State<AppState>,
    Me(me): Me,
    Path(source_id_raw): Path<String>,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let source = source_id(&source_id_raw)?;
    let content = state.content(&extensions);
    let outcome = state
        .identity
        .unsubscribe(&content, &me, &source)
        .await
        .map_err(to_api)?;
    Ok(match outcome {
        Unsubscribed::SourceRemains(source) => axum::Json(source).into_response(),
        Unsubscribed::SourceDeleted => StatusCode::NO_CONTENT.into_response(),
    })
}

/// Deletes the account: first every subscription (the last-subscriber rule applies), then
/// the community's side (followed topics' counts, and the cleanup of the user's posts,
/// comments, reactions and bookmarks), then the recipe service's (the user's recipes), then
/// the user's records. Safe to repeat after a failure part-way.
#[utoipa::path(
    delete,
    path = "/api/users/users/me",
    operation_id = "deleteMyAccount",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "The account is deleted"),
        NeedsLiveUser,
        (status = 502, description = "The content, community or recipe service failed; the account is not deleted, and repeating the call finishes it", body = ErrorBody),
    )
)]
async fn delete_me(
    State(state): State<AppState>,
    Me(me): Me,
    extensions: Extensions,
) -> Result<StatusCode, ApiError> {
    let content = state.content(&extensions);
    let internal = state.internal(&extensions);
    state
        .identity
        .delete_account(&content, &internal, &internal, &me)
        .await
        .map_err(to_api)?;
    Ok(StatusCode::NO_CONTENT)
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
        NeedsUser,
    )
)]
async fn settings(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<axum::Json<Settings>, ApiError> {
    let settings = state.identity.settings(&me).await.map_err(to_api)?;
    Ok(axum::Json(settings))
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
        NeedsLiveUser,
    )
)]
async fn update_settings(
    State(state): State<AppState>,
    Me(me): Me,
    extensions: Extensions,
    Json(update): Json<SettingsUpdate>,
) -> Result<axum::Json<Settings>, ApiError> {
    let change = update.parse()?;
    let settings = state
        .identity
        .update_settings(&me, change)
        .await
        .map_err(to_api)?;
    // Followed-topic changes (this one and any a failed send left) go to the community
    // service; the settings are saved either way, and a change not delivered stays queued.
    if let Err(e) = state
        .identity
        .flush_follow_deltas(&state.internal(&extensions), &me)
        .await
    {
        tracing::warn!(reason = %e, "followed-topic changes not flushed");
    }
    Ok(axum::Json(settings))
}

/// The user's saved articles (ids; `POST /api/content/articles/saved` gets the articles).
#[utoipa::path(
    get,
    path = "/api/users/users/me/saved",
    operation_id = "getMySavedArticles",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "Saved article ids, newest first", body = SavedArticleIds),
        NeedsUser,
    )
)]
async fn saved(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    let saved = state.identity.saved_articles(&me).await.map_err(to_api)?;
    Ok(axum::Json(saved))
}

/// Adds articles to the saved ones (those already saved are skipped, the others kept after
/// them): how a browser's own list joins the account at login.
#[utoipa::path(
    post,
    path = "/api/users/users/me/saved",
    operation_id = "mergeMySavedArticles",
    tag = "users",
    security(("bearerJwt" = [])),
    request_body = SavedArticleIdsMerge,
    responses(
        (status = 200, description = "Saved article ids after the merge", body = SavedArticleIds),
        (status = 400, description = "`ids` is missing, has an invalid id, or the account would keep more than 100", body = ErrorBody),
        NeedsLiveUser,
    )
)]
async fn merge_saved(
    State(state): State<AppState>,
    Me(me): Me,
    Json(input): Json<SavedArticleIdsMerge>,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    let ids = input.parse()?;
    let saved = state
        .identity
        .merge_saved_articles(&me, &ids)
        .await
        .map_err(to_api)?;
    Ok(axum::Json(saved))
}

/// An article id from the path, or a 400 naming it.
fn saved_article_id(raw: &str) -> Result<SavedArticleId, ApiError> {
    SavedArticleId::parse("articleId", raw).map_err(|e| ApiError::from(platform::Invalid(vec![e])))
}

/// Saves an article for the user, on every device (idempotent).
#[utoipa::path(
    put,
    path = "/api/users/users/me/saved/{articleId}",
    operation_id = "saveArticle",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("articleId" = String, Path, description = "The article's id", max_length = 64, pattern = "^[A-Za-z0-9_-]+$")),
    responses(
        (status = 200, description = "Saved article ids, this one first", body = SavedArticleIds),
        (status = 400, description = "The id is invalid, or 100 articles are saved already", body = ErrorBody),
        NeedsLiveUser,
    )
)]
async fn save_article(
    State(state): State<AppState>,
    Me(me): Me,
    Path(article_id): Path<String>,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    let article = saved_article_id(&article_id)?;
    let saved = state
        .identity
        .save_article(&me, &article)
        .await
        .map_err(to_api)?;
    Ok(axum::Json(saved))
}

/// Forgets a saved article (idempotent).
#[utoipa::path(
    delete,
    path = "/api/users/users/me/saved/{articleId}",
    operation_id = "unsaveArticle",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("articleId" = String, Path, description = "The article's id", max_length = 64, pattern = "^[A-Za-z0-9_-]+$")),
    responses(
        (status = 200, description = "Saved article ids without this one", body = SavedArticleIds),
        (status = 400, description = "The id is invalid", body = ErrorBody),
        NeedsLiveUser,
    )
)]
async fn unsave_article(
    State(state): State<AppState>,
    Me(me): Me,
    Path(article_id): Path<String>,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    let article = saved_article_id(&article_id)?;
    let saved = state
        .identity
        .unsave_article(&me, &article)
        .await
        .map_err(to_api)?;
    Ok(axum::Json(saved))
}

/// The public keys tokens are verified with.
#[utoipa::path(
    get,
    path = "/api/users/.well-known/jwks.json",
    operation_id = "getJwks",
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
