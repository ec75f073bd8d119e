//! `GET /health` (no token: the providers, the retrieval mode and the index's figures) and
//! the documentation of the interactive docs' routes, which `docs_ui` serves.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use incidents_intelligence::model::IntelligenceHealth;

use crate::AppState;

/// The health route.
pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/health", get(health))
}

/// The intelligence service: its providers (which are configured, which models), whether
/// retrieval is BM25 or hybrid, and the index's figures. Calls no model.
#[utoipa::path(
    get,
    path = "/health",
    operation_id = "intelligenceHealth",
    security(()),
    tag = "intelligence",
    responses(
        (status = 200, description = "Up (`status: ok`)", body = IntelligenceHealth),
        (status = 503, description = "The index's table cannot be read (`status: unavailable`)", body = IntelligenceHealth),
    )
)]
pub(crate) async fn health(State(state): State<AppState>) -> Response {
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
    security(()),
    tag = "intelligence",
    responses((status = 303, description = "Redirect to the Swagger UI page", headers(("Location" = String, description = "/docs/index.html"))))
)]
#[allow(dead_code)]
pub(crate) async fn docs_page() {}

/// The intelligence service's own OpenAPI document, which `/docs` shows.
#[utoipa::path(
    get,
    path = "/docs/openapi.json",
    operation_id = "intelligenceApiDocs",
    security(()),
    tag = "intelligence",
    responses((status = 200, description = "This service's document", content_type = "application/json", body = Object))
)]
#[allow(dead_code)]
pub(crate) async fn docs_document() {}
