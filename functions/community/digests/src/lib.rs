//! The community digests function: the community's news digests behind `/api/v1/digests`,
//! `/api/v1/internal/digests` and `/api/v1/admin/digests` (their own API Gateway routes, so
//! they never collide with the community function's).
//!
//! Each handler parses its input into `community_digests::input` types and makes one call on
//! [`community_digests::Digests`]; the domain's errors answer as [`ApiError`]s (their
//! `From` is in `community_digests::error`), rendered in the community's body
//! `{timestamp, status, error, message}`, framework errors included. The domain's ports
//! over HTTP and their wiring are `community_digests_edge`, shared with the digest worker and
//! scheduler.
//!
//! Routes:
//! - `GET /api/v1/digests/me?page&size` (user token): the caller's digests, newest day first;
//! - `GET /api/v1/digests/public/latest` (no authentication; a token is ignored): 404 when none;
//! - `GET /api/v1/digests/{id}` (optional token, a bad one 401): another user's PERSONAL
//!   digest is 404, a PUBLIC one is open to all;
//! - `POST /api/v1/internal/digests` (internal token; deprecated: `Deprecation: true`): stores
//!   a digest as given, `title` ignored, `targetUserId` checked against `digestType`;
//! - `POST /api/v1/internal/digests/generate/users/{userId}?force&date` (internal token): the
//!   generation, synchronously, answering the outcome `{status, message, digest}`;
//! - `POST /api/v1/admin/digests/generate/users/{userId}?date&force` (admin token): 202 with a
//!   PENDING job, run by the digest worker; `date` defaults to yesterday in `DIGEST_TIMEZONE`;
//! - `GET /api/v1/admin/digests/jobs/{jobId}` (admin token): the job.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, Path, State};
use axum::http::{header, Extensions, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use community_digests::input::{
    DigestDate, DigestId, PageRequest, PersistInput, RawPersist, UserId,
};
use community_digests::model::{
    DigestDetail, DigestGenerationJob, DigestPage, DigestSummary, Event, EventSource,
    GenerationOutcome, TopicRef,
};
use community_digests::Sources;
use platform::auth::{AdminUser, AuthUser, InternalService, MaybeUser};
use platform::http::{Json, Query, DEFAULT_BODY_LIMIT};
use platform::openapi::{ReasonErrorBody, ReasonUnavailable, SecuritySchemes};
use platform::tokens::{InternalToken, TokenVerifier};
use platform::{ApiError, BoxError, Env, ErrorStyle};
use serde::Deserialize;
use utoipa::{IntoParams, OpenApi, ToSchema};

pub use community_digests_edge::DigestEdge;

/// The public path prefix of the community.
pub const PREFIX: &str = "/api/v1";
/// The model's time within a synchronous generation: API Gateway gives up at 30 s, and the
/// content and identity reads come first.
pub const SYNC_LLM_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Clone)]
pub struct AppState {
    edge: Arc<DigestEdge>,
    verifier: Arc<TokenVerifier>,
    internal_token: InternalToken,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

impl FromRef<AppState> for InternalToken {
    fn from_ref(state: &AppState) -> Self {
        state.internal_token.clone()
    }
}

/// Builds the function's router from its environment: what a cold start does. The model
/// gets [`SYNC_LLM_TIMEOUT`] at most here (the generation route is synchronous).
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let configured: f64 = env.parse_or("LLM_TIMEOUT_SECONDS", SYNC_LLM_TIMEOUT.as_secs_f64())?;
    let env = env.with(
        "LLM_TIMEOUT_SECONDS",
        configured.min(SYNC_LLM_TIMEOUT.as_secs_f64()).to_string(),
    );
    let edge = DigestEdge::from_env(&env).await?;
    app(Arc::new(edge), &env)
}

/// The router over a built edge.
pub fn app(edge: Arc<DigestEdge>, env: &Env) -> Result<Router, BoxError> {
    let verifier = TokenVerifier::for_function(env, &edge.aws)?;
    let state = AppState {
        edge,
        verifier: Arc::new(verifier),
        internal_token: InternalToken::from_env(env),
    };
    let routes = Router::new()
        .route("/digests/me", get(my_digests))
        .route("/digests/public/latest", get(latest_public))
        .route("/digests/{id}", get(digest_by_id))
        .route("/internal/digests", post(persist))
        .route("/internal/digests/generate/users/{user_id}", post(generate))
        .route(
            "/admin/digests/generate/users/{user_id}",
            post(admin_generate),
        )
        .route("/admin/digests/jobs/{job_id}", get(job_status))
        .with_state(state);
    Ok(platform::http::finish(
        Router::new().nest(PREFIX, routes),
        ErrorStyle::Reason,
        DEFAULT_BODY_LIMIT,
    ))
}

/// The 503 of every operation that documents none of its own, in the Reason body.
const UNAVAILABLE: ReasonUnavailable = ReasonUnavailable {
    description: "The digests table or queue cannot be reached or is throttling: retry later",
};

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(
        my_digests,
        latest_public,
        digest_by_id,
        persist,
        generate,
        admin_generate,
        job_status
    ),
    components(schemas(
        TopicRef,
        EventSource,
        Event,
        DigestSummary,
        DigestDetail,
        DigestPage,
        DigestGenerationJob,
        GenerationOutcome,
        PersistRequest,
        ReasonErrorBody
    )),
    modifiers(&SecuritySchemes, &UNAVAILABLE),
    tags((name = "digests", description = "The community's news digests: personal and public, generated daily and on demand"))
)]
struct DigestsApi;

/// The digests function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    DigestsApi::openapi()
}

type Answer<T> = Result<axum::Json<T>, ApiError>;

fn user_id(user: &AuthUser) -> Result<UserId, ApiError> {
    UserId::parse("token", &user.id)
        .map_err(|_| ApiError::unauthorized("The token's subject is not a user id"))
}

/// A number from the query, or a 400 naming it.
fn number(field: &str, raw: Option<&str>) -> Result<Option<i64>, ApiError> {
    raw.map(|r| {
        r.trim()
            .parse::<i64>()
            .map_err(|_| ApiError::field(field, "must be an integer"))
    })
    .transpose()
}

/// `true` or `false` (default false), or a 400 naming the field.
fn flag(field: &str, raw: Option<&str>) -> Result<bool, ApiError> {
    match raw.map(str::trim) {
        None | Some("") => Ok(false),
        Some(r) if r.eq_ignore_ascii_case("true") => Ok(true),
        Some(r) if r.eq_ignore_ascii_case("false") => Ok(false),
        Some(_) => Err(ApiError::field(field, "must be true or false")),
    }
}

fn path_user(raw: &str) -> Result<UserId, ApiError> {
    UserId::parse("userId", raw).map_err(|e| ApiError::field(e.field, e.reason))
}

/// The page of a list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct PageQuery {
    /// From 0 to 49 (default 0).
    #[param(value_type = Option<i32>, minimum = 0, maximum = 49)]
    page: Option<String>,
    /// From 1 to 20 (default 10).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20)]
    size: Option<String>,
    /// The `nextCursor` of the page before: the days before it (a `page` beside it is ignored).
    #[param(value_type = Option<String>, format = Date)]
    cursor: Option<String>,
}

/// The caller's digests (PERSONAL ones and the PUBLIC ones they were assigned), newest day
/// first.
#[utoipa::path(
    get,
    path = "/api/v1/digests/me",
    operation_id = "myDigests",
    tag = "digests",
    params(PageQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of digest summaries, newest first", body = DigestPage),
        (status = 400, description = "page or size out of bounds, or a cursor that is not a day", body = ReasonErrorBody),
        (status = 401, description = "No valid user token", body = ReasonErrorBody),
        (status = 403, description = "A service token", body = ReasonErrorBody),
    )
)]
async fn my_digests(
    State(state): State<AppState>,
    user: AuthUser,
    Query(query): Query<PageQuery>,
) -> Answer<DigestPage> {
    let page = PageRequest::parse_with_cursor(
        number("page", query.page.as_deref())?,
        number("size", query.size.as_deref())?,
        query.cursor.as_deref(),
    )?;
    let caller = user_id(&user)?;
    let answer = state.edge.digests.my_digests(&caller, page).await?;
    Ok(axum::Json(answer))
}

/// The newest PUBLIC digest. No authentication.
#[utoipa::path(
    get,
    path = "/api/v1/digests/public/latest",
    operation_id = "latestPublicDigest",
    security(()),
    tag = "digests",
    responses(
        (status = 200, description = "The newest PUBLIC digest", body = DigestDetail),
        (status = 404, description = "No PUBLIC digest exists yet", body = ReasonErrorBody),
    )
)]
async fn latest_public(State(state): State<AppState>) -> Answer<DigestDetail> {
    let answer = state.edge.digests.latest_public().await?;
    Ok(axum::Json(answer))
}

/// One digest: PUBLIC ones to everyone, a PERSONAL one to its user only (404 otherwise).
#[utoipa::path(
    get,
    path = "/api/v1/digests/{id}",
    operation_id = "getDigest",
    tag = "digests",
    params(("id" = String, Path, format = "uuid", description = "The digest's id")),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "The digest", body = DigestDetail),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        (status = 403, description = "A service token", body = ReasonErrorBody),
        (status = 404, description = "No such digest, or another user's PERSONAL digest", body = ReasonErrorBody),
    )
)]
async fn digest_by_id(
    State(state): State<AppState>,
    user: MaybeUser,
    Path(id): Path<String>,
) -> Answer<DigestDetail> {
    let id = DigestId::parse("id", &id).map_err(|e| ApiError::field(e.field, e.reason))?;
    let caller = user.0.as_ref().map(user_id).transpose()?;
    let answer = state.edge.digests.digest(&id, caller.as_ref()).await?;
    Ok(axum::Json(answer))
}

/// A digest to persist (deprecated operation).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PersistRequest {
    /// `PERSONAL` or `PUBLIC`.
    #[schema(required = true, value_type = String, pattern = "^(PERSONAL|PUBLIC)$")]
    digest_type: Option<String>,
    /// Required for PERSONAL, null for PUBLIC.
    #[schema(format = "uuid")]
    target_user_id: Option<String>,
    /// Not after tomorrow in the digest time zone, at most 3,650 days back.
    #[schema(required = true, value_type = String, format = Date)]
    digest_date: Option<String>,
    /// Deprecated and ignored: the service builds the title.
    #[schema(deprecated, max_length = 1000)]
    title: Option<String>,
    #[schema(max_length = 300)]
    subtitle: Option<String>,
    #[schema(max_length = 2000)]
    summary: Option<String>,
    /// At most 50 events (what does not fit one DynamoDB item is cut from the end).
    #[schema(required = true, max_items = 50)]
    events: Option<Vec<Event>>,
    #[schema(max_items = 20)]
    topics: Option<Vec<TopicRef>>,
    /// Ignored: computed from the events.
    #[allow(dead_code)]
    event_count: Option<i64>,
    /// Ignored: computed from the events.
    #[allow(dead_code)]
    source_count: Option<i64>,
    /// Ignored: computed from the events.
    #[allow(dead_code)]
    read_time_minutes: Option<i64>,
    #[schema(max_length = 200)]
    model: Option<String>,
    #[schema(value_type = Option<String>, format = DateTime)]
    generated_at: Option<String>,
}

/// Stores a digest as given (deprecated: the digests are generated by the service now). The
/// title is ignored (the service builds it) and so are the counts (computed from the events).
#[utoipa::path(
    post,
    path = "/api/v1/internal/digests",
    operation_id = "persistDigest",
    tag = "digests",
    security(("internalToken" = [])),
    request_body = PersistRequest,
    responses(
        (status = 200, description = "The digest as stored; header `Deprecation: true`", body = DigestDetail,
            headers(("Deprecation" = String, description = "`true`: the operation is deprecated"))),
        (status = 400, description = "A field is invalid (digestDate after tomorrow or over 3,650 days back), or targetUserId does not fit digestType", body = ReasonErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ReasonErrorBody),
        (status = 413, description = "The body is larger than 1 MiB", body = ReasonErrorBody),
        (status = 415, description = "Not JSON", body = ReasonErrorBody),
    )
)]
async fn persist(
    State(state): State<AppState>,
    _service: InternalService,
    Json(body): Json<PersistRequest>,
) -> Result<Response, ApiError> {
    if body
        .title
        .as_ref()
        .is_some_and(|t| t.chars().count() > 1000)
    {
        return Err(ApiError::field(
            "title",
            "must be at most 1000 characters (it is ignored)",
        ));
    }
    let input = PersistInput::parse(RawPersist {
        digest_type: body.digest_type,
        target_user_id: body.target_user_id,
        digest_date: body.digest_date,
        subtitle: body.subtitle,
        summary: body.summary,
        events: body.events,
        topics: body.topics,
        model: body.model,
        generated_at: body.generated_at,
    })?;
    let digest = state.edge.digests.persist(input).await?;
    Ok((
        [(
            header::HeaderName::from_static("deprecation"),
            HeaderValue::from_static("true"),
        )],
        axum::Json(digest),
    )
        .into_response())
}

/// The query of a generation.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct GenerateQuery {
    /// Generate even when the user has a digest for the day (default false).
    #[param(value_type = Option<bool>)]
    force: Option<String>,
    /// The day (`YYYY-MM-DD`), not after tomorrow in the digest time zone and at most 3,650
    /// days back; default: today for the service route, yesterday for the admin route.
    #[param(value_type = Option<String>, format = Date)]
    date: Option<String>,
}

fn parse_date(raw: Option<&str>) -> Result<Option<DigestDate>, ApiError> {
    raw.map(|d| DigestDate::parse("date", d).map_err(|e| ApiError::field(e.field, e.reason)))
        .transpose()
}

/// Generates the user's digest now and answers the outcome: a fresh PERSONAL digest when
/// they follow topics, the day's PUBLIC digest when they follow none; SKIPPED when they have
/// one for the day and `force` is false (or the day had no news for them).
#[utoipa::path(
    post,
    path = "/api/v1/internal/digests/generate/users/{userId}",
    operation_id = "generateDigestForUser",
    tag = "digests",
    security(("internalToken" = [])),
    params(("userId" = String, Path, format = "uuid", description = "The user's id"), GenerateQuery),
    responses(
        (status = 200, description = "The outcome: GENERATED with the digest, or SKIPPED", body = GenerationOutcome),
        (status = 400, description = "userId, force or date is invalid", body = ReasonErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ReasonErrorBody),
        (status = 404, description = "No such user", body = ReasonErrorBody),
        (status = 502, description = "The identity or content service, or the model, failed", body = ReasonErrorBody),
    )
)]
async fn generate(
    State(state): State<AppState>,
    _service: InternalService,
    extensions: Extensions,
    Path(user_id): Path<String>,
    Query(query): Query<GenerateQuery>,
) -> Answer<GenerationOutcome> {
    let user = path_user(&user_id)?;
    let force = flag("force", query.force.as_deref())?;
    let date = parse_date(query.date.as_deref())?.unwrap_or_else(|| state.edge.digests.today());
    let base =
        platform::http::internal_api_base(state.edge.internal_api_url.as_deref(), &extensions);
    let api = state.edge.api(base);
    let sources = Sources {
        news: &api,
        users: &api,
        topics: &api,
    };
    let answer = state
        .edge
        .digests
        .generate(&sources, &user, date, force)
        .await?;
    Ok(axum::Json(answer))
}

/// Starts a generation in the background: a PENDING job, run by the digest worker; its
/// outcome is read from the job.
#[utoipa::path(
    post,
    path = "/api/v1/admin/digests/generate/users/{userId}",
    operation_id = "adminGenerateDigest",
    tag = "digests",
    security(("bearerJwt" = [])),
    params(("userId" = String, Path, format = "uuid", description = "The user's id"), GenerateQuery),
    responses(
        (status = 202, description = "The PENDING job; `Location` is its URL", body = DigestGenerationJob),
        (status = 400, description = "userId, force or date is invalid", body = ReasonErrorBody),
        (status = 401, description = "No valid user token", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
    )
)]
async fn admin_generate(
    State(state): State<AppState>,
    _admin: AdminUser,
    Path(user_id): Path<String>,
    Query(query): Query<GenerateQuery>,
) -> Result<Response, ApiError> {
    let user = path_user(&user_id)?;
    let force = flag("force", query.force.as_deref())?;
    let date = parse_date(query.date.as_deref())?.unwrap_or_else(|| state.edge.digests.yesterday());
    let job = state
        .edge
        .digests
        .start_job(&state.edge.queue, &user, date, force)
        .await?;
    let location = HeaderValue::from_str(&format!("{PREFIX}/admin/digests/jobs/{}", job.id))
        .map_err(|e| ApiError::internal("location", e))?;
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, location)],
        axum::Json(job),
    )
        .into_response())
}

/// A generation job's status.
#[utoipa::path(
    get,
    path = "/api/v1/admin/digests/jobs/{jobId}",
    operation_id = "digestJobStatus",
    tag = "digests",
    security(("bearerJwt" = [])),
    params(("jobId" = String, Path, format = "uuid", description = "The job's id")),
    responses(
        (status = 200, description = "The job", body = DigestGenerationJob),
        (status = 400, description = "jobId is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "No valid user token", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
        (status = 404, description = "No such job", body = ReasonErrorBody),
    )
)]
async fn job_status(
    State(state): State<AppState>,
    _admin: AdminUser,
    Path(job_id): Path<String>,
) -> Answer<DigestGenerationJob> {
    let id = DigestId::parse("jobId", &job_id).map_err(|e| ApiError::field(e.field, e.reason))?;
    let answer = state.edge.digests.job(&id).await?;
    Ok(axum::Json(answer))
}
