//! Topics: the catalog (`GET /topics`), statistics (`GET /topics/stats`), names
//! (`GET /topics/names`), suggestions as a writer types (`GET /topics/suggest`), and the internal follower deltas
//! (`POST /internal/topics/follower-deltas`).

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use community::input::{FollowerDeltas, IdempotencyKey, TopicIds, TopicPrefix};
use community::model::{Topic, TopicCategory, TopicRef, TopicSuggestion};
use community_client::FollowerDeltasRequest;
use platform::auth::{InternalService, MaybeUser};
use platform::http::{Json, Query};
use platform::openapi::ReasonErrorBody;
use platform::ApiError;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{Answer, AppState};

/// How long clients and caches may keep the topic lists.
const TOPICS_CACHE_CONTROL: &str = "public, max-age=30";

/// The topic routes, relative to `/api/v1`.
/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/topics", get(topic_catalog))
        .route("/topics/names", get(topic_names))
        .route("/topics/stats", get(topic_stats))
        .route("/topics/suggest", get(suggest_topics))
        .route("/internal/topics/follower-deltas", post(follower_deltas))
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
pub(crate) async fn topic_catalog(
    State(state): State<AppState>,
    _user: MaybeUser,
) -> Result<Response, ApiError> {
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
pub(crate) async fn topic_stats(
    State(state): State<AppState>,
    _user: MaybeUser,
) -> Result<Response, ApiError> {
    Ok(cached(state.community.topic_stats().await?))
}

/// The query of a topic-names request.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct NamesQuery {
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
pub(crate) async fn topic_names(
    State(state): State<AppState>,
    _user: MaybeUser,
    Query(query): Query<NamesQuery>,
) -> Answer<Vec<TopicRef>> {
    let ids = TopicIds::parse(query.ids.as_deref())?;
    Ok(axum::Json(state.community.topic_names(&ids).await?))
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
pub(crate) async fn follower_deltas(
    State(state): State<AppState>,
    _service: InternalService,
    headers: HeaderMap,
    Json(body): Json<FollowerDeltasRequest>,
) -> Result<Response, ApiError> {
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

/// The query of topic suggestions.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct SuggestQuery {
    /// What has been typed of the name: 1 to 50 characters with a letter, mark or digit; case,
    /// accents and spacing are folded as slugs are.
    #[param(
        required = true,
        min_length = 1,
        max_length = 50,
        pattern = "[\\p{L}\\p{M}\\p{N}]"
    )]
    q: Option<String>,
    /// 1 to 20 (default 10).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20)]
    limit: Option<String>,
}

/// The most suggestions one request answers.
const MAX_SUGGESTIONS: i64 = 20;

/// Public topics whose name (or a later word of it) starts with `q`, for the writing view:
/// names starting with it first, then the most published posts, followers, name. A short
/// list, not paged: a writer types more to narrow it.
#[utoipa::path(
    get,
    path = "/api/v1/topics/suggest",
    operation_id = "suggestTopics",
    tag = "community",
    params(SuggestQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "At most `limit` topics, best first (`Cache-Control: public, max-age=30`)", body = Vec<TopicSuggestion>),
        (status = 400, description = "q missing, over 50 characters or without a letter or digit, or limit out of bounds (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
pub(crate) async fn suggest_topics(
    State(state): State<AppState>,
    _user: MaybeUser,
    Query(query): Query<SuggestQuery>,
) -> Result<Response, ApiError> {
    let prefix = TopicPrefix::parse("q", query.q.as_deref())?;
    let limit = crate::number("limit", query.limit.as_deref())?.unwrap_or(10);
    if !(1..=MAX_SUGGESTIONS).contains(&limit) {
        return Err(ApiError::field("limit", "must be between 1 and 20"));
    }
    let limit = usize::try_from(limit).unwrap_or(10);
    Ok(cached(
        state.community.suggest_topics(&prefix, limit).await?,
    ))
}
