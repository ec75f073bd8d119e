//! Logs: one log or a batch as ingested, and the timeline's query (filters, page, cursor).

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use platform::{FieldErrors, Invalid};
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{
    parse_time, DEFAULT_LIMIT, MAX_ATTRIBUTES, MAX_ATTRIBUTES_BYTES, MAX_ATTRIBUTE_NAME_CHARS,
    MAX_ATTRIBUTE_VALUE_CHARS, MAX_BATCH, MAX_CONTAINS_CHARS, MAX_CONTENT_CHARS, MAX_FUTURE_HOURS,
    MAX_LIMIT, MAX_NAME_CHARS,
};
use crate::fingerprint::{is_client_fingerprint, is_hex_id, MAX_CLIENT_FINGERPRINT_CHARS};
use crate::model::{LogAction, LogSource, Severity};

/// One log as a client sent it, checked; the id and `receivedAt` are added at ingestion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogInput {
    pub service_name: String,
    pub log_type: String,
    pub severity: Severity,
    pub log_content: String,
    pub timestamp: DateTime<Utc>,
    /// The client's grouping key (`fingerprint` or `dedup_key`), checked by
    /// [`crate::fingerprint::is_client_fingerprint`].
    pub fingerprint: Option<String>,
    /// Checked by [`check_attributes`].
    pub attributes: BTreeMap<String, String>,
    /// 32 lower-case hex digits, not all zero.
    pub trace_id: Option<String>,
    /// 16 lower-case hex digits, not all zero.
    pub span_id: Option<String>,
    /// The path it came in by.
    pub source: LogSource,
    /// What it asks of the incident `fingerprint` names (`trigger` for every path but the
    /// integrations).
    pub action: LogAction,
    /// What makes a re-sent event the same event (an Alertmanager alert's fingerprint and
    /// start): its log id is then derived from it, not random, so the processor counts it
    /// once however often it is sent.
    pub event_key: Option<String>,
}

/// A field as the client sent it: absent (or null), a value of its documented type, or a
/// value of another type (then the check names the field with its documented bounds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Given<T> {
    #[default]
    Absent,
    Valid(T),
    Invalid,
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Given<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through `Option`: serde answers an absent field as `None` rather than an error.
        Ok(match Option::<Value>::deserialize(deserializer)? {
            None | Some(Value::Null) => Self::Absent,
            Some(value) => T::deserialize(value).map_or(Self::Invalid, Self::Valid),
        })
    }
}

/// One log as a client sends it.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogSubmission {
    /// 1 to 100 characters, not blank.
    #[schema(value_type = String, min_length = 1, max_length = 100)]
    service_name: Given<String>,
    /// Free text (DEPLOYMENT_LOG, APPLICATION_LOG, ...), 1 to 100 characters, not blank.
    #[serde(rename = "type")]
    #[schema(value_type = String, rename = "type", min_length = 1, max_length = 100)]
    log_type: Given<String>,
    #[schema(value_type = Severity)]
    severity: Given<String>,
    /// 1 to 16384 characters, not blank.
    #[schema(value_type = String, min_length = 1, max_length = 16384)]
    log_content: Given<String>,
    /// When it happened: RFC 3339, in the year 2000 or later and at most 24 hours ahead;
    /// absent: when it was received.
    #[schema(value_type = Option<String>, format = DateTime)]
    timestamp: Given<String>,
    /// The grouping key, used as given: logs of one `serviceName` with one key are one
    /// incident whatever their messages (absent: the default fingerprint). 1 to 200 visible
    /// ASCII characters, no spaces; `dedup_key` is its alias (give one, not both).
    #[schema(
        value_type = Option<String>,
        min_length = 1,
        max_length = 200,
        pattern = "^[!-~]{1,200}$",
        example = "checkout:card-declined"
    )]
    fingerprint: Given<String>,
    /// Alias of `fingerprint` (PagerDuty's name), same bounds.
    #[serde(rename = "dedup_key")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 200, pattern = "^[!-~]{1,200}$")]
    dedup_key: Given<String>,
    /// What the shipper said about the log beside its message (labels, metadata): at most
    /// 64 names of 1 to 128 characters, each a string of at most 2,048 characters, and at most
    /// 65,536 bytes in all as JSON.
    #[schema(schema_with = attributes_schema, required = false)]
    attributes: Given<BTreeMap<String, Value>>,
    /// The W3C trace id the log was written in: 32 lower-case hex digits, not all zero.
    #[schema(value_type = Option<String>, pattern = "^[0-9a-f]{32}$", example = "4bf92f3577b34da6a3ce929d0e0e4736")]
    trace_id: Given<String>,
    /// The span id the log was written in: 16 lower-case hex digits, not all zero.
    #[schema(value_type = Option<String>, pattern = "^[0-9a-f]{16}$", example = "00f067aa0ba902b7")]
    span_id: Given<String>,
    /// A batch's item that is no JSON object.
    #[serde(skip)]
    #[schema(ignore)]
    not_an_object: bool,
}

/// 1 to 500 logs at once.
#[derive(Clone, Debug, ToSchema)]
#[schema(min_items = 1, max_items = 500)]
pub struct LogBatch(Vec<LogSubmission>);

/// One log, or a batch of 1 to 500.
#[derive(Clone, Debug, ToSchema)]
#[serde(untagged)]
pub enum LogsRequest {
    One(Box<LogSubmission>),
    Batch(LogBatch),
}

/// The schema of `attributes`: the bounds [`check_attributes`] enforces but the total size.
pub fn attributes_schema() -> utoipa::openapi::Object {
    use utoipa::openapi::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .max_properties(Some(MAX_ATTRIBUTES))
        .property_names(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(MAX_ATTRIBUTE_NAME_CHARS)),
        ))
        .additional_properties(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(MAX_ATTRIBUTE_VALUE_CHARS)),
        ))
        .build()
}

/// A batch item: a log when it is an object, else one the check refuses by its position.
struct Item(LogSubmission);

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a log")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Item, A::Error> {
        LogSubmission::deserialize(MapAccessDeserializer::new(map)).map(Item)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Item, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Item::not_an_object())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Item, E> {
        Ok(Item::not_an_object())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Item, E> {
        Ok(Item::not_an_object())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Item, E> {
        Ok(Item::not_an_object())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Item, E> {
        Ok(Item::not_an_object())
    }

    fn visit_str<E>(self, _: &str) -> Result<Item, E> {
        Ok(Item::not_an_object())
    }

    fn visit_unit<E>(self) -> Result<Item, E> {
        Ok(Item::not_an_object())
    }

    fn visit_none<E>(self) -> Result<Item, E> {
        Ok(Item::not_an_object())
    }
}

impl Item {
    fn not_an_object() -> Self {
        Self(LogSubmission {
            not_an_object: true,
            ..LogSubmission::default()
        })
    }
}

impl<'de> Deserialize<'de> for LogsRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RequestVisitor)
    }
}

struct RequestVisitor;

impl<'de> Visitor<'de> for RequestVisitor {
    type Value = LogsRequest;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a log object or an array of logs")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LogsRequest, A::Error> {
        LogSubmission::deserialize(MapAccessDeserializer::new(map))
            .map(|log| LogsRequest::One(Box::new(log)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LogsRequest, A::Error> {
        let mut logs = Vec::new();
        while let Some(Item(log)) = seq.next_element()? {
            logs.push(log);
        }
        Ok(LogsRequest::Batch(LogBatch(logs)))
    }
}

impl LogsRequest {
    /// The request a JSON body holds (a body neither an object nor an array is refused).
    pub fn from_json(body: &Value) -> Result<Self, Invalid> {
        Self::deserialize(body)
            .map_err(|_| Invalid::field("body", "must be a log object or an array of logs"))
    }

    /// Whether it is a batch (its fields are named `[i].field`).
    pub fn is_batch(&self) -> bool {
        matches!(self, Self::Batch(_))
    }

    /// The logs, checked: a batch of 1 to [`MAX_BATCH`], each field within its bounds (every
    /// bad field named). A log without `timestamp` happened `now`.
    pub fn check(self, now: DateTime<Utc>) -> Result<Vec<LogInput>, Invalid> {
        let mut errors = FieldErrors::new();
        let logs = match self {
            Self::Batch(LogBatch(items)) => {
                if items.is_empty() {
                    return Err(Invalid::field("body", "must hold at least one log"));
                }
                if items.len() > MAX_BATCH {
                    return Err(Invalid::field(
                        "body",
                        format!("must hold at most {MAX_BATCH} logs"),
                    ));
                }
                items
                    .into_iter()
                    .enumerate()
                    .filter_map(|(i, item)| item.check(&mut errors, &format!("[{i}]."), now))
                    .collect::<Vec<_>>()
            }
            Self::One(log) => log.check(&mut errors, "", now).into_iter().collect(),
        };
        errors.finish()?;
        Ok(logs)
    }
}

impl LogSubmission {
    /// The log, checked, each bad field added to `errors` as `{prefix}{field}`.
    fn check(self, errors: &mut FieldErrors, prefix: &str, now: DateTime<Utc>) -> Option<LogInput> {
        if self.not_an_object {
            let field = if prefix.is_empty() {
                "body".to_string()
            } else {
                prefix.trim_end_matches('.').to_string()
            };
            errors.add(field, "must be a JSON object");
            return None;
        }
        let service_name = name(
            errors,
            prefix,
            "serviceName",
            self.service_name,
            MAX_NAME_CHARS,
        );
        let log_type = name(errors, prefix, "type", self.log_type, MAX_NAME_CHARS);
        let severity = match self.severity {
            Given::Absent => {
                errors.add(format!("{prefix}severity"), "is required");
                None
            }
            given => {
                let parsed = match given {
                    Given::Valid(s) => Severity::parse(s.trim()),
                    _ => None,
                };
                if parsed.is_none() {
                    errors.add(
                        format!("{prefix}severity"),
                        "must be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL",
                    );
                }
                parsed
            }
        };
        let log_content = name(
            errors,
            prefix,
            "logContent",
            self.log_content,
            MAX_CONTENT_CHARS,
        );
        let field = format!("{prefix}timestamp");
        let timestamp = match self.timestamp {
            Given::Absent => Some(now),
            Given::Valid(s) => match parse_time(&field, &s) {
                Ok(at) if at > now + Duration::hours(MAX_FUTURE_HOURS) => {
                    errors.add(
                        field,
                        format!("must not be more than {MAX_FUTURE_HOURS} hours in the future"),
                    );
                    None
                }
                Ok(at) => Some(at),
                Err(e) => {
                    errors.add(e.field, e.reason);
                    None
                }
            },
            Given::Invalid => {
                errors.add(field, "must be an RFC 3339 date-time");
                None
            }
        };
        let fingerprint = client_fingerprint(errors, prefix, self.fingerprint, self.dedup_key);
        let attributes = match self.attributes {
            Given::Absent => Some(BTreeMap::new()),
            Given::Valid(map) => {
                let mut strings = BTreeMap::new();
                let mut bad = None;
                for (name, value) in map {
                    match value {
                        Value::String(v) => {
                            strings.insert(name, v);
                        }
                        _ => bad = Some(name),
                    }
                }
                match bad {
                    Some(name) => {
                        errors.add(
                            format!("{prefix}attributes"),
                            format!("must map names to strings ({name:?} is not a string)"),
                        );
                        None
                    }
                    None => match check_attributes(&strings) {
                        Ok(()) => Some(strings),
                        Err(reason) => {
                            errors.add(format!("{prefix}attributes"), reason);
                            None
                        }
                    },
                }
            }
            Given::Invalid => {
                errors.add(
                    format!("{prefix}attributes"),
                    "must be an object of names to strings",
                );
                None
            }
        };
        let trace_id = hex_id(errors, prefix, "traceId", self.trace_id, 32);
        let span_id = hex_id(errors, prefix, "spanId", self.span_id, 16);
        Some(LogInput {
            source: LogSource::Api,
            action: LogAction::Trigger,
            event_key: None,
            attributes: attributes?,
            trace_id: trace_id?,
            span_id: span_id?,
            fingerprint: fingerprint?,
            service_name: service_name?,
            log_type: log_type?,
            severity: severity?,
            log_content: log_content?,
            timestamp: timestamp?,
        })
    }
}

/// Whether `attributes` are within their bounds: at most [`MAX_ATTRIBUTES`], names 1 to
/// [`MAX_ATTRIBUTE_NAME_CHARS`] characters, values at most [`MAX_ATTRIBUTE_VALUE_CHARS`], at
/// most [`MAX_ATTRIBUTES_BYTES`] as JSON in all (so a log always fits one queue message);
/// else why not.
pub fn check_attributes(attributes: &BTreeMap<String, String>) -> Result<(), String> {
    if attributes.len() > MAX_ATTRIBUTES {
        return Err(format!("must hold at most {MAX_ATTRIBUTES} names"));
    }
    for (name, value) in attributes {
        if !(1..=MAX_ATTRIBUTE_NAME_CHARS).contains(&name.chars().count()) {
            return Err(format!(
                "names must be 1 to {MAX_ATTRIBUTE_NAME_CHARS} characters ({} is not)",
                shown(name)
            ));
        }
        if value.chars().count() > MAX_ATTRIBUTE_VALUE_CHARS {
            return Err(format!(
                "values must be at most {MAX_ATTRIBUTE_VALUE_CHARS} characters ({}'s is not)",
                shown(name)
            ));
        }
    }
    let bytes = serde_json::to_string(attributes).map_or(usize::MAX, |json| json.len());
    if bytes > MAX_ATTRIBUTES_BYTES {
        return Err(format!(
            "must be at most {MAX_ATTRIBUTES_BYTES} bytes as JSON in all"
        ));
    }
    Ok(())
}

/// A name as an error message quotes it: its first 40 characters.
fn shown(name: &str) -> String {
    let short: String = name.chars().take(40).collect();
    format!("{short:?}")
}

/// A trace or span id: `digits` lower-case hex digits, not all zero (W3C Trace Context).
pub fn is_trace_hex(raw: &str, digits: usize) -> bool {
    raw.len() == digits
        && raw.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && raw.bytes().any(|b| b != b'0')
}

/// An optional trace or span id: `Some(None)` when absent, `None` when bad (the error added).
fn hex_id(
    errors: &mut FieldErrors,
    prefix: &str,
    name: &str,
    given: Given<String>,
    digits: usize,
) -> Option<Option<String>> {
    match given {
        Given::Absent => Some(None),
        Given::Valid(id) if is_trace_hex(&id, digits) => Some(Some(id)),
        _ => {
            errors.add(
                format!("{prefix}{name}"),
                format!("must be {digits} lower-case hex digits, not all zero"),
            );
            None
        }
    }
}

/// A required text field: not blank, at most `max` characters; trimmed.
fn name(
    errors: &mut FieldErrors,
    prefix: &str,
    name: &str,
    given: Given<String>,
    max: usize,
) -> Option<String> {
    let field = format!("{prefix}{name}");
    match given {
        Given::Absent => {
            errors.add(field, "is required");
            None
        }
        Given::Valid(s) => {
            let trimmed = s.trim();
            if trimmed.is_empty() {
                errors.add(field, "must not be blank");
                None
            } else if s.chars().count() > max {
                errors.add(field, format!("must be at most {max} characters"));
                None
            } else {
                Some(trimmed.to_string())
            }
        }
        Given::Invalid => {
            errors.add(field, "must be a string");
            None
        }
    }
}

/// A log's grouping key: `fingerprint` or its alias `dedup_key` (not both), visible ASCII;
/// `Some(None)` when neither is given, `None` when one is bad (the error added).
fn client_fingerprint(
    errors: &mut FieldErrors,
    prefix: &str,
    fingerprint: Given<String>,
    dedup_key: Given<String>,
) -> Option<Option<String>> {
    let given: Vec<(&str, Given<String>)> =
        [("fingerprint", fingerprint), ("dedup_key", dedup_key)]
            .into_iter()
            .filter(|(_, value)| *value != Given::Absent)
            .collect();
    match given.as_slice() {
        [] => Some(None),
        [(_, Given::Valid(key))] if is_client_fingerprint(key) => Some(Some(key.clone())),
        [(name, _)] => {
            errors.add(
                format!("{prefix}{name}"),
                format!(
                    "must be 1 to {MAX_CLIENT_FINGERPRINT_CHARS} visible ASCII characters (no spaces)"
                ),
            );
            None
        }
        _ => {
            errors.add(
                format!("{prefix}dedup_key"),
                "must not be given with fingerprint (it is its alias)",
            );
            None
        }
    }
}

/// One log (an object) or a batch (an array of 1 to [`MAX_BATCH`] objects), through
/// [`LogsRequest`]. A log without `timestamp` happened `now`.
pub fn parse_logs(body: &Value, now: DateTime<Utc>) -> Result<Vec<LogInput>, Invalid> {
    LogsRequest::from_json(body)?.check(now)
}

/// A log id: the log's time in milliseconds (13 digits), `-`, 32 lower-case hex digits.
pub fn is_log_id(raw: &str) -> bool {
    let Some((millis, rest)) = raw.split_once('-') else {
        return false;
    };
    millis.len() == 13 && millis.chars().all(|c| c.is_ascii_digit()) && is_hex_id(rest)
}

/// The timeline's filters (`GET` and `DELETE /api/v1/logs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub log_type: Option<String>,
    /// Milliseconds since the epoch, inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<i64>,
    /// Milliseconds since the epoch, inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<i64>,
    /// Text the log's content holds, compared case-insensitively (the timeline only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
}

/// The raw query parameters of the timeline, as strings.
#[derive(Clone, Debug, Default)]
pub struct RawLogQuery {
    pub service_name: Option<String>,
    pub severity: Option<String>,
    pub log_type: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub limit: Option<String>,
    pub cursor: Option<String>,
    pub contains: Option<String>,
}

/// A page request of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogPageRequest {
    pub filter: LogFilter,
    pub limit: usize,
    /// Exclusive upper position: a log id, or 13 digits of milliseconds.
    pub cursor: Option<String>,
}

fn opt_name(errors: &mut FieldErrors, field: &str, raw: Option<String>) -> Option<String> {
    let raw = raw?;
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return None;
    }
    if raw.chars().count() > MAX_NAME_CHARS {
        errors.add(
            field,
            format!("must be at most {MAX_NAME_CHARS} characters"),
        );
        return None;
    }
    Some(trimmed.to_string())
}

/// The `contains` text: 1 to [`MAX_CONTAINS_CHARS`] characters, none a control character,
/// kept as given (spaces too: they are part of what is looked for).
fn contains_text(errors: &mut FieldErrors, raw: Option<&str>) -> Option<String> {
    let raw = raw?;
    let length = raw.chars().count();
    if !(1..=MAX_CONTAINS_CHARS).contains(&length) {
        errors.add(
            "contains",
            format!("must be 1 to {MAX_CONTAINS_CHARS} characters"),
        );
        return None;
    }
    if raw.chars().any(char::is_control) {
        errors.add("contains", "must not hold control characters");
        return None;
    }
    Some(raw.to_string())
}

/// True for a cursor this service gave out: a log id or 13 digits.
pub fn is_cursor(raw: &str) -> bool {
    is_log_id(raw) || (raw.len() == 13 && raw.chars().all(|c| c.is_ascii_digit()))
}

impl RawLogQuery {
    /// The filters alone (`DELETE /api/v1/logs`); `limit` and `cursor` are not read.
    pub fn filter(self) -> Result<LogFilter, Invalid> {
        let mut errors = FieldErrors::new();
        let filter = self.parse_filter(&mut errors);
        errors.finish()?;
        Ok(filter)
    }

    fn parse_filter(&self, errors: &mut FieldErrors) -> LogFilter {
        let severity = self.severity.as_deref().map(str::trim).and_then(|s| {
            let parsed = Severity::parse(s);
            if parsed.is_none() {
                errors.add(
                    "severity",
                    "must be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL",
                );
            }
            parsed
        });
        let mut time = |field: &str, raw: &Option<String>| {
            raw.as_deref()
                .and_then(|s| errors.check(parse_time(field, s)))
                .map(|t| t.timestamp_millis())
        };
        let from = time("from", &self.from);
        let to = time("to", &self.to);
        if let (Some(f), Some(t)) = (from, to) {
            if f > t {
                errors.add("from", "must not be after to");
            }
        }
        LogFilter {
            service_name: opt_name(errors, "serviceName", self.service_name.clone()),
            severity,
            log_type: opt_name(errors, "type", self.log_type.clone()),
            from,
            to,
            contains: contains_text(errors, self.contains.as_deref()),
        }
    }

    pub fn page(self) -> Result<LogPageRequest, Invalid> {
        let mut errors = FieldErrors::new();
        let filter = self.parse_filter(&mut errors);
        let limit = match self.limit.as_deref().map(str::trim) {
            None => DEFAULT_LIMIT,
            Some(raw) => match raw.parse::<usize>() {
                Ok(n) if (1..=MAX_LIMIT).contains(&n) => n,
                _ => {
                    errors.add("limit", format!("must be an integer from 1 to {MAX_LIMIT}"));
                    DEFAULT_LIMIT
                }
            },
        };
        let cursor = match self.cursor.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(raw) if is_cursor(raw) => Some(raw.to_string()),
            Some(_) => {
                errors.add("cursor", "is not a cursor this service gave out");
                None
            }
        };
        errors.finish()?;
        Ok(LogPageRequest {
            filter,
            limit,
            cursor,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 24, 12, 0, 0)
            .single()
            .unwrap_or_default()
    }

    #[test]
    fn a_batch_names_each_bad_field() {
        let body = json!([
            {"serviceName": "api", "type": "APP", "severity": "ERROR", "logContent": "x"},
            {"serviceName": " ", "type": "APP", "severity": "LOUD", "logContent": "x", "timestamp": "yesterday"}
        ]);
        let err = parse_logs(&body, now()).unwrap_err();
        let fields: Vec<_> = err.errors().iter().map(|e| e.field.clone()).collect();
        assert_eq!(
            fields,
            vec!["[1].serviceName", "[1].severity", "[1].timestamp"]
        );
        let ok = parse_logs(
            &json!({"serviceName": "api", "type": "APP", "severity": "WARN", "logContent": "x"}),
            now(),
        )
        .unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].timestamp, now());
        assert!(parse_logs(&json!([]), now()).is_err());
        let too_many: Vec<Value> = (0..501).map(|_| json!({})).collect();
        assert_eq!(
            parse_logs(&Value::Array(too_many), now())
                .unwrap_err()
                .errors()[0]
                .field,
            "body"
        );
    }

    #[test]
    fn the_documented_types_name_what_is_not_a_log() {
        let err = parse_logs(&json!(7), now()).unwrap_err();
        assert_eq!(err.errors()[0].field, "body");
        assert_eq!(
            err.errors()[0].reason,
            "must be a log object or an array of logs"
        );
        let err = parse_logs(
            &json!([[1], {"serviceName": 5, "type": "APP", "severity": 3, "logContent": "x", "timestamp": 1}]),
            now(),
        )
        .unwrap_err();
        let found: Vec<_> = err
            .errors()
            .iter()
            .map(|e| format!("{}: {}", e.field, e.reason))
            .collect();
        assert_eq!(
            found,
            vec![
                "[0]: must be a JSON object",
                "[1].serviceName: must be a string",
                "[1].severity: must be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL",
                "[1].timestamp: must be an RFC 3339 date-time",
            ]
        );
        let one = parse_logs(
            &json!({"serviceName": " api ", "type": "APP", "severity": " ERROR ", "logContent": "x", "extra": true}),
            now(),
        )
        .unwrap();
        assert_eq!(one[0].service_name, "api");
        assert_eq!(one[0].severity, Severity::Error);
    }

    #[test]
    fn a_grouping_key_is_fingerprint_or_dedup_key_and_bounded() {
        let log = |extra: Value| {
            let mut body = json!({"serviceName": "api", "type": "APP", "severity": "ERROR", "logContent": "x"});
            if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
                body.extend(extra.clone());
            }
            parse_logs(&body, now())
        };
        let given = |extra| log(extra).unwrap()[0].fingerprint.clone();
        assert_eq!(given(json!({})), None);
        assert_eq!(given(json!({"fingerprint": "a:b"})).as_deref(), Some("a:b"));
        assert_eq!(given(json!({"dedup_key": "k-1"})).as_deref(), Some("k-1"));
        let field = |extra| log(extra).unwrap_err().errors()[0].field.clone();
        assert_eq!(field(json!({"fingerprint": "has space"})), "fingerprint");
        assert_eq!(field(json!({"fingerprint": 7})), "fingerprint");
        assert_eq!(field(json!({"dedup_key": "k".repeat(201)})), "dedup_key");
        assert_eq!(
            field(json!({"fingerprint": "a", "dedup_key": "a"})),
            "dedup_key"
        );
    }

    #[test]
    fn attributes_and_trace_ids_are_bounded_and_named() {
        let log = |extra: Value| {
            let mut body = json!([{"serviceName": "api", "type": "APP", "severity": "ERROR", "logContent": "x"}]);
            if let (Some(body), Some(extra)) = (body[0].as_object_mut(), extra.as_object()) {
                body.extend(extra.clone());
            }
            parse_logs(&body, now())
        };
        let ok = log(json!({
            "attributes": {"job": "checkout", "k8s.pod": "checkout-1"},
            "traceId": "4bf92f3577b34da6a3ce929d0e0e4736",
            "spanId": "00f067aa0ba902b7"
        }))
        .unwrap();
        assert_eq!(ok[0].attributes["job"], "checkout");
        assert_eq!(
            ok[0].trace_id.as_deref(),
            Some("4bf92f3577b34da6a3ce929d0e0e4736")
        );
        assert_eq!(ok[0].span_id.as_deref(), Some("00f067aa0ba902b7"));
        let refused = |extra| {
            let err = log(extra).unwrap_err();
            format!("{}: {}", err.errors()[0].field, err.errors()[0].reason)
        };
        let many: serde_json::Map<String, Value> =
            (0..65).map(|i| (format!("k{i}"), json!("v"))).collect();
        assert_eq!(
            refused(json!({"attributes": many})),
            "[0].attributes: must hold at most 64 names"
        );
        assert!(refused(json!({"attributes": {"": "v"}})).starts_with("[0].attributes: names"));
        assert!(refused(json!({"attributes": {"k".repeat(129): "v"}}))
            .starts_with("[0].attributes: names"));
        assert!(refused(json!({"attributes": {"k": "v".repeat(2049)}}))
            .starts_with("[0].attributes: values"));
        assert!(refused(json!({"attributes": {"k": 5}})).starts_with("[0].attributes: must map"));
        assert!(
            refused(json!({"attributes": ["k"]})).starts_with("[0].attributes: must be an object")
        );
        assert!(
            refused(json!({"traceId": "4BF92F3577B34DA6A3CE929D0E0E4736"}))
                .starts_with("[0].traceId")
        );
        assert!(refused(json!({"traceId": "0".repeat(32)})).starts_with("[0].traceId"));
        assert!(refused(json!({"spanId": "00f067aa0ba902b"})).starts_with("[0].spanId"));
        let big: serde_json::Map<String, Value> = (0..40)
            .map(|i| (format!("k{i}"), json!("v".repeat(2000))))
            .collect();
        assert!(refused(json!({"attributes": big})).contains("bytes as JSON"));
    }

    #[test]
    fn ids_and_cursors() {
        assert!(is_log_id("1732486400000-5b0f3c1e00004000800000000000000a"));
        assert!(!is_log_id("1732486400000-5B0F3C1E00004000800000000000000A"));
        assert!(is_cursor("1732486400000"));
        assert!(!is_cursor("nope"));
    }
}
