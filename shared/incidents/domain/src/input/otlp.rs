//! OTLP/HTTP logs (`POST /otlp/v1/logs`): an `ExportLogsServiceRequest` in binary protobuf
//! (`application/x-protobuf`) or in OTLP's JSON mapping (`application/json`: lowerCamelCase
//! keys, trace and span ids in hex, 64-bit integers as strings or numbers, enums as
//! integers), and the answers the specification asks for: an `ExportLogsServiceResponse`
//! (with `partial_success` when records were refused) or a `google.rpc.Status`, each in the
//! request's encoding.
//!
//! A record's service is its resource's `service.name`; its severity the `SeverityNumber`'s
//! range (1-4 TRACE ... 21-24 FATAL), else its `SeverityText`, else INFO; its type its
//! `event_name`, else `APPLICATION_LOG`; its attributes the record's, then its scope's name
//! (`otel.scope.name`), then its resource's, fitted to the log's bounds as OpenTelemetry's
//! attribute limits do (the count dropped or cut is said in `error_message`); its body a string
//! as it is, any other value as JSON.

use std::collections::BTreeMap;

use base64::Engine;
use chrono::{DateTime, Utc};
use prost::Message;
use serde::de::{self, Deserializer};
use serde::Deserialize;
use serde_json::Value;

use super::shipped::{
    fit_attributes, level_severity, shipped_time, BodyError, Shipment, Shipped, MAX_SHIPPED_LOGS,
};
use crate::model::Severity;

/// The attribute a record's instrumentation scope is kept in.
pub const SCOPE_ATTRIBUTE: &str = "otel.scope.name";

/// `ExportLogsServiceRequest`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExportLogsServiceRequest {
    #[prost(message, repeated, tag = "1")]
    pub resource_logs: Vec<ResourceLogs>,
}

/// `ResourceLogs`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceLogs {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_logs: Vec<ScopeLogs>,
    #[prost(string, tag = "3")]
    pub schema_url: String,
}

/// `Resource`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "2")]
    pub dropped_attributes_count: u32,
}

/// `ScopeLogs`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScopeLogs {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub log_records: Vec<LogRecord>,
    #[prost(string, tag = "3")]
    pub schema_url: String,
}

/// `InstrumentationScope`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InstrumentationScope {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub version: String,
    #[prost(message, repeated, tag = "3")]
    pub attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "4")]
    pub dropped_attributes_count: u32,
}

/// `LogRecord`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LogRecord {
    #[prost(fixed64, tag = "1")]
    #[serde(deserialize_with = "json_u64")]
    pub time_unix_nano: u64,
    #[prost(fixed64, tag = "11")]
    #[serde(deserialize_with = "json_u64")]
    pub observed_time_unix_nano: u64,
    #[prost(int32, tag = "2")]
    pub severity_number: i32,
    #[prost(string, tag = "3")]
    pub severity_text: String,
    #[prost(message, optional, tag = "5")]
    pub body: Option<AnyValue>,
    #[prost(message, repeated, tag = "6")]
    pub attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "7")]
    pub dropped_attributes_count: u32,
    #[prost(fixed32, tag = "8")]
    pub flags: u32,
    #[prost(bytes = "vec", tag = "9")]
    #[serde(deserialize_with = "json_hex")]
    pub trace_id: Vec<u8>,
    #[prost(bytes = "vec", tag = "10")]
    #[serde(deserialize_with = "json_hex")]
    pub span_id: Vec<u8>,
    #[prost(string, tag = "12")]
    pub event_name: String,
}

/// `KeyValue`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KeyValue {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// `AnyValue`: one of its values (absent: empty).
#[derive(Clone, PartialEq, Message)]
pub struct AnyValue {
    #[prost(oneof = "Value_", tags = "1, 2, 3, 4, 5, 6, 7")]
    pub value: Option<Value_>,
}

/// `AnyValue.value`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value_ {
    #[prost(string, tag = "1")]
    StringValue(String),
    #[prost(bool, tag = "2")]
    BoolValue(bool),
    #[prost(int64, tag = "3")]
    IntValue(i64),
    #[prost(double, tag = "4")]
    DoubleValue(f64),
    #[prost(message, tag = "5")]
    ArrayValue(ArrayValue),
    #[prost(message, tag = "6")]
    KvlistValue(KeyValueList),
    #[prost(bytes, tag = "7")]
    BytesValue(Vec<u8>),
}

/// `ArrayValue`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(default)]
pub struct ArrayValue {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<AnyValue>,
}

/// `KeyValueList`.
#[derive(Clone, PartialEq, Message, Deserialize)]
#[serde(default)]
pub struct KeyValueList {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<KeyValue>,
}

/// `ExportLogsServiceResponse`.
#[derive(Clone, PartialEq, Message)]
pub struct ExportLogsServiceResponse {
    #[prost(message, optional, tag = "1")]
    pub partial_success: Option<ExportLogsPartialSuccess>,
}

/// `ExportLogsPartialSuccess`.
#[derive(Clone, PartialEq, Message)]
pub struct ExportLogsPartialSuccess {
    #[prost(int64, tag = "1")]
    pub rejected_log_records: i64,
    #[prost(string, tag = "2")]
    pub error_message: String,
}

/// `google.rpc.Status`.
#[derive(Clone, PartialEq, Message)]
pub struct Status {
    #[prost(int32, tag = "1")]
    pub code: i32,
    #[prost(string, tag = "2")]
    pub message: String,
    #[prost(message, repeated, tag = "3")]
    pub details: Vec<Any>,
}

/// `google.protobuf.Any`.
#[derive(Clone, PartialEq, Message)]
pub struct Any {
    #[prost(string, tag = "1")]
    pub type_url: String,
    #[prost(bytes = "vec", tag = "2")]
    pub value: Vec<u8>,
}

/// `google.rpc.BadRequest`.
#[derive(Clone, PartialEq, Message)]
pub struct BadRequest {
    #[prost(message, repeated, tag = "1")]
    pub field_violations: Vec<FieldViolation>,
}

/// `google.rpc.BadRequest.FieldViolation`.
#[derive(Clone, PartialEq, Message)]
pub struct FieldViolation {
    #[prost(string, tag = "1")]
    pub field: String,
    #[prost(string, tag = "2")]
    pub description: String,
}

const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";

/// A 64-bit integer of OTLP JSON: a decimal string or a number.
fn json_u64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(0),
        Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| de::Error::custom(format!("{n} is not an unsigned 64-bit integer"))),
        Value::String(s) => s
            .trim()
            .parse()
            .map_err(|_| de::Error::custom(format!("{s:?} is not an unsigned 64-bit integer"))),
        other => Err(de::Error::custom(format!(
            "{other} is not an unsigned 64-bit integer"
        ))),
    }
}

/// A trace or span id of OTLP JSON: hex, any case (empty: none). Hex that is not is kept as
/// one byte, so the record (not the request) is refused for it.
fn json_hex<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    let raw = Option::<String>::deserialize(deserializer)?.unwrap_or_default();
    if raw.len() % 2 != 0 || !raw.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(vec![0xff]);
    }
    Ok((0..raw.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(&raw[i..i + 2], 16).ok())
        .collect())
}

impl<'de> Deserialize<'de> for AnyValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = match Value::deserialize(deserializer)? {
            Value::Object(object) => object,
            Value::Null => return Ok(Self { value: None }),
            other => {
                return Err(de::Error::custom(format!(
                    "an AnyValue must be an object, not {other}"
                )))
            }
        };
        let value = if let Some(v) = object.get("stringValue") {
            Value_::StringValue(
                v.as_str()
                    .ok_or_else(|| de::Error::custom("stringValue must be a string"))?
                    .to_string(),
            )
        } else if let Some(v) = object.get("boolValue") {
            Value_::BoolValue(
                v.as_bool()
                    .ok_or_else(|| de::Error::custom("boolValue must be a boolean"))?,
            )
        } else if let Some(v) = object.get("intValue") {
            Value_::IntValue(
                match v {
                    Value::Number(n) => n.as_i64(),
                    Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                }
                .ok_or_else(|| de::Error::custom("intValue must be a 64-bit integer"))?,
            )
        } else if let Some(v) = object.get("doubleValue") {
            Value_::DoubleValue(
                match v {
                    Value::Number(n) => n.as_f64(),
                    Value::String(s) => match s.as_str() {
                        "NaN" => Some(f64::NAN),
                        "Infinity" => Some(f64::INFINITY),
                        "-Infinity" => Some(f64::NEG_INFINITY),
                        other => other.parse().ok(),
                    },
                    _ => None,
                }
                .ok_or_else(|| de::Error::custom("doubleValue must be a number"))?,
            )
        } else if let Some(v) = object.get("arrayValue") {
            Value_::ArrayValue(ArrayValue::deserialize(v).map_err(de::Error::custom)?)
        } else if let Some(v) = object.get("kvlistValue") {
            Value_::KvlistValue(KeyValueList::deserialize(v).map_err(de::Error::custom)?)
        } else if let Some(v) = object.get("bytesValue") {
            let raw = v
                .as_str()
                .ok_or_else(|| de::Error::custom("bytesValue must be base64"))?;
            let engine = base64::engine::general_purpose::STANDARD;
            let url = base64::engine::general_purpose::URL_SAFE;
            Value_::BytesValue(
                engine
                    .decode(raw)
                    .or_else(|_| url.decode(raw))
                    .map_err(|_| de::Error::custom("bytesValue must be base64"))?,
            )
        } else {
            return Ok(Self { value: None });
        };
        Ok(Self { value: Some(value) })
    }
}

/// A binary protobuf request.
pub fn decode_protobuf(body: &[u8]) -> Result<ExportLogsServiceRequest, BodyError> {
    ExportLogsServiceRequest::decode(body)
        .map_err(|e| BodyError::Malformed(format!("body is not an ExportLogsServiceRequest: {e}")))
}

/// A JSON request (OTLP's JSON mapping).
pub fn decode_json(body: &[u8]) -> Result<ExportLogsServiceRequest, BodyError> {
    // serde would take an array for a message too (its fields in order).
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(BodyError::Malformed(
            "body is not an ExportLogsServiceRequest in OTLP JSON: not a JSON object".into(),
        ));
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        BodyError::Malformed(format!(
            "body is not an ExportLogsServiceRequest in OTLP JSON: {path}: {}",
            e.into_inner()
        ))
    })
}

/// An attribute's value as the log keeps it: a string as it is, a number or boolean as
/// written, bytes in base64, an array or a map as JSON.
pub fn any_text(value: &AnyValue) -> String {
    match &value.value {
        None => String::new(),
        Some(Value_::StringValue(s)) => s.clone(),
        Some(other) => json_of(other).to_string().trim_matches('"').to_string(),
    }
}

fn json_of(value: &Value_) -> Value {
    match value {
        Value_::StringValue(s) => Value::String(s.clone()),
        Value_::BoolValue(b) => Value::Bool(*b),
        Value_::IntValue(i) => Value::from(*i),
        Value_::DoubleValue(d) => serde_json::Number::from_f64(*d)
            .map_or_else(|| Value::String(d.to_string()), Value::Number),
        Value_::BytesValue(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
        Value_::ArrayValue(a) => Value::Array(
            a.values
                .iter()
                .map(|v| v.value.as_ref().map_or(Value::Null, json_of))
                .collect(),
        ),
        Value_::KvlistValue(list) => Value::Object(
            list.values
                .iter()
                .map(|kv| {
                    (
                        kv.key.clone(),
                        kv.value
                            .as_ref()
                            .and_then(|v| v.value.as_ref())
                            .map_or(Value::Null, json_of),
                    )
                })
                .collect(),
        ),
    }
}

/// The severity of a `SeverityNumber` (1-24), else of a `SeverityText`.
pub fn record_severity(number: i32, text: &str) -> Option<Severity> {
    match number {
        1..=4 => Some(Severity::Trace),
        5..=8 => Some(Severity::Debug),
        9..=12 => Some(Severity::Info),
        13..=16 => Some(Severity::Warn),
        17..=20 => Some(Severity::Error),
        21..=24 => Some(Severity::Fatal),
        _ => level_severity(text),
    }
}

fn id_hex(raw: &[u8], bytes: usize, name: &str) -> Result<Option<String>, String> {
    if raw.is_empty() || raw.iter().all(|b| *b == 0) {
        return Ok(None);
    }
    if raw.len() != bytes {
        return Err(format!("has a {name} that is not {bytes} bytes"));
    }
    Ok(Some(raw.iter().map(|b| format!("{b:02x}")).collect()))
}

/// Every record made a log; a record out of bounds refused alone (counted for
/// `partial_success`).
pub fn logs(request: ExportLogsServiceRequest, now: DateTime<Utc>) -> Result<Shipment, BodyError> {
    let records: usize = request
        .resource_logs
        .iter()
        .flat_map(|r| &r.scope_logs)
        .map(|s| s.log_records.len())
        .sum();
    if records > MAX_SHIPPED_LOGS {
        return Err(BodyError::TooLarge(format!(
            "the request has {records} log records; limit {MAX_SHIPPED_LOGS} (send smaller batches)"
        )));
    }
    let mut shipment = Shipment::default();
    for resource_logs in request.resource_logs {
        let resource: Vec<(String, String)> = resource_logs
            .resource
            .map(|r| r.attributes)
            .unwrap_or_default()
            .into_iter()
            .map(|kv| (kv.key, kv.value.as_ref().map(any_text).unwrap_or_default()))
            .collect();
        let service = resource
            .iter()
            .find(|(key, value)| key == "service.name" && !value.trim().is_empty())
            .map(|(_, value)| value.clone());
        for scope_logs in resource_logs.scope_logs {
            let scope = scope_logs
                .scope
                .map(|s| s.name)
                .filter(|name| !name.is_empty());
            for (i, record) in scope_logs.log_records.into_iter().enumerate() {
                match record_log(record, service.as_deref(), scope.as_deref(), &resource, now) {
                    Ok((log, fitted)) => {
                        shipment.attributes_fitted += fitted;
                        shipment.logs.push(log);
                    }
                    Err(reason) => shipment.reject(
                        1,
                        format!(
                            "log record {i} of {} {reason}",
                            service.as_deref().unwrap_or("unknown_service")
                        ),
                    ),
                }
            }
        }
    }
    Ok(shipment)
}

fn record_log(
    record: LogRecord,
    service: Option<&str>,
    scope: Option<&str>,
    resource: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<(super::LogInput, usize), String> {
    // The specification: a record without a time happened when it was observed.
    let nanos = match (record.time_unix_nano, record.observed_time_unix_nano) {
        (0, 0) => None,
        (0, observed) => Some(observed),
        (time, _) => Some(time),
    };
    let timestamp = nanos
        .map(|n| shipped_time(i128::from(n), now).map_err(|e| format!("has a time that {e}")))
        .transpose()?;
    let trace_id = id_hex(&record.trace_id, 16, "traceId")?;
    let span_id = id_hex(&record.span_id, 8, "spanId")?;
    let line = match record.body.as_ref() {
        Some(body) if body.value.is_some() => match &body.value {
            Some(Value_::StringValue(s)) => s.clone(),
            Some(other) => json_of(other).to_string(),
            None => String::new(),
        },
        _ => record.event_name.clone(),
    };
    let given = record
        .attributes
        .into_iter()
        .map(|kv| (kv.key, kv.value.as_ref().map(any_text).unwrap_or_default()))
        .chain(scope.map(|s| (SCOPE_ATTRIBUTE.to_string(), s.to_string())))
        .chain(resource.iter().cloned());
    let (attributes, fitted): (BTreeMap<String, String>, usize) = fit_attributes(given);
    let log = Shipped {
        service: service.map(str::to_string),
        log_type: Some(record.event_name).filter(|name| !name.trim().is_empty()),
        severity: record_severity(record.severity_number, &record.severity_text),
        line,
        timestamp,
        attributes,
        trace_id,
        span_id,
        source: crate::model::LogSource::Otlp,
    }
    .into_input(now)
    .map_err(|reason| match reason.as_str() {
        "has an empty line" => "has an empty body".to_string(),
        _ => reason,
    })?;
    Ok((log, fitted))
}

/// The `error_message` of a partial success: why records were refused, and the attributes
/// dropped or cut (a warning when nothing was refused); `None` when there is nothing to say.
pub fn partial_success(shipment: &Shipment) -> Option<ExportLogsPartialSuccess> {
    let mut message: Vec<String> = shipment.refusal().into_iter().collect();
    if shipment.attributes_fitted > 0 {
        message.push(format!(
            "{} attribute(s) dropped or cut to the limits: at most 64 a record, names of 1 to 128 characters, values of at most 2,048",
            shipment.attributes_fitted
        ));
    }
    if message.is_empty() {
        return None;
    }
    Some(ExportLogsPartialSuccess {
        rejected_log_records: i64::try_from(shipment.rejected).unwrap_or(i64::MAX),
        error_message: message.join("\n"),
    })
}

/// An `ExportLogsServiceResponse` in OTLP JSON.
pub fn response_json(partial: Option<&ExportLogsPartialSuccess>) -> Value {
    match partial {
        None => serde_json::json!({}),
        Some(p) => serde_json::json!({"partialSuccess": {
            "rejectedLogRecords": p.rejected_log_records.to_string(),
            "errorMessage": p.error_message,
        }}),
    }
}

/// The gRPC code of an HTTP failure (what `Status.code` says beside it).
pub fn grpc_code(status: u16) -> i32 {
    match status {
        400 => 3,
        401 => 16,
        403 => 7,
        404 => 5,
        413 | 429 => 8,
        415 => 3,
        503 => 14,
        _ => 13,
    }
}

/// A `google.rpc.Status`, with a `BadRequest` naming the bad data for a 400.
pub fn status(http: u16, message: &str, violations: &[(String, String)]) -> Status {
    let details = if violations.is_empty() {
        Vec::new()
    } else {
        vec![Any {
            type_url: BAD_REQUEST_TYPE.to_string(),
            value: BadRequest {
                field_violations: violations
                    .iter()
                    .map(|(field, description)| FieldViolation {
                        field: field.clone(),
                        description: description.clone(),
                    })
                    .collect(),
            }
            .encode_to_vec(),
        }]
    };
    Status {
        code: grpc_code(http),
        message: message.to_string(),
        details,
    }
}

/// A `google.rpc.Status` in JSON (an `Any` as `{"@type", ...fields}`).
pub fn status_json(status: &Status) -> Value {
    let details: Vec<Value> = status
        .details
        .iter()
        .filter_map(|any| {
            let bad = BadRequest::decode(any.value.as_slice()).ok()?;
            Some(serde_json::json!({
                "@type": any.type_url,
                "fieldViolations": bad.field_violations.iter().map(|v| serde_json::json!({
                    "field": v.field, "description": v.description
                })).collect::<Vec<_>>(),
            }))
        })
        .collect();
    if details.is_empty() {
        serde_json::json!({"code": status.code, "message": status.message})
    } else {
        serde_json::json!({"code": status.code, "message": status.message, "details": details})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 3, 7, 0, 0)
            .single()
            .unwrap_or_default()
    }

    fn kv(key: &str, value: &str) -> KeyValue {
        KeyValue {
            key: key.into(),
            value: Some(AnyValue {
                value: Some(Value_::StringValue(value.into())),
            }),
        }
    }

    #[test]
    fn a_protobuf_export_becomes_logs() {
        let at = u64::try_from(now().timestamp()).unwrap_or(0) * 1_000_000_000 - 7;
        let request = ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                resource: Some(Resource {
                    attributes: vec![kv("service.name", "checkout"), kv("host.name", "h1")],
                    dropped_attributes_count: 0,
                }),
                scope_logs: vec![ScopeLogs {
                    scope: Some(InstrumentationScope {
                        name: "io.checkout".into(),
                        ..Default::default()
                    }),
                    log_records: vec![
                        LogRecord {
                            time_unix_nano: at,
                            severity_number: 17,
                            severity_text: "Error".into(),
                            body: Some(AnyValue {
                                value: Some(Value_::StringValue("card declined".into())),
                            }),
                            attributes: vec![
                                kv("host.name", "record-wins"),
                                KeyValue {
                                    key: "retries".into(),
                                    value: Some(AnyValue {
                                        value: Some(Value_::IntValue(3)),
                                    }),
                                },
                            ],
                            trace_id: vec![0x4b; 16],
                            span_id: vec![0x0f; 8],
                            ..Default::default()
                        },
                        LogRecord {
                            observed_time_unix_nano: at,
                            severity_text: "WARNING".into(),
                            body: Some(AnyValue {
                                value: Some(Value_::KvlistValue(KeyValueList {
                                    values: vec![kv("msg", "slow")],
                                })),
                            }),
                            ..Default::default()
                        },
                        LogRecord {
                            trace_id: vec![1, 2, 3],
                            body: Some(AnyValue {
                                value: Some(Value_::StringValue("x".into())),
                            }),
                            ..Default::default()
                        },
                        LogRecord::default(),
                    ],
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            }],
        };
        let decoded = decode_protobuf(&request.encode_to_vec()).unwrap();
        let shipment = logs(decoded, now()).unwrap();
        assert_eq!(shipment.logs.len(), 2);
        assert_eq!(shipment.rejected, 2);
        let first = &shipment.logs[0];
        assert_eq!(first.service_name, "checkout");
        assert_eq!(first.severity, Severity::Error);
        assert_eq!(first.attributes["host.name"], "record-wins");
        assert_eq!(first.attributes["retries"], "3");
        assert_eq!(first.attributes[SCOPE_ATTRIBUTE], "io.checkout");
        assert_eq!(first.trace_id.as_deref(), Some("4b".repeat(16).as_str()));
        assert_eq!(first.span_id.as_deref(), Some("0f".repeat(8).as_str()));
        assert_eq!(first.timestamp.timestamp_subsec_nanos(), 999_999_993);
        let second = &shipment.logs[1];
        assert_eq!(second.severity, Severity::Warn);
        assert_eq!(second.log_content, r#"{"msg":"slow"}"#);
        let partial = partial_success(&shipment).unwrap();
        assert_eq!(partial.rejected_log_records, 2);
        assert!(partial
            .error_message
            .contains("traceId that is not 16 bytes"));
        assert!(partial.error_message.contains("empty body"));
        assert!(decode_protobuf(b"\xff\xff\xff\xff").is_err());
    }

    #[test]
    fn the_json_mapping_as_the_collector_writes_it() {
        let at = (now().timestamp() * 1_000_000_000).to_string();
        let body = json!({"resourceLogs": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "orders"}}]},
            "scopeLogs": [{"scope": {"name": "s"}, "logRecords": [
                {"timeUnixNano": at, "severityNumber": 21, "body": {"stringValue": "oom"},
                 "traceId": "5B8EFFF798038103D269B633813FC60C", "spanId": "EEE19B7EC3C1B174",
                 "attributes": [
                    {"key": "b", "value": {"boolValue": true}},
                    {"key": "d", "value": {"doubleValue": 637.704}},
                    {"key": "i", "value": {"intValue": "10"}},
                    {"key": "a", "value": {"arrayValue": {"values": [{"stringValue": "x"}, {"intValue": 2}]}}},
                    {"key": "y", "value": {"bytesValue": "aGk="}}
                 ], "unknownField": 1},
                {"timeUnixNano": 1, "body": {"stringValue": "ancient"}},
                {"timeUnixNano": at, "traceId": "zz", "body": {"stringValue": "bad id"}}
            ]}]
        }]});
        let request = decode_json(body.to_string().as_bytes()).unwrap();
        let shipment = logs(request, now()).unwrap();
        assert_eq!(shipment.logs.len(), 1);
        assert_eq!(shipment.rejected, 2);
        let log = &shipment.logs[0];
        assert_eq!(log.severity, Severity::Fatal);
        assert_eq!(
            log.trace_id.as_deref(),
            Some("5b8efff798038103d269b633813fc60c")
        );
        assert_eq!(log.span_id.as_deref(), Some("eee19b7ec3c1b174"));
        assert_eq!(log.attributes["b"], "true");
        assert_eq!(log.attributes["d"], "637.704");
        assert_eq!(log.attributes["i"], "10");
        assert_eq!(log.attributes["a"], r#"["x",2]"#);
        assert_eq!(log.attributes["y"], "aGk=");
        assert_eq!(
            response_json(partial_success(&shipment).as_ref())["partialSuccess"]
                ["rejectedLogRecords"],
            "2"
        );
        assert_eq!(response_json(None), json!({}));
        for bad in [
            json!([]),
            json!({"resourceLogs": 5}),
            json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [{"severityNumber": "SEVERITY_NUMBER_ERROR"}]}]}]}),
            json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [{"timeUnixNano": "soon"}]}]}]}),
        ] {
            assert!(decode_json(bad.to_string().as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn failures_are_statuses() {
        let s = status(400, "bad", &[("body".into(), "not protobuf".into())]);
        let back = Status::decode(s.encode_to_vec().as_slice()).unwrap();
        assert_eq!(back.code, 3);
        assert_eq!(back.details[0].type_url, BAD_REQUEST_TYPE);
        let json = status_json(&back);
        assert_eq!(json["details"][0]["fieldViolations"][0]["field"], "body");
        assert_eq!(status_json(&status(429, "slow down", &[]))["code"], 8);
    }
}
