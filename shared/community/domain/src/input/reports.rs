//! A member's report and an admin's resolution of the reports on a target.

use platform::{FieldError, Invalid};

use crate::model::reports::{ReportReason, ReportTarget};

/// The most characters of a report's text and of a resolution's note.
pub const MAX_REPORT_TEXT_CHARS: usize = 500;

/// A member's report: what (a post or a comment by id), why, and optional words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportInput {
    pub target: ReportTarget,
    pub target_id: String,
    pub reason: ReportReason,
    pub text: Option<String>,
}

impl ReportInput {
    pub fn parse(
        target_type: Option<&str>,
        target_id: Option<&str>,
        reason: Option<&str>,
        text: Option<&str>,
    ) -> Result<Self, Invalid> {
        let mut invalid = Invalid(Vec::new());
        let target = match target_type.map(ReportTarget::parse) {
            Some(Some(t)) => Some(t),
            Some(None) => {
                invalid
                    .0
                    .push(FieldError::new("targetType", "must be post or comment"));
                None
            }
            None => {
                invalid.0.push(FieldError::new("targetType", "is required"));
                None
            }
        };
        let target_id = match target_id.map(|raw| uuid::Uuid::try_parse(raw.trim())) {
            Some(Ok(id)) => Some(id.hyphenated().to_string()),
            Some(Err(_)) => {
                invalid
                    .0
                    .push(FieldError::new("targetId", "must be a UUID"));
                None
            }
            None => {
                invalid.0.push(FieldError::new("targetId", "is required"));
                None
            }
        };
        let reason = match reason.map(ReportReason::parse) {
            Some(Some(r)) => Some(r),
            Some(None) => {
                invalid.0.push(FieldError::new(
                    "reason",
                    "must be spam, abuse, off-topic or other",
                ));
                None
            }
            None => {
                invalid.0.push(FieldError::new("reason", "is required"));
                None
            }
        };
        let text = match text {
            None => None,
            Some(raw) if raw.chars().count() > MAX_REPORT_TEXT_CHARS => {
                invalid
                    .0
                    .push(FieldError::new("text", "must be at most 500 characters"));
                None
            }
            Some(raw) if super::has_control(raw, true) => {
                invalid.0.push(FieldError::new(
                    "text",
                    "must not contain control characters",
                ));
                None
            }
            Some(raw) => Some(raw.trim().to_string()).filter(|t| !t.is_empty()),
        };
        match (target, target_id, reason) {
            (Some(target), Some(target_id), Some(reason)) if invalid.0.is_empty() => Ok(Self {
                target,
                target_id,
                reason,
                text,
            }),
            _ => Err(invalid),
        }
    }
}

/// What an admin does with the reports on a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolveAction {
    /// Removes the content (the admin removal, logged with the note or the reports' reason).
    Remove,
    /// Closes the reports; the content stays.
    Dismiss,
}

/// An admin's resolution: the target from the path, the action and an optional note (one
/// line, at most 500 characters, told to the reporters and, for a removal, its reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub target: ReportTarget,
    pub target_id: String,
    pub action: ResolveAction,
    pub note: Option<String>,
}

impl Resolution {
    pub fn parse(
        target_type: &str,
        target_id: &str,
        action: Option<&str>,
        note: Option<&str>,
    ) -> Result<Self, Invalid> {
        let mut invalid = Invalid(Vec::new());
        let target = ReportTarget::parse(target_type);
        if target.is_none() {
            invalid
                .0
                .push(FieldError::new("targetType", "must be post or comment"));
        }
        let id = uuid::Uuid::try_parse(target_id.trim())
            .ok()
            .map(|u| u.hyphenated().to_string());
        if id.is_none() {
            invalid
                .0
                .push(FieldError::new("targetId", "must be a UUID"));
        }
        let action = match action {
            Some("remove") => Some(ResolveAction::Remove),
            Some("dismiss") => Some(ResolveAction::Dismiss),
            Some(_) => {
                invalid
                    .0
                    .push(FieldError::new("action", "must be remove or dismiss"));
                None
            }
            None => {
                invalid.0.push(FieldError::new("action", "is required"));
                None
            }
        };
        let note = match note {
            None => None,
            Some(raw) if raw.chars().count() > MAX_REPORT_TEXT_CHARS => {
                invalid
                    .0
                    .push(FieldError::new("note", "must be at most 500 characters"));
                None
            }
            Some(raw) if super::has_control(raw, false) => {
                invalid.0.push(FieldError::new(
                    "note",
                    "must be one line without control characters",
                ));
                None
            }
            Some(raw) => Some(raw.trim().to_string()).filter(|t| !t.is_empty()),
        };
        match (target, id, action) {
            (Some(target), Some(target_id), Some(action)) if invalid.0.is_empty() => Ok(Self {
                target,
                target_id,
                action,
                note,
            }),
            _ => Err(invalid),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::tests::fields;

    #[test]
    fn a_report_names_every_bad_field() {
        let ok = ReportInput::parse(
            Some("comment"),
            Some("5B0F3C1E-0000-4000-8000-000000000001"),
            Some("off-topic"),
            Some("  see the link\n "),
        )
        .unwrap();
        assert_eq!(ok.target_id, "5b0f3c1e-0000-4000-8000-000000000001");
        assert_eq!(ok.text.as_deref(), Some("see the link"));
        let e = ReportInput::parse(
            Some("user"),
            Some("x"),
            Some("rude"),
            Some(&"x".repeat(501)),
        )
        .unwrap_err();
        assert_eq!(fields(e), ["targetType", "targetId", "reason", "text"]);
        let e = ReportInput::parse(None, None, None, None).unwrap_err();
        assert_eq!(fields(e), ["targetType", "targetId", "reason"]);
    }

    #[test]
    fn a_resolution_is_remove_or_dismiss_with_a_one_line_note() {
        let r = Resolution::parse(
            "post",
            "5b0f3c1e-0000-4000-8000-000000000001",
            Some("dismiss"),
            Some(" fine "),
        )
        .unwrap();
        assert_eq!(
            (r.action, r.note.as_deref()),
            (ResolveAction::Dismiss, Some("fine"))
        );
        let e = Resolution::parse("x", "y", Some("ban"), Some("a\nb")).unwrap_err();
        assert_eq!(fields(e), ["targetType", "targetId", "action", "note"]);
    }
}
