//! Every client input of the incident platform, parsed and bounded before any table or
//! queue is touched. Bodies arrive as JSON values; a wrong type, a missing field or a value
//! out of bounds is an [`Invalid`] naming each field (`[3].severity` inside a batch).
//!
//! Parsed by resource: [`logs`] (ingestion and the timeline's query), [`rules`],
//! [`incidents`] (updates and merges), [`alerts`] and [`logbook`]; the field checks they
//! share (and the notification channels use) are here.

pub mod alertmanager;
mod alerts;
mod incidents;
mod logbook;
mod logs;
pub mod loki;
pub mod otlp;
pub mod pagerduty;
mod rules;
pub mod shipped;

pub use alerts::parse_alert_patch;
pub use incidents::{
    is_assignment, parse_assignment, parse_incident_patch, parse_merge, Assignment, IncidentPatch,
    MergeInput,
};
pub use logbook::{parse_logbook, parse_logbook_replace, LogbookInput, MAX_VERSION};
pub use logs::{
    check_attributes, is_cursor, is_log_id, is_trace_hex, parse_logs, Given, LogBatch, LogFilter,
    LogInput, LogPageRequest, LogSubmission, LogsRequest, RawLogQuery,
};
pub use rules::{parse_rule, RuleInput};

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use platform::{FieldError, FieldErrors, Invalid};
use serde_json::{Map, Value};

use crate::model::Severity;

/// The most logs one ingestion may carry.
pub const MAX_BATCH: usize = 500;
/// The longest `serviceName`, `type`, rule name and assignee, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// The longest text the timeline's `contains` filter takes, in characters.
pub const MAX_CONTAINS_CHARS: usize = 100;
/// The longest `logContent`, in characters.
pub const MAX_CONTENT_CHARS: usize = 16_384;
/// The most attributes one log may carry, the longest name and value (in characters), and
/// the most bytes they may take as JSON in all.
pub const MAX_ATTRIBUTES: usize = 64;
pub const MAX_ATTRIBUTE_NAME_CHARS: usize = 128;
pub const MAX_ATTRIBUTE_VALUE_CHARS: usize = 2_048;
pub const MAX_ATTRIBUTES_BYTES: usize = 65_536;
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

/// The longest escalation delay a rule's or channel's `escalateAfterMinutes` may name (a day).
pub const MAX_ESCALATE_AFTER_MINUTES: i64 = 1_440;

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
            MAX_ESCALATE_AFTER_MINUTES,
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
    use crate::model::AlertStatus;
    use serde_json::json;

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
