//! The content function: Document A's content service behind `/api/content/{proxy+}`.
//!
//! Shared RSS sources and their subscribers, articles and topics. Storage, fetching and
//! parsing live in the `news` crate (its `store` module documents the table's access
//! patterns); this crate maps HTTP to it.

use std::sync::Arc;

use axum::extract::{FromRef, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use news::ingest::{Ingest, IngestError};
use news::model::{Article, Page, Source, TopicRef, TopicSummary};
use news::store::{ArticleFilter, StoreError};
use platform::auth::{AuthUser, RequireScope, Scope};
use platform::aws::AwsClients;
use platform::http::{Json, Query};
use platform::openapi::{ErrorBody, Health, SecuritySchemes, ServiceTokenScheme};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Env, ErrorStyle, FieldErrors};
use serde::Deserialize;
use serde_json::json;
use utoipa::{IntoParams, OpenApi, ToSchema};

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
/// Page size when none is asked for, and the largest allowed.
pub const DEFAULT_PAGE_SIZE: u32 = 20;
pub const MAX_PAGE_SIZE: u32 = 100;
/// Most ids one saved-articles request may ask for.
pub const MAX_SAVED_IDS: usize = 100;

#[derive(Clone)]
pub struct AppState {
    ingest: Arc<Ingest>,
    verifier: Arc<TokenVerifier>,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment: what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let ingest = Ingest::from_env(&env, &aws)?;
    let verifier = TokenVerifier::from_env(&env, &[])?;
    Ok(app(Arc::new(ingest), Arc::new(verifier)))
}

pub fn app(ingest: Arc<Ingest>, verifier: Arc<TokenVerifier>) -> Router {
    let state = AppState { ingest, verifier };
    let routes = Router::new()
        .route("/sources", get(sources).post(submit_source))
        .route("/sources/{id}", get(source))
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
    platform::http::finish(
        Router::new().nest(PREFIX, routes),
        ErrorStyle::Detailed {
            strip_prefix: PREFIX,
        },
        64 * 1024,
    )
}

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(
        sources,
        source,
        submit_source,
        subscribe,
        unsubscribe,
        topics,
        articles,
        article,
        saved_articles,
        health
    ),
    components(schemas(
        Source,
        SourceSubmission,
        Unsubscribed,
        TopicSummary,
        TopicRef,
        Article,
        Page<Article>,
        SavedArticles,
        ErrorBody,
        Health
    )),
    modifiers(&SecuritySchemes, &SOURCE_WRITE_SCHEME),
    tags((name = "content", description = "Document A's content service: shared sources, their subscribers, articles and topics"))
)]
struct ContentApi;

/// The content function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    ContentApi::openapi()
}

fn store_error(error: StoreError) -> ApiError {
    match error {
        StoreError::SourceNotFound => ApiError::not_found("Source not found"),
        StoreError::Contention => ApiError::unavailable("The source is busy, try again"),
        other => ApiError::internal("content table", other),
    }
}

/// Every source.
#[utoipa::path(
    get,
    path = "/api/content/sources",
    operation_id = "listSources",
    tag = "content",
    responses((status = 200, description = "Every source", body = Vec<Source>))
)]
async fn sources(State(state): State<AppState>) -> Result<Response, ApiError> {
    let sources = state.ingest.store.sources().await.map_err(store_error)?;
    Ok(axum::Json(sources).into_response())
}

/// One source, with its subscriber count.
#[utoipa::path(
    get,
    path = "/api/content/sources/{id}",
    operation_id = "getSource",
    tag = "content",
    params(("id" = String, Path, description = "The source's id")),
    responses(
        (status = 200, description = "The source", body = Source),
        (status = 404, description = "No such source", body = ErrorBody),
    )
)]
async fn source(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state.ingest.store.source(&id).await.map_err(store_error)? {
        Some(source) => Ok(axum::Json(source).into_response()),
        None => Err(ApiError::not_found("Source not found")),
    }
}

/// A feed to add.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SourceSubmission {
    /// An http(s) URL serving an RSS, Atom or JSON Feed document.
    #[schema(required = true, value_type = String, format = "uri", example = "https://example.com/feed.xml")]
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
        (status = 401, description = "No valid user token", body = ErrorBody),
    )
)]
async fn submit_source(
    State(state): State<AppState>,
    _user: AuthUser,
    Json(input): Json<SourceSubmission>,
) -> Result<Response, ApiError> {
    let Some(url) = input.url else {
        return Err(ApiError::field("url", "must not be blank"));
    };
    match state.ingest.submit(&url).await {
        Ok((source, true)) => Ok((StatusCode::CREATED, axum::Json(source)).into_response()),
        Ok((source, false)) => Ok(axum::Json(source).into_response()),
        Err(IngestError::InvalidUrl(e)) => Err(ApiError::field("url", e.to_string())),
        Err(IngestError::Fetch(e)) => Err(ApiError::field("url", e.to_string())),
        Err(IngestError::NotAFeed(e)) => Err(ApiError::field("url", e.to_string())),
        Err(IngestError::Store(e)) => Err(store_error(e)),
    }
}

/// Adds a subscriber to a source (idempotent per user); for services with `source.write`.
#[utoipa::path(
    post,
    path = "/api/content/sources/{id}/subscribers/{userId}",
    operation_id = "addSourceSubscriber",
    tag = "content",
    security(("sourceWrite" = ["source.write"])),
    params(
        ("id" = String, Path, description = "The source's id"),
        ("userId" = String, Path, description = "The subscribing user's id"),
    ),
    responses(
        (status = 200, description = "The source with its subscriberCount", body = Source),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks the source.write scope (user tokens never have it)", body = ErrorBody),
        (status = 404, description = "No such source", body = ErrorBody),
    )
)]
async fn subscribe(
    State(state): State<AppState>,
    _caller: RequireScope<SourceWrite>,
    Path((id, user_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let source = state
        .ingest
        .store
        .subscribe(&id, &user_id)
        .await
        .map_err(store_error)?;
    Ok(axum::Json(source).into_response())
}

/// What an unsubscribe left.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(
    description = "What an unsubscribe left: when the source survives, every Source field too; when the last subscriber left, only these three, with deleted true."
)]
struct Unsubscribed {
    id: String,
    #[schema(rename = "subscriberCount")]
    subscriber_count: i64,
    /// The last subscriber left: the source and its articles are gone.
    deleted: bool,
}

/// Removes a subscriber from a source; the last one leaving deletes the source and its
/// articles. For services with `source.write`.
#[utoipa::path(
    delete,
    path = "/api/content/sources/{id}/subscribers/{userId}",
    operation_id = "removeSourceSubscriber",
    tag = "content",
    security(("sourceWrite" = ["source.write"])),
    params(
        ("id" = String, Path, description = "The source's id"),
        ("userId" = String, Path, description = "The leaving user's id"),
    ),
    responses(
        (status = 200, description = "What is left of the source", body = Unsubscribed),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks the source.write scope", body = ErrorBody),
        (status = 404, description = "No such source", body = ErrorBody),
    )
)]
async fn unsubscribe(
    State(state): State<AppState>,
    _caller: RequireScope<SourceWrite>,
    Path((id, user_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let store = &state.ingest.store;
    let (count, deleted) = store
        .unsubscribe(&id, &user_id)
        .await
        .map_err(store_error)?;
    if deleted {
        return Ok(
            axum::Json(json!({"id": id, "subscriberCount": 0, "deleted": true})).into_response(),
        );
    }
    // The remaining source, so callers can show it without a second request.
    let body = match store.source(&id).await.map_err(store_error)? {
        Some(source) => {
            let mut body = serde_json::to_value(source)
                .map_err(|e| ApiError::internal("serialise source", e))?;
            body["deleted"] = json!(false);
            body
        }
        None => json!({"id": id, "subscriberCount": count, "deleted": false}),
    };
    Ok(axum::Json(body).into_response())
}

/// Every topic with its number of articles.
#[utoipa::path(
    get,
    path = "/api/content/topics",
    operation_id = "listTopics",
    tag = "content",
    responses((status = 200, description = "Every topic", body = Vec<TopicSummary>))
)]
async fn topics(State(state): State<AppState>) -> Result<Response, ApiError> {
    let topics = state.ingest.store.topics().await.map_err(store_error)?;
    Ok(axum::Json(topics).into_response())
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
struct ArticleQuery {
    /// Only this source's articles.
    source_id: Option<String>,
    /// Only this topic's articles.
    topic_id: Option<String>,
    /// The page, from 0 (default 0).
    #[param(minimum = 0)]
    page: Option<u32>,
    /// Articles per page (default 20).
    #[param(minimum = 1, maximum = 100)]
    size: Option<u32>,
}

/// Articles, newest first, a page at a time; by source or by topic.
#[utoipa::path(
    get,
    path = "/api/content/articles",
    operation_id = "listArticles",
    tag = "content",
    params(ArticleQuery),
    responses(
        (status = 200, description = "A page of articles (without paragraphs)", body = Page<Article>),
        (status = 400, description = "A query parameter is invalid", body = ErrorBody),
    )
)]
async fn articles(
    State(state): State<AppState>,
    Query(query): Query<ArticleQuery>,
) -> Result<Response, ApiError> {
    let size = query.size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&size) {
        return Err(ApiError::field(
            "size",
            format!("must be between 1 and {MAX_PAGE_SIZE}"),
        ));
    }
    let filter = ArticleFilter {
        source_id: query.source_id.filter(|s| !s.trim().is_empty()),
        topic_id: query.topic_id.filter(|s| !s.trim().is_empty()),
    };
    let page = state
        .ingest
        .store
        .articles_page(&filter, query.page.unwrap_or(0), size)
        .await
        .map_err(store_error)?;
    Ok(axum::Json(page).into_response())
}

/// One article with its body paragraphs.
#[utoipa::path(
    get,
    path = "/api/content/articles/{id}",
    operation_id = "getArticle",
    tag = "content",
    params(("id" = String, Path, description = "The article's id")),
    responses(
        (status = 200, description = "The article", body = Article),
        (status = 404, description = "No such article", body = ErrorBody),
    )
)]
async fn article(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state.ingest.store.article(&id).await.map_err(store_error)? {
        Some(article) => Ok(axum::Json(article).into_response()),
        None => Err(ApiError::not_found("Article not found")),
    }
}

/// The articles to get.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SavedArticles {
    /// Article ids, at most 100.
    #[schema(required = true, value_type = Vec<String>, max_items = 100)]
    ids: Option<Vec<String>>,
}

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
        (status = 401, description = "No valid user token", body = ErrorBody),
    )
)]
async fn saved_articles(
    State(state): State<AppState>,
    _user: AuthUser,
    Json(input): Json<SavedArticles>,
) -> Result<Response, ApiError> {
    let mut errors = FieldErrors::new();
    let Some(ids) = input.ids else {
        return Err(ApiError::field("ids", "is required"));
    };
    if ids.len() > MAX_SAVED_IDS {
        errors.add("ids", format!("must list at most {MAX_SAVED_IDS} ids"));
    }
    if ids.iter().any(|id| id.trim().is_empty()) {
        errors.add("ids", "must not contain blank ids");
    }
    errors.finish()?;
    let articles = state
        .ingest
        .store
        .articles_by_ids(&ids, false)
        .await
        .map_err(store_error)?;
    Ok(axum::Json(articles).into_response())
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
    let up = match state.ingest.store.ping().await {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, "content table health check failed");
            false
        }
    };
    platform::http::health(up)
}
