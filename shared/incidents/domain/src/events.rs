//! Incident events on the stack's EventBridge bus (`INCIDENT_EVENT_BUS`), never lost: every
//! change that makes one writes an outbox row in the same transaction as the change
//! ([`outbox_row`]); after the commit the writer publishes the incident's outbox rows and
//! deletes them ([`Publisher::flush`]), and a scheduled sweep publishes the rows a crash or a
//! failed PutEvents left ([`Publisher::sweep`], through the `gsi1` partition `OUTBOX`, not a
//! scan). An event may so be published twice, always with the same `eventId`: consumers
//! dedupe on it.
//!
//! | Item | pk | sk | gsi1pk / gsi1sk |
//! |---|---|---|---|
//! | outbox row | `INC#{incidentId}` | `OUTBOX#{eventId}` | `OUTBOX` / `{at}#{eventId}` |
//!
//! Event: `source` [`SOURCE`], `detail-type` one of [`EventKind`]'s names, `detail` a
//! [`EventDetail`] (docs/incident-notifications.md).

use crate::model::IncidentStatus;
use aws_sdk_eventbridge::types::PutEventsRequestEntry;
use platform::aws::{AwsClients, LazyClient};
use platform::dynamo::{key, n, s, Attributes, DynamoError, Item, Table};
use platform::{ConfigError, Env};
use serde::{Deserialize, Serialize};

/// The `source` of every incident event.
pub const SOURCE: &str = "incident-platform";
/// The index partition the sweep reads.
const OUTBOX_GSI: &str = "OUTBOX";
/// Outbox rows one sweep publishes (PutEvents takes 10 entries a call).
pub const SWEEP_LIMIT: usize = 200;
/// Outbox rows one flush of an incident publishes (a change writes one or two).
const FLUSH_LIMIT: usize = 20;

/// What happened, as the event's `detail-type` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Opened,
    Reopened,
    Escalated,
    Acknowledged,
    Resolved,
    AlertRaised,
    /// A silence that held the (still open) incident's notifications ended.
    Unsilenced,
}

impl EventKind {
    pub const ALL: [EventKind; 7] = [
        EventKind::Opened,
        EventKind::Reopened,
        EventKind::Escalated,
        EventKind::Acknowledged,
        EventKind::Resolved,
        EventKind::AlertRaised,
        EventKind::Unsilenced,
    ];

    /// The event's `detail-type`.
    pub fn detail_type(self) -> &'static str {
        match self {
            EventKind::Opened => "Incident Opened",
            EventKind::Reopened => "Incident Reopened",
            EventKind::Escalated => "Incident Escalated",
            EventKind::Acknowledged => "Incident Acknowledged",
            EventKind::Resolved => "Incident Resolved",
            EventKind::AlertRaised => "Alert Raised",
            EventKind::Unsilenced => "Incident Unsilenced",
        }
    }

    /// The event of an operator's move to `status`; none for a move no event names.
    pub fn of_status(status: IncidentStatus) -> Option<Self> {
        match status {
            IncidentStatus::Acknowledged => Some(EventKind::Acknowledged),
            IncidentStatus::Resolved => Some(EventKind::Resolved),
            IncidentStatus::Active => None,
        }
    }

    /// The status the incident has once this change is recorded; none for a change that
    /// keeps it (an escalation, an alert).
    pub fn status(self) -> Option<IncidentStatus> {
        match self {
            EventKind::Opened | EventKind::Reopened => Some(IncidentStatus::Active),
            EventKind::Acknowledged => Some(IncidentStatus::Acknowledged),
            EventKind::Resolved => Some(IncidentStatus::Resolved),
            EventKind::Escalated | EventKind::AlertRaised | EventKind::Unsilenced => None,
        }
    }

    pub fn parse(detail_type: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.detail_type() == detail_type)
    }
}

/// What the writer knows when it records the change.
#[derive(Clone, Debug)]
pub struct Change<'a> {
    pub kind: EventKind,
    pub incident_id: &'a str,
    pub at: &'a str,
    pub by: &'a str,
    pub note: Option<&'a str>,
    /// The alert raised, for [`EventKind::AlertRaised`].
    pub alert_id: Option<&'a str>,
    /// The severity of the alert or of the log that (re)opened the incident.
    pub severity: Option<&'a str>,
    /// The channel an escalation goes to, for [`EventKind::Escalated`].
    pub channel_id: Option<&'a str>,
    /// The opening rule's escalation delay, for [`EventKind::Opened`] and [`EventKind::Reopened`].
    pub escalate_after_minutes: Option<i64>,
}

impl<'a> Change<'a> {
    /// A change the platform makes itself (`by` is `system`).
    pub fn system(kind: EventKind, incident_id: &'a str, at: &'a str) -> Self {
        Self {
            kind,
            incident_id,
            at,
            by: "system",
            note: None,
            alert_id: None,
            severity: None,
            channel_id: None,
            escalate_after_minutes: None,
        }
    }
}

/// The outbox row of `change`, to put in the change's own transaction; a fresh event id.
pub fn outbox_row(change: &Change<'_>) -> Item {
    outbox_row_keyed(change, &uuid::Uuid::new_v4().simple().to_string())
}

/// The outbox row of `change` under a given event id (32 hex digits): for a change that may
/// be recorded twice and must be one event (a silence's end, `crate::silences`).
pub fn outbox_row_keyed(change: &Change<'_>, event_id: &str) -> Item {
    let mut row = key(
        format!("INC#{}", change.incident_id),
        format!("OUTBOX#{event_id}"),
    );
    row.insert("gsi1pk".into(), s(OUTBOX_GSI));
    row.insert("gsi1sk".into(), s(format!("{}#{event_id}", change.at)));
    row.insert("eventId".into(), s(event_id));
    row.insert("detailType".into(), s(change.kind.detail_type()));
    row.insert("incidentId".into(), s(change.incident_id));
    row.insert("at".into(), s(change.at));
    row.insert("by".into(), s(change.by));
    if let Some(note) = change.note {
        row.insert("note".into(), s(note));
    }
    if let Some(alert) = change.alert_id {
        row.insert("alertId".into(), s(alert));
    }
    if let Some(severity) = change.severity {
        row.insert("severity".into(), s(severity));
    }
    if let Some(channel) = change.channel_id {
        row.insert("channelId".into(), s(channel));
    }
    if let Some(after) = change.escalate_after_minutes {
        row.insert("escalateAfterMinutes".into(), n(after));
    }
    row
}

/// An event's `detail`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventDetail {
    /// The same on every publication of one change: what consumers dedupe on.
    pub event_id: String,
    pub incident_id: String,
    /// When the change was recorded (RFC 3339, UTC).
    pub at: String,
    /// `system` for the processor and the escalation sweep, else the operator's username.
    pub by: String,
    /// The incident's status once the change was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    /// The log type the incident groups (`type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_type: Option<String>,
    /// The incident's message, its identifiers folded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The severity of the alert (Alert Raised) or of the rule's logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The channel an escalation goes to (Incident Escalated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    /// The opening rule's escalation delay (Incident Opened, Incident Reopened): overrides
    /// the notified channels' `escalateAfterMinutes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalate_after_minutes: Option<i64>,
}

/// Publishes outbox rows to the bus and clears them.
#[derive(Clone, Debug)]
pub struct Publisher {
    table: Table,
    /// Built on its first publish: a request that changes no incident never needs it.
    events: LazyClient<aws_sdk_eventbridge::Client>,
    bus: String,
}

impl Publisher {
    pub fn new(table: Table, events: aws_sdk_eventbridge::Client, bus: String) -> Self {
        Self::over(table, LazyClient::ready(events), bus)
    }

    fn over(table: Table, events: LazyClient<aws_sdk_eventbridge::Client>, bus: String) -> Self {
        Self { table, events, bus }
    }

    /// Over `table`, publishing to bus `INCIDENT_EVENT_BUS` (its name or ARN).
    pub fn from_env(env: &Env, aws: &AwsClients, table: Table) -> Result<Self, ConfigError> {
        let bus = env.require("INCIDENT_EVENT_BUS")?.to_string();
        let config = aws.config().clone();
        Ok(Self::over(
            table,
            LazyClient::new(move || aws_sdk_eventbridge::Client::new(&config)),
            bus,
        ))
    }

    /// Publishes incident `id`'s outbox rows (right after a change committed); a failure is
    /// logged and left to the sweep, so the change itself still succeeds.
    pub async fn flush(&self, id: &str) {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :outbox)")
            .expression_attribute_values(":pk", s(format!("INC#{id}")))
            .expression_attribute_values(":outbox", s("OUTBOX#"));
        let result = match self.table.query_all(query, Some(FLUSH_LIMIT)).await {
            Ok(rows) => self.publish(rows).await.map(|_| ()),
            Err(e) => Err(e.into()),
        };
        if let Err(error) = result {
            tracing::warn!(incident = %id, %error, "incident events left to the outbox sweep");
        }
    }

    /// Publishes the outbox rows recorded before `before` (RFC 3339), oldest first, at most
    /// [`SWEEP_LIMIT`]; returns how many were published.
    pub async fn sweep(&self, before: &str) -> Result<usize, PublishError> {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :outbox AND gsi1sk < :before")
            .expression_attribute_values(":outbox", s(OUTBOX_GSI))
            .expression_attribute_values(":before", s(before));
        let rows = self.table.query_all(query, Some(SWEEP_LIMIT)).await?;
        self.publish(rows).await
    }

    async fn publish(&self, rows: Vec<Item>) -> Result<usize, PublishError> {
        let mut published = 0;
        for chunk in rows.chunks(10) {
            let mut entries = Vec::with_capacity(chunk.len());
            for row in chunk {
                let detail = self.detail(row).await?;
                let kind = row.string(self.table.name(), "detailType")?;
                entries.push(
                    PutEventsRequestEntry::builder()
                        .event_bus_name(&self.bus)
                        .source(SOURCE)
                        .detail_type(kind)
                        .resources(format!("incident/{}", detail.incident_id))
                        .detail(serde_json::to_string(&detail)?)
                        .build(),
                );
            }
            let out = self
                .events
                .get()
                .put_events()
                .set_entries(Some(entries))
                .send()
                .await
                .map_err(|e| {
                    PublishError::Events(
                        aws_sdk_eventbridge::error::DisplayErrorContext(e).to_string(),
                    )
                })?;
            // Entries come back in order; a failed one keeps its row for the sweep.
            let results = out.entries.unwrap_or_default();
            for (row, result) in chunk.iter().zip(results.iter()) {
                if result.error_code.is_some() {
                    tracing::warn!(
                        code = ?result.error_code,
                        message = ?result.error_message,
                        "incident event refused; left in the outbox"
                    );
                    continue;
                }
                let mut row_key = Item::new();
                for k in ["pk", "sk"] {
                    if let Some(v) = row.get(k) {
                        row_key.insert(k.into(), v.clone());
                    }
                }
                self.table
                    .delete_item()
                    .set_key(Some(row_key))
                    .send()
                    .await
                    .map_err(|e| self.table.fail("DeleteItem", &e))?;
                published += 1;
            }
        }
        Ok(published)
    }

    /// The detail of an outbox row, with the incident's service, type and title.
    async fn detail(&self, row: &Item) -> Result<EventDetail, PublishError> {
        let t = self.table.name();
        let incident_id = row.string(t, "incidentId")?;
        let meta = self
            .table
            .get(key(format!("INC#{incident_id}"), "META"))
            .await?
            .unwrap_or_default();
        Ok(EventDetail {
            event_id: row.string(t, "eventId")?,
            at: row.string(t, "at")?,
            by: row.string(t, "by")?,
            status: EventKind::parse(&row.string(t, "detailType")?)
                .and_then(EventKind::status)
                .map(|s| s.as_str().to_string())
                .or_else(|| meta.opt_string("status")),
            service_name: meta.opt_string("serviceName"),
            log_type: meta.opt_string("type"),
            title: meta.opt_string("normalizedMessage"),
            severity: row.opt_string("severity"),
            alert_id: row.opt_string("alertId"),
            note: row.opt_string("note"),
            channel_id: row.opt_string("channelId"),
            escalate_after_minutes: row.opt_int(t, "escalateAfterMinutes")?,
            incident_id,
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error(transparent)]
    Store(#[from] DynamoError),
    #[error("PutEvents failed: {0}")]
    Events(String),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detail_types_round_trip() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.detail_type()), Some(kind));
        }
        assert_eq!(EventKind::parse("Incident Closed"), None);
    }

    #[test]
    fn an_outbox_row_is_indexed_by_time_under_its_incident() {
        let row = outbox_row(&Change {
            kind: EventKind::AlertRaised,
            incident_id: "abc",
            at: "2026-11-28T15:00:00.000Z",
            by: "system",
            note: None,
            alert_id: Some("al1"),
            severity: Some("ERROR"),
            channel_id: None,
            escalate_after_minutes: None,
        });
        assert_eq!(row.get("pk"), Some(&s("INC#abc")));
        let id = row.opt_string("eventId").unwrap();
        assert_eq!(row.get("sk"), Some(&s(format!("OUTBOX#{id}"))));
        assert_eq!(
            row.get("gsi1sk"),
            Some(&s(format!("2026-11-28T15:00:00.000Z#{id}")))
        );
        assert_eq!(row.get("detailType"), Some(&s("Alert Raised")));
    }
}
