//! Analyses: `POST /api/v1/analyze` (a model's analysis of a log's text, optionally with
//! retrieval, stored under its author), `POST /api/v1/analyses/query`, and the deletes of one
//! log's analyses and (ADMIN) of every analysis, whose removal is queued for the sweeper.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use axum::Router;
use incidents_intelligence::input::{is_analysis_key, parse_analyze, parse_query};
use incidents_intelligence::model::Analysis;
use incidents_intelligence::SweepMessage;
use llm::ProviderKind;
use platform::auth::{AdminUser, OperatorUser};
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::ratelimit::ClientKey;
use platform::ApiError;
use serde_json::Value;
use utoipa::ToSchema;

use crate::brake::{self, TooManyRequests};
use crate::{actor, Answer, AppState};

/// The analysis routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/analyze", post(analyze))
        .route("/api/v1/analyses/query", post(query_analyses))
        .route("/api/v1/analyses", delete(delete_analyses))
        .route("/api/v1/analyses/{log_id}", delete(delete_analysis))
}

/// An analysis request.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct AnalyzeRequest {
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
pub(crate) async fn analyze(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Answer<Analysis> {
    let input = parse_analyze(&body)?;
    state
        .brake
        .admit(&brake::ANALYSES, ClientKey::user(&user.id))
        .await?;
    Ok(axum::Json(
        state.intelligence.analyze(input, &actor(&user)).await?,
    ))
}

/// A query of stored analyses.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct AnalysesQueryRequest {
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
pub(crate) async fn query_analyses(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Answer<Vec<Analysis>> {
    let query = parse_query(&body)?;
    if query.text.is_some() {
        state
            .brake
            .admit(&brake::RETRIEVAL, ClientKey::user(&user.id))
            .await?;
    }
    Ok(axum::Json(state.intelligence.query(query).await?))
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
pub(crate) async fn delete_analysis(
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
        .await?;
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
pub(crate) async fn delete_analyses(
    State(state): State<AppState>,
    AdminUser(user): AdminUser,
) -> Result<StatusCode, ApiError> {
    let before = state
        .intelligence
        .delete_all_analyses(&actor(&user))
        .await?;
    state
        .queue
        .send(&SweepMessage::PurgeAnalyses {
            before: before.clone(),
        })
        .await
        .map_err(|e| {
            ApiError::unavailable("The intelligence service is unavailable, try again")
                .caused_by(format!("sweep not queued: {e}"))
        })?;
    tracing::info!(%before, user = %user.id, "analyses deleted; sweep queued");
    Ok(StatusCode::NO_CONTENT)
}
