//! Escalation: a channel told of an incident (opened, reopened, or escalated to it) that
//! names `escalateAfterMinutes` and `escalateTo` gets an escalation row due that many minutes
//! later; the incidents sweeper takes the due rows (by due time, through the index, not a
//! scan) and, for an incident still ACTIVE (not acknowledged, not resolved) since that
//! notification, records an `Incident Escalated` event for the next channel, in the same
//! transaction that deletes the row. Acknowledging stops it: the sweeper drops the rows of an
//! incident that is no longer ACTIVE. A silence stops it too: the row of an incident an
//! active silence matches is dropped and the incident held by the silence
//! (`crate::silences`), which notifies it once when it ends (and that notification schedules
//! its escalation anew).
//!
//! | Item | pk | sk | gsi1pk / gsi1sk |
//! |---|---|---|---|
//! | escalation | `INC#{incidentId}` | `ESC#{eventId}#{channelId}` | `ESCALATIONS` / `{dueAt}#{incidentId}` |

use chrono::{DateTime, Utc};
use platform::dynamo::{
    key, n, s, Attributes, DynamoError, Item, Table, Transaction, TransactionError,
};

use futures::StreamExt;

use crate::events::{outbox_row, Change, EventKind};
use crate::input::format_time;
use crate::model::IncidentStatus;
use crate::silences::{subject_of, Silence, Silences};

const ESCALATIONS_GSI: &str = "ESCALATIONS";
/// Due escalations one sweep round takes; the sweeper runs rounds until fewer are due.
pub const SWEEP_LIMIT: usize = 500;
/// Due escalations a round handles at once.
const CONCURRENT_ESCALATIONS: usize = 16;

/// What the sweep did with one due escalation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Escalated to the channel (its event is in the outbox).
    Escalated {
        incident_id: String,
        channel_id: String,
    },
    /// The incident was acknowledged, resolved or reopened since: dropped.
    Dropped { incident_id: String },
    /// An active silence holds the incident: dropped, and it notifies when the silence ends.
    Silenced {
        incident_id: String,
        silences: Vec<String>,
    },
}

#[derive(Clone, Debug)]
pub struct Escalations {
    table: Table,
}

impl Escalations {
    pub fn new(table: Table) -> Self {
        Self { table }
    }

    /// Schedules the escalation of incident `incident_id` from channel `from` (told by event
    /// `event_id` at `event_at`) to `to`, `after_minutes` from `now`; once per event and
    /// channel (a redelivered event schedules nothing more).
    #[allow(clippy::too_many_arguments)]
    pub async fn schedule(
        &self,
        incident_id: &str,
        event_id: &str,
        event_at: &str,
        from: &str,
        to: &str,
        after_minutes: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, DynamoError> {
        let due = format_time(now + chrono::Duration::minutes(after_minutes));
        let mut item = key(
            format!("INC#{incident_id}"),
            format!("ESC#{event_id}#{from}"),
        );
        item.insert("gsi1pk".into(), s(ESCALATIONS_GSI));
        item.insert("gsi1sk".into(), s(format!("{due}#{incident_id}")));
        item.insert("incidentId".into(), s(incident_id));
        item.insert("fromChannel".into(), s(from));
        item.insert("toChannel".into(), s(to));
        item.insert("afterMinutes".into(), n(after_minutes));
        item.insert("notifiedAt".into(), s(event_at));
        item.insert("dueAt".into(), s(due));
        match self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// Takes the escalations due at `now`: escalates or drops each (see the module).
    pub async fn sweep(&self, now: DateTime<Utc>) -> Result<Vec<Outcome>, DynamoError> {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :esc AND gsi1sk <= :now")
            .expression_attribute_values(":esc", s(ESCALATIONS_GSI))
            .expression_attribute_values(":now", s(format!("{}#~", format_time(now))));
        let rows = self.table.query_all(query, Some(SWEEP_LIMIT)).await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let silences = Silences::new(self.table.clone());
        let active = silences.active(now).await?;
        let active = &active;
        let silences = &silences;
        let handled: Vec<Result<Option<Outcome>, DynamoError>> = futures::stream::iter(rows)
            .map(|row| self.escalate_one(row, now, active, silences))
            .buffer_unordered(CONCURRENT_ESCALATIONS)
            .collect()
            .await;
        let mut outcomes = Vec::new();
        for outcome in handled {
            outcomes.extend(outcome?);
        }
        Ok(outcomes)
    }

    /// Escalates or drops one due row; `None` when another sweep took it first.
    async fn escalate_one(
        &self,
        row: Item,
        now: DateTime<Utc>,
        active: &[Silence],
        silences: &Silences,
    ) -> Result<Option<Outcome>, DynamoError> {
        let t = self.table.name().to_string();
        let incident_id = row.string(&t, "incidentId")?;
        let meta = self
            .table
            .get(key(format!("INC#{incident_id}"), "META"))
            .await?
            .unwrap_or_default();
        let notified_at = row.string(&t, "notifiedAt")?;
        let status = meta
            .opt_string("status")
            .as_deref()
            .and_then(IncidentStatus::parse);
        // A reopen after the notification starts an escalation of its own.
        let reopened_since = meta
            .opt_string("reopenedAt")
            .is_some_and(|at| at.as_str() > notified_at.as_str());
        let row_key = keys_of(&row);
        let escalating = status == Some(IncidentStatus::Active) && !reopened_since;
        let subject = subject_of(&meta, None);
        let matching: Vec<Silence> = active
            .iter()
            .filter(|s| escalating && s.matchers.matches(&subject))
            .cloned()
            .collect();
        let held = if matching.is_empty() {
            Vec::new()
        } else {
            silences.hold(&matching, &incident_id, now).await?
        };
        let mut tx = Transaction::new(&self.table);
        tx.delete(row_key, Some("attribute_exists(pk)"))?;
        let outcome = if !held.is_empty() {
            Outcome::Silenced {
                incident_id,
                silences: held,
            }
        } else if escalating {
            let channel = row.string(&t, "toChannel")?;
            let from = row.string(&t, "fromChannel")?;
            let minutes = row.counter(&t, "afterMinutes")?;
            let at = format_time(now);
            let note = format!("not acknowledged within {minutes} min of notifying channel {from}");
            tx.put(
                outbox_row(&Change {
                    note: Some(&note),
                    channel_id: Some(&channel),
                    ..Change::system(EventKind::Escalated, &incident_id, &at)
                }),
                None,
            )?;
            Outcome::Escalated {
                incident_id,
                channel_id: channel,
            }
        } else {
            Outcome::Dropped { incident_id }
        };
        match tx.commit_retrying().await {
            Ok(()) => Ok(Some(outcome)),
            // Another sweep took it first.
            Err(e) if e.failed_at(0) => Ok(None),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(_) => Err(DynamoError::Conflict {
                table: t,
                attempts: platform::dynamo::RetryPolicy::CONFLICTS.attempts,
            }),
        }
    }
}

fn keys_of(row: &Item) -> Item {
    ["pk", "sk"]
        .into_iter()
        .filter_map(|k| row.get(k).map(|v| (k.to_string(), v.clone())))
        .collect()
}
