//! The community function: the community's posts, comments, reactions, bookmarks, user lists,
//! topics, post summaries and feeds behind `/api/v1/posts`, `/api/v1/feeds`, `/api/v1/comments`, `/api/v1/users`,
//! `/api/v1/topics`, `/api/v1/internal/topics`, and the admin's summary routes under
//! `/api/v1/admin/summaries` and `/api/v1/admin/posts` ([`summaries`]; the summaries are
//! written by the `community-summarizer` function).
//!
//! Each handler parses its input into `community::input` types and makes one call on
//! [`community::Community`], which owns storage (its `store` module documents the table's
//! access patterns); the domain's errors become `platform::ApiError`s (the domain says how), which the router
//! renders in the Reason body `{timestamp, status, error, message}`, framework errors
//! (404, 405, 413, 415) included.

mod accounts;
pub mod brake;
mod comments;
mod feeds;
mod lists;
mod moderation;
mod notifications;
mod posts;
mod preview;
mod reports;
mod schema;
mod search;
mod social;
mod summaries;
mod topics;
mod views;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;
use axum::Router;
use community::input::{PageRequest, UserId};
use community::model::{Author, Post, PostCard, PostPage, Topic, TopicCategory, TopicRef};
use community::{Community, PostSearch, QueueName};
use community_search::DynamoSearchIndex;
use identity_client::IdentityClient;
use platform::auth::{AuthUser, MaybeUser};
use platform::aws::AwsClients;
use platform::http::DEFAULT_BODY_LIMIT;
use platform::openapi::{ReasonErrorBody, ReasonUnavailable, SecuritySchemes};
use platform::ratelimit::Brake;
use platform::tokens::{InternalToken, TokenVerifier};
use platform::{ApiError, BoxError, Env, ErrorStyle};
use utoipa::OpenApi;

/// The salt of anonymous readers' hashed addresses: the internal service token, a secret the
/// function already holds; without one, random per cold start (views then dedupe per instance).
fn view_salt(env: &Env) -> Arc<[u8]> {
    if let Some(token) = env.get("INTERNAL_SERVICE_TOKEN").filter(|t| !t.is_empty()) {
        return Arc::from(format!("views:{token}").into_bytes());
    }
    tracing::warn!("INTERNAL_SERVICE_TOKEN is unset: anonymous views dedupe per instance");
    let mut salt = [0_u8; 32];
    if ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut salt).is_err() {
        tracing::warn!("no random salt: anonymous views share one");
    }
    Arc::from(salt.to_vec())
}

/// The public path prefix of the community.
pub const PREFIX: &str = "/api/v1";
/// How long the identity service may take to describe a user.
const IDENTITY_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone)]
pub struct AppState {
    community: Arc<Community>,
    search: Arc<PostSearch<DynamoSearchIndex>>,
    /// Salts the hash of an anonymous reader's address (their views' dedupe key).
    view_salt: Arc<[u8]>,
    verifier: Arc<TokenVerifier>,
    internal_token: InternalToken,
    users: IdentityClient,
    brake: Arc<Brake>,
    /// `INTERNAL_API_URL`; when unset, the API the request came through.
    internal_api_url: Option<String>,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

impl FromRef<AppState> for InternalToken {
    fn from_ref(state: &AppState) -> Self {
        state.internal_token.clone()
    }
}

/// Builds the function's router from its environment: what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let community = Community::from_env(&env, &aws, SENDS)?;
    let search = PostSearch::from_env(&env, &aws, community.clone())?;
    let brake = brake::from_env(&env, &aws)?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let cache_seconds = platform::http::public_cache_seconds(&env)?;
    let app = app(Arc::new(community), Arc::new(search), brake, verifier, &env)?;
    Ok(platform::http::edge_cached(app, cache_seconds))
}

/// The queues the community function's facade sends to: post writes ask the indexer and
/// the summarizer, account deletions the sweeper, view beacons and reactions the counters,
/// comments, mentions and moderation the notification fan-out.
pub const SENDS: &[QueueName] = &[
    QueueName::Index,
    QueueName::Cleanup,
    QueueName::Summary,
    QueueName::Views,
    QueueName::Reactions,
    QueueName::Notifications,
];

/// The router over given services.
pub fn app(
    community: Arc<Community>,
    search: Arc<PostSearch<DynamoSearchIndex>>,
    brake: Brake,
    verifier: TokenVerifier,
    env: &Env,
) -> Result<Router, BoxError> {
    let state = AppState {
        community,
        search,
        view_salt: view_salt(env),
        verifier: Arc::new(verifier),
        internal_token: InternalToken::from_env(env),
        users: IdentityClient::new(
            IDENTITY_TIMEOUT,
            env.get("INTERNAL_SERVICE_TOKEN").map(str::to_string),
        )?,
        brake: Arc::new(brake),
        internal_api_url: env.get("INTERNAL_API_URL").map(str::to_string),
    };
    // Each module adds its routes to one router: a merge would insert every route again.
    let mut routes = Router::new();
    for add in [
        posts::routes,
        preview::routes,
        feeds::routes,
        topics::routes,
        search::routes,
        accounts::routes,
        social::routes,
        comments::routes,
        lists::routes,
        summaries::routes,
        views::routes,
        moderation::routes,
        notifications::routes,
        reports::routes,
    ] {
        routes = add(routes);
    }
    let routes = routes.with_state(state);
    Ok(platform::http::finish(
        Router::new().nest(PREFIX, routes),
        ErrorStyle::Reason,
        DEFAULT_BODY_LIMIT,
    ))
}

/// The 503 of every operation that documents none of its own, in the Reason body.
const UNAVAILABLE: ReasonUnavailable = ReasonUnavailable {
    description: "The community table cannot be reached, is throttling, or the item stayed contended: retry later",
};

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(
        posts::list_posts,
        posts::create_post,
        posts::post_cards,
        posts::get_post,
        posts::replace_post,
        posts::patch_post,
        moderation::delete_post,
        moderation::moderation_log,
        search::search,
        topics::topic_catalog,
        topics::topic_names,
        topics::topic_stats,
        topics::follower_deltas,
        accounts::forget_account,
        social::react,
        social::bookmark,
        social::unbookmark,
        comments::list_comments,
        comments::add_comment,
        comments::like_comment,
        comments::edit_comment,
        comments::delete_comment,
        lists::user_posts,
        lists::user_bookmarks,
        lists::user_likes,
        summaries::post_summary,
        summaries::retry_summary,
        summaries::failed_summaries,
        views::view,
        notifications::list_notifications,
        notifications::mark_read,
        notifications::mark_all_read,
        reports::report,
        reports::report_queue,
        reports::resolve,
        preview::preview,
        feeds::site_rss,
        feeds::site_atom,
        feeds::topic_rss,
        feeds::topic_atom,
        feeds::author_rss,
        feeds::author_atom,
        topics::suggest_topics
    ),
    components(schemas(
        Author,
        TopicRef,
        Post,
        PostCard,
        PostPage,
        Topic,
        TopicCategory,
        posts::PostRequest,
        posts::PostPatchRequest,
        community_client::FollowerDeltasRequest,
        social::ReactionRequest,
        community::model::social::ReactionResult,
        community::model::social::BookmarkResult,
        comments::CommentRequest,
        comments::CommentLikeRequest,
        comments::CommentEditRequest,
        community::model::comments::Comment,
        community::model::comments::LikeResult,
        community::model::summary::PostSummary,
        community::model::summary::SummaryStatusName,
        community::model::summary::FailedSummary,
        community::model::summary::FailedSummaryPage,
        community::model::moderation::ModerationLogEntry,
        community::model::moderation::ModerationTarget,
        community::model::moderation::ModerationLogPage,
        community::model::notifications::Notification,
        community::model::notifications::NotificationKind,
        community::model::notifications::NotificationActor,
        community::model::notifications::NotificationPage,
        community::model::notifications::ReportOutcome,
        community::model::notifications::UnreadCount,
        notifications::MarkReadRequest,
        notifications::NotificationIdText,
        community::model::reports::Report,
        community::model::reports::ReportTarget,
        community::model::reports::ReportReason,
        community::model::reports::ReasonCounts,
        community::model::reports::ReportGroup,
        community::model::reports::ReportQueuePage,
        community::model::reports::ReportResolution,
        reports::ReportRequest,
        reports::ResolveRequest,
        reports::ResolveActionName,
        preview::PreviewRequest,
        preview::PostPreview,
        community::model::TopicSuggestion,
        ReasonErrorBody
    )),
    modifiers(&SecuritySchemes, &UNAVAILABLE),
    tags(
        (name = "community", description = "The community service: posts and topics"),
        (name = "community-admin", description = "The community's admin operations: post summaries and moderation")
    )
)]
struct CommunityApi;

/// The community function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    CommunityApi::openapi()
}

type Answer<T> = Result<axum::Json<T>, ApiError>;

fn user_id(user: &AuthUser) -> Result<UserId, ApiError> {
    UserId::parse("token", &user.id)
        .map_err(|_| ApiError::unauthorized("The token's subject is not a user id"))
}

fn maybe_user_id(user: &MaybeUser) -> Result<Option<UserId>, ApiError> {
    user.0.as_ref().map(user_id).transpose()
}

/// A number from the query, or a 400 naming it.
fn number(field: &str, raw: Option<&str>) -> Result<Option<i64>, ApiError> {
    raw.map(|r| {
        r.trim()
            .parse::<i64>()
            .map_err(|_| ApiError::field(field, "must be an integer"))
    })
    .transpose()
}

/// The page a list's `page`, `size` and `cursor` ask for (a cursor wins over a page).
pub(crate) fn page_request(
    page: Option<String>,
    size: Option<String>,
    cursor: Option<String>,
) -> Result<PageRequest, ApiError> {
    Ok(PageRequest::parse_with_cursor(
        number("page", page.as_deref())?,
        number("size", size.as_deref())?,
        cursor.as_deref(),
    )?)
}
