//! The GenAI function: Document A's GenAI service, at `/api/ai/...` through the HTTP API and
//! unprefixed on the function's own URL (the seed's "GenAI service itself").
//!
//! `POST /summarize`, `/explain`, `/sentiment`, `/qa`, `GET /health`, and the interactive
//! docs at `/docs` (the document at `/docs/openapi.json`). Everything but HTTP lives in the
//! `assistant` crate and the LLM client in the `llm` crate; this crate maps HTTP to
//! [`Assistant::answer`], its failures to statuses ([`errors`]), and implements the
//! assistant's port to the content service ([`content`]).

pub mod content;
pub mod docs;
pub mod errors;

use std::sync::Arc;
use std::time::Duration;

use assistant::model::{
    ExplainResponse, GenAiRequest, QaResponse, SentimentResponse, SummarizeResponse,
};
use assistant::{Answered, Assistant, Operation};
use axum::extract::State;
use axum::http::{Extensions, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use llm::{Llm, LlmConfig};
use platform::aws::AwsClients;
use platform::http::Json;
use platform::openapi::{ErrorBody, Health};
use platform::otel::{self, Otel};
use platform::{ApiError, BoxError, Env, ErrorStyle};
use utoipa::openapi::server::Server;
use utoipa::OpenApi;
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::content::ContentApi;
use crate::docs::{Answers, OperationErrors};

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
    let llm = Llm::new(http.clone(), LlmConfig::from_env(&env), otel.clone());
    let assistant = Assistant::from_env(&env, &aws, llm)?;
    let content = ContentApi::from_env(&env, http, otel.clone());
    Ok(app(assistant, content, &otel))
}

/// What the handlers share: the facade, and the content service it reads articles from.
struct GenAi {
    assistant: Assistant,
    content: ContentApi,
}

/// The routes, answered both under [`PREFIX`] and unprefixed, errors in Document A's shape
/// with the unprefixed `path`, each request traced when telemetry is on.
pub fn app(assistant: Assistant, content: ContentApi, otel: &Otel) -> Router {
    let routes = Router::new()
        .route("/summarize", post(summarize))
        .route("/explain", post(explain))
        .route("/sentiment", post(sentiment))
        .route("/qa", post(qa))
        .route("/health", get(health))
        .with_state(Arc::new(GenAi { assistant, content }));
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
    components(schemas(
        ErrorBody,
        Health,
        SummarizeResponse,
        ExplainResponse,
        SentimentResponse,
        QaResponse
    )),
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

impl GenAi {
    /// Every operation: the request validated into a job, then one call on the facade, with
    /// the articles read as this request reaches the content service.
    async fn respond(
        &self,
        extensions: &Extensions,
        request: GenAiRequest,
        operation: Operation,
    ) -> Result<AnswerResponse, ApiError> {
        let job = request.into_job(operation)?;
        let articles = self.content.via(api_origin(extensions));
        self.assistant
            .answer(job, &articles)
            .await
            .map(AnswerResponse)
            .map_err(errors::to_api)
    }
}

/// An operation's response body, with [`CACHE_HEADER`].
struct AnswerResponse(Answered);

impl IntoResponse for AnswerResponse {
    fn into_response(self) -> Response {
        let cache = if self.0.cached { "hit" } else { "miss" };
        let mut response = axum::Json(self.0.answer).into_response();
        response
            .headers_mut()
            .insert(CACHE_HEADER, HeaderValue::from_static(cache));
        response
    }
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
    responses(Answers<SummarizeResponse>, OperationErrors)
)]
async fn summarize(
    State(genai): State<Arc<GenAi>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<AnswerResponse, ApiError> {
    genai
        .respond(&extensions, request, Operation::Summarize)
        .await
}

/// Explains the article for a `knowledgeLevel` (child, beginner, intermediate, expert).
#[utoipa::path(
    post,
    path = "/explain",
    operation_id = "aiExplain",
    tag = "genai",
    request_body = GenAiRequest,
    responses(Answers<ExplainResponse>, OperationErrors)
)]
async fn explain(
    State(genai): State<Arc<GenAi>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<AnswerResponse, ApiError> {
    genai
        .respond(&extensions, request, Operation::Explain)
        .await
}

/// Rates the article's tone (sentiment and score) and political bias.
#[utoipa::path(
    post,
    path = "/sentiment",
    operation_id = "aiSentiment",
    tag = "genai",
    request_body = GenAiRequest,
    responses(Answers<SentimentResponse>, OperationErrors)
)]
async fn sentiment(
    State(genai): State<Arc<GenAi>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<AnswerResponse, ApiError> {
    genai
        .respond(&extensions, request, Operation::Sentiment)
        .await
}

/// Answers a `question` from the article's text only; says so when the article does not
/// contain the answer.
#[utoipa::path(
    post,
    path = "/qa",
    operation_id = "aiQa",
    tag = "genai",
    request_body = GenAiRequest,
    responses(Answers<QaResponse>, OperationErrors)
)]
async fn qa(
    State(genai): State<Arc<GenAi>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<AnswerResponse, ApiError> {
    genai.respond(&extensions, request, Operation::Qa).await
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
    use axum::body::Body;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    async fn call(app: &Router, method: &str, uri: &str, body: &str) -> (u16, String) {
        let request = axum::http::Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .expect("request");
        let response = app.clone().oneshot(request).await.expect("infallible");
        let status = response.status().as_u16();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    /// No AWS or model is reached by these requests: they fail before.
    async fn app_with(pairs: &[(&str, &str)]) -> Router {
        let env: Env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain([
                ("AWS_REGION".to_string(), "us-east-1".to_string()),
                ("AWS_ACCESS_KEY_ID".to_string(), "test".to_string()),
                ("AWS_SECRET_ACCESS_KEY".to_string(), "test".to_string()),
            ])
            .collect();
        router(env).await.expect("router")
    }

    #[tokio::test]
    async fn an_invalid_provider_is_a_500_per_request_not_a_crash() {
        let app = app_with(&[("LLM_PROVIDER", "openai")]).await;
        assert_eq!(call(&app, "GET", "/health", "").await.0, 200);
        assert_eq!(call(&app, "GET", "/api/ai/health", "").await.0, 200);
        let (status, body) = call(&app, "POST", "/api/ai/summarize", r#"{"text":"News."}"#).await;
        assert_eq!(status, 500, "{body}");
        let body: serde_json::Value = serde_json::from_str(&body).expect("json");
        assert_eq!(body["path"], "/summarize");
        assert_eq!(body["code"], 500);
        assert!(
            !body.to_string().contains("openai"),
            "internals stay in the log"
        );
    }

    #[tokio::test]
    async fn errors_use_the_news_shape_with_the_unprefixed_path() {
        let app = app_with(&[]).await;
        let (status, body) = call(&app, "POST", "/api/ai/qa", r#"{"text":"t"}"#).await;
        assert_eq!(status, 400);
        let body: serde_json::Value = serde_json::from_str(&body).expect("json");
        assert_eq!(body["path"], "/qa");
        assert_eq!(
            body["details"],
            serde_json::json!(["question: is required"])
        );
        let (status, body) = call(
            &app,
            "POST",
            "/explain",
            r#"{"text":"t","knowledgeLevel":"genius"}"#,
        )
        .await;
        assert_eq!(status, 400);
        assert!(body.contains("knowledgeLevel: unknown variant"), "{body}");
        assert!(body.contains(r#""path":"/explain""#), "{body}");
        let (status, body) = call(&app, "GET", "/api/ai/summarize", "").await;
        assert_eq!(status, 405);
        assert!(body.contains(r#""path":"/summarize""#), "{body}");
        let (status, body) = call(&app, "POST", "/api/ai/translate", "{}").await;
        assert_eq!(status, 404);
        assert!(body.contains(r#""path":"/translate""#), "{body}");
    }

    #[tokio::test]
    async fn the_cloud_provider_without_a_key_is_a_clean_502() {
        let app = app_with(&[]).await;
        let (status, body) = call(&app, "POST", "/summarize", r#"{"text":"News."}"#).await;
        assert_eq!(status, 502, "{body}");
        assert!(body.contains("LLM_API_KEY"), "{body}");
    }

    #[tokio::test]
    async fn docs_are_served_under_both_prefixes() {
        let app = app_with(&[]).await;
        for base in ["/docs", "/api/ai/docs"] {
            let (status, _) = call(&app, "GET", base, "").await;
            assert!((300..400).contains(&status), "{base}: {status}");
            let (status, html) = call(&app, "GET", &format!("{base}/"), "").await;
            assert_eq!(status, 200);
            assert!(html.contains("swagger"), "{html}");
            let (_, init) = call(&app, "GET", &format!("{base}/swagger-initializer.js"), "").await;
            assert!(init.contains("openapi.json"), "{init}");
            let (status, doc) = call(&app, "GET", &format!("{base}/openapi.json"), "").await;
            assert_eq!(status, 200);
            let doc: serde_json::Value = serde_json::from_str(&doc).expect("json");
            assert!(doc["paths"]["/summarize"]["post"].is_object(), "{doc}");
            assert_eq!(doc["servers"][0]["url"], "..");
        }
    }

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
