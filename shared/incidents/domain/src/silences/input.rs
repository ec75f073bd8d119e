//! A silence as a client sends it (`POST /api/v1/silences`), parsed with each bad field named.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use platform::{FieldErrors, Invalid};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::{
    Matchers, MAX_COMMENT_CHARS, MAX_DURATION_MINUTES, MAX_LABELS, MAX_LABEL_NAME_CHARS,
    MAX_LABEL_VALUE_CHARS, MAX_LEAD_DAYS, MAX_NAMES,
};
use crate::input::{object, parse_time, severity_list, text, MAX_NAME_CHARS};
use crate::model::Severity;

/// The body of `POST /api/v1/silences` (documentation; parsed by [`parse_silence`]).
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct SilenceRequest {
    /// Why (shown with the silence): "DB migration, CHG-1234".
    #[schema(min_length = 1, max_length = 500)]
    pub comment: String,
    pub matchers: MatchersRequest,
    /// When it starts (RFC 3339); absent: now. Later than now: the silence is `pending`
    /// until then (at most 365 days ahead).
    #[schema(format = DateTime)]
    pub starts_at: Option<String>,
    /// When it ends (RFC 3339): after `startsAt` and now, at most 7 days after `startsAt`.
    /// Exactly one of `endsAt` and `durationMinutes`.
    #[schema(format = DateTime)]
    pub ends_at: Option<String>,
    /// How long from `startsAt` it lasts; exactly one of `endsAt` and `durationMinutes`.
    #[schema(minimum = 1, maximum = 10080)]
    pub duration_minutes: Option<i64>,
}

/// What a silence holds back: every matcher given must match (at least one is non-empty).
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct MatchersRequest {
    /// The incident's service is one of these.
    #[schema(max_items = 20)]
    pub services: Option<Vec<String>>,
    /// The incident's severity (of the log that opened it) is one of these.
    #[schema(max_items = 6)]
    pub severities: Option<Vec<Severity>>,
    /// The incident's log type is one of these.
    #[schema(max_items = 20)]
    pub types: Option<Vec<String>>,
    /// Each label equals the incident's log attribute of that name (Loki labels, OTLP
    /// attributes, Alertmanager labels); at most 20, names 1-128 characters, values at most
    /// 2048.
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    pub labels: Option<BTreeMap<String, String>>,
}

/// A silence to create, parsed (times resolved against the platform's clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SilenceInput {
    pub comment: String,
    pub matchers: Matchers,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

/// Parses a silence at `now`; each bad field named.
pub fn parse_silence(body: &Value, now: DateTime<Utc>) -> Result<SilenceInput, Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let comment = text(&mut errors, object, "", "comment", MAX_COMMENT_CHARS, true);
    let matchers = match object.get("matchers") {
        None | Some(Value::Null) => {
            errors.add("matchers", "is required");
            None
        }
        Some(Value::Object(m)) => parse_matchers(&mut errors, m),
        Some(_) => {
            errors.add("matchers", "must be a JSON object");
            None
        }
    };
    let time = |errors: &mut FieldErrors, name: &str| match object.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(raw)) => match parse_time(name, raw) {
            Ok(at) => Some(at),
            Err(e) => {
                errors.add(name, e.reason);
                None
            }
        },
        Some(_) => {
            errors.add(name, "must be an RFC 3339 date-time");
            None
        }
    };
    let given_start = time(&mut errors, "startsAt");
    let ends_at = time(&mut errors, "endsAt");
    let starts_at = given_start.unwrap_or(now);
    if starts_at > now + Duration::days(MAX_LEAD_DAYS) {
        errors.add(
            "startsAt",
            format!("must be at most {MAX_LEAD_DAYS} days ahead"),
        );
    }
    let duration = match object.get("durationMinutes") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_i64() {
            Some(m) if (1..=MAX_DURATION_MINUTES).contains(&m) => Some(m),
            _ => {
                errors.add(
                    "durationMinutes",
                    format!("must be an integer from 1 to {MAX_DURATION_MINUTES}"),
                );
                None
            }
        },
        Some(_) => {
            errors.add(
                "durationMinutes",
                format!("must be an integer from 1 to {MAX_DURATION_MINUTES}"),
            );
            None
        }
    };
    let given = |name: &str| !matches!(object.get(name), None | Some(Value::Null));
    let end = match (ends_at, duration) {
        _ if given("endsAt") && given("durationMinutes") => {
            errors.add("durationMinutes", "must not be given with endsAt");
            None
        }
        (Some(end), None) => {
            if end <= starts_at {
                errors.add("endsAt", "must be after startsAt");
            } else if end <= now {
                errors.add("endsAt", "must be in the future");
            } else if end - starts_at > Duration::minutes(MAX_DURATION_MINUTES) {
                errors.add(
                    "endsAt",
                    format!("must be at most {MAX_DURATION_MINUTES} minutes after startsAt"),
                );
            }
            Some(end)
        }
        (None, Some(minutes)) => {
            let end = starts_at + Duration::minutes(minutes);
            if end <= now {
                errors.add("durationMinutes", "must end the silence in the future");
            }
            Some(end)
        }
        _ if !given("endsAt") && !given("durationMinutes") => {
            errors.add("endsAt", "is required (or durationMinutes)");
            None
        }
        _ => None,
    };
    errors.finish()?;
    match (comment, matchers, end) {
        (Some(comment), Some(matchers), Some(ends_at)) => Ok(SilenceInput {
            comment,
            matchers,
            starts_at,
            ends_at,
        }),
        _ => Err(Invalid::field("body", "is incomplete")),
    }
}

fn parse_matchers(errors: &mut FieldErrors, object: &Map<String, Value>) -> Option<Matchers> {
    for name in object.keys() {
        if !matches!(
            name.as_str(),
            "services" | "severities" | "types" | "labels"
        ) {
            errors.add(
                format!("matchers.{name}"),
                "is not a matcher (services, severities, types, labels)",
            );
        }
    }
    let services = names(errors, object, "services");
    let types = names(errors, object, "types");
    let severities = match object.get("severities") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.len() <= Severity::ALL.len() => {
            let mut inner = FieldErrors::new();
            let list = severity_list(&mut inner, items);
            if inner.finish().is_err() {
                errors.add(
                    "matchers.severities",
                    "each must be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL",
                );
            }
            list
        }
        Some(_) => {
            errors.add(
                "matchers.severities",
                "must be an array of at most 6 severities",
            );
            Vec::new()
        }
    };
    let mut labels = BTreeMap::new();
    match object.get("labels") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) if map.len() <= MAX_LABELS => {
            for (name, value) in map {
                let name_ok = (1..=MAX_LABEL_NAME_CHARS).contains(&name.chars().count());
                match value.as_str() {
                    Some(v) if name_ok && v.chars().count() <= MAX_LABEL_VALUE_CHARS => {
                        labels.insert(name.clone(), v.to_string());
                    }
                    _ => {
                        errors.add(
                            "matchers.labels",
                            format!(
                                "each must be a name of 1 to {MAX_LABEL_NAME_CHARS} characters \
                                 with a string value of at most {MAX_LABEL_VALUE_CHARS}"
                            ),
                        );
                        break;
                    }
                }
            }
        }
        Some(_) => errors.add(
            "matchers.labels",
            format!("must be an object of at most {MAX_LABELS} name-value pairs"),
        ),
    }
    let matchers = Matchers {
        services,
        severities,
        types,
        labels,
    };
    if matchers.is_empty() {
        errors.add(
            "matchers",
            "must name at least one of services, severities, types, labels",
        );
        return None;
    }
    Some(matchers)
}

/// The distinct names of `matchers.{field}` (at most [`MAX_NAMES`], 1-100 characters).
fn names(errors: &mut FieldErrors, object: &Map<String, Value>, field: &str) -> Vec<String> {
    match object.get(field) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.len() <= MAX_NAMES => {
            let mut out: Vec<String> = Vec::new();
            for item in items {
                match item.as_str().map(str::trim) {
                    Some(s) if !s.is_empty() && s.chars().count() <= MAX_NAME_CHARS => {
                        if !out.iter().any(|o| o == s) {
                            out.push(s.to_string());
                        }
                    }
                    _ => {
                        errors.add(
                            format!("matchers.{field}"),
                            format!("each must be a name of 1 to {MAX_NAME_CHARS} characters"),
                        );
                        break;
                    }
                }
            }
            out
        }
        Some(_) => {
            errors.add(
                format!("matchers.{field}"),
                format!("must be an array of at most {MAX_NAMES} names"),
            );
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        parse_time("t", "2026-12-03T20:00:00Z").unwrap()
    }

    #[test]
    fn a_window_is_now_for_n_minutes_or_scheduled_ahead() {
        let input = parse_silence(
            &json!({"comment": "deploy", "matchers": {"services": ["checkout", "checkout"]},
                    "durationMinutes": 30}),
            now(),
        )
        .unwrap();
        assert_eq!(input.starts_at, now());
        assert_eq!(input.ends_at, now() + Duration::minutes(30));
        assert_eq!(input.matchers.services, vec!["checkout"]);
        let ahead = parse_silence(
            &json!({"comment": "migration", "matchers": {"labels": {"env": "prod"}, "severities": ["ERROR"]},
                    "startsAt": "2026-12-03T22:00:00Z", "endsAt": "2026-12-03T23:00:00+00:00"}),
            now(),
        )
        .unwrap();
        assert_eq!(ahead.starts_at, now() + Duration::hours(2));
        assert_eq!(ahead.ends_at, now() + Duration::hours(3));
        assert_eq!(ahead.matchers.labels["env"], "prod");
    }

    #[test]
    fn bad_fields_are_named() {
        let cases = [
            (
                json!({"comment": "x", "matchers": {}, "durationMinutes": 5}),
                "matchers",
            ),
            (
                json!({"comment": "x", "matchers": {"services": []}, "durationMinutes": 5}),
                "matchers",
            ),
            (
                json!({"comment": "x", "matchers": {"owners": ["a"]}, "durationMinutes": 5}),
                "matchers.owners",
            ),
            (
                json!({"comment": "", "matchers": {"types": ["t"]}, "durationMinutes": 5}),
                "comment",
            ),
            (
                json!({"comment": "x", "matchers": {"types": ["t"]}, "durationMinutes": 0}),
                "durationMinutes",
            ),
            (
                json!({"comment": "x", "matchers": {"types": ["t"]}, "durationMinutes": 10081}),
                "durationMinutes",
            ),
            (
                json!({"comment": "x", "matchers": {"types": ["t"]}}),
                "endsAt",
            ),
            (
                json!({"comment": "x", "matchers": {"types": ["t"]}, "startsAt": "2026-12-03T22:00:00Z",
                    "endsAt": "2026-12-03T21:00:00Z"}),
                "endsAt",
            ),
            (
                json!({"comment": "x", "matchers": {"types": ["t"]}, "endsAt": "2026-12-03T19:00:00Z",
                    "startsAt": "2026-12-03T18:00:00Z"}),
                "endsAt",
            ),
            (
                json!({"comment": "x", "matchers": {"types": ["t"]}, "endsAt": "2026-12-03T21:00:00Z",
                    "durationMinutes": 5}),
                "durationMinutes",
            ),
            (
                json!({"comment": "x", "matchers": {"severities": ["LOUD"]}, "durationMinutes": 5}),
                "matchers.severities",
            ),
            (
                json!({"comment": "x", "matchers": {"labels": {"env": 1}}, "durationMinutes": 5}),
                "matchers.labels",
            ),
            (
                json!({"comment": "x", "matchers": {"types": ["t"]}, "startsAt": "tomorrow", "durationMinutes": 5}),
                "startsAt",
            ),
            (
                json!({"comment": "x", "matchers": {"types": ["t"]}, "startsAt": "2028-01-01T00:00:00Z", "durationMinutes": 5}),
                "startsAt",
            ),
        ];
        for (body, field) in cases {
            let err = parse_silence(&body, now()).unwrap_err();
            assert!(
                err.0.iter().any(|e| e.field == field),
                "{body}: {field} not in {err}"
            );
        }
    }
}
