//! The assistant function: the news reader's GenAI service, at `/api/ai/...` through the HTTP API and
//! unprefixed on the function's own URL (the product's "GenAI service itself").
//!
//! `POST /summarize`, `/explain`, `/sentiment`, `/qa`, the same answers as server-sent events
//! at `/stream/summarize`, `/stream/explain`, `/stream/qa` ([`streaming`]), `GET /health`, and the interactive
//! docs at `/docs` (the document at `/docs/openapi.json`). Also the community's admin provider
//! configuration at `/api/v1/admin/ai/provider` ([`admin`], Reason error bodies): the one
//! community route not in a `community-` function, because the provider is GenAI's own state. Everything but HTTP lives in the
//! `assistant` crate and the LLM client in the `llm` crate; this crate maps HTTP to
//! [`Assistant::answer`] (its failures answer as `platform::ApiError`, see `assistant::error`), and implements the
//! assistant's port to the content service ([`content`]).

pub mod admin;
pub mod content;
pub mod docs;
pub mod limits;
pub mod streaming;

use std::sync::Arc;
use std::time::{Duration, Instant};

use assistant::model::{
    ExplainResponse, GenAiRequest, QaResponse, SentimentResponse, SummarizeResponse,
};
use assistant::{Answered, Assistant, Operation};
use axum::extract::State;
use axum::http::{Extensions, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use llm::provider_override::{Deployment, StoredOverride};
use llm::{Llm, LlmConfig};
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::http::{ErrorStyles, Json};
use platform::openapi::{ErrorBody, Health, ReasonErrorBody, SecuritySchemes, TableUnavailable};
use platform::otel::{self, Otel};
use platform::{ApiError, BoxError, Clock, ConfigError, Env, ErrorStyle};
use utoipa::openapi::server::Server;
use utoipa::OpenApi;

use crate::content::ContentApi;
use crate::docs::{Answers, OperationErrors};
use crate::limits::AiLimits;

/// The public path prefix of this route family (the gateway's `/api/ai`).
pub const PREFIX: &str = "/api/ai";
/// `OTEL_SERVICE_NAME` when unset.
pub const SERVICE_NAME: &str = "gen-ai";
/// Says whether an answer came from the cache (`hit`) or from the model (`miss`).
pub const CACHE_HEADER: &str = "x-genai-cache";
/// The media type of the streamed answers.
pub const EVENT_STREAM: &str = "text/event-stream";
/// A request body beyond this is a 413: the longest accepted text, 100000 characters, takes
/// 1.2 MB escaped as JSON surrogate pairs (12 bytes each).
const BODY_LIMIT: usize = 2 * 1024 * 1024;
/// `LLM_API_TIMEOUT_SECONDS` when unset: API Gateway answers 503 itself at 30 s.
pub const DEFAULT_API_TIMEOUT: Duration = Duration::from_secs(25);
/// The largest `LLM_API_TIMEOUT_SECONDS` that still leaves time to answer before 30 s.
const MAX_API_TIMEOUT_SECONDS: u64 = 28;

/// Builds the function's router from its environment: what a cold start does. Nothing about
/// the LLM settings is checked here: a bad `LLM_PROVIDER` is a 500 per request, not a crash.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let http = platform::tls::http_client()
        .connect_timeout(Duration::from_secs(5))
        .user_agent(concat!("news-platform-genai/", env!("CARGO_PKG_VERSION")))
        .build()?;
    let otel = Otel::from_env(&env, SERVICE_NAME, http.clone());
    // The admin's choice for this deployment, in the answer cache's table.
    let overrides = env.get("GENAI_CACHE_TABLE").map(|table| {
        Arc::new(StoredOverride::new(
            Table::new(aws.dynamodb.clone(), table),
            Deployment::from_env(&env),
            Clock::system(),
        ))
    });
    let mut llm = Llm::new(http.clone(), LlmConfig::from_env(&env), otel.clone());
    if let Some(overrides) = &overrides {
        llm = llm.with_override(overrides.clone());
    }
    let admin = admin::AdminState {
        llm: llm.clone(),
        overrides,
        verifier: Arc::new(admin::verifier(&env, &aws)?),
    };
    let assistant = Assistant::from_env(&env, &aws, llm)?;
    let content = ContentApi::from_env(&env, http, otel.clone());
    let limits = AiLimits::from_env(&env, &aws)?;
    let api_timeout = api_timeout(&env)?;
    Ok(app(
        GenAi {
            assistant,
            content,
            api_timeout,
        },
        limits,
        admin,
        &otel,
    ))
}

/// `LLM_API_TIMEOUT_SECONDS`: 1 to 28 seconds.
fn api_timeout(env: &Env) -> Result<Duration, ConfigError> {
    let seconds = env.parse_or("LLM_API_TIMEOUT_SECONDS", DEFAULT_API_TIMEOUT.as_secs())?;
    if !(1..=MAX_API_TIMEOUT_SECONDS).contains(&seconds) {
        return Err(ConfigError::Invalid {
            name: "LLM_API_TIMEOUT_SECONDS".into(),
            reason: format!("{seconds} is not from 1 to {MAX_API_TIMEOUT_SECONDS}"),
        });
    }
    Ok(Duration::from_secs(seconds))
}

/// What the handlers share: the facade, the content service it reads articles from, and how
/// long a request through the HTTP API may wait for the model.
pub struct GenAi {
    pub assistant: Assistant,
    pub content: ContentApi,
    /// Counted from the request's arrival; the function URL waits the provider's timeout.
    pub api_timeout: Duration,
}

/// The routes, answered both under [`PREFIX`] and unprefixed, errors in the detailed shape
/// with the unprefixed `path`, the operations behind `limits`; the admin routes under
/// [`admin::PREFIX`] with the Reason errors; each request traced when telemetry is on.
pub fn app(genai: GenAi, limits: AiLimits, admin: admin::AdminState, otel: &Otel) -> Router {
    let operations = Router::new()
        .route("/summarize", post(summarize))
        .route("/explain", post(explain))
        .route("/sentiment", post(sentiment))
        .route("/qa", post(qa));
    let operations = streaming::routes(operations).route_layer(
        axum::middleware::from_fn_with_state(Arc::new(limits), limits::brake),
    );
    let routes = operations
        .route("/health", get(health))
        .with_state(Arc::new(genai));
    let router = Router::new()
        .nest(PREFIX, routes.clone())
        .merge(routes)
        .merge(docs(&format!("{PREFIX}/docs")))
        .merge(docs("/docs"))
        .merge(admin::routes(admin));
    let router = platform::http::finish_styled(
        router,
        ErrorStyles::new(
            &[(admin::PREFIX, ErrorStyle::Reason)],
            ErrorStyle::Detailed {
                strip_prefix: PREFIX,
            },
        ),
        BODY_LIMIT,
    );
    otel::instrument(router, otel)
}

/// Swagger UI at `path`, reading the document next to it (a relative URL, so the same page
/// works behind the gateway prefix and on a local `/lambda-url/assistant` prefix).
fn docs(path: &str) -> Router {
    docs_ui::routes(path, "GenAI service API", SERVICE_DOCUMENT)
}

/// [`service_openapi`] as committed (the contract test keeps it equal): served as it is, so
/// no cold start builds the document and no bootstrap links utoipa's builders.
pub const SERVICE_DOCUMENT: &str = include_str!("../openapi.json");

/// Where [`SERVICE_DOCUMENT`] is committed, relative to the repository.
pub const SERVICE_DOCUMENT_FILE: &str = "functions/news/assistant/openapi.json";

/// Exactly one of `articleId` or `text`; `qa`'s required question.
const REQUEST_RULES: docs::RequestRules = docs::RequestRules;

/// The answer cache: the operations refuse to ask the model without it (503).
const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable {
    except: &["aiHealth"],
};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "GenAI service",
        description = "Summaries, explanations, sentiment and bias, and question answering on \
            one news article (the news reader). Give exactly one of articleId or text."
    ),
    paths(
        summarize,
        explain,
        sentiment,
        qa,
        streaming::stream_summarize,
        streaming::stream_explain,
        streaming::stream_qa,
        health
    ),
    components(schemas(
        ErrorBody,
        Health,
        SummarizeResponse,
        ExplainResponse,
        SentimentResponse,
        QaResponse
    )),
    modifiers(&TABLE_UNAVAILABLE, &REQUEST_RULES),
    tags((name = "genai", description = "The AI assistant on one article"))
)]
struct GenAiApi;

/// The community's provider configuration, at its absolute path, with Reason error bodies.
#[derive(OpenApi)]
#[openapi(
    paths(admin::read_provider, admin::set_provider),
    components(schemas(
        ReasonErrorBody,
        admin::ProviderConfig,
        admin::AvailableProvider,
        admin::ProviderUpdate,
        llm::ProviderKind
    )),
    modifiers(&SecuritySchemes),
    tags((name = "admin-ai", description = "The GenAI provider configuration (admin, community)"))
)]
struct AdminAiApi;

/// This function's part of the platform's OpenAPI contract: its routes at their public paths
/// (`/api/ai/...`), and the admin provider configuration (`/api/v1/admin/ai/provider`).
pub fn openapi() -> utoipa::openapi::OpenApi {
    let own = GenAiApi::openapi();
    let mut public = own.clone();
    public.paths = utoipa::openapi::Paths::new();
    public.nest(PREFIX, own).merge_from(AdminAiApi::openapi())
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
        let answered = self
            .assistant
            .answer_by(job, &articles, self.deadline(extensions))
            .await?;
        Ok(AnswerResponse(answered))
    }
}

impl GenAi {
    /// When the model's answer is due: API Gateway ends the request at 30 s with a bare 503,
    /// so through it a 502 comes first; the function URL waits the provider's timeout.
    fn deadline(&self, extensions: &Extensions) -> Option<Instant> {
        let arrived = extensions
            .get::<limits::Arrival>()
            .map_or_else(Instant::now, |a| a.0);
        (!platform::http::is_function_url(extensions)).then(|| arrived + self.api_timeout)
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
    security((), ("bearerJwt" = [])),
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
    security((), ("bearerJwt" = [])),
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
    security((), ("bearerJwt" = [])),
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
    security((), ("bearerJwt" = [])),
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
    security(()),
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
    // `tests/tests/assistant/routes.rs`.

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

    #[test]
    fn the_contract_part_has_the_admin_provider_routes_with_reason_bodies() {
        let doc = serde_json::to_value(openapi()).expect("json");
        let provider = &doc["paths"]["/api/v1/admin/ai/provider"];
        for (method, id, statuses) in [
            (
                "get",
                "getAiProviderConfig",
                &["401", "403", "500", "503"][..],
            ),
            (
                "put",
                "setAiProviderConfig",
                &["400", "401", "403", "415", "503"][..],
            ),
        ] {
            let operation = &provider[method];
            assert_eq!(operation["operationId"], id);
            assert_eq!(
                operation["security"],
                serde_json::json!([{"bearerJwt": []}])
            );
            for status in statuses {
                assert_eq!(
                    operation["responses"][status]["content"]["application/json"]["schema"]["$ref"],
                    "#/components/schemas/ReasonErrorBody",
                    "{id} {status}"
                );
            }
        }
        let schemas = &doc["components"]["schemas"];
        for schema in [
            "ProviderConfig",
            "AvailableProvider",
            "ProviderUpdate",
            "ReasonErrorBody",
        ] {
            assert!(schemas[schema].is_object(), "{schema}");
        }
        let update = &schemas["ProviderUpdate"];
        assert_eq!(update["required"], serde_json::json!(["provider", "model"]));
        assert_eq!(
            update["properties"]["provider"]["$ref"],
            "#/components/schemas/ProviderKind"
        );
        let model = &update["properties"]["model"];
        assert_eq!(
            (&model["minLength"], &model["maxLength"], &model["pattern"]),
            (
                &serde_json::json!(1),
                &serde_json::json!(200),
                &serde_json::json!("\\S")
            )
        );
        assert!(doc["components"]["securitySchemes"]["bearerJwt"].is_object());
        assert!(
            service_openapi()
                .paths
                .paths
                .keys()
                .all(|p| !p.starts_with("/api/v1")),
            "the function's own docs show the news reader's operations only"
        );
    }
}
