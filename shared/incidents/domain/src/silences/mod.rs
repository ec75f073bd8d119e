//! Silences and maintenance windows: operators hold back the notifications (and escalations)
//! of the incidents that match, from `startsAt` to `endsAt`. A silenced incident is recorded as
//! usual and carries the silences that held it (`silencedBy`); when a silence ends (by time or
//! expired by hand), each still-open incident it held notifies once (`Incident Unsilenced`).
//!
//! | Item | pk | sk | gsi1pk / gsi1sk |
//! |---|---|---|---|
//! | silence | `SILENCE#{id}` | `META` | `SILENCES#LIVE` (pending, active, or ended and not yet released) or `SILENCES#EXPIRED` / `{endsAt}#{id}` |
//! | live silences count (the cap) | `SILENCES` | `#COUNT` | |
//! | incident held | `SILENCE#{id}` | `HELD#{incidentId}` | |
//!
//! Every notification reads the live silences: one Query of the index partition
//! `SILENCES#LIVE`, at most [`MAX_LIVE`] items (the cap is a counter updated in the creating
//! transaction). An expired silence stays listed for [`EXPIRED_RETENTION_DAYS`] (TTL).
//!
//! - [`input`]: a silence as a client sends it, parsed and bounded;
//! - [`store`]: the silences, holding incidents and releasing them when a silence ends.

mod input;
mod store;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use input::{parse_silence, MatchersRequest, SilenceInput, SilenceRequest};
pub use store::{subject_of, unsilenced_event_id, Released, Silences, SilencesError};

use crate::model::Severity;

/// The most live (pending, active, or ended but not yet released) silences: every
/// notification reads them all.
pub const MAX_LIVE: i64 = 100;
pub const MAX_COMMENT_CHARS: usize = 500;
/// The longest silence (a week).
pub const MAX_DURATION_MINUTES: i64 = 10_080;
/// How far ahead a silence may be scheduled.
pub const MAX_LEAD_DAYS: i64 = 365;
/// Services or types one matcher names at most.
pub const MAX_NAMES: usize = 20;
pub const MAX_LABELS: usize = 20;
pub const MAX_LABEL_NAME_CHARS: usize = 128;
pub const MAX_LABEL_VALUE_CHARS: usize = 2_048;
/// How long an expired silence stays listed.
pub const EXPIRED_RETENTION_DAYS: i64 = 30;

/// What a silence holds back: each non-empty matcher must match.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Matchers {
    pub services: Vec<String>,
    pub severities: Vec<Severity>,
    pub types: Vec<String>,
    /// Each must equal the incident's log attribute of that name.
    pub labels: BTreeMap<String, String>,
}

/// What a silence is matched against: the incident's service, log type, severity (of the
/// log that opened it) and log attributes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subject {
    pub service: String,
    pub log_type: String,
    pub severity: Option<Severity>,
    pub labels: BTreeMap<String, String>,
}

impl Matchers {
    pub fn is_empty(&self) -> bool {
        self.services.is_empty()
            && self.severities.is_empty()
            && self.types.is_empty()
            && self.labels.is_empty()
    }

    /// Whether every matcher given matches `subject` (a severity matcher needs a severity).
    pub fn matches(&self, subject: &Subject) -> bool {
        !self.is_empty()
            && (self.services.is_empty() || self.services.contains(&subject.service))
            && (self.types.is_empty() || self.types.contains(&subject.log_type))
            && (self.severities.is_empty()
                || subject
                    .severity
                    .is_some_and(|s| self.severities.contains(&s)))
            && self
                .labels
                .iter()
                .all(|(name, value)| subject.labels.get(name) == Some(value))
    }
}

/// Where a silence stands at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SilenceState {
    /// It starts later.
    Pending,
    /// It holds back the notifications of what it matches.
    Active,
    /// It ended (by time or expired by hand).
    Expired,
}

impl SilenceState {
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "pending" => Some(Self::Pending),
            "active" => Some(Self::Active),
            "expired" => Some(Self::Expired),
            _ => None,
        }
    }
}

/// A silence as the API shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Silence {
    pub id: String,
    pub comment: String,
    pub matchers: Matchers,
    pub starts_at: String,
    pub ends_at: String,
    /// The operator who created it.
    pub created_by: String,
    pub created_at: String,
    /// Its state when it was read.
    pub state: SilenceState,
    /// The operator who expired it by hand (`DELETE`), if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expired_by: Option<String>,
}

impl Silence {
    /// Its state at `now` (RFC 3339 as the platform writes it).
    pub fn state_at(&self, now: &str) -> SilenceState {
        if self.ends_at.as_str() <= now {
            SilenceState::Expired
        } else if self.starts_at.as_str() > now {
            SilenceState::Pending
        } else {
            SilenceState::Active
        }
    }

    pub fn at(mut self, now: DateTime<Utc>) -> Self {
        self.state = self.state_at(&crate::input::format_time(now));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject() -> Subject {
        Subject {
            service: "checkout".into(),
            log_type: "payment".into(),
            severity: Some(Severity::Error),
            labels: BTreeMap::from([("env".to_string(), "prod".to_string())]),
        }
    }

    #[test]
    fn every_matcher_given_must_match() {
        let mut m = Matchers {
            services: vec!["checkout".into()],
            ..Matchers::default()
        };
        assert!(m.matches(&subject()));
        m.severities = vec![Severity::Warn];
        assert!(!m.matches(&subject()));
        m.severities = vec![Severity::Warn, Severity::Error];
        assert!(m.matches(&subject()));
        m.labels.insert("env".into(), "staging".into());
        assert!(!m.matches(&subject()));
        m.labels.insert("env".into(), "prod".into());
        assert!(m.matches(&subject()));
        m.labels.insert("region".into(), "eu".into());
        assert!(!m.matches(&subject()), "a label the log lacks");
        let types = Matchers {
            types: vec!["db".into()],
            ..Matchers::default()
        };
        assert!(!types.matches(&subject()));
        assert!(
            !Matchers::default().matches(&subject()),
            "empty never matches"
        );
        let severity_only = Matchers {
            severities: vec![Severity::Error],
            ..Matchers::default()
        };
        let unknown = Subject {
            severity: None,
            ..subject()
        };
        assert!(!severity_only.matches(&unknown));
    }

    #[test]
    fn the_state_follows_the_clock() {
        let silence = Silence {
            id: "s".into(),
            comment: "c".into(),
            matchers: Matchers::default(),
            starts_at: "2026-12-03T22:00:00.000Z".into(),
            ends_at: "2026-12-03T23:00:00.000Z".into(),
            created_by: "op".into(),
            created_at: "2026-12-03T20:00:00.000Z".into(),
            state: SilenceState::Pending,
            expired_by: None,
        };
        assert_eq!(
            silence.state_at("2026-12-03T21:59:59.999Z"),
            SilenceState::Pending
        );
        assert_eq!(
            silence.state_at("2026-12-03T22:00:00.000Z"),
            SilenceState::Active
        );
        assert_eq!(
            silence.state_at("2026-12-03T23:00:00.000Z"),
            SilenceState::Expired
        );
    }
}
