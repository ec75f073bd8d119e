//! Sources: `GET` and `POST /sources` (the list, a page at a time, and a user's submission),
//! `GET /sources/{id}`, `PUT /sources/{id}/settings`, and `POST` and `DELETE
//! /sources/{id}/subscribers/{userId}` (for services with `source.write`).

use axum::extract::{Path, State};
use axum::http::{header, Extensions, HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post, put};
use axum::Router;
use news::model::{Source, Unsubscribed};
use news::{DiscoveredFeed, FeedUrl, FullTextMode, SourceId, Submitted, UserId};
use platform::auth::{AuthUser, RequireScope};
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::ratelimit::ClientKey;
use platform::{ApiError, Invalid};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::pages::{paged, ListPageQuery};
use crate::responses::{
    IdTooLong, LiveUserRequired, NoSuchSource, ServiceTokenRequired, UserTokenRequired,
};
use crate::{Answer, AppState, SourceWrite};

/// The source routes, relative to [`crate::PREFIX`].
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/sources", get(sources).post(submit_source))
        .route("/sources/discover", post(discover_sources))
        .route("/sources/{id}", get(source))
        .route("/sources/{id}/settings", put(source_settings))
        .route(
            "/sources/{id}/subscribers/{user_id}",
            post(subscribe).delete(unsubscribe),
        )
}

/// The sources, oldest first, a page at a time.
#[utoipa::path(
    get,
    path = "/api/content/sources",
    operation_id = "listSources",
    security(()),
    tag = "content",
    params(ListPageQuery),
    responses(
        (status = 200, description = "A page of sources, oldest first (at most 100). When more follow, the `X-Next-Cursor` header holds the next page's cursor", body = Vec<Source>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad limit or cursor", body = ErrorBody),
    )
)]
pub(crate) async fn sources(
    State(state): State<AppState>,
    platform::http::Query(query): platform::http::Query<ListPageQuery>,
) -> Result<Response, ApiError> {
    let (after, limit) = query.parse()?;
    let (sources, next) = state.news.sources(after.as_deref(), limit).await?;
    Ok(paged(sources, next))
}

/// One source, with its subscriber count.
#[utoipa::path(
    get,
    path = "/api/content/sources/{id}",
    operation_id = "getSource",
    security(()),
    tag = "content",
    params(("id" = String, Path, max_length = 200, description = "The source's id")),
    responses(
        (status = 200, description = "The source", body = Source),
        NoSuchSource,
        IdTooLong,
    )
)]
pub(crate) async fn source(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Answer<Source> {
    let id = SourceId::parse("id", id)?;
    Ok(axum::Json(state.news.source(&id).await?))
}

/// A feed to add.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceSubmission {
    /// An http(s) URL serving an RSS, Atom or JSON Feed document, or a site's page that links
    /// to one (at most 2048 characters).
    #[schema(required = true, value_type = String, format = "uri", max_length = 2048, example = "https://example.com/feed.xml")]
    url: Option<String>,
}

/// A site's address to find feeds at.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiscoveryRequest {
    /// An http(s) URL: a site's page, or a feed (at most 2048 characters).
    #[schema(required = true, value_type = String, format = "uri", max_length = 2048, example = "https://example.com/")]
    url: Option<String>,
}

/// The feeds found at an address.
#[derive(serde::Serialize, ToSchema)]
pub(crate) struct DiscoveredFeeds {
    /// The feed itself when the address is one; else the feeds the page links to, in its
    /// order (at most 10); else the first of the usual paths (`/feed`, `/rss`, `/atom.xml`,
    /// `/feed.xml`, `/rss.xml`, `/index.xml`, `/feed/`) that serves a feed. Never empty.
    #[schema(min_items = 1, max_items = 10)]
    feeds: Vec<DiscoveredFeed>,
}

/// Finds the feeds at a site's address, for the person to choose one to submit. Nothing is
/// stored; counted like a submission (each fetches a site the caller chose).
#[utoipa::path(
    post,
    path = "/api/content/sources/discover",
    operation_id = "discoverSources",
    tag = "content",
    security(("bearerJwt" = [])),
    request_body = DiscoveryRequest,
    responses(
        (status = 200, description = "The feeds found", body = DiscoveredFeeds),
        (status = 400, description = "The URL is invalid, unreachable (`url: unreachable: reason`), or no feed was found there (`url: no feed found at this address`)", body = ErrorBody),
        UserTokenRequired,
        (status = 429, description = "The user has submitted SourceSubmissionRateLimit feeds or discoveries this window; `Retry-After` says when to try again", body = ErrorBody),
        (status = 503, description = "The limits table cannot be reached: nothing is fetched", body = ErrorBody),
    )
)]
pub(crate) async fn discover_sources(
    State(state): State<AppState>,
    user: AuthUser,
    Json(input): Json<DiscoveryRequest>,
) -> Answer<DiscoveredFeeds> {
    let url = FeedUrl::parse(input.url)?;
    state
        .submissions
        .admit(&crate::SUBMISSIONS, ClientKey::user(&user.id))
        .await?;
    let feeds = state.news.discover(&url).await?;
    Ok(axum::Json(DiscoveredFeeds { feeds }))
}

/// Submits a feed URL, or a site's address: a page is followed to the first feed it links to
/// (`<link rel="alternate">`), else to the first usual path serving one. Fetches and parses
/// the feed before answering, so the new source's articles show at once; a feed naming a
/// WebSub hub is then subscribed through it.
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
        (status = 400, description = "The URL is invalid, unreachable (`url: unreachable: reason`), or neither a feed nor a page leading to one (`url: no feed found at this address`)", body = ErrorBody),
        LiveUserRequired,
        (status = 429, description = "The user has submitted SourceSubmissionRateLimit feeds this window; `Retry-After` says when to try again", body = ErrorBody),
        (status = 502, description = "The users service could not say whether the token's account exists", body = ErrorBody),
        (status = 503, description = "The limits table cannot be reached: nothing is fetched", body = ErrorBody),
    )
)]
pub(crate) async fn submit_source(
    State(state): State<AppState>,
    user: AuthUser,
    headers: HeaderMap,
    extensions: Extensions,
    Json(input): Json<SourceSubmission>,
) -> Result<(StatusCode, axum::Json<Source>), ApiError> {
    let url = FeedUrl::parse(input.url)?;
    state
        .submissions
        .admit(&crate::SUBMISSIONS, ClientKey::user(&user.id))
        .await?;
    let accounts = caller(&state, &headers, &extensions);
    let Submitted { source, created } = state.news.submit_as_user(&accounts, &url).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(source)))
}

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

/// A source's settings.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SourceSettings {
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
pub(crate) async fn source_settings(
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
    Ok(axum::Json(state.news.set_full_text(&id, mode).await?))
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
pub(crate) async fn subscribe(
    State(state): State<AppState>,
    _caller: RequireScope<SourceWrite>,
    Path((id, user_id)): Path<(String, String)>,
) -> Answer<Source> {
    let (source, user) = (
        SourceId::parse("id", id)?,
        UserId::parse("userId", user_id)?,
    );
    Ok(axum::Json(state.news.subscribe(&source, &user).await?))
}

/// Whether a removal is a take-back.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RemovalQuery {
    /// `true`: a take-back of a subscription the caller could not record on its side (its own
    /// write failed after this service's): the source stays even when no subscriber is left,
    /// as it was before. Default `false`.
    #[param(value_type = Option<bool>)]
    keep_source: Option<String>,
}

impl RemovalQuery {
    fn keep_source(&self) -> Result<bool, Invalid> {
        match self.keep_source.as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(_) => Err(Invalid::field("keepSource", "is true or false")),
        }
    }
}

/// Removes a subscriber from a source; the last one leaving deletes the source and its
/// articles: they disappear from every read at once, and their rows are removed in the
/// background (not with `keepSource=true`, a take-back). A user who is not a subscriber
/// changes nothing (200 with the source as it is). For services with `source.write`.
#[utoipa::path(
    delete,
    path = "/api/content/sources/{id}/subscribers/{userId}",
    operation_id = "removeSourceSubscriber",
    tag = "content",
    security(("sourceWrite" = ["source.write"])),
    params(
        ("id" = String, Path, max_length = 200, description = "The source's id"),
        ("userId" = String, Path, max_length = 200, description = "The leaving user's id"),
        RemovalQuery,
    ),
    responses(
        (status = 200, description = "What is left of the source (unchanged when the user was not a subscriber)", body = Unsubscribed),
        ServiceTokenRequired,
        NoSuchSource,
        IdTooLong,
    )
)]
pub(crate) async fn unsubscribe(
    State(state): State<AppState>,
    _caller: RequireScope<SourceWrite>,
    Path((id, user_id)): Path<(String, String)>,
    platform::http::Query(query): platform::http::Query<RemovalQuery>,
) -> Answer<Unsubscribed> {
    let (source, user) = (
        SourceId::parse("id", id)?,
        UserId::parse("userId", user_id)?,
    );
    if query.keep_source()? {
        return Ok(axum::Json(state.news.take_back(&source, &user).await?));
    }
    Ok(axum::Json(state.news.unsubscribe(&source, &user).await?))
}
