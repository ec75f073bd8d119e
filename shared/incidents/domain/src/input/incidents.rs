//! Incidents: an operator's update (status, note, assignee) and merge.

use platform::{FieldErrors, Invalid};
use serde_json::Value;

use super::{object, text, MAX_NAME_CHARS, MAX_NOTE_CHARS};
use crate::fingerprint::is_hex_id;
use crate::model::IncidentStatus;

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

/// An assignment that leaves the status as it is: `{assignee, note?}` without `status`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub assignee: String,
    pub note: Option<String>,
}

/// Whether an update `body` only assigns: it names an assignee and no status.
pub fn is_assignment(body: &Value) -> bool {
    body.as_object().is_some_and(|o| {
        matches!(o.get("status"), None | Some(Value::Null))
            && !matches!(o.get("assignee"), None | Some(Value::Null))
    })
}

/// `{assignee, note?}` (see [`is_assignment`]).
pub fn parse_assignment(body: &Value) -> Result<Assignment, Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let note = text(&mut errors, object, "", "note", MAX_NOTE_CHARS, false);
    let assignee = text(&mut errors, object, "", "assignee", MAX_NAME_CHARS, true);
    errors.finish()?;
    Ok(Assignment {
        assignee: assignee.ok_or_else(|| Invalid::field("assignee", "is required"))?,
        note,
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
