//! Ingest keys (`/api/v1/ingest/keys`, ADMIN only): issue one (its secret shown once), list
//! them, revoke one.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get};
use axum::Router;
use incidents::keys::{is_key_id, parse_key, IngestKey, IssuedIngestKey, KeyRateLimit};
use incidents::IncidentsError;
use platform::auth::AdminUser;
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::ApiError;
use serde_json::Value;

use crate::{Answer, AppState};

/// The ingest key routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/ingest/keys", get(list_keys).post(issue_key))
        .route("/api/v1/ingest/keys/{id}", delete(revoke_key))
}

/// A service name a key is bound to: 1 to 100 characters, not blank (utoipa takes no
/// constraints on a list's items, so its schema is written here).
struct ServiceName;

impl utoipa::PartialSchema for ServiceName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .min_length(Some(1))
            .max_length(Some(100))
            .pattern(Some(NOT_BLANK))
            .into()
    }
}

impl utoipa::ToSchema for ServiceName {}

/// Holds one character that is not white space.
const NOT_BLANK: &str = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/// An ingest key to issue.
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub(crate) struct IngestKeyRequest {
    /// What the key is for (a sender, a deployment): 1 to 100 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    name: String,
    /// The services it may send (at most 50; repeats kept once); absent or empty: any. A
    /// batch naming another service is refused whole (403).
    #[schema(max_items = 50, inline)]
    services: Option<Vec<ServiceName>>,
    /// Its own limit; absent: the deployment's default (`IngestKeyRateLimit`, 3000 a minute).
    rate_limit: Option<KeyRateLimit>,
}

/// Issues an ingest key (ADMIN). The answer is the only time its secret is shown: keep it;
/// only a hash is stored. Rotate a key by issuing a new one, moving the sender to it and
/// revoking the old one.
#[utoipa::path(
    post,
    path = "/api/v1/ingest/keys",
    operation_id = "issueIngestKey",
    tag = "incidents",
    request_body = IngestKeyRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Issued: `key` is the secret to send in `X-Api-Key`, shown this once", body = IssuedIngestKey),
        (status = 400, description = "A bad field, or 100 keys exist (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
    )
)]
pub(crate) async fn issue_key(
    State(state): State<AppState>,
    AdminUser(user): AdminUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<IssuedIngestKey>), ApiError> {
    let input = parse_key(&body)?;
    let issued = state.keys.issue(input, &user.username).await?;
    tracing::info!(key = %issued.ingest_key.id, admin = %user.id, "ingest key issued");
    Ok((StatusCode::CREATED, axum::Json(issued)))
}

/// The issued ingest keys, newest first (ADMIN): never their secrets. Keys given at deploy
/// time (`IngestApiKeys`) are not listed.
#[utoipa::path(
    get,
    path = "/api/v1/ingest/keys",
    operation_id = "listIngestKeys",
    tag = "incidents",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The keys, newest first", body = Vec<IngestKey>),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
    )
)]
pub(crate) async fn list_keys(
    State(state): State<AppState>,
    _admin: AdminUser,
) -> Answer<Vec<IngestKey>> {
    Ok(axum::Json(
        state.keys.list().await.map_err(IncidentsError::from)?,
    ))
}

/// Revokes an ingest key (ADMIN): refused from the next ingestion on.
#[utoipa::path(
    delete,
    path = "/api/v1/ingest/keys/{id}",
    operation_id = "revokeIngestKey",
    tag = "incidents",
    params(("id" = String, Path, max_length = 60, description = "A key id (32 hex digits)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is not an ADMIN's: the ADMIN role is required", body = ErrorBody),
        (status = 404, description = "No such key", body = ErrorBody),
    )
)]
pub(crate) async fn revoke_key(
    State(state): State<AppState>,
    AdminUser(user): AdminUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if !is_key_id(&id) || !state.keys.revoke(&id).await.map_err(IncidentsError::from)? {
        return Err(ApiError::not_found("Ingest key not found"));
    }
    tracing::info!(key = %id, admin = %user.id, "ingest key revoked");
    Ok(StatusCode::NO_CONTENT)
}
