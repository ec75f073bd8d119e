//! A person's feeds: `POST /sources` (a submission) and `POST /sources/discover` (the feeds at
//! a site's address), each counted against the person's submissions before anything is
//! fetched.

use axum::extract::State;
use axum::http::{header, Extensions, HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use news::model::Source;
use news::responses::{LiveUserRequired, UserTokenRequired};
use news::{DiscoveredFeed, FeedUrl, Submitted};
use platform::auth::AuthUser;
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::ratelimit::ClientKey;
use platform::ApiError;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::{Answer, AppState};

/// The submission routes, relative to [`crate::PREFIX`].
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/sources", post(submit_source))
        .route("/sources/discover", post(discover_sources))
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
    let feeds = state.intake.discover(&url).await?;
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
    let Submitted { source, created } = state.intake.submit_as_user(&accounts, &url).await?;
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
