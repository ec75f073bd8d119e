//! A PagerDuty Events API v2 event (the body of `POST /v2/enqueue`), into one log:
//! `trigger` with its `payload` (summary, source, severity, ...), `acknowledge` and `resolve`
//! of the incident its `dedup_key` names. Errors are PagerDuty's: strings in `errors`.

use chrono::{DateTime, Datelike, Duration, NaiveDateTime, Utc};
use serde_json::{Map, Value};

use super::shipped::fit_attributes;
use super::{LogInput, MAX_FUTURE_HOURS};
use crate::fingerprint::{is_client_fingerprint, stable_id};
use crate::model::{LogAction, LogSource, Severity};

/// The log type of a PagerDuty event.
pub const EVENT_TYPE: &str = "PAGERDUTY_EVENT";
/// PagerDuty's bounds: a `dedup_key` of 255 characters, a `summary` of 1,024.
pub const MAX_DEDUP_KEY_CHARS: usize = 255;
pub const MAX_SUMMARY_CHARS: usize = 1_024;
/// The longest `routing_key` taken (the platform's ingest keys are below it).
pub const MAX_ROUTING_KEY_CHARS: usize = 200;
/// The longest other text field of an event.
const MAX_FIELD_CHARS: usize = 1_024;

/// A checked event: its routing key, and what it becomes once the key names its service.
#[derive(Clone, Debug, PartialEq)]
pub struct PagerDutyEvent {
    pub routing_key: String,
    pub action: LogAction,
    /// As given, or generated for a trigger without one (answered to the sender).
    pub dedup_key: String,
    summary: Option<String>,
    severity: Severity,
    timestamp: Option<DateTime<Utc>>,
    attributes: std::collections::BTreeMap<String, String>,
}

/// The routing key of an event `body`, before anything else is checked: PagerDuty refuses
/// an event without one first.
pub fn routing_key(body: &Value) -> Result<String, Vec<String>> {
    match body.get("routing_key") {
        Some(Value::String(key))
            if !key.trim().is_empty() && key.chars().count() <= MAX_ROUTING_KEY_CHARS =>
        {
            Ok(key.trim().to_string())
        }
        Some(Value::String(key)) if !key.trim().is_empty() => {
            Err(vec!["Invalid routing key".to_string()])
        }
        _ => Err(vec!["'routing_key' is missing or blank".to_string()]),
    }
}

/// The event of `body`, checked (every problem said, as PagerDuty says them); a trigger
/// without `dedup_key` gets `generated`.
pub fn parse_pagerduty(
    body: &Value,
    now: DateTime<Utc>,
    generated: impl FnOnce() -> String,
) -> Result<PagerDutyEvent, Vec<String>> {
    let Value::Object(body) = body else {
        return Err(vec!["Event object must be a JSON object".to_string()]);
    };
    let mut errors = Vec::new();
    let routing_key = routing_key(&Value::Object(body.clone())).map_err(|e| errors.extend(e));
    let action = match body.get("event_action") {
        Some(Value::String(a)) => LogAction::parse(a).or_else(|| {
            errors
                .push("'event_action' must be one of trigger, acknowledge or resolve".to_string());
            None
        }),
        _ => {
            errors.push("'event_action' is missing or blank".to_string());
            None
        }
    };
    let refused_before = errors.len();
    let dedup_key = match body.get("dedup_key") {
        None | Some(Value::Null) => None,
        Some(Value::String(k)) if k.is_empty() => None,
        Some(Value::String(k)) if k.chars().count() <= MAX_DEDUP_KEY_CHARS => Some(k.clone()),
        Some(Value::String(_)) => {
            errors.push(format!(
                "'dedup_key' is too long (at most {MAX_DEDUP_KEY_CHARS} characters)"
            ));
            None
        }
        Some(_) => {
            errors.push("'dedup_key' must be a string".to_string());
            None
        }
    };
    let dedup_refused = errors.len() > refused_before;
    let mut attributes: Vec<(String, String)> = Vec::new();
    let mut summary = None;
    let mut severity = Severity::Info;
    let mut timestamp = None;
    match action {
        Some(LogAction::Trigger) => match body.get("payload") {
            Some(Value::Object(payload)) => {
                summary = text(&mut errors, payload, "summary", MAX_SUMMARY_CHARS, true);
                text(&mut errors, payload, "source", MAX_FIELD_CHARS, true);
                severity = match payload.get("severity").and_then(Value::as_str) {
                    Some("critical") => Severity::Fatal,
                    Some("error") => Severity::Error,
                    Some("warning") => Severity::Warn,
                    Some("info") => Severity::Info,
                    _ => {
                        errors.push(
                            "'payload.severity' must be one of critical, error, warning or info"
                                .to_string(),
                        );
                        Severity::Info
                    }
                };
                timestamp = match payload.get("timestamp") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(at)) => match event_time(at, now) {
                        Some(at) => Some(at),
                        None => {
                            errors.push(
                                "'payload.timestamp' must be an ISO 8601 date-time within a day from now at most"
                                    .to_string(),
                            );
                            None
                        }
                    },
                    Some(_) => {
                        errors.push("'payload.timestamp' must be a string".to_string());
                        None
                    }
                };
                for name in ["component", "group", "class"] {
                    text(&mut errors, payload, name, MAX_FIELD_CHARS, false);
                }
                for name in ["source", "component", "group", "class"] {
                    if let Some(Value::String(value)) = payload.get(name) {
                        attributes.push((format!("payload.{name}"), value.clone()));
                    }
                }
                match payload.get("custom_details") {
                    None | Some(Value::Null) => {}
                    Some(Value::String(details)) => {
                        attributes.push(("payload.custom_details".into(), details.clone()))
                    }
                    Some(details) => {
                        attributes.push(("payload.custom_details".into(), details.to_string()))
                    }
                }
            }
            None | Some(Value::Null) => errors.push("'payload' is missing or blank".to_string()),
            Some(_) => errors.push("'payload' must be an object".to_string()),
        },
        Some(_) if dedup_key.is_none() && !dedup_refused => {
            errors.push("'dedup_key' is missing or blank".to_string());
        }
        _ => {}
    }
    for (name, item) in [("images", "src"), ("links", "href")] {
        match body.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::Array(list))
                if list
                    .iter()
                    .all(|l| l.get(item).is_some_and(Value::is_string)) =>
            {
                if !list.is_empty() {
                    attributes.push((name.to_string(), Value::Array(list.clone()).to_string()));
                }
            }
            Some(_) => errors.push(format!(
                "'{name}' must be a list of objects, each with its '{item}'"
            )),
        }
    }
    for name in ["client", "client_url"] {
        match body.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::String(value)) => attributes.push((name.to_string(), value.clone())),
            Some(_) => errors.push(format!("'{name}' must be a string")),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (Ok(routing_key), Some(action)) = (routing_key, action) else {
        return Err(vec!["Event object is invalid".to_string()]);
    };
    let dedup_key = dedup_key.unwrap_or_else(generated);
    attributes.push(("dedup_key".to_string(), dedup_key.clone()));
    Ok(PagerDutyEvent {
        routing_key,
        action,
        dedup_key,
        summary,
        severity,
        timestamp,
        attributes: fit_attributes(attributes).0,
    })
}

impl PagerDutyEvent {
    /// The client key of its incident: the `dedup_key` itself when it is one (visible ASCII
    /// up to 200 characters, as `POST /api/v1/logs` takes it), else derived from it.
    pub fn client_key(&self) -> String {
        if is_client_fingerprint(&self.dedup_key) {
            self.dedup_key.clone()
        } else {
            format!("pagerduty:{}", stable_id(&[&self.dedup_key]))
        }
    }

    /// The event as a log of `service`, received `now`.
    pub fn into_log(self, service: &str, now: DateTime<Utc>) -> LogInput {
        let content = match (&self.summary, self.action) {
            (Some(summary), _) => summary.trim().to_string(),
            (None, action) => format!("PagerDuty {} of {}", action.as_str(), self.dedup_key),
        };
        LogInput {
            service_name: service.to_string(),
            log_type: EVENT_TYPE.to_string(),
            severity: self.severity,
            log_content: content,
            timestamp: self.timestamp.unwrap_or(now),
            fingerprint: Some(self.client_key()),
            attributes: self.attributes,
            trace_id: None,
            span_id: None,
            source: LogSource::Pagerduty,
            action: self.action,
            event_key: None,
        }
    }
}

/// A text field of `payload`: present and not blank when `required`, at most `max`.
fn text(
    errors: &mut Vec<String>,
    payload: &Map<String, Value>,
    name: &str,
    max: usize,
    required: bool,
) -> Option<String> {
    match payload.get(name) {
        Some(Value::String(value)) if !value.trim().is_empty() => {
            if value.chars().count() > max {
                errors.push(format!(
                    "'payload.{name}' is too long (at most {max} characters)"
                ));
                None
            } else {
                Some(value.clone())
            }
        }
        None | Some(Value::Null) if !required => None,
        Some(Value::String(_)) if !required => None,
        Some(Value::String(_)) | None | Some(Value::Null) => {
            errors.push(format!("'payload.{name}' is missing or blank"));
            None
        }
        Some(_) => {
            errors.push(format!("'payload.{name}' must be a string"));
            None
        }
    }
}

/// An event's time: RFC 3339, or ISO 8601 with a `+0000` offset as PagerDuty's examples
/// write it; in 2000 or later and at most a day ahead.
fn event_time(raw: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let raw = raw.trim();
    let at = DateTime::parse_from_rfc3339(raw)
        .or_else(|_| DateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S%.f%z"))
        .map(|at| at.with_timezone(&Utc))
        .ok()
        .or_else(|| {
            NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|at| at.and_utc())
        })?;
    (at.year() >= 2000 && at <= now + Duration::hours(MAX_FUTURE_HOURS)).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-12-03T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn parse(body: Value) -> Result<PagerDutyEvent, Vec<String>> {
        parse_pagerduty(&body, now(), || "generated".to_string())
    }

    #[test]
    fn pagerdutys_own_example_is_a_trigger() {
        let event = parse(json!({
            "payload": {
                "summary": "Example alert on host1.example.com",
                "timestamp": "2026-12-03T07:42:58.315+0000",
                "source": "monitoringtool:cloudvendor:central-region-dc-01:852559987:cluster/api-stats-prod-003",
                "severity": "info",
                "component": "postgres",
                "group": "prod-datapipe",
                "class": "deploy",
                "custom_details": {"ping time": "1500ms", "load avg": 0.75}
            },
            "routing_key": "ik_abc_def",
            "dedup_key": "samplekeyhere",
            "images": [{"src": "https://www.pagerduty.com/logo.png", "href": "https://example.com/", "alt": "Example text"}],
            "links": [{"href": "https://example.com/", "text": "Link text"}],
            "event_action": "trigger",
            "client": "Sample Monitoring Service",
            "client_url": "https://monitoring.example.com"
        }))
        .unwrap();
        assert_eq!(event.routing_key, "ik_abc_def");
        assert_eq!(event.dedup_key, "samplekeyhere");
        let log = event.into_log("payments", now());
        assert_eq!(log.log_content, "Example alert on host1.example.com");
        assert_eq!(log.severity, Severity::Info);
        assert_eq!(log.fingerprint.as_deref(), Some("samplekeyhere"));
        assert_eq!(log.action, LogAction::Trigger);
        assert_eq!(log.timestamp.timestamp_millis(), 1_796_283_778_315);
        assert_eq!(log.attributes["payload.component"], "postgres");
        assert_eq!(log.attributes["client"], "Sample Monitoring Service");
        assert!(log.attributes["payload.custom_details"].contains("1500ms"));
    }

    #[test]
    fn a_trigger_without_a_key_gets_one_and_odd_keys_are_derived() {
        let trigger = |key: Value| {
            let mut body = json!({"routing_key": "k", "event_action": "trigger",
                "payload": {"summary": "disk full", "source": "db-1", "severity": "critical"}});
            body["dedup_key"] = key;
            parse(body).unwrap()
        };
        let event = trigger(Value::Null);
        assert_eq!(event.dedup_key, "generated");
        assert_eq!(event.severity, Severity::Fatal);
        let spaced = trigger(json!("db-1 disk full"));
        assert_eq!(spaced.dedup_key, "db-1 disk full");
        assert!(spaced.client_key().starts_with("pagerduty:"));
    }

    #[test]
    fn acknowledge_and_resolve_need_their_key_only() {
        let event = parse(json!({"routing_key": "k", "event_action": "resolve", "dedup_key": "x"}))
            .unwrap();
        assert_eq!(event.action, LogAction::Resolve);
        let log = event.into_log("payments", now());
        assert_eq!(log.timestamp, now());
        assert_eq!(log.fingerprint.as_deref(), Some("x"));
        assert_eq!(
            parse(json!({"routing_key": "k", "event_action": "acknowledge"})).unwrap_err(),
            ["'dedup_key' is missing or blank"]
        );
    }

    #[test]
    fn every_problem_is_said() {
        assert_eq!(
            parse(json!({"event_action": "explode", "dedup_key": 7})).unwrap_err(),
            [
                "'routing_key' is missing or blank",
                "'event_action' must be one of trigger, acknowledge or resolve",
                "'dedup_key' must be a string"
            ]
        );
        assert_eq!(
            parse(json!({"routing_key": "k", "event_action": "trigger",
                "payload": {"summary": "s".repeat(1025), "severity": "major", "timestamp": "soon"}}))
            .unwrap_err(),
            [
                "'payload.summary' is too long (at most 1024 characters)",
                "'payload.source' is missing or blank",
                "'payload.severity' must be one of critical, error, warning or info",
                "'payload.timestamp' must be an ISO 8601 date-time within a day from now at most"
            ]
        );
        assert_eq!(
            parse(json!([1])).unwrap_err(),
            ["Event object must be a JSON object"]
        );
        assert_eq!(
            parse(json!({"routing_key": "k", "event_action": "trigger"})).unwrap_err(),
            ["'payload' is missing or blank"]
        );
    }
}
