//! Alert rules as clients send them (create or replace).

use platform::{FieldErrors, Invalid};
use serde_json::Value;

use super::{
    escalation_delay, integer, object, severity_list, text, MAX_NAME_CHARS, MAX_THRESHOLD,
    MAX_WINDOW_SECONDS,
};
use crate::model::Severity;

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
