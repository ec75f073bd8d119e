//! The feeds of published posts, public: `GET /feeds/posts.rss|.atom`,
//! `/feeds/topics/{slug}.rss|.atom`, `/feeds/authors/{username}.rss|.atom`. Each answer
//! carries a strong `ETag` (an `If-None-Match` naming it is a 304 without a body) and
//! `Cache-Control: public, max-age=300`: readers poll, and five minutes late is on time for a
//! feed.

use axum::extract::{Path, State};
use axum::http::{header, Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use community::feeds::FeedFormat;
use community::{FeedAnswer, FeedScope};
use platform::openapi::ReasonErrorBody;
use platform::ApiError;

use crate::AppState;

/// How long readers and caches may keep a feed.
pub(crate) const FEED_CACHE_CONTROL: &str = "public, max-age=300";

/// The feed routes, relative to `/api/v1`.
/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/feeds/{file}", get(site_feed))
        .route("/feeds/topics/{file}", get(topic_feed))
        .route("/feeds/authors/{file}", get(author_feed))
}

/// `name.rss` or `name.atom` split, or a 404 (no such feed).
fn file(raw: &str) -> Result<(&str, FeedFormat), ApiError> {
    raw.rsplit_once('.')
        .and_then(|(name, ext)| Some((name, FeedFormat::from_extension(ext)?)))
        .filter(|(name, _)| !name.is_empty() && name.chars().count() <= 200)
        .ok_or_else(|| ApiError::not_found("No such feed: a feed ends in .rss or .atom"))
}

/// Where the feed's links point: the configured public URL, else the host the request came to.
fn base(state: &AppState, headers: &HeaderMap, extensions: &Extensions) -> String {
    if let Some(configured) = state
        .internal_api_url
        .as_deref()
        .map(|u| u.trim().trim_end_matches('/'))
        .filter(|u| !u.is_empty())
    {
        return configured.to_string();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_graphic()));
    match host {
        Some(host) => {
            let https = platform::http::api_origin(extensions).is_some()
                || headers
                    .get("x-forwarded-proto")
                    .is_some_and(|p| p.as_bytes().eq_ignore_ascii_case(b"https"));
            format!("{}://{host}", if https { "https" } else { "http" })
        }
        None => platform::http::api_origin(extensions).unwrap_or_default(),
    }
}

async fn answer(
    state: &AppState,
    scope: FeedScope,
    format: FeedFormat,
    headers: &HeaderMap,
    extensions: &Extensions,
) -> Result<Response, ApiError> {
    let base = base(state, headers, extensions);
    let if_none_match = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|h| h.to_str().ok());
    let found = state
        .community
        .feed(&scope, format, &base, if_none_match)
        .await?;
    let cache = (
        header::CACHE_CONTROL,
        HeaderValue::from_static(FEED_CACHE_CONTROL),
    );
    let etag_header =
        |etag: &str| HeaderValue::from_str(etag).map_err(|e| ApiError::internal("etag", e));
    Ok(match found {
        FeedAnswer::NotModified { etag } => (
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag_header(&etag)?), cache],
        )
            .into_response(),
        FeedAnswer::Document { etag, body } => (
            StatusCode::OK,
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(format.content_type()),
                ),
                (header::ETAG, etag_header(&etag)?),
                cache,
            ],
            body,
        )
            .into_response(),
    })
}

/// The site's newest published posts, as RSS 2.0.
#[utoipa::path(
    get,
    path = "/api/v1/feeds/posts.rss",
    operation_id = "postsRssFeed",
    tag = "community",
    security(()),
    params(("If-None-Match" = Option<String>, Header, description = "The `ETag` of the copy the reader holds")),
    responses(
        (status = 200, description = "The newest 50 published posts, newest first (`ETag`, `Cache-Control: public, max-age=300`)", body = String, content_type = "application/rss+xml"),
        (status = 304, description = "The reader's copy is current"),
    )
)]
// The contract's entry only: the route is one handler per family, the extension picks the format.
#[allow(dead_code)]
pub(crate) async fn site_rss() {}

/// The site's newest published posts, as Atom 1.0.
#[utoipa::path(
    get,
    path = "/api/v1/feeds/posts.atom",
    operation_id = "postsAtomFeed",
    tag = "community",
    security(()),
    params(("If-None-Match" = Option<String>, Header, description = "The `ETag` of the copy the reader holds")),
    responses(
        (status = 200, description = "The newest 50 published posts, newest first (`ETag`, `Cache-Control: public, max-age=300`)", body = String, content_type = "application/atom+xml"),
        (status = 304, description = "The reader's copy is current"),
    )
)]
// The contract's entry only: the route is one handler per family, the extension picks the format.
#[allow(dead_code)]
pub(crate) async fn site_atom() {}

async fn site_feed(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let (name, format) = file(&raw)?;
    if name != "posts" {
        return Err(ApiError::not_found("No such feed"));
    }
    answer(&state, FeedScope::Site, format, &headers, &extensions).await
}

/// A topic's newest published posts, as RSS 2.0.
#[utoipa::path(
    get,
    path = "/api/v1/feeds/topics/{slug}.rss",
    operation_id = "topicRssFeed",
    tag = "community",
    security(()),
    params(
        ("slug" = String, Path, min_length = 1, max_length = 200, description = "The topic's slug (or name: it is slugged)"),
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` of the copy the reader holds"),
    ),
    responses(
        (status = 200, description = "The topic's newest 50 published posts (`ETag`, `Cache-Control: public, max-age=300`)", body = String, content_type = "application/rss+xml"),
        (status = 304, description = "The reader's copy is current"),
        (status = 404, description = "No such topic", body = ReasonErrorBody),
    )
)]
// The contract's entry only: the route is one handler per family, the extension picks the format.
#[allow(dead_code)]
pub(crate) async fn topic_rss() {}

/// A topic's newest published posts, as Atom 1.0.
#[utoipa::path(
    get,
    path = "/api/v1/feeds/topics/{slug}.atom",
    operation_id = "topicAtomFeed",
    tag = "community",
    security(()),
    params(
        ("slug" = String, Path, min_length = 1, max_length = 200, description = "The topic's slug (or name: it is slugged)"),
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` of the copy the reader holds"),
    ),
    responses(
        (status = 200, description = "The topic's newest 50 published posts (`ETag`, `Cache-Control: public, max-age=300`)", body = String, content_type = "application/atom+xml"),
        (status = 304, description = "The reader's copy is current"),
        (status = 404, description = "No such topic", body = ReasonErrorBody),
    )
)]
// The contract's entry only: the route is one handler per family, the extension picks the format.
#[allow(dead_code)]
pub(crate) async fn topic_atom() {}

async fn topic_feed(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let (name, format) = file(&raw)?;
    let scope = FeedScope::Topic(name.to_string());
    answer(&state, scope, format, &headers, &extensions).await
}

/// An author's newest published posts, as RSS 2.0.
#[utoipa::path(
    get,
    path = "/api/v1/feeds/authors/{username}.rss",
    operation_id = "authorRssFeed",
    tag = "community",
    security(()),
    params(
        ("username" = String, Path, min_length = 1, max_length = 200, description = "The author's username (case-insensitive)"),
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` of the copy the reader holds"),
    ),
    responses(
        (status = 200, description = "The author's newest 50 published posts (`ETag`, `Cache-Control: public, max-age=300`)", body = String, content_type = "application/rss+xml"),
        (status = 304, description = "The reader's copy is current"),
        (status = 404, description = "No author has published under this name, or their account is deleted", body = ReasonErrorBody),
    )
)]
// The contract's entry only: the route is one handler per family, the extension picks the format.
#[allow(dead_code)]
pub(crate) async fn author_rss() {}

/// An author's newest published posts, as Atom 1.0.
#[utoipa::path(
    get,
    path = "/api/v1/feeds/authors/{username}.atom",
    operation_id = "authorAtomFeed",
    tag = "community",
    security(()),
    params(
        ("username" = String, Path, min_length = 1, max_length = 200, description = "The author's username (case-insensitive)"),
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` of the copy the reader holds"),
    ),
    responses(
        (status = 200, description = "The author's newest 50 published posts (`ETag`, `Cache-Control: public, max-age=300`)", body = String, content_type = "application/atom+xml"),
        (status = 304, description = "The reader's copy is current"),
        (status = 404, description = "No author has published under this name, or their account is deleted", body = ReasonErrorBody),
    )
)]
// The contract's entry only: the route is one handler per family, the extension picks the format.
#[allow(dead_code)]
pub(crate) async fn author_atom() {}

async fn author_feed(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let (name, format) = file(&raw)?;
    let scope = FeedScope::Author(name.to_string());
    answer(&state, scope, format, &headers, &extensions).await
}
