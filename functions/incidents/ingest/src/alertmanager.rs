//! `POST /api/v1/integrations/alertmanager`: Prometheus Alertmanager's webhook receiver.
//! Each alert of a notification is one log (`incidents::input::alertmanager`): a firing one
//! opens or updates the incident of its fingerprint, a resolved one resolves it. Answered
//! 200 once every log is on the ingest queue, as Alertmanager expects; it retries a 5xx
//! (and a 429), not a 4xx.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use incidents::input::alertmanager::parse_alertmanager;
use incidents::model::IngestAccepted;
use platform::openapi::ErrorBody;
use platform::{ApiError, Clock};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::{check_content_type, deliver, shipper, AppState, KeyLimited};

pub const PATH: &str = "/api/v1/integrations/alertmanager";

/// Alertmanager's webhook notification (payload version 4), as its webhook receiver sends it.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(
    dead_code,
    reason = "the contract's shape of the body, which the domain parses"
)]
pub struct AlertmanagerNotification {
    /// `"4"`.
    #[schema(pattern = "^4$", example = "4")]
    version: Option<String>,
    group_key: Option<String>,
    truncated_alerts: Option<u64>,
    /// `firing` while any alert of the group fires.
    #[schema(example = "firing")]
    status: Option<String>,
    /// The receiver's name: the service of alerts without a `service`, `job` or `app` label.
    receiver: Option<String>,
    group_labels: Option<BTreeMap<String, String>>,
    common_labels: Option<BTreeMap<String, String>>,
    common_annotations: Option<BTreeMap<String, String>>,
    #[serde(rename = "externalURL")]
    #[schema(rename = "externalURL")]
    external_url: Option<String>,
    /// At most 500 (Alertmanager's `max_alerts`).
    #[schema(max_items = 500)]
    alerts: Vec<AlertmanagerAlert>,
}

/// One alert of a notification.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(
    dead_code,
    reason = "the contract's shape of the body, which the domain parses"
)]
pub struct AlertmanagerAlert {
    #[schema(pattern = "^(firing|resolved)$", example = "firing")]
    status: String,
    /// The alert's labels: `service`, `job` or `app` name its service, `severity` its
    /// severity; all kept in the log's `attributes`.
    labels: BTreeMap<String, String>,
    /// `summary` (else `description`) is the log's message; kept as `annotations.{name}`.
    annotations: Option<BTreeMap<String, String>>,
    #[schema(format = DateTime)]
    starts_at: String,
    /// Alertmanager sends `0001-01-01T00:00:00Z` while it fires; empty is taken as no end too.
    #[schema(format = DateTime)]
    ends_at: Option<String>,
    #[serde(rename = "generatorURL")]
    #[schema(rename = "generatorURL")]
    generator_url: Option<String>,
    /// Alertmanager's hash of the labels: one incident per fingerprint.
    #[schema(pattern = "^[0-9A-Za-z]{1,64}$", example = "3f1e2d4c5b6a7988")]
    fingerprint: Option<String>,
}

/// Receives an Alertmanager webhook notification: each firing alert opens or updates the
/// incident of its fingerprint, each resolved alert resolves it; the same alert sent again
/// (every `repeat_interval`) changes nothing.
#[utoipa::path(
    post,
    path = "/api/v1/integrations/alertmanager",
    operation_id = "receiveAlertmanagerWebhook",
    tag = "incidents",
    request_body = AlertmanagerNotification,
    security(("ingestBearer" = []), ("ingestBasic" = []), ("ingestApiKey" = [])),
    responses(
        (status = 200, description = "Every alert is on the ingest queue (one log each, ids in the order sent)", body = IngestAccepted),
        (status = 400, description = "Not an Alertmanager notification (`details` name each field, `alerts[i].field`), or more than 500 alerts", body = ErrorBody),
        (status = 401, description = "No ingest key (Bearer, Basic password or X-Api-Key), or not a known one", body = ErrorBody),
        (status = 403, description = "The key is bound to services some alerts are not of", body = ErrorBody),
        (status = 413, description = "The body is over 6 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        KeyLimited,
        (status = 503, description = "The ingest queue did not take every alert, or the key could not be checked: Alertmanager retries", body = ErrorBody),
    )
)]
pub async fn receive(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, axum::Json<IngestAccepted>), ApiError> {
    let sender = shipper(&state, &headers).await?;
    check_content_type(&headers)?;
    let value: serde_json::Value = platform::http::parse_json(&body)?;
    let now = Clock::system().now();
    let inputs = parse_alertmanager(&value, now).map_err(ApiError::from)?;
    // A key bound to services: beyond them nothing is taken (403, `[i].serviceName`).
    let logs = deliver(&state, &sender, inputs, true, now).await?;
    Ok((
        StatusCode::OK,
        axum::Json(IngestAccepted {
            accepted: logs.len(),
            ids: logs.into_iter().map(|l| l.id).collect(),
        }),
    ))
}
