//! `POST /otlp/v1/logs`: OTLP/HTTP logs, so that a Collector's `otlphttp` exporter given
//! `{base}/otlp` as its endpoint, or an SDK given `{base}/otlp/v1/logs`, ships to the stack.
//!
//! Answered as the OTLP specification says, in the request's encoding (`application/x-protobuf`
//! or `application/json`): 200 with an `ExportLogsServiceResponse`, its `partial_success`
//! counting the records refused (and saying why, or which attributes were cut); on failure a
//! `google.rpc.Status`: 400 for a body that cannot be decoded (with a `BadRequest`), 401
//! without a valid ingest key (`Authorization: Bearer`, `X-Api-Key` or Basic auth), 403 when
//! a bound key's services are exceeded, 413 over the bounds, 415 for another content type,
//! and the retryable 429 and 503 with `Retry-After`. The records go through
//! [`crate::deliver`], as `POST /api/v1/logs`' logs do.

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use incidents::input::otlp;
use incidents::input::shipped::{BodyError, Encoding, MAX_SHIPPED_BODY_BYTES};
use platform::http::OwnErrorBody;
use platform::{ApiError, Clock, ErrorKind};
use prost::Message;
use serde::Serialize;
use utoipa::ToSchema;

use crate::{deliver, read_body, shipper, AppState, Protobuf};

/// The route.
pub const PATH: &str = "/otlp/v1/logs";

/// How the request (and so the answer) is encoded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoded {
    Protobuf,
    Json,
}

/// `ExportLogsServiceResponse` in OTLP JSON.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportLogsServiceResponse {
    /// Present when records were refused (or attributes cut): the client must not retry.
    #[serde(skip_serializing_if = "Option::is_none")]
    partial_success: Option<ExportLogsPartialSuccess>,
}

/// `ExportLogsPartialSuccess` in OTLP JSON.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportLogsPartialSuccess {
    /// The records refused (an int64, written as a string).
    #[schema(pattern = "^[0-9]+$")]
    rejected_log_records: String,
    /// Why, one reason a line.
    error_message: String,
}

/// `google.rpc.Status` in JSON.
#[derive(Serialize, ToSchema)]
pub struct RpcStatus {
    /// The gRPC code (3 invalid argument, 7 permission denied, 8 resource exhausted, 14
    /// unavailable, 16 unauthenticated).
    code: i32,
    message: String,
    /// For a 400, a `google.rpc.BadRequest` (`@type`, `fieldViolations`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    details: Vec<serde_json::Value>,
}

/// A body of OTLP/JSON, as the specification maps `ExportLogsServiceRequest`
/// (`resourceLogs[].scopeLogs[].logRecords[]`).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ExportLogsServiceRequest {
    /// At most 10,000 log records in all. Absent or empty: nothing to take (the
    /// specification's empty export, answered 200).
    #[schema(value_type = Option<Vec<Object>>, nullable = false, rename = "resourceLogs")]
    resource_logs: Option<()>,
}

/// Accepts an OTLP/HTTP logs export.
#[utoipa::path(
    post,
    path = "/otlp/v1/logs",
    operation_id = "otlpExportLogs",
    tag = "incidents",
    request_body(
        description = "An `ExportLogsServiceRequest`: binary protobuf or OTLP JSON, optionally `Content-Encoding: gzip`; at most 6 MiB as sent, 16 MiB decompressed and 10,000 log records. The service is `service.name` of the resource; severity from `severityNumber` (else `severityText`); `traceId`/`spanId` kept.",
        content(
            (Protobuf = "application/x-protobuf"),
            (ExportLogsServiceRequest = "application/json")
        )
    ),
    security(("ingestBearer" = []), ("ingestApiKey" = []), ("ingestBasic" = [])),
    responses(
        (status = 200, description = "Taken; `partialSuccess` counts the records refused and says why", content(
            (Protobuf = "application/x-protobuf"),
            (ExportLogsServiceResponse = "application/json")
        )),
        (status = 400, description = "The body cannot be decoded: a `google.rpc.Status` with a `BadRequest`", content((Protobuf = "application/x-protobuf"), (RpcStatus = "application/json"))),
        (status = 401, description = "No valid ingest key", content((Protobuf = "application/x-protobuf"), (RpcStatus = "application/json"))),
        (status = 403, description = "The key is bound to services the records go beyond; nothing was taken", content((Protobuf = "application/x-protobuf"), (RpcStatus = "application/json"))),
        (status = 413, description = "Over 6 MiB sent, 16 MiB decompressed or 10,000 records", content((Protobuf = "application/x-protobuf"), (RpcStatus = "application/json"))),
        (status = 415, description = "Neither `application/x-protobuf` nor `application/json`", body = RpcStatus),
        (status = 429, description = "The key's rate limit is spent; retry after `Retry-After` seconds", content((Protobuf = "application/x-protobuf"), (RpcStatus = "application/json"))),
        (status = 503, description = "The ingest queue did not take every record, or the key could not be checked: retry after `Retry-After` seconds", content((Protobuf = "application/x-protobuf"), (RpcStatus = "application/json"))),
    )
)]
pub(crate) async fn export(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let encoded = match platform::http::media_type(&headers).as_deref() {
        Some("application/x-protobuf") => Encoded::Protobuf,
        Some("application/json") => Encoded::Json,
        other => {
            return failure(
                Encoded::Json,
                &ApiError::new(
                    ErrorKind::UnsupportedMediaType,
                    format!(
                        "Content-Type {:?} is not supported: send application/x-protobuf or application/json",
                        other.unwrap_or_default()
                    ),
                ),
            )
        }
    };
    match take(&state, &headers, body, encoded).await {
        Ok(partial) => {
            let body = match encoded {
                Encoded::Protobuf => otlp::ExportLogsServiceResponse {
                    partial_success: partial,
                }
                .encode_to_vec(),
                Encoded::Json => otlp::response_json(partial.as_ref())
                    .to_string()
                    .into_bytes(),
            };
            answer(StatusCode::OK, encoded, body, None)
        }
        Err(error) => failure(encoded, &error),
    }
}

async fn take(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
    encoded: Encoded,
) -> Result<Option<otlp::ExportLogsPartialSuccess>, ApiError> {
    let sender = shipper(state, headers).await?;
    let raw = read_body(body, MAX_SHIPPED_BODY_BYTES)
        .await
        .map_err(body_error)?;
    let encoding = headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok());
    let Some(encoding) = Encoding::parse(encoding, false) else {
        return Err(ApiError::field(
            "Content-Encoding",
            format!(
                "{:?} is not supported: gzip, deflate or none",
                encoding.unwrap_or_default()
            ),
        ));
    };
    let decoded = encoding.decode(&raw).map_err(body_error)?;
    let request = match encoded {
        Encoded::Protobuf => otlp::decode_protobuf(&decoded),
        Encoded::Json => otlp::decode_json(&decoded),
    }
    .map_err(body_error)?;
    let now = Clock::system().now();
    let shipment = otlp::logs(request, now).map_err(body_error)?;
    let partial = otlp::partial_success(&shipment);
    deliver(state, &sender, shipment.logs, true, now).await?;
    Ok(partial)
}

fn body_error(error: BodyError) -> ApiError {
    match error {
        BodyError::TooLarge(reason) => ApiError::new(ErrorKind::PayloadTooLarge, reason),
        BodyError::Malformed(reason) => ApiError::field("body", reason),
    }
}

/// A failure as a `google.rpc.Status` in the request's encoding; a 400's field errors as a
/// `BadRequest`.
fn failure(encoded: Encoded, error: &ApiError) -> Response {
    let status = error.status();
    let violations: Vec<(String, String)> = error
        .details
        .iter()
        .map(|detail| match detail.split_once(": ") {
            Some((field, description)) => (field.to_string(), description.to_string()),
            None => (String::new(), detail.clone()),
        })
        .collect();
    let message = match error.details.as_slice() {
        [] => error.message.clone(),
        details => format!("{}: {}", error.message, details.join("; ")),
    };
    let rpc = otlp::status(status.as_u16(), &message, &violations);
    let body = match encoded {
        Encoded::Protobuf => rpc.encode_to_vec(),
        Encoded::Json => otlp::status_json(&rpc).to_string().into_bytes(),
    };
    answer(status, encoded, body, error.retry_after())
}

fn answer(
    status: StatusCode,
    encoded: Encoded,
    body: Vec<u8>,
    retry_after: Option<u32>,
) -> Response {
    let content_type = match encoded {
        Encoded::Protobuf => "application/x-protobuf",
        Encoded::Json => "application/json",
    };
    let mut response = (status, [(header::CONTENT_TYPE, content_type)], body).into_response();
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response.extensions_mut().insert(OwnErrorBody);
    response
}
