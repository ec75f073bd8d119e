//! The retrieval corpus (`/api/v1/rag/*`): runbook documents added, listed a page at a time
//! and deleted, and the search of their chunks.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::Router;
use incidents_intelligence::input::{parse_document, parse_search};
use incidents_intelligence::model::{RagDocument, RagSearchHit};
use platform::auth::OperatorUser;
use platform::http::{Json, Query};
use platform::openapi::ErrorBody;
use platform::ratelimit::ClientKey;
use platform::{ApiError, Invalid};
use serde::Deserialize;
use serde_json::Value;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{IntoParams, ToSchema};

use crate::brake::{self, TooManyRequests};
use crate::{actor, Answer, AppState, DEFAULT_PAGE, MAX_PAGE, NEXT_CURSOR_HEADER};

/// The retrieval routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/rag/documents",
            get(list_documents).post(create_document),
        )
        .route("/api/v1/rag/documents/{id}", delete(delete_document))
        .route("/api/v1/rag/search", post(search))
}

/// A runbook document.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct RagDocumentRequest {
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
pub(crate) async fn create_document(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<RagDocument>), ApiError> {
    let input = parse_document(&body)?;
    state
        .brake
        .admit(&brake::RETRIEVAL, ClientKey::user(&user.id))
        .await?;
    let doc = state
        .intelligence
        .create_document(input, &actor(&user))
        .await?;
    Ok((StatusCode::CREATED, axum::Json(doc)))
}

/// A page of the document list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct DocumentsQuery {
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
pub(crate) async fn list_documents(
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
    let (docs, next) = state.intelligence.documents(limit, cursor).await?;
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
pub(crate) async fn delete_document(
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
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A search of the runbooks.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct RagSearchRequest {
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
pub(crate) async fn search(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Json(body): Json<Value>,
) -> Answer<Vec<RagSearchHit>> {
    let input = parse_search(&body)?;
    state
        .brake
        .admit(&brake::RETRIEVAL, ClientKey::user(&user.id))
        .await?;
    Ok(axum::Json(state.intelligence.search(input).await?))
}

#[cfg(test)]
mod tests {
    use super::*;

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
