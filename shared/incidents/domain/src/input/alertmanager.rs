//! Prometheus Alertmanager's webhook notification (payload `version` 4), as its webhook
//! receiver sends it (`notify/webhook`), into one log per alert:
//!
//! - a firing alert is a `trigger` of the incident its alert `fingerprint` names (the client
//!   key `alertmanager:{fingerprint}`), a resolved one a `resolve` of it. One incident per
//!   alert, not per `groupKey`: an alert fires and resolves on its own, a group does not
//!   (it resolves only when its last alert does, and its key changes with the route);
//! - the alert's event key is its fingerprint, its start (or end) and its status, so the
//!   whole group re-sent every `group_interval`/`repeat_interval` is the same logs again:
//!   counted once, never reopening what was resolved since;
//! - service: the `service`, `job` or `app` label, else the receiver's name; severity: the
//!   `severity` label (`critical` FATAL, `error` ERROR, `warning` WARN, `info` INFO, ...;
//!   none or another: ERROR; a resolved alert INFO); message: the `summary` annotation, else
//!   `description`, else the `alertname` label (`Resolved: ` before it when resolved); labels (as they are) and annotations (`annotations.{name}`) kept in
//!   `attributes`, within their bounds.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Duration, Utc};
use platform::{FieldErrors, Invalid};
use serde_json::{Map, Value};

use super::shipped::fit_attributes;
use super::{LogInput, MAX_CONTENT_CHARS, MAX_FUTURE_HOURS, MAX_NAME_CHARS};
use crate::fingerprint::stable_id;
use crate::model::{LogAction, LogSource, Severity};

/// The most alerts one notification may carry (Alertmanager's `max_alerts` keeps it under).
pub const MAX_ALERTS: usize = 500;
/// The log type of an Alertmanager alert.
pub const ALERT_TYPE: &str = "ALERTMANAGER_ALERT";
/// The labels naming an alert's service, first found first.
pub const SERVICE_LABELS: [&str; 3] = ["service", "job", "app"];
/// The longest alert fingerprint taken (Alertmanager's are 16 hex digits).
const MAX_FINGERPRINT_CHARS: usize = 64;

/// The logs of an Alertmanager notification `body`, one per alert, each naming the service
/// it will be sent as; a notification of no alert is none. Received `now`.
pub fn parse_alertmanager(body: &Value, now: DateTime<Utc>) -> Result<Vec<LogInput>, Invalid> {
    let Value::Object(body) = body else {
        return Err(Invalid::field(
            "body",
            "must be an Alertmanager webhook notification (a JSON object)",
        ));
    };
    let mut errors = FieldErrors::new();
    match body.get("version") {
        None | Some(Value::Null) => {}
        Some(Value::String(v)) if v == "4" => {}
        Some(_) => errors.add("version", "must be \"4\" (Alertmanager's webhook payload)"),
    }
    let receiver = match body.get("receiver") {
        Some(Value::String(r)) if !r.trim().is_empty() => Some(r.trim().to_string()),
        // A blank name names no service: the alerts' labels (or the fallback) do.
        None | Some(Value::Null) | Some(Value::String(_)) => None,
        Some(_) => {
            errors.add("receiver", "must be a string");
            None
        }
    };
    let alerts = match body.get("alerts") {
        Some(Value::Array(alerts)) if alerts.len() <= MAX_ALERTS => alerts.as_slice(),
        Some(Value::Array(_)) => {
            errors.add(
                "alerts",
                format!("must hold at most {MAX_ALERTS} alerts (set max_alerts: {MAX_ALERTS})"),
            );
            &[]
        }
        None | Some(Value::Null) => {
            errors.add("alerts", "is required");
            &[]
        }
        Some(_) => {
            errors.add("alerts", "must be an array of alerts");
            &[]
        }
    };
    let group = Group {
        receiver: receiver.as_deref(),
        group_key: body.get("groupKey").and_then(Value::as_str),
        external_url: body.get("externalURL").and_then(Value::as_str),
    };
    let logs: Vec<LogInput> = alerts
        .iter()
        .enumerate()
        .filter_map(|(i, alert)| {
            alert_log(&mut errors, &format!("alerts[{i}]."), alert, &group, now)
        })
        .collect();
    errors.finish()?;
    Ok(logs)
}

/// What the notification says of all its alerts.
struct Group<'a> {
    receiver: Option<&'a str>,
    group_key: Option<&'a str>,
    external_url: Option<&'a str>,
}

fn alert_log(
    errors: &mut FieldErrors,
    prefix: &str,
    alert: &Value,
    group: &Group<'_>,
    now: DateTime<Utc>,
) -> Option<LogInput> {
    let Value::Object(alert) = alert else {
        errors.add(prefix.trim_end_matches('.'), "must be an alert object");
        return None;
    };
    let firing = match alert.get("status") {
        Some(Value::String(s)) if s == "firing" => Some(true),
        Some(Value::String(s)) if s == "resolved" => Some(false),
        None | Some(Value::Null) => {
            errors.add(format!("{prefix}status"), "is required");
            None
        }
        Some(_) => {
            errors.add(format!("{prefix}status"), "must be firing or resolved");
            None
        }
    };
    let labels = string_map(errors, alert, prefix, "labels", true);
    let annotations = string_map(errors, alert, prefix, "annotations", false);
    let starts_at = time(errors, alert, prefix, "startsAt", true);
    let ends_at = time(errors, alert, prefix, "endsAt", false);
    let generator = match alert.get("generatorURL") {
        Some(Value::String(u)) => Some(u.as_str()),
        None | Some(Value::Null) => None,
        Some(_) => {
            errors.add(format!("{prefix}generatorURL"), "must be a string");
            None
        }
    };
    let fingerprint = match alert.get("fingerprint") {
        Some(Value::String(f))
            if (1..=MAX_FINGERPRINT_CHARS).contains(&f.len())
                && f.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            Some(f.clone())
        }
        None | Some(Value::Null) => None,
        Some(_) => {
            errors.add(
                format!("{prefix}fingerprint"),
                format!("must be 1 to {MAX_FINGERPRINT_CHARS} letters or digits"),
            );
            None
        }
    };
    let (firing, labels, annotations, starts_at, ends_at) =
        (firing?, labels?, annotations?, starts_at?, ends_at?);
    // Alertmanager always sends it; a sender that does not is keyed by the label set.
    let fingerprint = fingerprint.unwrap_or_else(|| {
        let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        stable_id(&pairs.iter().map(String::as_str).collect::<Vec<_>>())
            .chars()
            .take(16)
            .collect()
    });
    let service = SERVICE_LABELS
        .iter()
        .find_map(|name| {
            labels
                .get(*name)
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
        })
        .or(group.receiver)
        .unwrap_or("alertmanager");
    let service: String = service.chars().take(MAX_NAME_CHARS).collect();
    // A resolve is news, not a problem: it does not count as one in the metrics.
    let severity = match labels.get("severity") {
        _ if !firing => Severity::Info,
        Some(label) => severity_of(label),
        None => Severity::Error,
    };
    let title = ["summary", "description"]
        .iter()
        .find_map(|name| {
            annotations
                .get(*name)
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
        })
        .or_else(|| {
            labels
                .get("alertname")
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
        })
        .unwrap_or("Alertmanager alert");
    let (when, at, action) = if firing {
        (starts_at, in_bounds(starts_at, now), LogAction::Trigger)
    } else {
        (
            ends_at,
            ends_at.and_then(|e| in_bounds(Some(e), now)),
            LogAction::Resolve,
        )
    };
    let mut attributes: Vec<(String, String)> = labels.clone().into_iter().collect();
    attributes.extend(
        annotations
            .iter()
            .map(|(name, value)| (format!("annotations.{name}"), value.clone())),
    );
    let times = [
        ("startsAt", starts_at),
        ("endsAt", ends_at.filter(|_| !firing)),
    ];
    for (name, at) in times {
        if let Some(at) = at {
            attributes.push((name.to_string(), super::format_time(at)));
        }
    }
    for (name, value) in [
        ("generatorURL", generator),
        ("alertmanager.receiver", group.receiver),
        ("alertmanager.groupKey", group.group_key),
        ("alertmanager.externalURL", group.external_url),
        ("alertmanager.fingerprint", Some(fingerprint.as_str())),
    ] {
        if let Some(value) = value {
            attributes.push((name.to_string(), value.to_string()));
        }
    }
    Some(LogInput {
        service_name: service,
        log_type: ALERT_TYPE.to_string(),
        severity,
        log_content: if firing {
            title.chars().take(MAX_CONTENT_CHARS).collect()
        } else {
            format!("Resolved: {title}")
                .chars()
                .take(MAX_CONTENT_CHARS)
                .collect()
        },
        timestamp: at.unwrap_or(now),
        fingerprint: Some(format!("alertmanager:{fingerprint}")),
        attributes: fit_attributes(attributes).0,
        trace_id: None,
        span_id: None,
        source: LogSource::Alertmanager,
        action,
        event_key: Some(format!(
            "{fingerprint}/{}/{}",
            when.map(|w| w.timestamp_millis()).unwrap_or(0),
            if firing { "firing" } else { "resolved" }
        )),
    })
}

/// An alert's time as a log's, when within a log's bounds (Alertmanager's zero time
/// `0001-01-01T00:00:00Z` is none).
fn in_bounds(at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    at.filter(|at| at.year() >= 2000 && *at <= now + Duration::hours(MAX_FUTURE_HOURS))
}

/// The severity a `severity` label names (case-insensitively); ERROR when it names none.
pub fn severity_of(label: &str) -> Severity {
    match label.trim().to_ascii_lowercase().as_str() {
        "critical" | "fatal" | "page" | "emergency" | "alert" | "disaster" => Severity::Fatal,
        "warning" | "warn" | "medium" | "minor" | "average" => Severity::Warn,
        "info" | "informational" | "information" | "notice" | "low" | "none" => Severity::Info,
        "debug" => Severity::Debug,
        _ => Severity::Error,
    }
}

/// A map of names to strings (`labels`, `annotations`).
fn string_map(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
    prefix: &str,
    name: &str,
    required: bool,
) -> Option<BTreeMap<String, String>> {
    let field = format!("{prefix}{name}");
    match object.get(name) {
        None | Some(Value::Null) if required => {
            errors.add(field, "is required");
            None
        }
        None | Some(Value::Null) => Some(BTreeMap::new()),
        Some(Value::Object(map)) => {
            let mut out = BTreeMap::new();
            for (key, value) in map {
                let Value::String(value) = value else {
                    errors.add(field, "must map names to strings");
                    return None;
                };
                out.insert(key.clone(), value.clone());
            }
            Some(out)
        }
        Some(_) => {
            errors.add(field, "must map names to strings");
            None
        }
    }
}

/// An RFC 3339 time (`Some(None)` when absent and not required).
fn time(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
    prefix: &str,
    name: &str,
    required: bool,
) -> Option<Option<DateTime<Utc>>> {
    let field = format!("{prefix}{name}");
    match object.get(name) {
        None | Some(Value::Null) if required => {
            errors.add(field, "is required");
            None
        }
        None | Some(Value::Null) => Some(None),
        // An empty end is no end, as Alertmanager's zero time is.
        Some(Value::String(s)) if !required && s.trim().is_empty() => Some(None),
        Some(Value::String(s)) => match DateTime::parse_from_rfc3339(s.trim()) {
            Ok(at) => Some(Some(at.with_timezone(&Utc))),
            Err(_) => {
                errors.add(field, "must be an RFC 3339 date-time");
                None
            }
        },
        Some(_) => {
            errors.add(field, "must be an RFC 3339 date-time");
            None
        }
    }
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

    /// A notification as Alertmanager 0.27 sends it.
    fn notification(status: &str) -> Value {
        json!({
            "receiver": "platform",
            "status": status,
            "alerts": [{
                "status": status,
                "labels": {"alertname": "HighErrorRate", "job": "checkout", "severity": "critical", "instance": "10.0.0.7:9100"},
                "annotations": {"summary": "Checkout 5xx above 5%", "description": "5.3% of requests failed"},
                "startsAt": "2026-12-03T07:55:12.345678901Z",
                "endsAt": if status == "firing" { "0001-01-01T00:00:00Z" } else { "2026-12-03T07:59:00Z" },
                "generatorURL": "http://prometheus:9090/graph?g0.expr=rate",
                "fingerprint": "3f1e2d4c5b6a7988"
            }],
            "groupLabels": {"alertname": "HighErrorRate"},
            "commonLabels": {"alertname": "HighErrorRate"},
            "commonAnnotations": {},
            "externalURL": "http://alertmanager:9093",
            "version": "4",
            "groupKey": "{}:{alertname=\"HighErrorRate\"}",
            "truncatedAlerts": 0
        })
    }

    #[test]
    fn a_firing_alert_triggers_its_fingerprints_incident() {
        let logs = parse_alertmanager(&notification("firing"), now()).unwrap();
        let log = &logs[0];
        assert_eq!(log.service_name, "checkout", "the job label");
        assert_eq!(log.severity, Severity::Fatal);
        assert_eq!(log.log_content, "Checkout 5xx above 5%");
        assert_eq!(log.action, LogAction::Trigger);
        assert_eq!(log.source, LogSource::Alertmanager);
        assert_eq!(
            log.fingerprint.as_deref(),
            Some("alertmanager:3f1e2d4c5b6a7988")
        );
        assert_eq!(log.timestamp.timestamp_millis(), 1_796_284_512_345);
        assert_eq!(log.attributes["instance"], "10.0.0.7:9100");
        assert_eq!(
            log.attributes["annotations.description"],
            "5.3% of requests failed"
        );
        assert!(!log.attributes.contains_key("endsAt"));
        // Sent again, it is the same event.
        let again =
            parse_alertmanager(&notification("firing"), now() + Duration::hours(4)).unwrap();
        assert_eq!(again[0].event_key, log.event_key);
    }

    #[test]
    fn an_empty_end_is_no_end_but_an_empty_start_is_refused() {
        let mut body = notification("firing");
        body["alerts"][0]["endsAt"] = json!("");
        let logs = parse_alertmanager(&body, now()).unwrap();
        assert_eq!(logs[0].action, LogAction::Trigger);
        body["alerts"][0]["startsAt"] = json!("");
        let refused = parse_alertmanager(&body, now()).unwrap_err();
        assert!(
            format!("{refused:?}").contains("alerts[0].startsAt"),
            "{refused:?}"
        );
    }

    #[test]
    fn a_resolved_alert_resolves_it_at_its_end() {
        let logs = parse_alertmanager(&notification("resolved"), now()).unwrap();
        assert_eq!(logs[0].action, LogAction::Resolve);
        assert_eq!(logs[0].severity, Severity::Info);
        assert_eq!(logs[0].log_content, "Resolved: Checkout 5xx above 5%");
        assert_eq!(
            logs[0].fingerprint.as_deref(),
            Some("alertmanager:3f1e2d4c5b6a7988")
        );
        assert_eq!(
            super::super::format_time(logs[0].timestamp),
            "2026-12-03T07:59:00.000Z"
        );
        let firing = parse_alertmanager(&notification("firing"), now()).unwrap();
        assert_ne!(logs[0].event_key, firing[0].event_key);
    }

    #[test]
    fn service_severity_and_title_fall_back() {
        let body = json!({"receiver": "team-db", "alerts": [{
            "status": "firing", "labels": {"alertname": "DiskFull", "severity": "Warning"},
            "startsAt": "2026-12-03T07:00:00Z"
        }]});
        let log = &parse_alertmanager(&body, now()).unwrap()[0];
        assert_eq!(log.service_name, "team-db");
        assert_eq!(log.severity, Severity::Warn);
        assert_eq!(log.log_content, "DiskFull");
        assert_eq!(
            log.fingerprint.as_ref().unwrap().len(),
            "alertmanager:".len() + 16
        );
        assert_eq!(severity_of("whatever"), Severity::Error);
        assert_eq!(severity_of("info"), Severity::Info);
    }

    #[test]
    fn bad_notifications_name_each_field() {
        let fields = |body: Value| {
            parse_alertmanager(&body, now())
                .unwrap_err()
                .errors()
                .iter()
                .map(|e| e.field.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(fields(json!([])), ["body"]);
        assert_eq!(fields(json!({"version": "3", "alerts": []})), ["version"]);
        assert_eq!(fields(json!({})), ["alerts"]);
        assert_eq!(
            fields(
                json!({"alerts": [7, {"status": "pending", "labels": {"a": 1}, "startsAt": "yesterday"}]})
            ),
            [
                "alerts[0]",
                "alerts[1].status",
                "alerts[1].labels",
                "alerts[1].startsAt"
            ]
        );
        let many: Vec<Value> = (0..=MAX_ALERTS).map(|_| json!({})).collect();
        assert_eq!(fields(json!({"alerts": many})), ["alerts"]);
        assert!(parse_alertmanager(&json!({"alerts": []}), now())
            .unwrap()
            .is_empty());
    }

    #[test]
    fn attributes_stay_within_a_logs_bounds() {
        let labels: Map<String, Value> = (0..100)
            .map(|i| (format!("l{i:03}"), Value::String("v".repeat(3_000))))
            .collect();
        let body = json!({"alerts": [{"status": "firing", "labels": labels, "startsAt": "2026-12-03T07:00:00Z"}]});
        let log = &parse_alertmanager(&body, now()).unwrap()[0];
        assert!(super::super::check_attributes(&log.attributes).is_ok());
        assert!(!log.attributes.is_empty());
    }
}
