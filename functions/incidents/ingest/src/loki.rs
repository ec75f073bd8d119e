//! `POST /loki/api/v1/push`: the Loki push API, for Promtail, Grafana Alloy (`loki.write`),
//! Fluent Bit (`loki` output), Vector (`loki` sink) and the Docker driver pointed at the stack.
//!
//! Answered as Loki answers: 204 when every entry was taken; 400 with a plain-text body naming
//! what was refused (a bad body refuses everything; a bad stream or entry only itself, the
//! others are taken, as Loki's distributor does); 401 without a valid ingest key (the Basic
//! auth password, a Bearer token or `X-Api-Key`); 403 when a bound key's services are
//! exceeded; 413 over the bounds; 429 with `Retry-After` when the key's limit is spent; 503
//! when the queue did not take the logs. The entries go through [`crate::deliver`], as
//! `POST /api/v1/logs`' logs do.

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use incidents::input::loki;
use incidents::input::shipped::{BodyError, Encoding, MAX_SHIPPED_BODY_BYTES};
use platform::http::OwnErrorBody;
use platform::{ApiError, Clock};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::ToSchema;

use crate::{deliver, read_body, shipper, AppState, Protobuf};

/// The route.
pub const PATH: &str = "/loki/api/v1/push";
/// The header of Loki's tenant.
const TENANT_HEADER: &str = "x-scope-orgid";

/// The API gateway's own refusal, answered before the function sees the request.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct GatewayRefusal {
    /// `Request Entity Too Large`
    message: String,
}

/// A JSON push: streams of labels and entries.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct LokiPush {
    /// At most 1,000 streams, and at most 10,000 entries in all.
    #[schema(max_items = 1000)]
    streams: Vec<LokiStream>,
}

/// One stream: its labels and its entries.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct LokiStream {
    /// The stream's labels (at least one; at most 64, names 1 to 128 characters, values at
    /// most 2,048). The service is the first of `service_name`, `service`, `app`,
    /// `application`, `job` (`LOKI_SERVICE_LABELS`), the severity `level`, `detected_level`,
    /// `severity` or `lvl`, the type `type` or `log_type`.
    #[schema(schema_with = labels_schema)]
    stream: (),
    /// `[timestamp, line, structuredMetadata?]`: nanoseconds since the epoch as a string,
    /// the log line (cut to 16,384 characters), and the entry's own labels. Absent or null:
    /// no entries.
    #[schema(schema_with = values_schema, required = false)]
    values: (),
}

fn labels_schema() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .min_properties(Some(1))
        .max_properties(Some(64))
        .property_names(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(128)),
        ))
        .additional_properties(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(2048)),
        ))
        .into()
}

fn values_schema() -> ArrayBuilder {
    let entry = ArrayBuilder::new()
        .min_items(Some(2))
        .max_items(Some(3))
        .prefix_items([
            Schema::from(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some("^[0-9]{18,19}$"))
                    .description(Some("Nanoseconds since the epoch")),
            ),
            Schema::from(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .min_length(Some(1))
                    .pattern(Some("\\S"))
                    .description(Some("The log line")),
            ),
            labels_schema(),
        ]);
    // Absent or null is a stream without entries, as Loki's decoder takes it.
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(entry)
        .max_items(Some(10_000))
}

/// Accepts a Loki push: a snappy-compressed `logproto.PushRequest` or its JSON form.
#[utoipa::path(
    post,
    path = "/loki/api/v1/push",
    operation_id = "lokiPush",
    tag = "incidents",
    request_body(
        description = "`application/x-protobuf` (the default): a snappy block (not framed) of a `logproto.PushRequest`; `application/json`: the streams as JSON. Either may be `Content-Encoding: gzip` or `deflate`. At most 6 MiB as sent and 16 MiB decompressed; `X-Scope-OrgID` is kept as the `tenant` attribute.",
        content(
            (Protobuf = "application/x-protobuf"),
            (LokiPush = "application/json")
        )
    ),
    security(("ingestApiKey" = []), ("ingestBasic" = []), ("ingestBearer" = [])),
    responses(
        (status = 204, description = "Every entry is on the ingest queue"),
        (status = 400, description = "The body is not what its type says (nothing taken), or some streams or entries were refused (the rest are taken): each reason on its line", body = String, content_type = "text/plain"),
        (status = 401, description = "No valid ingest key", body = String, content_type = "text/plain"),
        (status = 403, description = "The key is bound to services the entries go beyond; nothing was taken", body = String, content_type = "text/plain"),
        (status = 413, description = "Over 16 MiB decompressed, 1,000 streams or 10,000 entries (plain text), or over 6 MiB sent (the API gateway's own JSON, before the function)", content((String = "text/plain"), (GatewayRefusal = "application/json"))),
        (status = 429, description = "The key's rate limit is spent; retry after `Retry-After` seconds", body = String, content_type = "text/plain"),
        (status = 503, description = "The ingest queue did not take every entry, or the key could not be checked: nothing is acknowledged, retry", body = String, content_type = "text/plain"),
    )
)]
pub(crate) async fn push(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    match take(&state, &headers, body).await {
        Ok(None) => StatusCode::NO_CONTENT.into_response(),
        Ok(Some(refusal)) => text(StatusCode::BAD_REQUEST, &refusal, None),
        Err(error) => {
            let mut message = error.message.clone();
            for detail in &error.details {
                message.push('\n');
                message.push_str(detail);
            }
            text(error.status(), &message, error.retry_after())
        }
    }
}

/// Takes what the push holds; `Some(reasons)` when streams or entries were refused.
async fn take(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<Option<String>, ApiError> {
    let sender = shipper(state, headers).await?;
    let raw = read_body(body, MAX_SHIPPED_BODY_BYTES)
        .await
        .map_err(body_error)?;
    let header_text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let encoding = header_text(header::CONTENT_ENCODING.as_str());
    let Some(encoding) = Encoding::parse(encoding, true) else {
        return Err(ApiError::bad_request(format!(
            "Content-Encoding {:?} not supported",
            encoding.unwrap_or_default()
        )));
    };
    let decoded = encoding.decode(&raw).map_err(body_error)?;
    let now = Clock::system().now();
    let tenant = header_text(TENANT_HEADER);
    let shipment = match platform::http::media_type(headers).as_deref() {
        Some("application/json") => loki::json_logs(&decoded, &state.loki, tenant, now),
        // As Loki: any other type (or none) is a snappy-compressed protobuf.
        _ => loki::decode_protobuf(&decoded)
            .and_then(|request| loki::protobuf_logs(request, &state.loki, tenant, now)),
    }
    .map_err(body_error)?;
    let refusal = shipment.refusal();
    let taken = shipment.logs.len();
    deliver(state, &sender, shipment.logs, true, now)
        .await
        .map_err(|e| with_plain_details(e, taken))?;
    Ok(refusal)
}

/// A bound key's refusal in words a shipper's log shows (`[i].serviceName` means nothing to
/// Promtail's reader).
fn with_plain_details(mut error: ApiError, taken: usize) -> ApiError {
    if error.kind == platform::ErrorKind::Forbidden {
        let mut services: Vec<String> = error
            .details
            .iter()
            .filter_map(|d| d.rsplit_once("may not send ").map(|(_, s)| s.to_string()))
            .collect();
        services.sort();
        services.dedup();
        error.message = format!(
            "this ingest key may not send {}; none of the {taken} entries was taken",
            services.join(", ")
        );
        error.details.clear();
    }
    error
}

fn body_error(error: BodyError) -> ApiError {
    match error {
        BodyError::TooLarge(reason) => ApiError::new(platform::ErrorKind::PayloadTooLarge, reason),
        BodyError::Malformed(reason) => ApiError::bad_request(reason),
    }
}

/// A plain-text answer, as Loki's `http.Error` writes it.
fn text(status: StatusCode, message: &str, retry_after: Option<u32>) -> Response {
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{message}\n"),
    )
        .into_response();
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response.extensions_mut().insert(OwnErrorBody);
    response
}
