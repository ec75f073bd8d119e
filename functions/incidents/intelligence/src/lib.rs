//! The incident intelligence function: the incident platform's AI analysis of log text and its
//! retrieval corpus, as the API gateway routes them to the "intelligence service":
//! `POST /api/v1/analyze`, `POST /api/v1/analyses/query`, `DELETE /api/v1/analyses/{log_id}`,
//! `DELETE /api/v1/analyses`, `/api/v1/rag/*` (runbook documents and search), `GET /health`,
//! and its interactive docs at `/docs` (Swagger UI on its own document, `/docs/openapi.json`).
//! Every route but `/health` and `/docs` needs an OPERATOR or ADMIN token (401 without a valid
//! one, 403 for a plain USER); deleting every analysis needs ADMIN. An analysis belongs to its
//! author: another operator's analysis of the same log is added beside it, never over it.
//!
//! Each handler parses its input with `incidents_intelligence::input`, is braked per user
//! where it costs money ([`brake`]) and makes one call on [`Intelligence`] (the
//! `incidents-intelligence` crate documents the table, the index and the calls per request);
//! [`errors`] turns the domain's errors into HTTP answers in the detailed error body.
//! `DELETE /api/v1/analyses` hides every analysis at once and queues their deletion, which the
//! sweeper function (`incidents-intelligence-sweeper`) carries out in steps.

pub mod brake;
pub mod errors;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, Path, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::Router;
use incidents_intelligence::input::{
    is_analysis_key, parse_analyze, parse_document, parse_query, parse_search,
};
use incidents_intelligence::model::{
    Analysis, AnalysisReference, AnalysisSeverity, EmbeddingsHealth, IndexHealth,
    IntelligenceHealth, ProviderHealth, ProvidersHealth, RagDocument, RagDocumentStatus,
    RagSearchHit, ReferenceKind,
};
use incidents_intelligence::{Actor, Intelligence, SweepMessage, SweepQueue};
use llm::{Llm, LlmConfig, ProviderKind};
use platform::auth::{AdminUser, AuthUser, OperatorUser};
use platform::aws::AwsClients;
use platform::http::{Json, Query};
use platform::openapi::{ErrorBody, SecuritySchemes, TableUnavailable};
use platform::otel::Otel;
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Env, ErrorStyle, Invalid};
use serde::Deserialize;
use serde_json::Value;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::server::Server;
use utoipa::openapi::RefOr;
use utoipa::{IntoParams, OpenApi, ToSchema};

use crate::brake::{Brake, TooManyRequests, Work};
use crate::errors::to_api;

/// The header that carries the document list's next cursor.
pub const NEXT_CURSOR_HEADER: &str = "x-next-cursor";
/// The document list's page bounds.
pub const MAX_PAGE: usize = 100;
pub const DEFAULT_PAGE: usize = 50;
/// Where the interactive docs are.
pub const DOCS: &str = "/docs";
/// A runbook of 200 KB is at most 1.2 MB as JSON (every 4-byte character escaped as a
/// surrogate pair of 12 bytes takes 3 bytes per byte).
const BODY_LIMIT: usize = 2 * 1024 * 1024;

#[derive(Clone)]
pub struct AppState {
    intelligence: Arc<Intelligence>,
    queue: SweepQueue,
    brake: Arc<Brake>,
    verifier: Arc<TokenVerifier>,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment (`INTELLIGENCE_TABLE`,
/// `INCIDENTS_TABLE`, `INTELLIGENCE_QUEUE_URL`, the LLM settings, `EMBEDDINGS_MODEL`, the
/// limits): what a cold start does. The LLM settings are not checked here: a bad one is a 500
/// on the request that needs it.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let http = platform::tls::http_client()
        .connect_timeout(Duration::from_secs(5))
        .build()?;
    let llm = Llm::new(http, LlmConfig::from_env(&env), Otel::default());
    let intelligence = Intelligence::from_env(&env, &aws, llm)?;
    let queue = SweepQueue::from_env(&env, aws.sqs())?;
    let brake = Brake::from_env(&env, &aws)?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    app(Arc::new(intelligence), queue, brake, verifier)
}

/// The router over given services.
pub fn app(
    intelligence: Arc<Intelligence>,
    queue: SweepQueue,
    brake: Brake,
    verifier: TokenVerifier,
) -> Result<Router, BoxError> {
    let state = AppState {
        intelligence,
        queue,
        brake: Arc::new(brake),
        verifier: Arc::new(verifier),
    };
    let routes = Router::new()
        .route("/api/v1/analyze", post(analyze))
        .route("/api/v1/analyses/query", post(query_analyses))
        .route("/api/v1/analyses", delete(delete_analyses))
        .route("/api/v1/analyses/{log_id}", delete(delete_analysis))
        .route(
            "/api/v1/rag/documents",
            get(list_documents).post(create_document),
        )
        .route("/api/v1/rag/documents/{id}", delete(delete_document))
        .route("/api/v1/rag/search", post(search))
        .route("/health", get(health))
        .with_state(state)
        .merge(docs_ui::routes(
            DOCS,
            "Incident intelligence API",
            SERVICE_DOCUMENT,
        ));
    Ok(platform::http::finish(
        routes,
        ErrorStyle::Detailed { strip_prefix: "" },
        BODY_LIMIT,
    ))
}

/// [`service_openapi`] as committed (the contract test keeps it equal): served as it is at
/// `/docs/openapi.json`, so no cold start builds the document.
pub const SERVICE_DOCUMENT: &str = include_str!("../openapi.json");

/// Where [`SERVICE_DOCUMENT`] is committed, relative to the repository.
pub const SERVICE_DOCUMENT_FILE: &str = "functions/incidents/intelligence/openapi.json";

/// The table is read by every operation but the docs (health reports it itself).
const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable {
    except: &[
        "intelligenceHealth",
        "intelligenceDocs",
        "intelligenceApiDocs",
    ],
};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Incident intelligence",
        description = "AI analysis of log text (secrets redacted first), with retrieval from \
            the team's runbooks and earlier analyses (the incident platform)."
    ),
    paths(
        analyze,
        query_analyses,
        delete_analysis,
        delete_analyses,
        create_document,
        list_documents,
        delete_document,
        search,
        health,
        docs_page,
        docs_document
    ),
    components(schemas(
        AnalyzeRequest,
        Analysis,
        AnalysisReference,
        AnalysisSeverity,
        ReferenceKind,
        ProviderKind,
        AnalysesQueryRequest,
        RagDocumentRequest,
        RagDocument,
        RagDocumentStatus,
        RagSearchRequest,
        RagSearchHit,
        IntelligenceHealth,
        ProvidersHealth,
        ProviderHealth,
        EmbeddingsHealth,
        IndexHealth,
        ErrorBody
    )),
    modifiers(&SecuritySchemes, &TABLE_UNAVAILABLE),
    tags((name = "intelligence", description = "The incident platform's intelligence: analysis of logs, runbooks, retrieval"))
)]
struct IntelligenceApi;

/// This function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    IntelligenceApi::openapi()
}

/// The document `/docs` shows: this function's operations, with the server given relative
/// to the document (`..` from `/docs/openapi.json`: the API's root).
pub fn service_openapi() -> utoipa::openapi::OpenApi {
    let mut doc = IntelligenceApi::openapi();
    doc.servers = Some(vec![Server::new("..")]);
    doc
}

type Answer<T> = Result<axum::Json<T>, ApiError>;

fn actor(user: &AuthUser) -> Actor {
    Actor {
        id: user.id.clone(),
        admin: user.is_admin(),
    }
}

// ---- analyses --------------------------------------------------------------------------

/// An analysis request.
#[derive(ToSchema)]
#[allow(dead_code)]
struct AnalyzeRequest {
    /// The log text, 1 to 20,000 characters. Secrets in it are redacted before the model,
    /// the embeddings provider or the table sees it.
    #[schema(
        min_length = 1,
        max_length = 20000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    content: String,
    /// `local` or `cloud`: which LLM provider answers (default: the deployment's
    /// `LLM_PROVIDER`).
    mode: Option<ProviderKind>,
    /// Retrieve runbook chunks and earlier analyses for the model, and cite them in
    /// `references` (default false).
    use_rag: Option<bool>,
    /// The log analysed: a log id of this platform (`POST /api/v1/logs` answers them); the
    /// analysis is stored under it and its author (replacing the caller's own earlier analysis
    /// of that log, never another operator's) and records its service.
    #[schema(pattern = "^[0-9]{13}-[0-9a-f]{32}$")]
    log_id: Option<String>,
}

/// Analyses a log's text with the chosen provider, optionally with retrieval, and stores the
/// analysis (under `log_id` and the caller, or its own id). The log and any retrieved passages
/// reach the model inside delimited blocks that it is told hold data, never instructions.
#[utoipa::path(
    post,
    path = "/api/v1/analyze",
    operation_id = "analyzeLog",
    tag = "intelligence",
    request_body = AnalyzeRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The analysis, as stored", body = Analysis),
        (status = 400, description = "A bad field (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "`log_id` names no stored log", body = ErrorBody),
        (status = 409, description = "The caller's analysis of that log was being replaced by another request", body = ErrorBody),
        (status = 413, description = "The body is over 2 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        TooManyRequests,
        (status = 500, description = "The LLM settings are invalid", body = ErrorBody),
        (status = 502, description = "The model failed, was too slow, or gave an answer that is not the asked JSON", body = ErrorBody),
        (status = 503, description = "The table or the limits table cannot be reached (the model is not asked)", body = ErrorBody),
    )
)]
async fn analyze(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Answer<Analysis> {
    let input = parse_analyze(&body)?;
    state.brake.admit(Work::Analysis, &user.id).await?;
    Ok(axum::Json(
        state
            .intelligence
            .analyze(input, &actor(&user))
            .await
            .map_err(to_api)?,
    ))
}

/// A query of stored analyses.
#[derive(ToSchema)]
#[allow(dead_code)]
struct AnalysesQueryRequest {
    /// Ranks analyses by relevance to this text (BM25 over what each analysed and concluded);
    /// without it, newest first. 1 to 1000 characters.
    #[schema(
        min_length = 1,
        max_length = 1000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    text: Option<String>,
    /// Only the analysis of this log (or the id of an analysis made without a log).
    #[schema(
        pattern = "^([0-9]{13}-[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$"
    )]
    log_id: Option<String>,
    /// Only analyses of this service's logs.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    service_name: Option<String>,
    /// 1 to 50 (default 20).
    #[schema(minimum = 1, maximum = 50)]
    limit: Option<i32>,
}

/// Stored analyses, best first for a `text`, else newest first.
#[utoipa::path(
    post,
    path = "/api/v1/analyses/query",
    operation_id = "queryAnalyses",
    tag = "intelligence",
    request_body = AnalysesQueryRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "Matching analyses, best (or newest) first", body = Vec<Analysis>),
        (status = 400, description = "A bad field (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 413, description = "The body is over 2 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        TooManyRequests,
    )
)]
async fn query_analyses(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Answer<Vec<Analysis>> {
    let query = parse_query(&body)?;
    if query.text.is_some() {
        state.brake.admit(Work::Retrieval, &user.id).await?;
    }
    Ok(axum::Json(
        state.intelligence.query(query).await.map_err(to_api)?,
    ))
}

/// Deletes the caller's analysis of a log (an ADMIN's call: every operator's analyses of it);
/// other operators' analyses stay.
#[utoipa::path(
    delete,
    path = "/api/v1/analyses/{log_id}",
    operation_id = "deleteAnalysis",
    tag = "intelligence",
    params(("log_id" = String, Path, pattern = "^([0-9]{13}-[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", description = "The log id the analysis was made for, or the id of an analysis made without a log")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's (the OPERATOR or ADMIN role is required), or every analysis of that log is another operator's", body = ErrorBody),
        (status = 404, description = "No analysis of that log (by anyone)", body = ErrorBody),
        (status = 409, description = "It was replaced meanwhile: read it again", body = ErrorBody),
    )
)]
async fn delete_analysis(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(log_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if !is_analysis_key(&log_id) {
        return Err(ApiError::not_found("Analysis not found"));
    }
    state
        .intelligence
        .delete_analysis(&log_id, &actor(&user))
        .await
        .map_err(to_api)?;
    Ok(StatusCode::NO_CONTENT)
}

/// Deletes every stored analysis (ADMIN): gone from every answer at once, removed from the
/// table in the background.
#[utoipa::path(
    delete,
    path = "/api/v1/analyses",
    operation_id = "deleteAnalyses",
    tag = "intelligence",
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Every analysis made until now is deleted"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
        (status = 503, description = "The table or the sweep queue cannot be reached: retry", body = ErrorBody),
    )
)]
async fn delete_analyses(
    State(state): State<AppState>,
    AdminUser(user): AdminUser,
) -> Result<StatusCode, ApiError> {
    let before = state
        .intelligence
        .delete_all_analyses(&actor(&user))
        .await
        .map_err(to_api)?;
    state
        .queue
        .send(&SweepMessage::PurgeAnalyses {
            before: before.clone(),
        })
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "sweep not queued");
            ApiError::unavailable("The intelligence service is unavailable, try again")
        })?;
    tracing::info!(%before, user = %user.id, "analyses deleted; sweep queued");
    Ok(StatusCode::NO_CONTENT)
}

// ---- retrieval documents ---------------------------------------------------------------

/// A runbook document.
#[derive(ToSchema)]
#[allow(dead_code)]
struct RagDocumentRequest {
    /// 1 to 200 characters.
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    title: String,
    /// The text (Markdown or plain), at most 204,800 bytes of UTF-8; split into chunks of
    /// about 1,200 characters, at most 400. Secrets are redacted before it is stored.
    #[schema(
        min_length = 1,
        max_length = 204800,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    content: String,
    /// At most 20 tags of 1 to 50 characters, without control characters (default none;
    /// repeats are kept once).
    #[schema(max_items = 20, inline)]
    tags: Option<Vec<Tag>>,
}

/// A document's tag: 1 to 50 characters, not blank, no control characters (utoipa takes
/// no constraints on a newtype's field, so its schema is written here).
struct Tag;

impl utoipa::PartialSchema for Tag {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(Some(1))
            .max_length(Some(50))
            .pattern(Some("^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$"))
            .into()
    }
}

impl ToSchema for Tag {}

/// Adds a runbook to the retrieval corpus (searchable when this answers).
#[utoipa::path(
    post,
    path = "/api/v1/rag/documents",
    operation_id = "createRagDocument",
    tag = "intelligence",
    request_body = RagDocumentRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Stored and indexed", body = RagDocument),
        (status = 400, description = "A bad field (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 409, description = "The corpus holds 1,000 documents", body = ErrorBody),
        (status = 413, description = "The body is over 2 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        TooManyRequests,
        (status = 502, description = "The embeddings provider failed (nothing was stored)", body = ErrorBody),
    )
)]
async fn create_document(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<RagDocument>), ApiError> {
    let input = parse_document(&body)?;
    state.brake.admit(Work::Retrieval, &user.id).await?;
    let doc = state
        .intelligence
        .create_document(input, &actor(&user))
        .await
        .map_err(to_api)?;
    Ok((StatusCode::CREATED, axum::Json(doc)))
}

/// A page of the document list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct DocumentsQuery {
    /// From 1 to 100 (default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `X-Next-Cursor` of the previous page.
    #[param(max_length = 100)]
    cursor: Option<String>,
}

/// A cursor is a document's `{createdAt}~{id}`.
fn is_cursor(raw: &str) -> bool {
    raw.split_once('~').is_some_and(|(at, id)| {
        chrono::DateTime::parse_from_rfc3339(at).is_ok() && uuid::Uuid::parse_str(id).is_ok()
    })
}

/// The runbook documents, newest first, a page at a time.
#[utoipa::path(
    get,
    path = "/api/v1/rag/documents",
    operation_id = "listRagDocuments",
    tag = "intelligence",
    params(DocumentsQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of documents, newest first. When more may follow, `X-Next-Cursor` holds the next page's cursor.",
            body = Vec<RagDocument>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad limit or cursor", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
async fn list_documents(
    State(state): State<AppState>,
    _user: OperatorUser,
    Query(query): Query<DocumentsQuery>,
) -> Result<Response, ApiError> {
    let mut problems = Vec::new();
    let limit = match query.limit.as_deref().map(str::trim) {
        None => DEFAULT_PAGE,
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) => n,
            _ => {
                problems.push(platform::FieldError::new(
                    "limit",
                    format!("must be an integer from 1 to {MAX_PAGE}"),
                ));
                DEFAULT_PAGE
            }
        },
    };
    let cursor = query.cursor.as_deref().map(str::trim);
    if cursor.is_some_and(|c| c.len() > 100 || !is_cursor(c)) {
        problems.push(platform::FieldError::new(
            "cursor",
            "must be an X-Next-Cursor of this list",
        ));
    }
    if !problems.is_empty() {
        return Err(Invalid(problems).into());
    }
    let (docs, next) = state
        .intelligence
        .documents(limit, cursor)
        .await
        .map_err(to_api)?;
    let mut response = axum::Json(docs).into_response();
    if let Some(cursor) = next.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert(NEXT_CURSOR_HEADER, cursor);
    }
    Ok(response)
}

/// Deletes a runbook, its chunks and its index entries (its author or an admin). Repeating
/// it after a failure finishes it.
#[utoipa::path(
    delete,
    path = "/api/v1/rag/documents/{id}",
    operation_id = "deleteRagDocument",
    tag = "intelligence",
    params(("id" = String, Path, format = Uuid, description = "A document id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's (the OPERATOR or ADMIN role is required), or the caller is not the document's author nor an ADMIN", body = ErrorBody),
        (status = 404, description = "No such document", body = ErrorBody),
        (status = 409, description = "Another request is changing it: retry", body = ErrorBody),
    )
)]
async fn delete_document(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if uuid::Uuid::parse_str(&id).is_err() {
        return Err(ApiError::not_found("Document not found"));
    }
    state
        .intelligence
        .delete_document(&id.to_ascii_lowercase(), &actor(&user))
        .await
        .map_err(to_api)?;
    Ok(StatusCode::NO_CONTENT)
}

/// A search of the runbooks.
#[derive(ToSchema)]
#[allow(dead_code)]
struct RagSearchRequest {
    /// 1 to 1000 characters.
    #[schema(
        min_length = 1,
        max_length = 1000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    query: String,
    /// How many chunks, 1 to 20 (default 5).
    #[schema(minimum = 1, maximum = 20)]
    top_k: Option<i32>,
}

/// The runbook chunks that best match a query: BM25, fused with embeddings' cosine
/// similarity when an embeddings model is configured.
#[utoipa::path(
    post,
    path = "/api/v1/rag/search",
    operation_id = "searchRagDocuments",
    tag = "intelligence",
    request_body = RagSearchRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "At most `top_k` chunks, best first", body = Vec<RagSearchHit>),
        (status = 400, description = "A bad field (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 413, description = "The body is over 2 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        TooManyRequests,
    )
)]
async fn search(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Answer<Vec<RagSearchHit>> {
    let input = parse_search(&body)?;
    state.brake.admit(Work::Retrieval, &user.id).await?;
    Ok(axum::Json(
        state.intelligence.search(input).await.map_err(to_api)?,
    ))
}

// ---- health and docs -------------------------------------------------------------------

/// The intelligence service: its providers (which are configured, which models), whether
/// retrieval is BM25 or hybrid, and the index's figures. Calls no model.
#[utoipa::path(
    get,
    path = "/health",
    operation_id = "intelligenceHealth",
    tag = "intelligence",
    responses(
        (status = 200, description = "Up (`status: ok`)", body = IntelligenceHealth),
        (status = 503, description = "The index's table cannot be read (`status: unavailable`)", body = IntelligenceHealth),
    )
)]
async fn health(State(state): State<AppState>) -> Response {
    let health = state.intelligence.health().await;
    let status = if health.status == "ok" {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, axum::Json(health)).into_response()
}

/// The interactive docs (Swagger UI) of the intelligence service.
#[utoipa::path(
    get,
    path = "/docs",
    operation_id = "intelligenceDocs",
    tag = "intelligence",
    responses((status = 303, description = "Redirect to the Swagger UI page", headers(("Location" = String, description = "/docs/index.html"))))
)]
#[allow(dead_code)]
async fn docs_page() {}

/// The intelligence service's own OpenAPI document, which `/docs` shows.
#[utoipa::path(
    get,
    path = "/docs/openapi.json",
    operation_id = "intelligenceApiDocs",
    tag = "intelligence",
    responses((status = 200, description = "This service's document", content_type = "application/json", body = Object))
)]
#[allow(dead_code)]
async fn docs_document() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_part_has_every_route() {
        let doc = serde_json::to_value(openapi()).expect("json");
        for (path, method, id) in [
            ("/api/v1/analyze", "post", "analyzeLog"),
            ("/api/v1/analyses/query", "post", "queryAnalyses"),
            ("/api/v1/analyses/{log_id}", "delete", "deleteAnalysis"),
            ("/api/v1/analyses", "delete", "deleteAnalyses"),
            ("/api/v1/rag/documents", "post", "createRagDocument"),
            ("/api/v1/rag/documents", "get", "listRagDocuments"),
            ("/api/v1/rag/documents/{id}", "delete", "deleteRagDocument"),
            ("/api/v1/rag/search", "post", "searchRagDocuments"),
            ("/health", "get", "intelligenceHealth"),
            ("/docs", "get", "intelligenceDocs"),
            ("/docs/openapi.json", "get", "intelligenceApiDocs"),
        ] {
            assert_eq!(doc["paths"][path][method]["operationId"], id, "{path}");
        }
        let analysis = &doc["components"]["schemas"]["Analysis"];
        for field in ["id", "log_id", "root_cause", "llm_latency_ms", "created_at"] {
            assert!(analysis["properties"][field].is_object(), "{field}");
        }
        assert!(doc["paths"]["/health"]["get"]["security"].is_null());
        assert!(doc["paths"]["/api/v1/analyze"]["post"]["responses"]["429"].is_object());
    }

    #[test]
    fn every_route_with_a_token_documents_401_and_the_role_of_its_403() {
        let doc = serde_json::to_value(openapi()).expect("json");
        let mut guarded = 0;
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                if op["security"].is_null() {
                    continue;
                }
                guarded += 1;
                assert!(op["responses"]["401"].is_object(), "{method} {path}");
                let forbidden = op["responses"]["403"]["description"]
                    .as_str()
                    .unwrap_or_default();
                let role = if op["operationId"] == "deleteAnalyses" {
                    "ADMIN role is required"
                } else {
                    "OPERATOR"
                };
                assert!(forbidden.contains(role), "{method} {path}: {forbidden}");
            }
        }
        assert_eq!(guarded, 8);
    }

    #[test]
    fn cursors_are_a_time_and_an_id() {
        assert!(is_cursor(
            "2026-11-24T12:00:00.000Z~5b0f3c1e-0000-4000-8000-00000000000a"
        ));
        assert!(!is_cursor(
            "2026-11-24T12:00:00.000Z#5b0f3c1e-0000-4000-8000-00000000000a"
        ));
        assert!(!is_cursor("2026-11-24~x"));
        assert!(!is_cursor("nope"));
    }
}
