//! The content function: the news reader's content service behind `/api/content/{proxy+}`.
//!
//! Shared RSS sources and their subscribers, articles and topics. Each handler parses its
//! input into the `news` crate's types and makes one call on [`news::News`] (which owns
//! storage, fetching and parsing; its `store` module documents the table's access patterns);
//! [`errors`] turns the domain's errors into HTTP answers.

pub mod accounts;
pub mod errors;
pub mod query;
pub mod responses;

use std::sync::Arc;

use axum::extract::{FromRef, Path, RawQuery, State};
use axum::http::{header, Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Router;
use news::model::{Article, Page, Source, TopicRef, TopicSummary, Unsubscribed};
use news::store::ArticleFilter;
use news::MAX_FEED_SOURCES;
use news::{
    ArticleId, FeedSources, FeedUrl, FullTextMode, News, PageRequest, SavedArticleIds, SourceId,
    Submitted, UserId,
};
use platform::auth::{AuthUser, RequireScope, Scope};
use platform::aws::AwsClients;
use platform::http::Json;
use platform::openapi::{ErrorBody, Health, SecuritySchemes, ServiceTokenScheme, TableUnavailable};
use platform::tokens::TokenVerifier;
use platform::validation::MAX_ID_CHARS;
use platform::{ApiError, BoxError, Env, ErrorStyle, Invalid};
use serde::Deserialize;
use utoipa::{IntoParams, OpenApi, ToSchema};

use crate::accounts::UsersService;
use crate::errors::to_api;
use crate::responses::{
    IdTooLong, LiveUserRequired, NoSuchArticle, NoSuchSource, ServiceTokenRequired,
    UserTokenRequired,
};

/// The scope that lets a service subscribe and unsubscribe users to sources.
pub struct SourceWrite;

impl Scope for SourceWrite {
    const NAME: &'static str = "source.write";
}

/// The OpenAPI scheme of service tokens holding [`SourceWrite`].
const SOURCE_WRITE_SCHEME: ServiceTokenScheme = ServiceTokenScheme {
    name: "sourceWrite",
    scopes: &[(
        SourceWrite::NAME,
        "subscribe and unsubscribe users to content sources",
    )],
};

/// The public path prefix of this route family.
pub const PREFIX: &str = "/api/content";
pub use news::input::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_SAVED_IDS};

/// How long the users service may take to say whether an account exists.
const USERS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Clone)]
pub struct AppState {
    news: Arc<News>,
    verifier: Arc<TokenVerifier>,
    users: UsersService,
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
    let news = News::from_env(&env, &aws)?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let cache_seconds = platform::http::public_cache_seconds(&env)?;
    let app = app(
        Arc::new(news),
        Arc::new(verifier),
        env.get("INTERNAL_API_URL").map(str::to_string),
    )?;
    Ok(platform::http::edge_cached(app, cache_seconds))
}

pub fn app(
    news: Arc<News>,
    verifier: Arc<TokenVerifier>,
    internal_api_url: Option<String>,
) -> Result<Router, BoxError> {
    let state = AppState {
        news,
        verifier,
        users: UsersService::new(USERS_TIMEOUT)?,
        internal_api_url,
    };
    let routes = Router::new()
        .route("/sources", get(sources).post(submit_source))
        .route("/sources/{id}", get(source))
        .route("/sources/{id}/settings", put(source_settings))
        .route(
            "/sources/{id}/subscribers/{user_id}",
            post(subscribe).delete(unsubscribe),
        )
        .route("/topics", get(topics))
        .route("/articles", get(articles))
        .route("/articles/saved", post(saved_articles))
        .route("/articles/{id}", get(article))
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

/// Every operation reads or writes the content table.
const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable { except: &[] };

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(
        sources,
        source,
        submit_source,
        subscribe,
        unsubscribe,
        source_settings,
        topics,
        articles,
        article,
        saved_articles,
        health
    ),
    components(schemas(
        Source,
        SourceSubmission,
        SourceSettings,
        FullTextMode,
        Unsubscribed,
        TopicSummary,
        TopicRef,
        Article,
        Page<Article>,
        SavedArticles,
        ErrorBody,
        Health
    )),
    modifiers(&SecuritySchemes, &SOURCE_WRITE_SCHEME, &TABLE_UNAVAILABLE),
    tags((name = "content", description = "The news reader's content service: shared sources, their subscribers, articles and topics"))
)]
struct ContentApi;

/// The content function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    ContentApi::openapi()
}

type Answer<T> = Result<axum::Json<T>, ApiError>;

/// The most sources or topics one page holds, and a page's size when none is asked.
const MAX_LIST_PAGE: usize = 100;

/// A page of the sources or the topics: the lists grow without bound, so they come a page at
/// a time, a bare array with the next page's cursor in `X-Next-Cursor`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ListPageQuery {
    /// The `X-Next-Cursor` of the previous page: the page after it.
    #[param(max_length = 800, pattern = "^(?:[0-9a-f]{2}){1,400}$")]
    cursor: Option<String>,
    /// From 1 to 100 (default 100).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

impl ListPageQuery {
    /// The sort key the page starts after, and its size.
    fn parse(&self) -> Result<(Option<String>, usize), Invalid> {
        let limit = match self.limit.as_deref().map(str::trim) {
            None => MAX_LIST_PAGE,
            Some(raw) => raw
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_LIST_PAGE).contains(n))
                .ok_or_else(|| {
                    Invalid::field(
                        "limit",
                        format!("must be an integer from 1 to {MAX_LIST_PAGE}"),
                    )
                })?,
        };
        let after = match self.cursor.as_deref() {
            None => None,
            Some(c) => Some(platform::cursor::decode_text_cursor(c).ok_or_else(|| {
                Invalid::field("cursor", "is not a cursor this service gave out")
            })?),
        };
        Ok((after, limit))
    }
}

/// A page of a list as a bare array, with the next page's cursor in `X-Next-Cursor`.
fn paged<T: serde::Serialize>(rows: Vec<T>, next: Option<String>) -> Response {
    let mut response = axum::Json(rows).into_response();
    if let Some(cursor) = next.and_then(|c| header::HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert("x-next-cursor", cursor);
    }
    response
}

/// The sources, oldest first, a page at a time.
#[utoipa::path(
    get,
    path = "/api/content/sources",
    operation_id = "listSources",
    tag = "content",
    params(ListPageQuery),
    responses(
        (status = 200, description = "A page of sources, oldest first (at most 100). When more follow, the `X-Next-Cursor` header holds the next page's cursor", body = Vec<Source>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad limit or cursor", body = ErrorBody),
    )
)]
async fn sources(
    State(state): State<AppState>,
    platform::http::Query(query): platform::http::Query<ListPageQuery>,
) -> Result<Response, ApiError> {
    let (after, limit) = query.parse()?;
    let (sources, next) = state
        .news
        .sources(after.as_deref(), limit)
        .await
        .map_err(to_api)?;
    Ok(paged(sources, next))
}

/// One source, with its subscriber count.
#[utoipa::path(
    get,
    path = "/api/content/sources/{id}",
    operation_id = "getSource",
    tag = "content",
    params(("id" = String, Path, max_length = 200, description = "The source's id")),
    responses(
        (status = 200, description = "The source", body = Source),
        NoSuchSource,
        IdTooLong,
    )
)]
async fn source(State(state): State<AppState>, Path(id): Path<String>) -> Answer<Source> {
    let id = SourceId::parse("id", id)?;
    state.news.source(&id).await.map(axum::Json).map_err(to_api)
}

/// A feed to add.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SourceSubmission {
    /// An http(s) URL serving an RSS, Atom or JSON Feed document (at most 2048 characters).
    #[schema(required = true, value_type = String, format = "uri", max_length = 2048, example = "https://example.com/feed.xml")]
    url: Option<String>,
}

/// Submits a feed URL. Fetches and parses the feed before answering, so the new source's
/// articles show at once.
#[utoipa::path(
    post,
    path = "/api/content/sources",
    operation_id = "submitSource",
    tag = "content",
    security(("bearerJwt" = [])),
    request_body = SourceSubmission,
    responses(
        (status = 201, description = "A new source", body = Source),
        (status = 200, description = "The URL (normalised) is already a source: that source", body = Source),
        (status = 400, description = "The URL is invalid, cannot be fetched, or does not serve a feed (`details`: `url: reason`)", body = ErrorBody),
        LiveUserRequired,
        (status = 502, description = "The users service could not say whether the token's account exists", body = ErrorBody),
    )
)]
async fn submit_source(
    State(state): State<AppState>,
    _user: AuthUser,
    headers: HeaderMap,
    extensions: Extensions,
    Json(input): Json<SourceSubmission>,
) -> Result<(StatusCode, axum::Json<Source>), ApiError> {
    let url = FeedUrl::parse(input.url)?;
    // AuthUser accepted it, so the header is there; the users service judges the account.
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let base = platform::http::internal_api_base(state.internal_api_url.as_deref(), &extensions);
    let accounts = state.users.caller(base, authorization);
    let Submitted { source, created } = state
        .news
        .submit_as_user(&accounts, &url)
        .await
        .map_err(to_api)?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(source)))
}

/// A source's settings.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SourceSettings {
    /// Whether new articles get the text of their page: `on`, `off`, or `auto` (when the
    /// feed's entry is short, an excerpt).
    #[schema(required = true, value_type = FullTextMode)]
    full_text: Option<String>,
}

/// Changes a source's settings (they apply to the articles its next refreshes store); for
/// services with `source.write`.
#[utoipa::path(
    put,
    path = "/api/content/sources/{id}/settings",
    operation_id = "updateSourceSettings",
    tag = "content",
    security(("sourceWrite" = ["source.write"])),
    params(("id" = String, Path, max_length = 200, description = "The source's id")),
    request_body = SourceSettings,
    responses(
        (status = 200, description = "The source with its settings", body = Source),
        (status = 400, description = "`fullText` is missing or not one of on, off, auto (`details`: `fullText: reason`)", body = ErrorBody),
        ServiceTokenRequired,
        NoSuchSource,
        IdTooLong,
    )
)]
async fn source_settings(
    State(state): State<AppState>,
    _caller: RequireScope<SourceWrite>,
    Path(id): Path<String>,
    Json(input): Json<SourceSettings>,
) -> Answer<Source> {
    let id = SourceId::parse("id", id)?;
    let mode = match input.full_text.as_deref() {
        Some("on") => FullTextMode::On,
        Some("off") => FullTextMode::Off,
        Some("auto") => FullTextMode::Auto,
        Some(_) => return Err(Invalid::field("fullText", "must be on, off or auto").into()),
        None => return Err(Invalid::field("fullText", "is required").into()),
    };
    state
        .news
        .set_full_text(&id, mode)
        .await
        .map(axum::Json)
        .map_err(to_api)
}

/// Adds a subscriber to a source (idempotent per user); for services with `source.write`. A
/// deleted source, even one whose rows are still being removed, is not found.
#[utoipa::path(
    post,
    path = "/api/content/sources/{id}/subscribers/{userId}",
    operation_id = "addSourceSubscriber",
    tag = "content",
    security(("sourceWrite" = ["source.write"])),
    params(
        ("id" = String, Path, max_length = 200, description = "The source's id"),
        ("userId" = String, Path, max_length = 200, description = "The subscribing user's id"),
    ),
    responses(
        (status = 200, description = "The source with its subscriberCount", body = Source),
        ServiceTokenRequired,
        NoSuchSource,
        IdTooLong,
    )
)]
async fn subscribe(
    State(state): State<AppState>,
    _caller: RequireScope<SourceWrite>,
    Path((id, user_id)): Path<(String, String)>,
) -> Answer<Source> {
    let (source, user) = (
        SourceId::parse("id", id)?,
        UserId::parse("userId", user_id)?,
    );
    state
        .news
        .subscribe(&source, &user)
        .await
        .map(axum::Json)
        .map_err(to_api)
}

/// Removes a subscriber from a source; the last one leaving deletes the source and its
/// articles: they disappear from every read at once, and their rows are removed in the
/// background. A user who is not a subscriber changes nothing (200 with the source as it is).
/// For services with `source.write`.
#[utoipa::path(
    delete,
    path = "/api/content/sources/{id}/subscribers/{userId}",
    operation_id = "removeSourceSubscriber",
    tag = "content",
    security(("sourceWrite" = ["source.write"])),
    params(
        ("id" = String, Path, max_length = 200, description = "The source's id"),
        ("userId" = String, Path, max_length = 200, description = "The leaving user's id"),
    ),
    responses(
        (status = 200, description = "What is left of the source (unchanged when the user was not a subscriber)", body = Unsubscribed),
        ServiceTokenRequired,
        NoSuchSource,
        IdTooLong,
    )
)]
async fn unsubscribe(
    State(state): State<AppState>,
    _caller: RequireScope<SourceWrite>,
    Path((id, user_id)): Path<(String, String)>,
) -> Answer<Unsubscribed> {
    let (source, user) = (
        SourceId::parse("id", id)?,
        UserId::parse("userId", user_id)?,
    );
    state
        .news
        .unsubscribe(&source, &user)
        .await
        .map(axum::Json)
        .map_err(to_api)
}

/// The topics that have articles, by name, with their numbers of articles, a page at a time.
#[utoipa::path(
    get,
    path = "/api/content/topics",
    operation_id = "listTopics",
    tag = "content",
    params(ListPageQuery),
    responses(
        (status = 200, description = "A page of topics by name (at most 100; topics without articles are left out, so a page may be short). When more follow, the `X-Next-Cursor` header holds the next page's cursor", body = Vec<TopicSummary>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad limit or cursor", body = ErrorBody),
    )
)]
async fn topics(
    State(state): State<AppState>,
    platform::http::Query(query): platform::http::Query<ListPageQuery>,
) -> Result<Response, ApiError> {
    let (after, limit) = query.parse()?;
    let (topics, next) = state
        .news
        .topics(after.as_deref(), limit)
        .await
        .map_err(to_api)?;
    Ok(paged(topics, next))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
struct ArticleQuery {
    /// Only this source's articles; repeated (`sourceId=a&sourceId=b`, at most 50 distinct
    /// ids), the personal feed: the articles of all of them merged newest first. Unknown
    /// sources add nothing.
    #[param(style = Form, explode, schema_with = feed_source_ids)]
    source_id: Option<Vec<String>>,
    /// Only this topic's articles (with `sourceId`s: the topic's articles from those sources).
    #[param(max_length = 200)]
    topic_id: Option<String>,
    /// The page, from 0 (default 0); pages past 49 are refused, so `totalPages` counts at
    /// most 50: further pages are reached by `cursor`.
    #[param(minimum = 0, maximum = 49)]
    page: Option<u32>,
    /// The `nextCursor` of the previous page: the page after it (a `page` beside it is ignored).
    #[param(
        max_length = 420,
        pattern = "^[0-9]{1,19}\\.3[0-9]3[0-9]3[0-9]3[0-9](?:[0-7][0-9a-f]){0,196}$"
    )]
    cursor: Option<String>,
    /// Articles per page (default 20).
    #[param(minimum = 1, maximum = 100)]
    size: Option<u32>,
}

/// `sourceId` as the contract shows it: repeatable, each at most [`MAX_ID_CHARS`] characters.
fn feed_source_ids() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(MAX_ID_CHARS)),
        )
        .max_items(Some(MAX_FEED_SOURCES))
        .build()
}

/// Articles, newest first, a page at a time; by source or by topic, or a personal feed of
/// several sources. Each page but the last carries `nextCursor`, which asks for the next.
#[utoipa::path(
    get,
    path = "/api/content/articles",
    operation_id = "listArticles",
    tag = "content",
    params(ArticleQuery),
    responses(
        (status = 200, description = "A page of articles (without paragraphs)", body = Page<Article>),
        (status = 400, description = "A query parameter is invalid: `page` past 49, `size` outside 1 to 100, more than 50 `sourceId`s, or a `cursor` this service could not have given out", body = ErrorBody),
    )
)]
async fn articles(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Answer<Page<Article>> {
    let (query, listed): (ArticleQuery, Vec<String>) =
        query::with_list(raw.as_deref(), "sourceId")?;
    // The list's values are taken out before `query` is read, so its field is always empty.
    let source_ids: Vec<String> = query
        .source_id
        .into_iter()
        .flatten()
        .chain(listed)
        .collect();
    let page = PageRequest::parse_with_cursor(query.page, query.size, query.cursor)?;
    // Counted and measured as the contract says, before blanks (which filter nothing) go.
    if source_ids.len() > MAX_FEED_SOURCES {
        return Err(Invalid::field(
            "sourceId",
            format!("must be given at most {MAX_FEED_SOURCES} times"),
        )
        .into());
    }
    let too_long = |id: &String| id.chars().count() > MAX_ID_CHARS;
    for (field, long) in [
        ("sourceId", source_ids.iter().any(too_long)),
        ("topicId", query.topic_id.as_ref().is_some_and(too_long)),
    ] {
        if long {
            return Err(Invalid::field(
                field,
                format!("must be at most {MAX_ID_CHARS} characters"),
            )
            .into());
        }
    }
    let source_ids: Vec<String> = source_ids
        .into_iter()
        .filter(|id| !id.trim().is_empty())
        .collect();
    let answer = if source_ids.len() > 1 && query.topic_id.is_none() {
        let sources = FeedSources::parse(source_ids)?;
        state.news.feed(&sources, page).await
    } else {
        let filter = ArticleFilter::parse(source_ids, query.topic_id);
        state.news.articles(&filter, page).await
    };
    answer.map(axum::Json).map_err(to_api)
}

/// One article with its body paragraphs.
#[utoipa::path(
    get,
    path = "/api/content/articles/{id}",
    operation_id = "getArticle",
    tag = "content",
    params(("id" = String, Path, max_length = 200, description = "The article's id")),
    responses(
        (status = 200, description = "The article", body = Article),
        NoSuchArticle,
        IdTooLong,
    )
)]
async fn article(State(state): State<AppState>, Path(id): Path<String>) -> Answer<Article> {
    let id = ArticleId::parse("id", id)?;
    state
        .news
        .article(&id)
        .await
        .map(axum::Json)
        .map_err(to_api)
}

/// The articles to get.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SavedArticles {
    /// Article ids, at most 100, each not blank and at most 200 characters.
    #[schema(required = true, value_type = Vec<SavedArticleId>, max_items = 100)]
    ids: Option<Vec<String>>,
}

/// One id of [`SavedArticles`] (the schema of the list's items).
#[derive(ToSchema)]
#[schema(
    max_length = 200,
    pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
)]
pub struct SavedArticleId(pub String);

/// Gets a batch of articles by id (a user's saved articles).
#[utoipa::path(
    post,
    path = "/api/content/articles/saved",
    operation_id = "getSavedArticles",
    tag = "content",
    security(("bearerJwt" = [])),
    request_body = SavedArticles,
    responses(
        (status = 200, description = "The articles found, in the order of `ids` (ids of deleted articles are left out)", body = Vec<Article>),
        (status = 400, description = "`ids` is missing, too long or has a blank id", body = ErrorBody),
        UserTokenRequired,
    )
)]
async fn saved_articles(
    State(state): State<AppState>,
    _user: AuthUser,
    Json(input): Json<SavedArticles>,
) -> Answer<Vec<Article>> {
    let ids = SavedArticleIds::parse(input.ids)?;
    state
        .news
        .saved_articles(&ids)
        .await
        .map(axum::Json)
        .map_err(to_api)
}

/// The content service and its table.
#[utoipa::path(
    get,
    path = "/api/content/actuator/health",
    operation_id = "contentHealth",
    tag = "content",
    responses(
        (status = 200, description = "Up", body = Health),
        (status = 503, description = "The content table cannot be reached", body = Health),
    )
)]
async fn health(State(state): State<AppState>) -> Response {
    let up = match state.news.health().await {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, "content table health check failed");
            false
        }
    };
    platform::http::health(up)
}
