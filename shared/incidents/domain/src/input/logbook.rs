//! Logbook entries as clients send them (new, or a replacement of the version read).

use platform::{FieldErrors, Invalid};
use serde_json::{Map, Value};

use super::{object, text, MAX_BODY_CHARS, MAX_TITLE_CHARS};
use crate::fingerprint::is_hex_id;
use crate::model::LogbookKind;

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
