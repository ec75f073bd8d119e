//! The news function: the news reader's content service behind `/api/content/{proxy+}`.
//!
//! Shared RSS sources and their subscribers, articles and topics, and each person's reader
//! state and OPML files, their handlers in a module each (`sources`, `topics`, `articles`,
//! `reader`, `opml`). Each handler parses its input into the `news` crate's types and makes one
//! call on [`news::News`], [`news::Reader`] or [`news::Opml`] (which own storage; the `store`
//! module documents the table's access patterns); the domain's errors answer as [`ApiError`]s
//! (their `From` is next to `news::NewsError`). Feeds come in through the intake function
//! (`functions/news/intake`: submissions, discovery, WebSub callbacks), which links the feed
//! parser this one does without.

mod articles;
mod opml;
mod pages;
pub mod query;
mod reader;
mod sources;
mod topics;

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::http::{header, Extensions, HeaderMap};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use identity_client::IdentityClient;
use news::model::reader::{
    ItemRef, LabelSummary, Marked, ReaderArticle, ReaderSubscription, SourceCount, StreamPage,
    UnreadCounts,
};
use news::model::{Article, Page, Source, TopicRef, TopicSummary, Unsubscribed};
use news::opml::{FeedOutcome, FeedResult, ImportProgress, ImportStarted, ImportStatus};
use news::{FullTextMode, News, Opml, Reader};
use platform::auth::Scope;
use platform::aws::AwsClients;
use platform::openapi::{ErrorBody, Health, SecuritySchemes, ServiceTokenScheme, TableUnavailable};
use platform::ratelimit::{Brake, Rate, WhenUnavailable};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Env, ErrorStyle};
use utoipa::OpenApi;

pub use crate::articles::SavedArticleId;
use crate::articles::SavedArticles;
use crate::sources::SourceSettings;

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

/// The brake on OPML imports: each makes the platform fetch up to 1,000 sites the file names,
/// so each signed-in user may import only so many files a window (the template's
/// `OpmlImportRateLimit`; by default 5 an hour and 20 a day), counted in the limits table;
/// when it fails, imports are refused (503): unguarded, the fetches would go wherever a
/// script points them.
pub const OPML_IMPORTS: Rate = Rate {
    variable: "OPML_IMPORT_RATE_LIMIT",
    name: "opml-import",
    default: "5/3600,20/86400",
    when_unavailable: WhenUnavailable::Refuse,
};

/// How long the users service may take to say whether an account exists.
const USERS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Clone)]
pub struct AppState {
    news: Arc<News>,
    opml: Arc<Opml>,
    reader: Arc<Reader>,
    verifier: Arc<TokenVerifier>,
    users: IdentityClient,
    /// `INTERNAL_API_URL`; when unset, the API the request came through.
    internal_api_url: Option<String>,
    /// OPML imports.
    imports: Arc<Brake>,
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
    let opml = Opml::from_env(&env, &aws)?;
    let reader = Reader::from_env(&env, &aws)?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let cache_seconds = platform::http::public_cache_seconds(&env)?;
    let imports = Brake::from_env(
        &env,
        &aws,
        "OPML imports have no rate limit",
        &[OPML_IMPORTS],
    )?;
    let app = app(
        Arc::new(news),
        Arc::new(opml),
        Arc::new(reader),
        Arc::new(verifier),
        env.get("INTERNAL_API_URL").map(str::to_string),
        imports,
    )?;
    Ok(platform::http::edge_cached(app, cache_seconds))
}

pub fn app(
    news: Arc<News>,
    opml: Arc<Opml>,
    reader: Arc<Reader>,
    verifier: Arc<TokenVerifier>,
    internal_api_url: Option<String>,
    imports: Brake,
) -> Result<Router, BoxError> {
    let state = AppState {
        news,
        opml,
        reader,
        verifier,
        users: IdentityClient::new(USERS_TIMEOUT, None)?,
        internal_api_url,
        imports: Arc::new(imports),
    };
    let routes = Router::new()
        .merge(sources::routes())
        .merge(topics::routes())
        .merge(articles::routes())
        .merge(opml::routes())
        .merge(reader::routes())
        .route("/actuator/health", get(health))
        .with_state(state);
    Ok(platform::http::finish(
        Router::new()
            .nest(PREFIX, routes)
            .layer(axum::middleware::map_response(allow_intake)),
        ErrorStyle::Detailed {
            strip_prefix: PREFIX,
        },
        64 * 1024,
    ))
}

/// `POST /sources` and `POST /sources/discover` are the intake function's (the gateway routes
/// them there): a 405 on those paths names every method the API serves on them all the same.
async fn allow_intake(uri: axum::http::Uri, mut response: Response) -> Response {
    if response.status() != axum::http::StatusCode::METHOD_NOT_ALLOWED {
        return response;
    }
    let allow = match uri.path().strip_prefix(PREFIX) {
        Some("/sources") => "GET,HEAD,POST",
        Some("/sources/discover") => "POST",
        _ => return response,
    };
    response
        .headers_mut()
        .insert(header::ALLOW, axum::http::HeaderValue::from_static(allow));
    response
}

/// Every operation reads or writes the content table.
const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable { except: &[] };

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(
        sources::sources,
        sources::source,
        sources::subscribe,
        sources::unsubscribe,
        sources::source_settings,
        topics::topics,
        articles::articles,
        articles::article,
        articles::saved_articles,
        opml::import_opml,
        opml::import_progress,
        opml::export_opml,
        reader::subscriptions,
        reader::set_labels,
        reader::labels,
        reader::rename_label,
        reader::delete_label,
        reader::counts,
        reader::articles,
        reader::marks,
        reader::mark_all_read,
        reader::forget_reader,
        health
    ),
    components(schemas(
        Source,
        SourceSettings,
        FullTextMode,
        Unsubscribed,
        TopicSummary,
        TopicRef,
        Article,
        Page<Article>,
        SavedArticles,
        ImportStarted,
        ImportProgress,
        ImportStatus,
        FeedResult,
        FeedOutcome,
        ReaderSubscription,
        reader::SubscriptionPage,
        reader::LabelList,
        reader::LabelPage,
        reader::LabelRename,
        LabelSummary,
        SourceCount,
        UnreadCounts,
        ReaderArticle,
        StreamPage,
        ItemRef,
        Marked,
        reader::MarkRequest,
        reader::MarkAllRead,
        reader::ReaderForgotten,
        ErrorBody,
        Health
    )),
    modifiers(&SecuritySchemes, &SOURCE_WRITE_SCHEME, &TABLE_UNAVAILABLE),
    tags(
        (name = "content", description = "The news reader's content service: shared sources, their subscribers, articles and topics"),
        (name = "reader", description = "The news reader's per-person state: subscriptions with labels and unread counts, read and starred marks, mark all as read, the article stream, OPML import and export"),
    )
)]
struct ContentApi;

/// The news function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    ContentApi::openapi()
}

type Answer<T> = Result<axum::Json<T>, ApiError>;

/// The users service asked about the request's caller, whose account a write needs alive.
pub(crate) fn caller<'a>(
    state: &'a AppState,
    headers: &HeaderMap,
    extensions: &Extensions,
) -> identity_client::Caller<'a> {
    // AuthUser accepted it, so the header is there; the users service judges the account.
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let base = platform::http::internal_api_base(state.internal_api_url.as_deref(), extensions);
    state.users.at(base).caller(Some(authorization))
}

/// The content service and its table.
#[utoipa::path(
    get,
    path = "/api/content/actuator/health",
    operation_id = "contentHealth",
    security(()),
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
