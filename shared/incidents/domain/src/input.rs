//! Every client input of the incident platform, parsed and bounded before any table or
//! queue is touched. Bodies arrive as JSON values; a wrong type, a missing field or a value
//! out of bounds is an [`Invalid`] naming each field (`[3].severity` inside a batch).

use chrono::{DateTime, Duration, SecondsFormat, TimeZone, Utc};
use platform::{FieldError, FieldErrors, Invalid};
use serde_json::{Map, Value};

use crate::fingerprint::{is_client_fingerprint, is_hex_id, MAX_CLIENT_FINGERPRINT_CHARS};
use crate::model::{AlertStatus, IncidentStatus, LogbookKind, Severity};

/// The most logs one ingestion may carry.
pub const MAX_BATCH: usize = 500;
/// The longest `serviceName`, `type`, rule name and assignee, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// The longest text the timeline's `contains` filter takes, in characters.
pub const MAX_CONTAINS_CHARS: usize = 100;
/// The longest `logContent`, in characters.
pub const MAX_CONTENT_CHARS: usize = 16_384;
/// The longest incident note, in characters.
pub const MAX_NOTE_CHARS: usize = 2_000;
/// The longest logbook title and body, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
pub const MAX_BODY_CHARS: usize = 20_000;
/// A rule's threshold and window bounds.
pub const MAX_THRESHOLD: i64 = 1_000;
pub const MAX_WINDOW_SECONDS: i64 = 86_400;
/// The timeline's page size bounds and default.
pub const MAX_LIMIT: usize = 500;
pub const DEFAULT_LIMIT: usize = 100;
/// How far ahead of the platform's clock a log's timestamp may be.
pub const MAX_FUTURE_HOURS: i64 = 24;

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

pub(crate) fn text(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
    prefix: &str,
    name: &str,
    max: usize,
    required: bool,
) -> Option<String> {
    let field = format!("{prefix}{name}");
    match object.get(name) {
        None | Some(Value::Null) => {
            if required {
                errors.add(field, "is required");
            }
            None
        }
        Some(Value::String(s)) => {
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
        Some(_) => {
            errors.add(field, "must be a string");
            None
        }
    }
}

/// The optional `escalateAfterMinutes` of a rule or a channel (1 to a day).
pub(crate) fn escalation_delay(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
) -> Option<i64> {
    match object.get("escalateAfterMinutes") {
        None | Some(Value::Null) => None,
        Some(_) => integer(
            errors,
            object,
            "escalateAfterMinutes",
            1,
            crate::channels::MAX_ESCALATE_AFTER_MINUTES,
        ),
    }
}

pub(crate) fn integer(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
    name: &str,
    min: i64,
    max: i64,
) -> Option<i64> {
    match object.get(name) {
        None | Some(Value::Null) => {
            errors.add(name, "is required");
            None
        }
        Some(Value::Number(n)) => match n.as_i64() {
            Some(v) if (min..=max).contains(&v) => Some(v),
            _ => {
                errors.add(name, format!("must be an integer from {min} to {max}"));
                None
            }
        },
        Some(_) => {
            errors.add(name, format!("must be an integer from {min} to {max}"));
            None
        }
    }
}

/// An RFC 3339 time, at least the year 2000.
pub fn parse_time(field: &str, raw: &str) -> Result<DateTime<Utc>, FieldError> {
    let at = DateTime::parse_from_rfc3339(raw.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| FieldError::new(field, "must be an RFC 3339 date-time"))?;
    let floor = Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).single();
    if floor.is_some_and(|f| at < f) {
        return Err(FieldError::new(field, "must be in the year 2000 or later"));
    }
    Ok(at)
}

/// A time as the platform writes it: RFC 3339, UTC, milliseconds.
pub fn format_time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub(crate) fn object<'a>(value: &'a Value, field: &str) -> Result<&'a Map<String, Value>, Invalid> {
    value
        .as_object()
        .ok_or_else(|| Invalid::field(field, "must be a JSON object"))
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

/// An alert rule as a client sent it (create or replace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleInput {
    pub name: String,
    pub severities: Vec<Severity>,
    pub service_name: Option<String>,
    pub log_type: Option<String>,
    pub threshold: i64,
    pub window_seconds: i64,
    pub enabled: bool,
    pub escalate_after_minutes: Option<i64>,
}

/// `{name, severities, serviceName?, type?, threshold, windowSeconds, enabled?,
/// escalateAfterMinutes?}`.
/// The distinct severities of `items` (field `severities`), sorted; a bad one is named.
pub(crate) fn severity_list(errors: &mut FieldErrors, items: &[Value]) -> Vec<Severity> {
    let mut out = Vec::new();
    for item in items {
        match item.as_str().and_then(Severity::parse) {
            Some(s) if !out.contains(&s) => out.push(s),
            Some(_) => {}
            None => {
                errors.add(
                    "severities",
                    "each must be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL",
                );
                break;
            }
        }
    }
    out.sort();
    out
}

pub fn parse_rule(body: &Value) -> Result<RuleInput, Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let name = text(&mut errors, object, "", "name", MAX_NAME_CHARS, true);
    let service_name = text(
        &mut errors,
        object,
        "",
        "serviceName",
        MAX_NAME_CHARS,
        false,
    );
    let log_type = text(&mut errors, object, "", "type", MAX_NAME_CHARS, false);
    let severities = match object.get("severities") {
        Some(Value::Array(items)) if !items.is_empty() && items.len() <= Severity::ALL.len() => {
            Some(severity_list(&mut errors, items))
        }
        None | Some(Value::Null) => {
            errors.add("severities", "is required");
            None
        }
        Some(_) => {
            errors.add("severities", "must be an array of 1 to 6 severities");
            None
        }
    };
    let threshold = integer(&mut errors, object, "threshold", 1, MAX_THRESHOLD);
    let window_seconds = integer(&mut errors, object, "windowSeconds", 1, MAX_WINDOW_SECONDS);
    let enabled = match object.get("enabled") {
        None | Some(Value::Null) => Some(true),
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            errors.add("enabled", "must be a boolean");
            None
        }
    };
    let escalate_after_minutes = escalation_delay(&mut errors, object);
    errors.finish()?;
    match (name, severities, threshold, window_seconds, enabled) {
        (Some(name), Some(severities), Some(threshold), Some(window_seconds), Some(enabled)) => {
            Ok(RuleInput {
                name,
                severities,
                service_name,
                log_type,
                threshold,
                window_seconds,
                enabled,
                escalate_after_minutes,
            })
        }
        _ => Err(Invalid::field("body", "is not a rule")),
    }
}

/// An incident's update: `{status, note?, assignee?}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncidentPatch {
    pub status: IncidentStatus,
    pub note: Option<String>,
    pub assignee: Option<String>,
}

pub fn parse_incident_patch(body: &Value) -> Result<IncidentPatch, Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let status = match object.get("status") {
        Some(Value::String(s)) => {
            let parsed = IncidentStatus::parse(s.trim());
            if parsed.is_none() {
                errors.add("status", "must be one of ACTIVE, ACKNOWLEDGED, RESOLVED");
            }
            parsed
        }
        None | Some(Value::Null) => {
            errors.add("status", "is required");
            None
        }
        Some(_) => {
            errors.add("status", "must be one of ACTIVE, ACKNOWLEDGED, RESOLVED");
            None
        }
    };
    let note = text(&mut errors, object, "", "note", MAX_NOTE_CHARS, false);
    let assignee = text(&mut errors, object, "", "assignee", MAX_NAME_CHARS, false);
    errors.finish()?;
    let status = status.ok_or_else(|| Invalid::field("status", "is required"))?;
    Ok(IncidentPatch {
        status,
        note,
        assignee,
    })
}

/// An alert's update: `{status}`.
pub fn parse_alert_patch(body: &Value) -> Result<AlertStatus, Invalid> {
    let object = object(body, "body")?;
    match object.get("status") {
        Some(Value::String(s)) => AlertStatus::parse(s.trim())
            .ok_or_else(|| Invalid::field("status", "must be one of OPEN, ACKNOWLEDGED, RESOLVED")),
        None | Some(Value::Null) => Err(Invalid::field("status", "is required")),
        Some(_) => Err(Invalid::field(
            "status",
            "must be one of OPEN, ACKNOWLEDGED, RESOLVED",
        )),
    }
}

/// A logbook entry as a client sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogbookInput {
    pub kind: LogbookKind,
    pub title: String,
    pub body: String,
    pub incident_id: Option<String>,
}

/// `{kind?, title, body, incidentId?}` (kind NOTE unless POSTMORTEM).
pub fn parse_logbook(body: &Value) -> Result<LogbookInput, Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let input = logbook_fields(&mut errors, object);
    errors.finish()?;
    input.ok_or_else(|| Invalid::field("body", "is not a logbook entry"))
}

/// The largest entry version a client may send (far above any entry's edits).
pub const MAX_VERSION: i64 = 1_000_000_000;

/// `{kind?, title, body, incidentId?, version}`: a replacement, with `version` the entry's
/// version as it was read (the write is refused when the entry has moved on since).
pub fn parse_logbook_replace(body: &Value) -> Result<(LogbookInput, i64), Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let input = logbook_fields(&mut errors, object);
    let version = match object.get("version") {
        None | Some(Value::Null) => {
            errors.add(
                "version",
                "is required: the entry's version as read (GET answers it)",
            );
            None
        }
        Some(Value::Number(n)) => match n.as_i64() {
            Some(v) if (1..=MAX_VERSION).contains(&v) => Some(v),
            _ => {
                errors.add(
                    "version",
                    format!("must be an integer from 1 to {MAX_VERSION}"),
                );
                None
            }
        },
        Some(_) => {
            errors.add(
                "version",
                format!("must be an integer from 1 to {MAX_VERSION}"),
            );
            None
        }
    };
    errors.finish()?;
    match (input, version) {
        (Some(input), Some(version)) => Ok((input, version)),
        _ => Err(Invalid::field("body", "is not a logbook entry")),
    }
}

fn logbook_fields(errors: &mut FieldErrors, object: &Map<String, Value>) -> Option<LogbookInput> {
    let kind = match object.get("kind") {
        None | Some(Value::Null) => Some(LogbookKind::Note),
        Some(Value::String(s)) => {
            let parsed = LogbookKind::parse(s.trim());
            if parsed.is_none() {
                errors.add("kind", "must be NOTE or POSTMORTEM");
            }
            parsed
        }
        Some(_) => {
            errors.add("kind", "must be NOTE or POSTMORTEM");
            None
        }
    };
    let title = text(errors, object, "", "title", MAX_TITLE_CHARS, true);
    let text_body = text(errors, object, "", "body", MAX_BODY_CHARS, true);
    let incident_id = match object.get("incidentId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if is_hex_id(s.trim()) => Some(s.trim().to_string()),
        Some(_) => {
            errors.add("incidentId", "must be an incident id (32 hex digits)");
            None
        }
    };
    Some(LogbookInput {
        kind: kind?,
        title: title?,
        body: text_body?,
        incident_id,
    })
}

/// An operator's merge of one incident into another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeInput {
    /// The incident that stays (32 hex digits).
    pub into: String,
    pub note: Option<String>,
}

/// `{"into": incident id, "note"?: text}` (`POST /api/v1/incidents/{id}/merge`).
pub fn parse_merge(body: &Value) -> Result<MergeInput, Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let into = match object.get("into") {
        Some(Value::String(id)) if is_hex_id(id.trim()) => Some(id.trim().to_string()),
        None | Some(Value::Null) => {
            errors.add("into", "is required");
            None
        }
        Some(_) => {
            errors.add("into", "must be an incident id (32 lower-case hex digits)");
            None
        }
    };
    let note = text(&mut errors, object, "", "note", MAX_NOTE_CHARS, false);
    errors.finish()?;
    Ok(MergeInput {
        into: into.unwrap_or_default(),
        note,
    })
}

/// The `status` filter of a list, parsed by `parse` (absent: all; empty: a 400).
pub fn status_filter<T>(
    raw: Option<&str>,
    parse: impl Fn(&str) -> Option<T>,
    allowed: &str,
) -> Result<Option<T>, Invalid> {
    match raw.map(str::trim) {
        None => Ok(None),
        Some(s) => parse(s)
            .map(Some)
            .ok_or_else(|| Invalid::field("status", format!("must be one of {allowed}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn rules_and_patches() {
        let rule = parse_rule(&json!({"name": "warns", "severities": ["WARN", "WARN"], "threshold": 3, "windowSeconds": 60})).unwrap();
        assert_eq!(rule.severities, vec![Severity::Warn]);
        assert!(rule.enabled);
        assert_eq!(rule.escalate_after_minutes, None);
        let escalating = parse_rule(&json!({"name": "e", "severities": ["ERROR"], "threshold": 1, "windowSeconds": 60, "escalateAfterMinutes": 15})).unwrap();
        assert_eq!(escalating.escalate_after_minutes, Some(15));
        for bad in [json!(0), json!(1441), json!("5"), json!(1.5)] {
            let err = parse_rule(&json!({"name": "e", "severities": ["ERROR"], "threshold": 1, "windowSeconds": 60, "escalateAfterMinutes": bad})).unwrap_err();
            assert_eq!(err.errors()[0].field, "escalateAfterMinutes");
        }
        let err = parse_rule(
            &json!({"name": "x", "severities": [], "threshold": 0, "windowSeconds": 100000}),
        )
        .unwrap_err();
        let fields: Vec<_> = err.errors().iter().map(|e| e.field.clone()).collect();
        assert_eq!(fields, vec!["severities", "threshold", "windowSeconds"]);
        assert!(parse_incident_patch(&json!({"status": "DONE"})).is_err());
        assert_eq!(
            parse_alert_patch(&json!({"status": "RESOLVED"})).unwrap(),
            AlertStatus::Resolved
        );
    }
}
