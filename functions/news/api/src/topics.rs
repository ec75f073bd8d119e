//! Topics: `GET /topics`, the topics that have articles, a page at a time.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use news::model::TopicSummary;
use platform::openapi::ErrorBody;
use platform::ApiError;

use crate::pages::{paged, ListPageQuery};
use crate::AppState;

/// The topic routes, relative to [`crate::PREFIX`].
pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/topics", get(topics))
}

/// The topics that have articles, by name, with their numbers of articles, a page at a time.
#[utoipa::path(
    get,
    path = "/api/content/topics",
    operation_id = "listTopics",
    security(()),
    tag = "content",
    params(ListPageQuery),
    responses(
        (status = 200, description = "A page of topics by name (at most 100; topics without articles are left out, so a page may be short). When more follow, the `X-Next-Cursor` header holds the next page's cursor", body = Vec<TopicSummary>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad limit or cursor", body = ErrorBody),
    )
)]
pub(crate) async fn topics(
    State(state): State<AppState>,
    platform::http::Query(query): platform::http::Query<ListPageQuery>,
) -> Result<Response, ApiError> {
    let (after, limit) = query.parse()?;
    let (topics, next) = state.news.topics(after.as_deref(), limit).await?;
    Ok(paged(topics, next))
}
