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
//! Handlers answer `ApiError`, which the domain's errors convert into
//! (`impl From<IntelligenceError> for ApiError`), in the detailed error body.
//! `DELETE /api/v1/analyses` hides every analysis at once and queues their deletion, which the
//! sweeper function (`incidents-intelligence-sweeper`) carries out in steps. The handlers live
//! by resource: [`analyses`], [`rag`] (runbooks and search) and [`health`].

mod analyses;
pub mod brake;
mod health;
mod rag;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;
use axum::Router;
use incidents_intelligence::model::{
    Analysis, AnalysisReference, AnalysisSeverity, EmbeddingsHealth, IndexHealth,
    IntelligenceHealth, ProviderHealth, ProvidersHealth, RagDocument, RagDocumentStatus,
    RagSearchHit, ReferenceKind,
};
use incidents_intelligence::{Actor, Intelligence, SweepQueue};
use llm::{Llm, LlmConfig, ProviderKind};
use platform::auth::AuthUser;
use platform::aws::AwsClients;
use platform::openapi::{ErrorBody, SecuritySchemes, TableUnavailable};
use platform::otel::Otel;
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Env, ErrorStyle};
use utoipa::openapi::server::Server;
use utoipa::OpenApi;

use platform::ratelimit::Brake;

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
    let brake = brake::from_env(&env, &aws)?;
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
        .merge(analyses::routes())
        .merge(rag::routes())
        .merge(health::routes())
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
        analyses::analyze,
        analyses::query_analyses,
        analyses::delete_analysis,
        analyses::delete_analyses,
        rag::create_document,
        rag::list_documents,
        rag::delete_document,
        rag::search,
        health::health,
        health::docs_page,
        health::docs_document
    ),
    components(schemas(
        analyses::AnalyzeRequest,
        Analysis,
        AnalysisReference,
        AnalysisSeverity,
        ReferenceKind,
        ProviderKind,
        analyses::AnalysesQueryRequest,
        rag::RagDocumentRequest,
        RagDocument,
        RagDocumentStatus,
        rag::RagSearchRequest,
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
        assert!(is_public(&doc["paths"]["/health"]["get"]));
        assert!(doc["paths"]["/api/v1/analyze"]["post"]["responses"]["429"].is_object());
    }

    /// An operation that asks for no credentials (`security` absent, `[]`, or only `{}`).
    fn is_public(op: &serde_json::Value) -> bool {
        op["security"].as_array().is_none_or(|s| {
            s.iter()
                .all(|r| r.as_object().is_some_and(|o| o.is_empty()))
        })
    }

    #[test]
    fn every_route_with_a_token_documents_401_and_the_role_of_its_403() {
        let doc = serde_json::to_value(openapi()).expect("json");
        let mut guarded = 0;
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                if is_public(op) {
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
}
