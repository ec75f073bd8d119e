//! Sources: `GET /sources` (the list, a page at a time), `GET /sources/{id}`, `PUT
//! /sources/{id}/settings`, and `POST` and `DELETE /sources/{id}/subscribers/{userId}` (for
//! services with `source.write`). A person's submission (`POST /sources`) and discovery are
//! the intake function's.

use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post, put};
use axum::Router;
use news::model::{Source, Unsubscribed};
use news::responses::{IdTooLong, NoSuchSource, ServiceTokenRequired};
use news::{FullTextMode, SourceId, UserId};
use platform::auth::RequireScope;
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::{ApiError, Invalid};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::pages::{paged, ListPageQuery};
use crate::{Answer, AppState, SourceWrite};

/// The source routes, relative to [`crate::PREFIX`].
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/sources", get(sources))
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
