//! The GenAI function: Document A's GenAI service, at `/api/ai/...` through the HTTP API and
//! unprefixed on the function's own URL (the seed's "GenAI service itself").
//!
//! `POST /summarize`, `/explain`, `/sentiment`, `/qa`, `GET /health`, and the interactive
//! docs at `/docs` (the document at `/docs/openapi.json`). Everything but HTTP lives in the
//! `assistant` crate; the LLM client and the telemetry exporter are `platform`'s.

use std::sync::Arc;
use std::time::Duration;

use assistant::model::{
    ExplainResponse, GenAiRequest, QaResponse, SentimentResponse, SummarizeResponse,
};
use assistant::{Assistant, Operation};
use axum::extract::State;
use axum::http::{Extensions, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use platform::aws::AwsClients;
use platform::http::Json;
use platform::openapi::{ErrorBody, Health};
use platform::otel::{self, Otel};
use platform::{ApiError, BoxError, Env, ErrorStyle};
use utoipa::openapi::server::Server;
use utoipa::OpenApi;
use utoipa_swagger_ui::{Config, SwaggerUi};

/// The public path prefix of this route family (the gateway's `/api/ai`).
pub const PREFIX: &str = "/api/ai";
/// `OTEL_SERVICE_NAME` when unset.
pub const SERVICE_NAME: &str = "gen-ai";
/// Says whether an answer came from the cache (`hit`) or from the model (`miss`).
pub const CACHE_HEADER: &str = "x-genai-cache";
/// A request body beyond this is a 413 (the longest accepted text is 100000 characters).
const BODY_LIMIT: usize = 1024 * 1024;

/// Builds the function's router from its environment: what a cold start does. Nothing about
/// the LLM settings is checked here: a bad `LLM_PROVIDER` is a 500 per request, not a crash.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .user_agent(concat!("news-platform-genai/", env!("CARGO_PKG_VERSION")))
        .build()?;
    let otel = Otel::from_env(&env, SERVICE_NAME, http.clone());
    let assistant = Assistant::from_env(&env, &aws, http, otel.clone())?;
    Ok(app(assistant, &otel))
}

/// The routes, answered both under [`PREFIX`] and unprefixed, errors in Document A's shape
/// with the unprefixed `path`, each request traced when telemetry is on.
pub fn app(assistant: Assistant, otel: &Otel) -> Router {
    let routes = Router::new()
        .route("/summarize", post(summarize))
        .route("/explain", post(explain))
        .route("/sentiment", post(sentiment))
        .route("/qa", post(qa))
        .route("/health", get(health))
        .with_state(Arc::new(assistant));
    let router = Router::new()
        .nest(PREFIX, routes.clone())
        .merge(routes)
        .merge(docs(&format!("{PREFIX}/docs")))
        .merge(docs("/docs"));
    let router = platform::http::finish(
        router,
        ErrorStyle::Detailed {
            strip_prefix: PREFIX,
        },
        BODY_LIMIT,
    );
    otel::instrument(router, otel)
}

/// Swagger UI at `path`, reading the document next to it (a relative URL, so the same page
/// works behind the gateway prefix and on a local `/lambda-url/genai` prefix).
fn docs(path: &str) -> Router {
    SwaggerUi::new(path.to_string())
        .url(format!("{path}/openapi.json"), service_openapi())
        .config(Config::new(["openapi.json"]))
        .into()
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "GenAI service",
        description = "Summaries, explanations, sentiment and bias, and question answering on \
            one news article (Document A). Give exactly one of articleId or text."
    ),
    paths(summarize, explain, sentiment, qa, health),
    components(schemas(ErrorBody, Health)),
    tags((name = "genai", description = "The AI assistant on one article"))
)]
struct GenAiApi;

/// This function's part of the platform's OpenAPI contract: its routes at their public paths
/// (`/api/ai/...`).
pub fn openapi() -> utoipa::openapi::OpenApi {
    let own = GenAiApi::openapi();
    let mut public = own.clone();
    public.paths = utoipa::openapi::Paths::new();
    public.nest(PREFIX, own)
}

/// The document the function's own `/docs` shows: unprefixed paths, with the server given
/// relative to the document (`..` from `/docs/openapi.json`), which is right both on the
/// function URL and under `/api/ai/docs`.
pub fn service_openapi() -> utoipa::openapi::OpenApi {
    let mut doc = GenAiApi::openapi();
    doc.servers = Some(vec![Server::new("..")]);
    doc
}

async fn respond(
    assistant: &Assistant,
    extensions: &Extensions,
    request: GenAiRequest,
    operation: Operation,
) -> Result<Response, ApiError> {
    let job = request.into_job(operation)?;
    let answered = assistant
        .answer(job, api_origin(extensions).as_deref())
        .await?;
    let mut response = axum::Json(answered.answer).into_response();
    response.headers_mut().insert(
        CACHE_HEADER,
        HeaderValue::from_static(if answered.cached { "hit" } else { "miss" }),
    );
    Ok(response)
}

/// The public URL of the API Gateway the request came through; `None` on the function URL
/// (whose own domain does not route `/api/content`) and outside AWS.
fn api_origin(extensions: &Extensions) -> Option<String> {
    platform::http::api_origin(extensions).filter(|origin| !origin.contains(".lambda-url."))
}

/// Summarizes the article at the asked `length` (short, medium, long) and `style` (plain,
/// bullets).
#[utoipa::path(
    post,
    path = "/summarize",
    operation_id = "aiSummarize",
    tag = "genai",
    request_body = GenAiRequest,
    responses(
        (status = 200, description = "The summary", body = SummarizeResponse,
            headers(("x-genai-cache" = String, description = "hit when answered from the cache, else miss"))),
        (status = 400, description = "Invalid request, blank text, or the article has no content", body = ErrorBody),
        (status = 404, description = "articleId not found in the content service", body = ErrorBody),
        (status = 500, description = "Internal error, for example an invalid LLM_PROVIDER", body = ErrorBody),
        (status = 502, description = "The content service or the model provider failed", body = ErrorBody),
    )
)]
async fn summarize(
    State(assistant): State<Arc<Assistant>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<Response, ApiError> {
    respond(&assistant, &extensions, request, Operation::Summarize).await
}

/// Explains the article for a `knowledgeLevel` (child, beginner, intermediate, expert).
#[utoipa::path(
    post,
    path = "/explain",
    operation_id = "aiExplain",
    tag = "genai",
    request_body = GenAiRequest,
    responses(
        (status = 200, description = "The explanation", body = ExplainResponse,
            headers(("x-genai-cache" = String, description = "hit or miss"))),
        (status = 400, description = "Invalid request, blank text, or the article has no content", body = ErrorBody),
        (status = 404, description = "articleId not found in the content service", body = ErrorBody),
        (status = 500, description = "Internal error, for example an invalid LLM_PROVIDER", body = ErrorBody),
        (status = 502, description = "The content service or the model provider failed", body = ErrorBody),
    )
)]
async fn explain(
    State(assistant): State<Arc<Assistant>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<Response, ApiError> {
    respond(&assistant, &extensions, request, Operation::Explain).await
}

/// Rates the article's tone (sentiment and score) and political bias.
#[utoipa::path(
    post,
    path = "/sentiment",
    operation_id = "aiSentiment",
    tag = "genai",
    request_body = GenAiRequest,
    responses(
        (status = 200, description = "The rating", body = SentimentResponse,
            headers(("x-genai-cache" = String, description = "hit or miss"))),
        (status = 400, description = "Invalid request, blank text, or the article has no content", body = ErrorBody),
        (status = 404, description = "articleId not found in the content service", body = ErrorBody),
        (status = 500, description = "Internal error, for example an invalid LLM_PROVIDER", body = ErrorBody),
        (status = 502, description = "The content service or the model provider failed, or the model's rating could not be read", body = ErrorBody),
    )
)]
async fn sentiment(
    State(assistant): State<Arc<Assistant>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<Response, ApiError> {
    respond(&assistant, &extensions, request, Operation::Sentiment).await
}

/// Answers a `question` from the article's text only; says so when the article does not
/// contain the answer.
#[utoipa::path(
    post,
    path = "/qa",
    operation_id = "aiQa",
    tag = "genai",
    request_body = GenAiRequest,
    responses(
        (status = 200, description = "The answer", body = QaResponse,
            headers(("x-genai-cache" = String, description = "hit or miss"))),
        (status = 400, description = "Invalid request, missing question, blank text, or the article has no content", body = ErrorBody),
        (status = 404, description = "articleId not found in the content service", body = ErrorBody),
        (status = 500, description = "Internal error, for example an invalid LLM_PROVIDER", body = ErrorBody),
        (status = 502, description = "The content service or the model provider failed", body = ErrorBody),
    )
)]
async fn qa(
    State(assistant): State<Arc<Assistant>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<Response, ApiError> {
    respond(&assistant, &extensions, request, Operation::Qa).await
}

/// The GenAI service is up (it does not call the model).
#[utoipa::path(
    get,
    path = "/health",
    operation_id = "aiHealth",
    tag = "genai",
    responses((status = 200, description = "Up", body = Health))
)]
async fn health() -> Response {
    platform::http::health(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The router's own tests, which send requests through it, are black-box tests in
    // `tests/tests/genai/routes.rs`.

    #[test]
    fn the_contract_part_has_the_public_paths() {
        let doc = serde_json::to_value(openapi()).expect("json");
        for (path, method, id) in [
            ("/api/ai/summarize", "post", "aiSummarize"),
            ("/api/ai/explain", "post", "aiExplain"),
            ("/api/ai/sentiment", "post", "aiSentiment"),
            ("/api/ai/qa", "post", "aiQa"),
            ("/api/ai/health", "get", "aiHealth"),
        ] {
            assert_eq!(doc["paths"][path][method]["operationId"], id, "{path}");
        }
        assert!(doc["paths"]["/summarize"].is_null());
        let schemas = &doc["components"]["schemas"];
        for schema in [
            "GenAiRequest",
            "SummarizeResponse",
            "ExplainResponse",
            "SentimentResponse",
            "QaResponse",
            "ErrorBody",
            "KnowledgeLevel",
        ] {
            assert!(schemas[schema].is_object(), "{schema}");
        }
        assert_eq!(
            schemas["SummaryLength"]["enum"],
            serde_json::json!(["short", "medium", "long"])
        );
    }
}
