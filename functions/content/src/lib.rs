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
use news::store::{ArticleFilter, StoreError};
use platform::auth::{AuthUser, RequireScope, SourceWrite, TokenVerifier};
use platform::aws::AwsClients;
use platform::http::{Json, Query};
use platform::{ApiError, BoxError, Env, ErrorStyle, FieldErrors};
use serde::Deserialize;
use serde_json::json;

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
        ErrorStyle::News {
            strip_prefix: PREFIX,
        },
        64 * 1024,
    )
}

fn store_error(error: StoreError) -> ApiError {
    match error {
        StoreError::SourceNotFound => ApiError::not_found("Source not found"),
        StoreError::Contention => ApiError::unavailable("The source is busy, try again"),
        other => ApiError::internal("content table", other),
    }
}

async fn sources(State(state): State<AppState>) -> Result<Response, ApiError> {
    let sources = state.ingest.store.sources().await.map_err(store_error)?;
    Ok(axum::Json(sources).into_response())
}

async fn source(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state.ingest.store.source(&id).await.map_err(store_error)? {
        Some(source) => Ok(axum::Json(source).into_response()),
        None => Err(ApiError::not_found("Source not found")),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceSubmission {
    url: Option<String>,
}

/// Fetches and parses the feed before answering, so the new source's articles show at once.
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

async fn topics(State(state): State<AppState>) -> Result<Response, ApiError> {
    let topics = state.ingest.store.topics().await.map_err(store_error)?;
    Ok(axum::Json(topics).into_response())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArticleQuery {
    source_id: Option<String>,
    topic_id: Option<String>,
    page: Option<u32>,
    size: Option<u32>,
}

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

async fn article(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state.ingest.store.article(&id).await.map_err(store_error)? {
        Some(article) => Ok(axum::Json(article).into_response()),
        None => Err(ApiError::not_found("Article not found")),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedArticles {
    ids: Option<Vec<String>>,
}

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
