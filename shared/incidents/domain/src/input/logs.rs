//! Logs: one log or a batch as ingested, and the timeline's query (filters, page, cursor).

use chrono::{DateTime, Duration, Utc};
use platform::{FieldErrors, Invalid};
use serde_json::{Map, Value};

use super::{
    parse_time, text, DEFAULT_LIMIT, MAX_BATCH, MAX_CONTAINS_CHARS, MAX_CONTENT_CHARS,
    MAX_FUTURE_HOURS, MAX_LIMIT, MAX_NAME_CHARS,
};
use crate::fingerprint::{is_client_fingerprint, is_hex_id, MAX_CLIENT_FINGERPRINT_CHARS};
use crate::model::Severity;

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
}

fn one_log(
    errors: &mut FieldErrors,
    value: &Value,
    prefix: &str,
    now: DateTime<Utc>,
) -> Option<LogInput> {
    let Some(object) = value.as_object() else {
        let field = if prefix.is_empty() {
            "body".to_string()
        } else {
            prefix.trim_end_matches('.').to_string()
        };
        errors.add(field, "must be a JSON object");
        return None;
    };
    let service_name = text(errors, object, prefix, "serviceName", MAX_NAME_CHARS, true);
    let log_type = text(errors, object, prefix, "type", MAX_NAME_CHARS, true);
    let severity = match object.get("severity") {
        Some(Value::String(s)) => match Severity::parse(s.trim()) {
            Some(s) => Some(s),
            None => {
                errors.add(
                    format!("{prefix}severity"),
                    "must be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL",
                );
                None
            }
        },
        None | Some(Value::Null) => {
            errors.add(format!("{prefix}severity"), "is required");
            None
        }
        Some(_) => {
            errors.add(
                format!("{prefix}severity"),
                "must be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL",
            );
            None
        }
    };
    let log_content = text(
        errors,
        object,
        prefix,
        "logContent",
        MAX_CONTENT_CHARS,
        true,
    );
    let field = format!("{prefix}timestamp");
    let timestamp = match object.get("timestamp") {
        None | Some(Value::Null) => Some(now),
        Some(Value::String(s)) => match parse_time(&field, s) {
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
        Some(_) => {
            errors.add(field, "must be an RFC 3339 date-time");
            None
        }
    };
    let fingerprint = client_fingerprint(errors, object, prefix);
    Some(LogInput {
        fingerprint: fingerprint?,
        service_name: service_name?,
        log_type: log_type?,
        severity: severity?,
        log_content: log_content?,
        timestamp: timestamp?,
    })
}

/// A log's grouping key: `fingerprint` or its alias `dedup_key` (not both), visible ASCII;
/// `Some(None)` when neither is given, `None` when one is bad (the error added).
fn client_fingerprint(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
    prefix: &str,
) -> Option<Option<String>> {
    let given: Vec<(&str, &Value)> = ["fingerprint", "dedup_key"]
        .into_iter()
        .filter_map(|name| match object.get(name) {
            None | Some(Value::Null) => None,
            Some(value) => Some((name, value)),
        })
        .collect();
    match given.as_slice() {
        [] => Some(None),
        [(name, Value::String(key))] if is_client_fingerprint(key) => Some(Some(key.clone())),
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

/// One log (an object) or a batch (an array of 1 to [`MAX_BATCH`] objects). A log without
/// `timestamp` happened `now`.
pub fn parse_logs(body: &Value, now: DateTime<Utc>) -> Result<Vec<LogInput>, Invalid> {
    let mut errors = FieldErrors::new();
    let logs = match body {
        Value::Array(items) => {
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
                .iter()
                .enumerate()
                .filter_map(|(i, item)| one_log(&mut errors, item, &format!("[{i}]."), now))
                .collect::<Vec<_>>()
        }
        Value::Object(_) => one_log(&mut errors, body, "", now).into_iter().collect(),
        _ => {
            return Err(Invalid::field(
                "body",
                "must be a log object or an array of logs",
            ))
        }
    };
    errors.finish()?;
    Ok(logs)
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
    fn ids_and_cursors() {
        assert!(is_log_id("1732486400000-5b0f3c1e00004000800000000000000a"));
        assert!(!is_log_id("1732486400000-5B0F3C1E00004000800000000000000A"));
        assert!(is_cursor("1732486400000"));
        assert!(!is_cursor("nope"));
    }
}
