//! The community function: the community's posts, comments, reactions, bookmarks, user lists,
//! topics and post summaries behind `/api/v1/posts`, `/api/v1/comments`, `/api/v1/users`,
//! `/api/v1/topics`, `/api/v1/internal/topics`, and the admin's summary routes under
//! `/api/v1/admin/summaries` and `/api/v1/admin/posts` ([`summaries`]; the summaries are
//! written by the `community-summarizer` function).
//!
//! Each handler parses its input into `community::input` types and makes one call on
//! [`community::Community`], which owns storage (its `store` module documents the table's
//! access patterns); [`errors`] turns the domain's errors into HTTP answers, which the router
//! renders in the Reason body `{timestamp, status, error, message}`, framework errors
//! (404, 405, 413, 415) included.

mod accounts;
pub mod brake;
mod comments;
pub mod errors;
pub mod identity;
mod lists;
mod moderation;
mod schema;
mod search;
mod social;
mod summaries;
mod views;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, Path, State};
use axum::http::{header, Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use community::input::{
    CardIds, FollowerDeltas, IdempotencyKey, PageRequest, PostId, PostInput, PostPatch, RawPatch,
    RawPost, TopicIds, UserId,
};
use community::model::{Author, Post, PostCard, PostPage, Topic, TopicCategory, TopicRef};
use community::{
    CleanupQueue, Community, IndexQueue, PostSearch, ReactionQueue, SummaryQueue, ViewQueue,
};
use community_search::DynamoSearchIndex;
use platform::auth::{AuthUser, InternalService, MaybeUser};
use platform::aws::AwsClients;
use platform::http::{Json, Query, DEFAULT_BODY_LIMIT};
use platform::openapi::{ReasonErrorBody, ReasonUnavailable, SecuritySchemes};
use platform::tokens::{InternalToken, TokenVerifier};
use platform::{ApiError, BoxError, Env, ErrorStyle};
use serde::{Deserialize, Deserializer};
use utoipa::{IntoParams, OpenApi, ToSchema};

use crate::brake::{TooManyWrites, Write, WriteBrake};
use crate::errors::Error;
use crate::identity::UsersDirectory;

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
/// How long clients and caches may keep the topic lists.
const TOPICS_CACHE_CONTROL: &str = "public, max-age=30";

#[derive(Clone)]
pub struct AppState {
    community: Arc<Community>,
    search: Arc<PostSearch<DynamoSearchIndex>>,
    index_queue: IndexQueue,
    cleanup_queue: CleanupQueue,
    summary_queue: SummaryQueue,
    view_queue: ViewQueue,
    reaction_queue: ReactionQueue,
    /// Salts the hash of an anonymous reader's address (their views' dedupe key).
    view_salt: Arc<[u8]>,
    verifier: Arc<TokenVerifier>,
    internal_token: InternalToken,
    users: UsersDirectory,
    brake: Arc<WriteBrake>,
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
    let community = Community::from_env(&env, &aws)?;
    let search = PostSearch::from_env(&env, &aws)?;
    let queues = Queues {
        index: IndexQueue::from_env(&env, aws.sqs())?,
        cleanup: community::cleanup::cleanup_queue(&env, aws.sqs())?,
        summary: SummaryQueue::from_env(&env, aws.sqs())?,
        views: ViewQueue::from_env(&env, aws.sqs())?,
        reactions: ReactionQueue::from_env(&env, aws.sqs())?,
    };
    let brake = WriteBrake::from_env(&env, &aws)?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let cache_seconds = platform::http::public_cache_seconds(&env)?;
    let app = app(
        Arc::new(community),
        Arc::new(search),
        queues,
        brake,
        verifier,
        &env,
    )?;
    Ok(platform::http::edge_cached(app, cache_seconds))
}

/// The queues the community function sends to.
pub struct Queues {
    /// Post writes ask the indexer to catch up.
    pub index: IndexQueue,
    /// Account deletions ask the community sweeper to clean up.
    pub cleanup: CleanupQueue,
    /// Post writes that want a summary ask the summarizer.
    pub summary: SummaryQueue,
    /// View beacons go to the view counter.
    pub views: ViewQueue,
    /// Reaction changes go to the reaction counter.
    pub reactions: ReactionQueue,
}

/// The router over given services.
pub fn app(
    community: Arc<Community>,
    search: Arc<PostSearch<DynamoSearchIndex>>,
    queues: Queues,
    brake: WriteBrake,
    verifier: TokenVerifier,
    env: &Env,
) -> Result<Router, BoxError> {
    let state = AppState {
        community,
        search,
        index_queue: queues.index,
        cleanup_queue: queues.cleanup,
        summary_queue: queues.summary,
        view_queue: queues.views,
        reaction_queue: queues.reactions,
        view_salt: view_salt(env),
        verifier: Arc::new(verifier),
        internal_token: InternalToken::from_env(env),
        users: UsersDirectory::new(
            IDENTITY_TIMEOUT,
            env.get("INTERNAL_SERVICE_TOKEN").map(str::to_string),
        )?,
        brake: Arc::new(brake),
        internal_api_url: env.get("INTERNAL_API_URL").map(str::to_string),
    };
    let routes = Router::new()
        .route("/posts", get(list_posts).post(create_post))
        .route("/posts/cards", get(post_cards))
        .route(
            "/posts/{id}",
            get(get_post)
                .put(replace_post)
                .patch(patch_post)
                .delete(moderation::delete_post),
        )
        .route("/topics", get(topic_catalog))
        .route("/topics/names", get(topic_names))
        .route("/topics/stats", get(topic_stats))
        .route("/internal/topics/follower-deltas", post(follower_deltas))
        .merge(search::routes())
        .merge(accounts::routes())
        .merge(social::routes())
        .merge(comments::routes())
        .merge(lists::routes())
        .merge(summaries::routes())
        .merge(views::routes())
        .merge(moderation::routes())
        .with_state(state);
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
        list_posts,
        create_post,
        post_cards,
        get_post,
        replace_post,
        patch_post,
        moderation::delete_post,
        moderation::moderation_log,
        search::search,
        topic_catalog,
        topic_names,
        topic_stats,
        follower_deltas,
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
        views::view
    ),
    components(schemas(
        Author,
        TopicRef,
        Post,
        PostCard,
        PostPage,
        Topic,
        TopicCategory,
        PostRequest,
        PostPatchRequest,
        FollowerDeltasRequest,
        social::ReactionRequest,
        community::social::ReactionResult,
        community::social::BookmarkResult,
        comments::CommentRequest,
        comments::CommentLikeRequest,
        comments::CommentEditRequest,
        community::comments::Comment,
        community::comments::LikeResult,
        community::summary::PostSummary,
        community::summary::SummaryStatusName,
        community::summary::FailedSummary,
        community::summary::FailedSummaryPage,
        community::moderation::ModerationLogEntry,
        community::moderation::ModerationTarget,
        community::moderation::ModerationLogPage,
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

type Answer<T> = Result<axum::Json<T>, Error>;

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

/// The query of a list of posts.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// From 0 to 49 (default 0).
    #[param(value_type = Option<i32>, minimum = 0, maximum = 49)]
    page: Option<String>,
    /// From 1 to 20 (default 10).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20)]
    size: Option<String>,
    /// The `nextCursor` of the previous page: the page after it (a `page` beside it is ignored).
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
    /// A topic name, matched exactly by its slug (`Public Transport` is `public-transport`).
    topic: Option<String>,
}

/// Published posts, newest first: of one topic, or of all.
#[utoipa::path(
    get,
    path = "/api/v1/posts",
    operation_id = "listPosts",
    tag = "community",
    params(ListQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of published posts, newest first", body = PostPage),
        (status = 400, description = "page or size out of bounds, or a cursor this service could not have given out", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
async fn list_posts(
    State(state): State<AppState>,
    user: MaybeUser,
    Query(query): Query<ListQuery>,
) -> Answer<PostPage> {
    let page = page_request(query.page, query.size, query.cursor)?;
    let caller = maybe_user_id(&user)?;
    let topic = query.topic.as_deref().filter(|t| !t.trim().is_empty());
    let mut page = state.community.posts(topic, page).await?;
    page.content = state
        .community
        .mark_posts(page.content, caller.as_ref())
        .await?;
    Ok(axum::Json(page))
}

/// A post to create, or the whole new state of one.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PostRequest {
    /// 5 to 100 characters (trimmed).
    #[schema(required = true, value_type = String, min_length = 5, max_length = 100)]
    title: Option<String>,
    /// 1 to 50,000 characters, not blank.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 50000)]
    content: Option<String>,
    /// At most 500 characters; generated from the content when omitted.
    #[schema(max_length = 500)]
    excerpt: Option<String>,
    /// An absolute http(s) URI, or null.
    #[schema(format = "uri", max_length = 2048)]
    cover_image_url: Option<String>,
    /// At most 10 http(s) URIs.
    #[schema(max_items = 10)]
    source_url: Option<Vec<String>>,
    /// At most 10 topic names (1 to 50 characters); unknown names are created.
    #[schema(max_items = 10)]
    topics: Option<Vec<String>>,
    /// `DRAFT` or `PUBLISHED` (default).
    #[schema(value_type = Option<schema::PostStatusName>, example = "PUBLISHED")]
    status: Option<String>,
}

impl From<PostRequest> for RawPost {
    fn from(r: PostRequest) -> Self {
        RawPost {
            title: r.title,
            content: r.content,
            excerpt: r.excerpt,
            cover_image_url: r.cover_image_url,
            source_url: r.source_url,
            topics: r.topics,
            status: r.status,
        }
    }
}

/// Creates a post by the caller.
#[utoipa::path(
    post,
    path = "/api/v1/posts",
    operation_id = "createPost",
    tag = "community",
    security(("bearerJwt" = [])),
    request_body = PostRequest,
    responses(
        (status = 201, description = "The new post; `Location` is its URL", body = Post),
        (status = 400, description = "A field is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 415, description = "Not JSON", body = ReasonErrorBody),
        TooManyWrites,
        (status = 502, description = "The identity service could not be reached", body = ReasonErrorBody),
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
async fn create_post(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    Json(body): Json<PostRequest>,
) -> Result<Response, Error> {
    let caller = user_id(&user)?;
    let input = PostInput::parse(body.into())?;
    state.brake.admit(Write::Post, caller.as_str()).await?;
    let base = platform::http::internal_api_base(state.internal_api_url.as_deref(), &extensions);
    let (post, summary) = state
        .community
        .create_post(&state.users.at(base), &caller, input)
        .await?;
    search::request_index(&state, &post.id).await;
    summaries::request_summary(&state, summary.as_ref()).await;
    let location = HeaderValue::from_str(&format!("{PREFIX}/posts/{}", post.id))
        .map_err(|e| ApiError::internal("location", e))?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        axum::Json(post),
    )
        .into_response())
}

/// The query of a cards request.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct CardsQuery {
    /// 1 to 50 comma-separated post ids.
    #[param(
        required = true,
        pattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(,[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})*$"
    )]
    ids: Option<String>,
}

/// Cards (no body) of these posts, in the order of `ids`; unknown and draft posts left out.
#[utoipa::path(
    get,
    path = "/api/v1/posts/cards",
    operation_id = "postCards",
    tag = "community",
    params(CardsQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "The cards, in the order asked", body = Vec<PostCard>),
        (status = 400, description = "ids missing, more than 50, or not UUIDs", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
async fn post_cards(
    State(state): State<AppState>,
    user: MaybeUser,
    Query(query): Query<CardsQuery>,
) -> Answer<Vec<PostCard>> {
    let ids = CardIds::parse(query.ids.as_deref())?;
    let caller = maybe_user_id(&user)?;
    let cards = state.community.cards(&ids).await?;
    Ok(axum::Json(
        state.community.mark_cards(cards, caller.as_ref()).await?,
    ))
}

/// One post. A draft is visible to its author only; a view by anyone else is counted.
#[utoipa::path(
    get,
    path = "/api/v1/posts/{id}",
    operation_id = "getPost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "The post", body = Post),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
    )
)]
async fn get_post(
    State(state): State<AppState>,
    user: MaybeUser,
    Path(id): Path<String>,
) -> Answer<Post> {
    let id = PostId::parse("id", &id)?;
    let caller = maybe_user_id(&user)?;
    Ok(axum::Json(
        state.community.post(&id, caller.as_ref()).await?,
    ))
}

/// Replaces every field of the caller's post; status defaults to PUBLISHED.
#[utoipa::path(
    put,
    path = "/api/v1/posts/{id}",
    operation_id = "replacePost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    request_body = PostRequest,
    responses(
        (status = 200, description = "The post as replaced", body = Post),
        (status = 400, description = "A field or the id is invalid", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 403, description = "Not the author", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
async fn replace_post(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<PostRequest>,
) -> Answer<Post> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    let input = PostInput::parse(body.into())?;
    state.brake.admit(Write::Post, caller.as_str()).await?;
    let (post, summary) = state.community.replace_post(&id, &caller, input).await?;
    search::request_index(&state, &post.id).await;
    summaries::request_summary(&state, summary.as_ref()).await;
    Ok(axum::Json(post))
}

/// A field that may be absent (unchanged) or null: `Some(None)` for null.
fn nullable<'de, D, T>(de: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(de).map(Some)
}

/// The fields of a post to change; absent ones are kept.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PostPatchRequest {
    /// 5 to 100 characters; not null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, min_length = 5, max_length = 100)]
    title: Option<Option<String>>,
    /// 1 to 50,000 characters; not null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 50000)]
    content: Option<Option<String>>,
    /// At most 500 characters; null generates it from the content again.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 500)]
    excerpt: Option<Option<String>>,
    /// An absolute http(s) URI; null clears it.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, format = "uri", max_length = 2048)]
    cover_image_url: Option<Option<String>>,
    /// Replaces the source links (null: none).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<String>>, max_items = 10)]
    source_url: Option<Option<Vec<String>>>,
    /// Replaces the post's topics (null: none).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<String>>, max_items = 10)]
    topics: Option<Option<Vec<String>>>,
    /// `DRAFT` or `PUBLISHED`; no default; not null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<schema::PostStatusName>)]
    status: Option<Option<String>>,
}

/// Changes the given fields of the caller's post (author only).
#[utoipa::path(
    patch,
    path = "/api/v1/posts/{id}",
    operation_id = "patchPost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    request_body = PostPatchRequest,
    responses(
        (status = 200, description = "The post as changed", body = Post),
        (status = 400, description = "A field or the id is invalid", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 403, description = "Not the author", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
async fn patch_post(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<PostPatchRequest>,
) -> Answer<Post> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    let patch = PostPatch::parse(RawPatch {
        title: body.title,
        content: body.content,
        excerpt: body.excerpt,
        cover_image_url: body.cover_image_url,
        source_url: body.source_url,
        topics: body.topics,
        status: body.status,
    })?;
    state.brake.admit(Write::Post, caller.as_str()).await?;
    let (post, summary) = state.community.patch_post(&id, &caller, patch).await?;
    search::request_index(&state, &post.id).await;
    summaries::request_summary(&state, summary.as_ref()).await;
    Ok(axum::Json(post))
}

fn cached<T: serde::Serialize>(value: T) -> Response {
    (
        [(
            header::CACHE_CONTROL,
            HeaderValue::from_static(TOPICS_CACHE_CONTROL),
        )],
        axum::Json(value),
    )
        .into_response()
}

/// The topic catalog: categories in order, each with its public topics and their statistics.
#[utoipa::path(
    get,
    path = "/api/v1/topics",
    operation_id = "topicCatalog",
    tag = "community",
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "Every category with its topics; a topic only drafts have named is left out until a post carrying it is published", body = Vec<TopicCategory>),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
async fn topic_catalog(State(state): State<AppState>, _user: MaybeUser) -> Result<Response, Error> {
    Ok(cached(state.community.catalog().await?))
}

/// Every public topic with its statistics, in catalog order.
#[utoipa::path(
    get,
    path = "/api/v1/topics/stats",
    operation_id = "topicStats",
    tag = "community",
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "Every topic, but those only drafts have named until a post carrying them is published", body = Vec<Topic>),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
async fn topic_stats(State(state): State<AppState>, _user: MaybeUser) -> Result<Response, Error> {
    Ok(cached(state.community.topic_stats().await?))
}

/// The query of a topic-names request.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct NamesQuery {
    /// 1 to 100 comma-separated topic ids.
    #[param(
        required = true,
        pattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(,[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})*$"
    )]
    ids: Option<String>,
}

/// The names of these topics, in the order of `ids`; unknown and unpublished ones left out.
#[utoipa::path(
    get,
    path = "/api/v1/topics/names",
    operation_id = "topicNames",
    tag = "community",
    params(NamesQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "The topics found (a topic only drafts have named is not found)", body = Vec<TopicRef>),
        (status = 400, description = "ids missing, more than 100, or not UUIDs", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
async fn topic_names(
    State(state): State<AppState>,
    _user: MaybeUser,
    Query(query): Query<NamesQuery>,
) -> Answer<Vec<TopicRef>> {
    let ids = TopicIds::parse(query.ids.as_deref())?;
    Ok(axum::Json(state.community.topic_names(&ids).await?))
}

/// Follower count changes by topic name.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct FollowerDeltasRequest {
    /// Topic name → change (+1 follow, -1 unfollow; -1000 to 1000), at most 200 names.
    #[schema(required = true, value_type = BTreeMap<String, i64>, example = json!({"Space": 1, "public-transport": -1}))]
    deltas: Option<BTreeMap<String, i64>>,
}

/// Applies follower count changes, matched by slug (unknown names create the topic) and
/// clamped at zero. With `Idempotency-Key`, a repeated delivery changes nothing.
#[utoipa::path(
    post,
    path = "/api/v1/internal/topics/follower-deltas",
    operation_id = "followerDeltas",
    tag = "community",
    security(("internalToken" = [])),
    params(("Idempotency-Key" = Option<String>, Header, max_length = 100, pattern = "^[A-Za-z0-9:._-]+$", description = "Makes a repeated delivery a no-op")),
    request_body = FollowerDeltasRequest,
    responses(
        (status = 200, description = "`{timestamp, status: 200, error: \"OK\", message: \"N topic follower counts updated\"}`", body = ReasonErrorBody),
        (status = 400, description = "deltas missing or out of bounds, or a bad Idempotency-Key", body = ReasonErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ReasonErrorBody),
    )
)]
async fn follower_deltas(
    State(state): State<AppState>,
    _service: InternalService,
    headers: HeaderMap,
    Json(body): Json<FollowerDeltasRequest>,
) -> Result<Response, Error> {
    let key = match headers.get("idempotency-key") {
        Some(v) => Some(IdempotencyKey::parse(v.to_str().unwrap_or("\u{0}"))?),
        None => None,
    };
    let deltas = body
        .deltas
        .ok_or_else(|| ApiError::field("deltas", "is required"))?;
    let deltas = FollowerDeltas::parse(deltas.into_iter().collect())?;
    let count = state
        .community
        .follower_deltas(&deltas, key.as_ref())
        .await?;
    let body = serde_json::json!({
        "timestamp": platform::Clock::system().timestamp(),
        "status": 200,
        "error": "OK",
        "message": format!("{count} topic follower counts updated"),
    });
    Ok((StatusCode::OK, axum::Json(body)).into_response())
}
