//! Incidents: opening and reopening (with their events and counts), reading one or a
//! status's list, and moving one through its statuses.

use super::{incident_pk, Listed, RaisedAlerts, Store, StoreError, META};
use crate::events::{self, Change, EventKind};
use crate::model::{
    AlertStatus, Incident, IncidentEvent, IncidentStatus, Log, Occurrence, Severity,
};
use platform::dynamo::{
    key, n, s, Attributes, DynamoError, Item, RetryPolicy, Transaction, TransactionError,
};

/// The changes an incident's detail shows.
pub const MAX_HISTORY: usize = 200;

impl Store {
    /// The incident item of `id` (opened or not), read consistently.
    pub async fn incident_item(&self, id: &str) -> Result<Option<Item>, DynamoError> {
        self.table.get(key(incident_pk(id), META)).await
    }

    /// The status of an incident item; `None` while no rule has opened it.
    pub fn status_of(item: &Item) -> Option<IncidentStatus> {
        item.opt_string("status")
            .as_deref()
            .and_then(IncidentStatus::parse)
    }

    pub(crate) fn event_row(id: &str, event: &IncidentEvent) -> Item {
        let mut row = key(
            incident_pk(id),
            format!("EVT#{}#{}", event.at, uuid::Uuid::new_v4().simple()),
        );
        row.insert("at".into(), s(event.at.as_str()));
        if let Some(from) = event.from {
            row.insert("from".into(), s(from.as_str()));
        }
        row.insert("to".into(), s(event.to.as_str()));
        if let Some(note) = &event.note {
            row.insert("note".into(), s(note.as_str()));
        }
        if let Some(assignee) = &event.assignee {
            row.insert("assignee".into(), s(assignee.as_str()));
        }
        row.insert("by".into(), s(event.by.as_str()));
        row
    }

    fn system_event(now: &str, from: Option<IncidentStatus>, note: &str) -> IncidentEvent {
        IncidentEvent {
            at: now.to_string(),
            from,
            to: IncidentStatus::Active,
            note: Some(note.to_string()),
            assignee: None,
            by: "system".to_string(),
        }
    }

    /// The outbox row of an opening or a reopening; `escalate_after_minutes` is the rule's.
    fn opening_event(
        kind: EventKind,
        id: &str,
        now: &str,
        why: &str,
        severity: Severity,
        escalate_after_minutes: Option<i64>,
    ) -> Item {
        events::outbox_row(&Change {
            note: Some(why),
            severity: Some(severity.as_str()),
            escalate_after_minutes,
            ..Change::system(kind, id, now)
        })
    }

    /// Opens incident `id` (ACTIVE) unless it is open already; true when this call opened it.
    /// `severity` (of the log that opened it) routes its event; `escalate_after_minutes` (the
    /// rule's) goes with it to the notifier.
    pub async fn open_incident(
        &self,
        id: &str,
        now: &str,
        why: &str,
        anchor: &Log,
        escalate_after_minutes: Option<i64>,
    ) -> Result<bool, DynamoError> {
        let severity = anchor.severity;
        let mut tx = Transaction::new(&self.table);
        let update = tx
            .update_builder(key(incident_pk(id), META))
            .update_expression(
                "SET #status = :active, openedAt = :now, reopenCount = :zero, updatedAt = :now, \
                 gsi1pk = :gpk, gsi1sk = :gsk, severity = :severity, triggeredAt = :triggered",
            )
            .expression_attribute_values(":triggered", s(anchor.received_at.as_str()))
            .condition_expression("attribute_exists(pk) AND attribute_not_exists(#status)")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":active", s(IncidentStatus::Active.as_str()))
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":zero", n(0))
            // What silences match (`crate::silences`): the severity of the log that opened it.
            .expression_attribute_values(":severity", s(severity.as_str()))
            .expression_attribute_values(":gpk", s("INCIDENTS#ACTIVE"))
            .expression_attribute_values(":gsk", s(format!("{now}#{id}")));
        tx.update(update)?;
        tx.put(
            Self::event_row(id, &Self::system_event(now, None, why)),
            None,
        )?;
        Self::count_in(&mut tx, self.metrics.incident_opened(id, now))?;
        self.status_count_in(&mut tx, id, now, None, IncidentStatus::Active)?;
        tx.put(
            Self::opening_event(
                EventKind::Opened,
                id,
                now,
                why,
                severity,
                escalate_after_minutes,
            ),
            None,
        )?;
        self.commit_conditional(tx).await
    }

    /// Reopens RESOLVED incident `id`; true when this call reopened it.
    pub async fn reopen_incident(
        &self,
        id: &str,
        now: &str,
        why: &str,
        anchor: &Log,
        escalate_after_minutes: Option<i64>,
    ) -> Result<bool, DynamoError> {
        let severity = anchor.severity;
        let mut tx = Transaction::new(&self.table);
        let update = tx
            .update_builder(key(incident_pk(id), META))
            .update_expression(
                "SET #status = :active, reopenedAt = :now, updatedAt = :now, gsi1pk = :gpk, \
                 gsi1sk = :gsk, severity = :severity, triggeredAt = :triggered ADD reopenCount :one",
            )
            .expression_attribute_values(":triggered", s(anchor.received_at.as_str()))
            .condition_expression("#status = :resolved")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":active", s(IncidentStatus::Active.as_str()))
            .expression_attribute_values(":resolved", s(IncidentStatus::Resolved.as_str()))
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":severity", s(severity.as_str()))
            .expression_attribute_values(":gpk", s("INCIDENTS#ACTIVE"))
            .expression_attribute_values(":gsk", s(format!("{now}#{id}")));
        tx.update(update)?;
        tx.put(
            Self::event_row(
                id,
                &Self::system_event(now, Some(IncidentStatus::Resolved), why),
            ),
            None,
        )?;
        tx.put(
            Self::opening_event(
                EventKind::Reopened,
                id,
                now,
                why,
                severity,
                escalate_after_minutes,
            ),
            None,
        )?;
        Self::count_in(
            &mut tx,
            self.metrics.incident_moved(
                id,
                IncidentStatus::Resolved.as_str(),
                IncidentStatus::Active.as_str(),
                now,
                None,
            ),
        )?;
        self.status_count_in(
            &mut tx,
            id,
            now,
            Some(IncidentStatus::Resolved),
            IncidentStatus::Active,
        )?;
        self.commit_conditional(tx).await
    }

    async fn commit_conditional(&self, tx: Transaction) -> Result<bool, DynamoError> {
        match tx.commit_retrying().await {
            Ok(_) => Ok(true),
            Err(TransactionError::Condition { .. }) => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(TransactionError::Conflict) => Err(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: RetryPolicy::CONFLICTS.attempts,
            }),
        }
    }

    /// The incident of its `META` item and its count item (`crate::groups`); `None` unless
    /// opened. Counts from before the count had an item of its own (on `META`) are added.
    pub fn incident_from(
        &self,
        item: &Item,
        count: Option<&Item>,
    ) -> Result<Option<Incident>, DynamoError> {
        let t = self.table.name();
        let Some(status) = Self::status_of(item) else {
            return Ok(None);
        };
        let empty = Item::new();
        let count = count.unwrap_or(&empty);
        let earliest = [item.opt_string("firstSeen"), count.opt_string("firstSeen")]
            .into_iter()
            .flatten()
            .min();
        let latest = [item.opt_string("lastSeen"), count.opt_string("lastSeen")]
            .into_iter()
            .flatten()
            .max();
        Ok(Some(Incident {
            id: item.string(t, "id")?,
            status,
            fingerprint: item.string(t, "fingerprint")?,
            service_name: item.string(t, "serviceName")?,
            log_type: item.string(t, "type")?,
            normalized_message: item.string(t, "normalizedMessage")?,
            sample_message: item.string(t, "sampleMessage")?,
            grouped_by: item
                .opt_string("groupedBy")
                .unwrap_or_else(|| crate::fingerprint::GROUPED_BY.to_string()),
            occurrences: item
                .counter(t, "occurrences")?
                .saturating_add(count.counter(t, "occurrences")?),
            first_seen: earliest.ok_or_else(|| self.corrupt("firstSeen is missing"))?,
            last_seen: latest.ok_or_else(|| self.corrupt("lastSeen is missing"))?,
            opened_at: item.string(t, "openedAt")?,
            reopen_count: item.counter(t, "reopenCount")?,
            assignee: item.opt_string("assignee"),
            updated_at: item.string(t, "updatedAt")?,
            merged_into: item.opt_string("mergedInto"),
            severity: item
                .opt_string("severity")
                .as_deref()
                .and_then(Severity::parse),
            silenced_by: item.strings(t, "silencedBy")?,
        }))
    }

    /// Opened incidents with `status`, newest (re)opened first, below the index key `after`
    /// when given, at most `limit`, each with its index key, and whether more follow: one
    /// Query of the index and one BatchGetItem of their counts.
    pub async fn incidents(
        &self,
        status: IncidentStatus,
        limit: usize,
        after: Option<&str>,
    ) -> Result<Listed<Incident>, DynamoError> {
        let (items, more) = self
            .by_status(&format!("INCIDENTS#{}", status.as_str()), limit, after)
            .await?;
        let ids: Vec<String> = items.iter().filter_map(|i| i.opt_string("id")).collect();
        let counts = self.counts(&ids).await?;
        let mut out = Vec::new();
        for item in &items {
            let count = item.opt_string("id").and_then(|id| counts.get(&id));
            if let Some(incident) = self.incident_from(item, count)? {
                out.push((item.string(self.table.name(), "gsi1sk")?, incident));
            }
        }
        Ok(Listed { rows: out, more })
    }

    /// Incident `id` with its sampled grouped logs and its history; `None` unless opened.
    pub async fn incident_detail(
        &self,
        id: &str,
    ) -> Result<Option<(Incident, Vec<Occurrence>, Vec<IncidentEvent>)>, DynamoError> {
        let (Some(item), count) = self.incident_state(id).await? else {
            return Ok(None);
        };
        let Some(incident) = self.incident_from(&item, count.as_ref())? else {
            return Ok(None);
        };
        let t = self.table.name();
        let occurrences = self.samples(id).await?;
        let history_query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :evt)")
            .expression_attribute_values(":pk", s(incident_pk(id)))
            .expression_attribute_values(":evt", s("EVT#"));
        let mut history = Vec::new();
        for row in self
            .table
            .query_all(history_query, Some(MAX_HISTORY))
            .await?
        {
            let to = row.string(t, "to")?;
            history.push(IncidentEvent {
                at: row.string(t, "at")?,
                from: row
                    .opt_string("from")
                    .as_deref()
                    .and_then(IncidentStatus::parse),
                to: IncidentStatus::parse(&to)
                    .ok_or_else(|| self.corrupt(format!("status {to}")))?,
                note: row.opt_string("note"),
                assignee: row.opt_string("assignee"),
                by: row.string(t, "by")?,
            });
        }
        Ok(Some((incident, occurrences, history)))
    }

    /// Sets incident `id`'s assignee as `event` (whose `from` is its status) says, with its
    /// history row; [`StoreError::Changed`] when its status moved or it was reopened since
    /// `reopen_count` was read.
    pub async fn assign_incident(
        &self,
        id: &str,
        event: &IncidentEvent,
        reopen_count: i64,
    ) -> Result<(), StoreError> {
        let (Some(from), Some(assignee)) = (event.from, &event.assignee) else {
            return Err(StoreError::Changed);
        };
        let mut tx = Transaction::new(&self.table);
        let update = tx
            .update_builder(key(incident_pk(id), META))
            .update_expression("SET assignee = :assignee, updatedAt = :now")
            .condition_expression("#status = :from AND reopenCount = :epoch")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":from", s(from.as_str()))
            .expression_attribute_values(":epoch", n(reopen_count))
            .expression_attribute_values(":now", s(event.at.as_str()))
            .expression_attribute_values(":assignee", s(assignee.as_str()));
        tx.update(update)?;
        tx.put(Self::event_row(id, event), None)?;
        tx.commit_retrying().await.map_err(StoreError::from)
    }

    /// Moves incident `id` from `from` as `event` says, `open_ms` after it opened (or
    /// reopened), observed into the time to acknowledge or resolve; [`StoreError::Changed`]
    /// when its status is no longer `from`, or it was reopened since `reopen_count` was read.
    pub async fn change_incident(
        &self,
        id: &str,
        event: &IncidentEvent,
        reopen_count: i64,
        open_ms: Option<u64>,
        alerts: &RaisedAlerts,
    ) -> Result<(), StoreError> {
        let from = event.from.ok_or(StoreError::Changed)?;
        let mut tx = Transaction::new(&self.table);
        let mut expression = "SET #status = :to, updatedAt = :now, gsi1pk = :gpk".to_string();
        let mut condition = "#status = :from AND reopenCount = :epoch".to_string();
        let mut update = tx
            .update_builder(key(incident_pk(id), META))
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":to", s(event.to.as_str()))
            .expression_attribute_values(":from", s(from.as_str()))
            .expression_attribute_values(":epoch", n(reopen_count))
            .expression_attribute_values(":now", s(event.at.as_str()))
            .expression_attribute_values(":gpk", s(format!("INCIDENTS#{}", event.to.as_str())));
        if let Some(assignee) = &event.assignee {
            expression.push_str(", assignee = :assignee");
            update = update.expression_attribute_values(":assignee", s(assignee.as_str()));
        }
        if event.to == IncidentStatus::Resolved {
            expression.push_str(", resolvedAt = :now REMOVE alertIds");
        }
        let alert_to = match event.to {
            IncidentStatus::Resolved => Some(AlertStatus::Resolved),
            IncidentStatus::Acknowledged => Some(AlertStatus::Acknowledged),
            IncidentStatus::Active => None,
        };
        if alert_to.is_some() {
            // The alerts read are all there are: one raised since fails this, read again.
            let (unchanged, raised) = alerts.unchanged();
            condition.push_str(unchanged);
            if let Some(raised) = raised {
                update = update.expression_attribute_values(":raised", raised);
            }
        }
        tx.update(
            update
                .condition_expression(condition)
                .update_expression(expression),
        )?;
        if let Some(to) = alert_to {
            for (alert, status) in alerts.unresolved.iter().filter(|(_, s)| s.can_move_to(to)) {
                self.move_alert_in(&mut tx, alert, *status, to, &event.at)?;
            }
        }
        tx.put(Self::event_row(id, event), None)?;
        Self::count_in(
            &mut tx,
            self.metrics
                .incident_moved(id, from.as_str(), event.to.as_str(), &event.at, open_ms),
        )?;
        self.status_count_in(&mut tx, id, &event.at, Some(from), event.to)?;
        if let Some(kind) = EventKind::of_status(event.to) {
            tx.put(
                events::outbox_row(&Change {
                    by: &event.by,
                    note: event.note.as_deref(),
                    ..Change::system(kind, id, &event.at)
                }),
                None,
            )?;
        }
        tx.commit_retrying().await.map_err(StoreError::from)
    }
}
