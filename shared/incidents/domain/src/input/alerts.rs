//! Alerts: an operator's update (the status alone).

use platform::Invalid;
use serde_json::Value;

use super::object;
use crate::model::AlertStatus;

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
