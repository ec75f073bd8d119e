//! What the incident platform answers: logs, incidents and their occurrences, alert rules,
//! alerts and logbook entries (camelCase JSON, as the contract documents them).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A log's severity, lowest first.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

impl Severity {
    pub const ALL: [Severity; 6] = [
        Severity::Trace,
        Severity::Debug,
        Severity::Info,
        Severity::Warn,
        Severity::Error,
        Severity::Fatal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Trace => "TRACE",
            Severity::Debug => "DEBUG",
            Severity::Info => "INFO",
            Severity::Warn => "WARN",
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
        }
    }

    /// The severity named exactly (upper case) by `raw`.
    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }
}

/// One stored log of the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Log {
    /// Assigned at ingestion: the log's time in milliseconds (13 digits), `-`, 32 hex digits.
    #[schema(example = "1732486400000-5b0f3c1e00004000800000000000000a")]
    pub id: String,
    pub service_name: String,
    #[serde(rename = "type")]
    pub log_type: String,
    pub severity: Severity,
    pub log_content: String,
    /// When the log happened (RFC 3339, UTC, milliseconds), as the client sent it.
    pub timestamp: String,
    /// When the platform accepted it.
    pub received_at: String,
    /// The grouping key the client sent (`fingerprint`, or its alias `dedup_key`): logs of
    /// one service with one key are one incident, whatever their messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "checkout:card-declined")]
    pub fingerprint: Option<String>,
    /// What the shipper said about the log beside its message: Loki stream labels and
    /// structured metadata, OTLP resource and record attributes (at most 64; names 1 to 128
    /// characters, values at most 2,048; scrubbed like `logContent`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schema(value_type = Option<BTreeMap<String, String>>, example = json!({"job": "checkout", "pod": "checkout-7d9f"}))]
    pub attributes: BTreeMap<String, String>,
    /// The trace the log was written in (W3C trace id: 32 lower-case hex digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "4bf92f3577b34da6a3ce929d0e0e4736")]
    pub trace_id: Option<String>,
    /// The span the log was written in (16 lower-case hex digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "00f067aa0ba902b7")]
    pub span_id: Option<String>,
    /// Which path sent it (absent on logs from before paths were told apart: `api`).
    #[serde(default, skip_serializing_if = "LogSource::is_api")]
    #[schema(value_type = Option<LogSource>)]
    pub source: LogSource,
    /// An integration's lifecycle action on the incident `fingerprint` names: `trigger`
    /// (absent: a log as any other), `acknowledge` or `resolve`.
    #[serde(default, skip_serializing_if = "LogAction::is_trigger")]
    #[schema(value_type = Option<LogAction>)]
    pub action: LogAction,
}

/// The path a log came in by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogSource {
    /// `POST /api/v1/logs`.
    #[default]
    Api,
    /// The Loki push API.
    Loki,
    /// OTLP/HTTP logs.
    Otlp,
    /// Prometheus Alertmanager's webhook.
    Alertmanager,
    /// The PagerDuty Events API v2.
    Pagerduty,
}

impl LogSource {
    pub fn as_str(self) -> &'static str {
        match self {
            LogSource::Api => "api",
            LogSource::Loki => "loki",
            LogSource::Otlp => "otlp",
            LogSource::Alertmanager => "alertmanager",
            LogSource::Pagerduty => "pagerduty",
        }
    }

    pub fn is_api(&self) -> bool {
        *self == LogSource::Api
    }

    /// An alerting integration: its events are alerts already, each one its own event (see
    /// [`INTEGRATION_RULE_ID`]), never matched by the alert rules.
    pub fn is_integration(self) -> bool {
        matches!(self, LogSource::Alertmanager | LogSource::Pagerduty)
    }
}

/// What a log asks of the incident its `fingerprint` names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogAction {
    /// A log as any other: grouped, counted, and opening (or reopening) its incident as the
    /// rules say.
    #[default]
    Trigger,
    /// The incident moves to ACKNOWLEDGED (its OPEN alerts with it), if it is ACTIVE.
    Acknowledge,
    /// The incident moves to RESOLVED (its alerts with it), unless it is RESOLVED.
    Resolve,
}

impl LogAction {
    pub fn as_str(self) -> &'static str {
        match self {
            LogAction::Trigger => "trigger",
            LogAction::Acknowledge => "acknowledge",
            LogAction::Resolve => "resolve",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [
            LogAction::Trigger,
            LogAction::Acknowledge,
            LogAction::Resolve,
        ]
        .into_iter()
        .find(|a| a.as_str() == raw)
    }

    pub fn is_trigger(&self) -> bool {
        *self == LogAction::Trigger
    }
}

/// The built-in rule every integration's trigger matches (and nothing else does): threshold
/// 1, any severity. Alertmanager and PagerDuty-speaking tools send alerts, already decided
/// upon, so each opens (or reopens) its incident and raises this rule's alert.
pub const INTEGRATION_RULE_ID: &str = "integration";

/// The answer to an accepted ingestion: the logs are on the ingest queue.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestAccepted {
    pub accepted: usize,
    /// The ids the logs will have in the timeline, in the order sent.
    pub ids: Vec<String>,
}

/// Where an incident is in its lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum IncidentStatus {
    Active,
    Acknowledged,
    Resolved,
}

impl IncidentStatus {
    pub const ALL: [IncidentStatus; 3] = [
        IncidentStatus::Active,
        IncidentStatus::Acknowledged,
        IncidentStatus::Resolved,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            IncidentStatus::Active => "ACTIVE",
            IncidentStatus::Acknowledged => "ACKNOWLEDGED",
            IncidentStatus::Resolved => "RESOLVED",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// The moves a client may make: forward only. A RESOLVED incident is reopened by a new
    /// occurrence, never by a PATCH.
    pub fn can_move_to(self, to: IncidentStatus) -> bool {
        matches!(
            (self, to),
            (IncidentStatus::Active, IncidentStatus::Acknowledged)
                | (IncidentStatus::Active, IncidentStatus::Resolved)
                | (IncidentStatus::Acknowledged, IncidentStatus::Resolved)
        )
    }
}

/// A problem: the logs of one fingerprint that an alert rule raised on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Incident {
    /// 32 hex digits, derived from the fingerprint: one incident per fingerprint, ever.
    pub id: String,
    pub status: IncidentStatus,
    /// SHA-256 of service, type and normalised message (hex).
    pub fingerprint: String,
    pub service_name: String,
    #[serde(rename = "type")]
    pub log_type: String,
    /// The message with numbers, ids and timestamps replaced by `#`: what grouped the logs.
    pub normalized_message: String,
    /// The first grouped log's message, as it was.
    pub sample_message: String,
    /// Why logs were grouped here, in words.
    pub grouped_by: String,
    /// Logs grouped into this incident (every log that matched an alert rule).
    pub occurrences: i64,
    pub first_seen: String,
    pub last_seen: String,
    pub opened_at: String,
    /// How often a new occurrence reopened it after it was RESOLVED.
    pub reopen_count: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    pub updated_at: String,
    /// The incident an operator merged this one into (32 hex digits): its logs and count
    /// went there, and so do its fingerprint's new logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<String>,
    /// The severity of the log that opened it (or last reopened it); absent on incidents
    /// opened before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The silences holding back its notifications and escalation (their ids); absent when
    /// none does. It is recorded, grouped and alerted as usual meanwhile.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub silenced_by: Vec<String>,
}

/// One log grouped into an incident, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence {
    pub log_id: String,
    pub timestamp: String,
    pub severity: Severity,
    pub log_content: String,
    /// The alert rules the log matched.
    pub rule_ids: Vec<String>,
    /// The log's attributes (see the log's `attributes`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    pub attributes: BTreeMap<String, String>,
    /// The log's trace (32 lower-case hex digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    /// The log's span (16 lower-case hex digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
}

/// One change of an incident made through the API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IncidentEvent {
    pub at: String,
    /// The status before (absent when the incident was opened or reopened by a log).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<IncidentStatus>,
    pub to: IncidentStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// The user who made the change, or `system` for a log.
    pub by: String,
}

/// An incident with samples of its grouped logs and its history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IncidentDetail {
    #[serde(flatten)]
    pub incident: Incident,
    /// Sampled grouped logs, newest first: the incident's first 10 and the newest log of
    /// each of the latest 10 batches that held its logs (at most 20; `occurrences` counts
    /// them all).
    pub recent_occurrences: Vec<Occurrence>,
    /// Status changes, oldest first.
    pub history: Vec<IncidentEvent>,
}

/// The built-in rule's id.
pub const DEFAULT_RULE_ID: &str = "default";

/// An alert rule: `threshold` logs of one fingerprint matching it within `windowSeconds`
/// raise an alert and open (or reopen) the fingerprint's incident.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertRule {
    /// A uuid, or `default` for the built-in rule on ERROR and FATAL.
    pub id: String,
    pub name: String,
    pub severities: Vec<Severity>,
    /// Only logs of this service (all when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    /// Only logs of this type (all when absent).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub log_type: Option<String>,
    pub threshold: i64,
    pub window_seconds: i64,
    pub enabled: bool,
    /// Minutes an incident it opens or reopens may stay unacknowledged before it escalates
    /// to each notified channel's `escalateTo` (overriding the channel's own delay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escalate_after_minutes: Option<i64>,
    pub created_at: String,
    pub updated_at: String,
}

impl AlertRule {
    /// The built-in rule of the integrations' triggers ([`INTEGRATION_RULE_ID`]); not
    /// stored, not listed, not editable.
    pub fn integration(at: &str) -> AlertRule {
        AlertRule {
            id: INTEGRATION_RULE_ID.to_string(),
            name: "Integration alert (Alertmanager, PagerDuty Events)".to_string(),
            severities: Severity::ALL.to_vec(),
            service_name: None,
            log_type: None,
            threshold: 1,
            window_seconds: 60,
            enabled: true,
            escalate_after_minutes: None,
            created_at: at.to_string(),
            updated_at: at.to_string(),
        }
    }

    /// True when `log` is one this rule counts: an integration's trigger is counted by the
    /// integration rule only, every other log by the other rules only.
    pub fn matches(&self, log: &Log) -> bool {
        if log.source.is_integration() {
            return self.id == INTEGRATION_RULE_ID && log.action.is_trigger();
        }
        self.id != INTEGRATION_RULE_ID
            && self.enabled
            && self.severities.contains(&log.severity)
            && self
                .service_name
                .as_ref()
                .is_none_or(|s| *s == log.service_name)
            && self.log_type.as_ref().is_none_or(|t| *t == log.log_type)
    }
}

/// Where an alert is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum AlertStatus {
    Open,
    Acknowledged,
    Resolved,
}

impl AlertStatus {
    pub const ALL: [AlertStatus; 3] = [
        AlertStatus::Open,
        AlertStatus::Acknowledged,
        AlertStatus::Resolved,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AlertStatus::Open => "OPEN",
            AlertStatus::Acknowledged => "ACKNOWLEDGED",
            AlertStatus::Resolved => "RESOLVED",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Forward only: OPEN → ACKNOWLEDGED → RESOLVED, or OPEN → RESOLVED.
    pub fn can_move_to(self, to: AlertStatus) -> bool {
        matches!(
            (self, to),
            (AlertStatus::Open, AlertStatus::Acknowledged)
                | (AlertStatus::Open, AlertStatus::Resolved)
                | (AlertStatus::Acknowledged, AlertStatus::Resolved)
        )
    }
}

/// A rule's threshold met by one fingerprint's logs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    pub id: String,
    pub rule_id: String,
    pub rule_name: String,
    pub incident_id: String,
    pub service_name: String,
    #[serde(rename = "type")]
    pub log_type: String,
    /// The severity of the log that met the threshold.
    pub severity: Severity,
    pub message: String,
    /// Matching logs counted in the window when it was raised.
    pub count: i64,
    pub threshold: i64,
    pub window_seconds: i64,
    pub status: AlertStatus,
    pub raised_at: String,
    pub updated_at: String,
}

/// A logbook entry's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum LogbookKind {
    Note,
    Postmortem,
}

impl LogbookKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LogbookKind::Note => "NOTE",
            LogbookKind::Postmortem => "POSTMORTEM",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [LogbookKind::Note, LogbookKind::Postmortem]
            .into_iter()
            .find(|k| k.as_str() == raw)
    }
}

/// A note or a postmortem, optionally about one incident.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogbookEntry {
    pub id: String,
    pub kind: LogbookKind,
    pub title: String,
    pub body: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incident_id: Option<String>,
    /// The username of the writer.
    pub author: String,
    pub author_id: String,
    pub created_at: String,
    pub updated_at: String,
    /// 1 when written, one more at each edit; an edit sends the version it read and is
    /// refused (409) when the entry has moved on since.
    #[schema(minimum = 1)]
    pub version: i64,
}
