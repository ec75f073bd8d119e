//! The facade: the incident platform's one entry point for the functions. Inputs arrive
//! parsed ([`crate::input`]); errors are [`IncidentsError`], with no HTTP in them.

use std::collections::HashSet;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};

use incidents_metrics::store::batch_key;
use incidents_metrics::Metrics;
use platform::aws::AwsClients;
use platform::cursor::encode_cursor;
use platform::dynamo::{Attributes, DynamoError, Table};
use platform::{Clock, Env, Invalid};
use text_analysis::redact::redact;

use crate::events::Publisher;
use crate::fingerprint::stable_id;
use crate::groups::{group, Group};
use crate::input::{
    format_time, IncidentPatch, LogFilter, LogInput, LogPageRequest, LogbookInput, MergeInput,
    RuleInput,
};
use crate::merge::{check, MergeCheck};
use crate::model::{
    Alert, AlertRule, AlertStatus, Incident, IncidentDetail, IncidentEvent, IncidentStatus, Log,
    LogbookEntry,
};
use crate::objects::{prefixes_of, LogObjects, ObjectsError};
use crate::queue::QueueError;
use crate::store::{log_millis, Listed, RaisedAlerts, Store, StoreError, DEFAULT_RULE_ID};

/// The most alert rules kept (the processor reads them all for every batch).
pub const MAX_RULES: usize = 50;
/// Alerts a resolve moves in its own transaction (with the incident, its history, outbox and
/// metric rows, within DynamoDB's 100 items); the rule cap keeps an incident's below it.
pub const RESOLVE_ALERTS_IN_TRANSACTION: usize = 80;
/// Logs one purge step deletes.
pub const PURGE_STEP: usize = 500;
/// Fingerprints of one batch grouped at a time (each a few round trips to the table).
pub const GROUP_CONCURRENCY: usize = 16;

#[derive(Debug, thiserror::Error)]
pub enum IncidentsError {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A status change the lifecycle does not allow.
    #[error("{0}")]
    InvalidTransition(String),
    #[error("{0}")]
    Forbidden(&'static str),
    /// The item changed between read and write: try again.
    #[error("changed concurrently")]
    Changed,
    /// An edit sent the version it read (`sent`), but the item is at `current` now.
    #[error("version {sent} was read, but it is at version {current} now")]
    Stale { sent: i64, current: i64 },
    #[error(transparent)]
    Store(#[from] DynamoError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    /// The logs bucket failed.
    #[error(transparent)]
    Objects(#[from] ObjectsError),
}

impl IncidentsError {
    fn from_store(e: StoreError, what: &'static str) -> Self {
        match e {
            StoreError::Dynamo(d) => Self::Store(d),
            StoreError::NotFound => Self::NotFound(what),
            StoreError::Changed => Self::Changed,
        }
    }
}

/// The messages of a fingerprint's group, and how its grouping went.
type GroupOutcome = (Vec<String>, Result<(), IncidentsError>);

/// Who makes a change.
#[derive(Clone, Debug)]
pub struct Actor {
    pub id: String,
    pub username: String,
    pub admin: bool,
}

pub struct Incidents {
    store: Store,
    objects: LogObjects,
    clock: Clock,
    /// Publishes the outbox rows a change wrote; `None`: left to the outbox sweep.
    events: Option<Publisher>,
}

impl Incidents {
    pub fn new(store: Store, objects: LogObjects, clock: Clock) -> Self {
        Self {
            store,
            objects,
            clock,
            events: None,
        }
    }

    /// Publishes each change's events right after it commits.
    pub fn with_events(self, events: Publisher) -> Self {
        Self {
            events: Some(events),
            ..self
        }
    }

    /// Publishes incident `id`'s outbox rows, if this instance publishes.
    async fn publish(&self, id: &str) {
        if let Some(events) = &self.events {
            events.flush(id).await;
        }
    }

    /// Over `INCIDENTS_TABLE` (counting in `INCIDENT_METRICS_TABLE`, keeping grouped logs
    /// `LOG_RETENTION_DAYS`) and raw logs in `LOGS_BUCKET`, on the system clock.
    /// With `INCIDENT_EVENT_BUS`, it publishes incident events after each change.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, platform::ConfigError> {
        let incidents = Self::new_from_env(env, aws)?;
        if env.get("INCIDENT_EVENT_BUS").is_none() {
            return Ok(incidents);
        }
        let events = Publisher::from_env(env, aws, incidents.store.table().clone())?;
        Ok(incidents.with_events(events))
    }

    fn new_from_env(env: &Env, aws: &AwsClients) -> Result<Self, platform::ConfigError> {
        Ok(Self::new(
            Store::new(
                Table::from_env(env, aws, "INCIDENTS_TABLE")?,
                Metrics::from_env(env, aws)?,
            )
            .with_log_retention_days(env.parse_or(
                "LOG_RETENTION_DAYS",
                crate::store::DEFAULT_LOG_RETENTION_DAYS,
            )?),
            LogObjects::from_env(env, aws)?,
            Clock::system(),
        ))
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    fn now(&self) -> String {
        format_time(self.clock.now())
    }

    // ---- ingestion and timeline -------------------------------------------------------

    pub fn objects(&self) -> &LogObjects {
        &self.objects
    }

    /// One page of the timeline, newest first, and the cursor of the next page: the logs in
    /// S3 merged with the rows stored in the table before logs moved to S3 (read until their
    /// TTL removes them; no log is in both). Each source answers every log at or above its
    /// own next position, so the merged page is exact down to the higher of the two.
    pub async fn timeline(
        &self,
        page: &LogPageRequest,
    ) -> Result<(Vec<Log>, Option<String>), IncidentsError> {
        let Some((lo, hi)) = crate::store::page_bounds(page) else {
            return Ok((Vec::new(), None));
        };
        let (rows, objects) = futures::join!(
            self.store.timeline(page),
            self.objects.page(&page.filter, &lo, &hi, page.limit)
        );
        let (rows, rows_next) = rows?;
        let (logs, logs_next, _) = objects?;
        let floor = rows_next.clone().max(logs_next.clone());
        let mut merged: Vec<Log> = rows
            .into_iter()
            .chain(logs)
            .filter(|l| floor.as_deref().is_none_or(|f| l.id.as_str() >= f))
            .collect();
        merged.sort_by(|a, b| b.id.cmp(&a.id));
        merged.dedup_by(|a, b| a.id == b.id);
        merged.truncate(page.limit);
        let next = if merged.len() >= page.limit {
            merged.last().map(|l| l.id.clone())
        } else {
            floor
        };
        Ok((merged, next))
    }

    /// Deletes one log, wherever it is: its table row (stored before logs moved to S3) or the
    /// objects holding it, rewritten without it.
    pub async fn delete_log(&self, id: &str) -> Result<(), IncidentsError> {
        // Noted first: a redelivery that stores the log again after this skips it.
        self.store.note_deleted(&[id.to_string()]).await?;
        match self.store.delete_log(id).await {
            Ok(()) => return Ok(()),
            Err(StoreError::NotFound) => {}
            Err(e) => return Err(IncidentsError::from_store(e, "Log")),
        }
        // Found in its bucket first: its type (which names its index) is in the log only.
        let Some(log) = self.objects.find(id).await? else {
            return Err(IncidentsError::NotFound("Log"));
        };
        self.objects
            .remove(&prefixes_of(&log), &[id.to_string()])
            .await?;
        Ok(())
    }

    /// Deletes one step of logs matching `filter` below `cursor` (their rows, and from the
    /// objects of their services' buckets and their indexes); the cursor of the next
    /// step, if any remain.
    pub async fn purge_step(
        &self,
        filter: &LogFilter,
        cursor: Option<String>,
    ) -> Result<Option<String>, IncidentsError> {
        let page = LogPageRequest {
            filter: filter.clone(),
            limit: PURGE_STEP,
            cursor,
        };
        let (logs, next) = self.timeline(&page).await?;
        let ids: Vec<String> = logs.iter().map(|l| l.id.clone()).collect();
        self.store.note_deleted(&ids).await?;
        self.store.delete_logs(&ids).await?;
        let mut by_prefix: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for log in logs {
            for prefix in prefixes_of(&log) {
                by_prefix.entry(prefix).or_default().push(log.id.clone());
            }
        }
        for (prefix, ids) in by_prefix {
            self.objects.remove(&[prefix], &ids).await?;
        }
        Ok(next)
    }

    /// Stores a batch's logs in S3, one object per service bucket and minute (a redelivered
    /// batch writes nothing twice); the objects written. `redelivered`: logs of messages SQS
    /// delivered before, which a deletion since may have removed: those noted deleted are
    /// not stored again.
    pub async fn store_logs(
        &self,
        logs: &[&Log],
        redelivered: &[&str],
    ) -> Result<usize, IncidentsError> {
        let deleted = if redelivered.is_empty() {
            HashSet::new()
        } else {
            self.store.deleted_among(redelivered).await?
        };
        let kept: Vec<&Log> = logs
            .iter()
            .copied()
            .filter(|l| !deleted.contains(&l.id))
            .collect();
        Ok(self.objects.put_batch(&kept).await?)
    }

    /// Counts the logs of a batch of messages in the metrics, each message once however
    /// often it is delivered, with one update per series for the batch
    /// (`Metrics::count_messages`). Returns the logs newly counted.
    pub async fn count_logs(&self, messages: &[&[Log]]) -> Result<u64, IncidentsError> {
        let counted: Vec<(String, Vec<(&str, &str)>)> = messages
            .iter()
            .map(|logs| {
                // Counted as stored: a log id given twice is one log.
                let mut seen = HashSet::new();
                let distinct: Vec<&Log> = logs.iter().filter(|l| seen.insert(&l.id)).collect();
                (
                    batch_key(distinct.iter().map(|l| l.id.as_str())),
                    distinct
                        .iter()
                        .map(|l| (l.service_name.as_str(), l.severity.as_str()))
                        .collect(),
                )
            })
            .collect();
        Ok(self.store.metrics().count_messages(&counted).await?)
    }

    /// Groups the logs of a batch of messages (each `(message key, logs)`) that match `rules`
    /// into their fingerprints' incidents, once per fingerprint per batch and up to
    /// [`GROUP_CONCURRENCY`] fingerprints at a time; opens or reopens incidents and raises
    /// alerts whose thresholds are met. Safe to repeat for the same messages, in any batch: a
    /// message is counted into an incident once, an incident opened once, an alert raised
    /// once per rule and opening (a redelivered log reopens only a RESOLVED incident whose
    /// resolve came after it: a reopen its first delivery left undone). Returns the keys of the
    /// messages whose grouping failed (logged with why).
    pub async fn evaluate(
        &self,
        messages: &[(String, &[Log])],
        rules: &[AlertRule],
    ) -> Vec<String> {
        let groups = group(messages, rules);
        // Boxed: borrowing futures in a stream inside a caller's Send future need them named.
        let tasks: Vec<BoxFuture<'_, GroupOutcome>> = groups
            .iter()
            .map(|g| {
                async move {
                    let messages = g.parts.iter().map(|p| p.message.clone()).collect();
                    (messages, self.evaluate_group(g, rules).await)
                }
                .boxed()
            })
            .collect();
        let outcomes: Vec<GroupOutcome> = futures::stream::iter(tasks)
            .buffer_unordered(GROUP_CONCURRENCY)
            .collect()
            .await;
        let mut failed = Vec::new();
        for (messages, outcome) in outcomes {
            if let Err(error) = outcome {
                tracing::warn!(%error, messages = messages.len(), "grouping failed; will be retried");
                failed.extend(messages);
            }
        }
        failed
    }

    /// One fingerprint's share of a batch (see [`Incidents::evaluate`]).
    async fn evaluate_group(
        &self,
        group: &Group<'_>,
        rules: &[AlertRule],
    ) -> Result<(), IncidentsError> {
        let logs = group.logs();
        let Some(first) = logs.first() else {
            return Ok(());
        };
        // An incident an operator merged away counts into its target.
        let (id, meta, count) = self.store.follow_merges(&group.incident_id).await?;
        let id = id.as_str();
        let now = self.now();
        let t = self.store.table().name().to_string();
        // Whether this call recorded a change with an event to publish.
        let mut changed = false;
        if meta.is_none() {
            self.store.create_incident(group, first, &now).await?;
        }
        let mut status = meta.as_ref().and_then(Store::status_of);
        let mut epoch = match &meta {
            Some(item) => item.counter(&t, "reopenCount")?,
            None => 0,
        };
        let (before, batches) = match &count {
            Some(item) => (
                item.counter(&t, "occurrences")?,
                item.counter(&t, "batches")?,
            ),
            None => (0, 0),
        };
        let matches = |rule: &AlertRule, log: &Log| {
            group
                .rule_ids
                .get(&log.id)
                .is_some_and(|ids| ids.contains(&rule.id))
        };
        let matched: Vec<&AlertRule> = rules
            .iter()
            .filter(|r| logs.iter().any(|l| matches(r, l)))
            .collect();
        let alert_id =
            |rule: &AlertRule, epoch: i64| stable_id(&[&rule.id, id, &epoch.to_string()]);
        let mut raised = self
            .store
            .alerts_raised(
                &matched
                    .iter()
                    .map(|r| alert_id(r, epoch))
                    .collect::<Vec<_>>(),
            )
            .await?;
        let resolved = status == Some(IncidentStatus::Resolved);
        // Window rows only while a threshold above one may still be counted from them.
        let window = resolved
            || matched
                .iter()
                .any(|r| r.threshold > 1 && !raised.contains(&alert_id(r, epoch)));
        let counted = self
            .store
            .count_group(id, &group.parts, window, &now)
            .await?;
        let fresh: Vec<&Log> = group
            .parts
            .iter()
            .filter(|p| counted.messages.contains(&p.message))
            .flat_map(|p| p.logs.iter().copied())
            .collect();
        if !fresh.is_empty() {
            let mut sorted = fresh.clone();
            sorted.sort_by(|a, b| a.id.cmp(&b.id));
            self.store
                .put_samples(id, &sorted, &group.rule_ids, before, batches)
                .await?;
        }
        // A RESOLVED incident reopens only on logs stamped after its resolve that meet a
        // rule's threshold within its window (as an opening does).
        let resolved_ms = meta
            .as_ref()
            .filter(|_| resolved)
            .and_then(|m| m.opt_string("resolvedAt"))
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(&at).ok())
            .map(|at| at.timestamp_millis());
        for rule in matched {
            if status != Some(IncidentStatus::Resolved) && raised.contains(&alert_id(rule, epoch)) {
                continue;
            }
            let after_resolve =
                |l: &&Log| resolved_ms.is_none_or(|r| log_millis(&l.id).is_some_and(|m| m > r));
            // Every log here is counted into this incident, now or by a delivery whose reopen
            // failed: one stamped after the resolve has not reopened it, so it may still.
            let matching: Vec<&Log> = if status == Some(IncidentStatus::Resolved) {
                logs.iter()
                    .copied()
                    .filter(after_resolve)
                    .collect::<Vec<_>>()
            } else {
                logs.to_vec()
            }
            .into_iter()
            .filter(|l| matches(rule, l))
            .collect();
            let Some(anchor) = matching.iter().max_by(|a, b| a.id.cmp(&b.id)).copied() else {
                continue;
            };
            let at = log_millis(&anchor.id).unwrap_or(0);
            let from = at
                .saturating_sub(rule.window_seconds.saturating_mul(1000))
                .max(resolved_ms.map_or(0, |r| r.saturating_add(1)));
            let threshold = usize::try_from(rule.threshold).unwrap_or(usize::MAX);
            let in_batch = matching
                .iter()
                .filter(|l| log_millis(&l.id).is_some_and(|m| (from..=at).contains(&m)))
                .count();
            // The batch alone may meet it; else the window rows (this batch's among them) count.
            let count = if in_batch >= threshold {
                threshold
            } else if window {
                self.store
                    .count_window(id, &rule.severities, from, at, threshold)
                    .await?
            } else {
                in_batch
            };
            if count < threshold {
                continue;
            }
            if status.is_none() {
                let why = format!(
                    "opened by rule {} ({count} matching logs within {} s)",
                    rule.name, rule.window_seconds
                );
                if self
                    .store
                    .open_incident(id, &now, &why, anchor.severity, rule.escalate_after_minutes)
                    .await?
                {
                    changed = true;
                    tracing::info!(incident = %id, rule = %rule.id, "incident opened");
                }
                status = Some(IncidentStatus::Active);
            } else if status == Some(IncidentStatus::Resolved) {
                let why = format!(
                    "reopened by rule {} ({count} matching logs within {} s after the resolve)",
                    rule.name, rule.window_seconds
                );
                if self
                    .store
                    .reopen_incident(id, &now, &why, anchor.severity, rule.escalate_after_minutes)
                    .await?
                {
                    changed = true;
                    tracing::info!(incident = %id, log = %anchor.id, "incident reopened");
                }
                // Reopened here or by a concurrent batch: either way the next opening.
                epoch += 1;
                raised.clear();
                status = Some(IncidentStatus::Active);
            }
            let alert = Alert {
                id: alert_id(rule, epoch),
                rule_id: rule.id.clone(),
                rule_name: rule.name.clone(),
                incident_id: id.to_string(),
                service_name: anchor.service_name.clone(),
                log_type: anchor.log_type.clone(),
                severity: anchor.severity,
                message: anchor.log_content.chars().take(1_000).collect(),
                count: i64::try_from(count).unwrap_or(i64::MAX),
                threshold: rule.threshold,
                window_seconds: rule.window_seconds,
                status: AlertStatus::Open,
                raised_at: now.clone(),
                updated_at: now.clone(),
            };
            if self.store.put_alert(&alert).await? {
                tracing::info!(alert = %alert.id, rule = %rule.id, incident = %id, "alert raised");
                changed = true;
            }
        }
        if changed {
            self.publish(id).await;
        }
        Ok(())
    }

    // ---- rules -----------------------------------------------------------------------

    pub async fn rules(&self) -> Result<Vec<AlertRule>, IncidentsError> {
        Ok(self.store.rules().await?)
    }

    pub async fn rule(&self, id: &str) -> Result<AlertRule, IncidentsError> {
        self.rules()
            .await?
            .into_iter()
            .find(|r| r.id == id)
            .ok_or(IncidentsError::NotFound("Alert rule"))
    }

    pub async fn create_rule(&self, input: RuleInput) -> Result<AlertRule, IncidentsError> {
        let now = self.now();
        let rule = rule_of(uuid::Uuid::new_v4().to_string(), input, &now, &now);
        let created = self
            .store
            .create_rule(&rule, MAX_RULES)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Alert rule"))?;
        if !created {
            return Err(Invalid::field("body", format!("at most {MAX_RULES} alert rules")).into());
        }
        Ok(rule)
    }

    pub async fn replace_rule(
        &self,
        id: &str,
        input: RuleInput,
    ) -> Result<AlertRule, IncidentsError> {
        let existing = self.rule(id).await?;
        let rule = rule_of(existing.id, input, &existing.created_at, &self.now());
        self.store
            .replace_rule(&rule)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Alert rule"))?;
        Ok(rule)
    }

    pub async fn delete_rule(&self, id: &str) -> Result<(), IncidentsError> {
        if id == DEFAULT_RULE_ID {
            // Gone already: 404, as for any other rule.
            self.rule(id).await?;
        }
        self.store
            .delete_rule(id)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Alert rule"))
    }

    // ---- incidents -------------------------------------------------------------------

    /// Opened incidents, newest opened first: of one status, or of all.
    /// Incidents (of one status, or of all), newest (re)opened first, below the index key
    /// `after` when given: at most `limit`, and the next page's cursor.
    pub async fn incidents(
        &self,
        status: Option<IncidentStatus>,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<Incident>, Option<String>), IncidentsError> {
        let statuses = match status {
            Some(s) => vec![s],
            None => IncidentStatus::ALL.to_vec(),
        };
        let pages = futures::future::try_join_all(
            statuses
                .into_iter()
                .map(|s| self.store.incidents(s, limit, after)),
        )
        .await?;
        Ok(merge_pages(pages, limit))
    }

    pub async fn incident(&self, id: &str) -> Result<IncidentDetail, IncidentsError> {
        let (incident, recent_occurrences, history) = self
            .store
            .incident_detail(id)
            .await?
            .ok_or(IncidentsError::NotFound("Incident"))?;
        Ok(IncidentDetail {
            incident,
            recent_occurrences,
            history,
        })
    }

    pub async fn patch_incident(
        &self,
        id: &str,
        patch: IncidentPatch,
        by: &Actor,
    ) -> Result<IncidentDetail, IncidentsError> {
        let item = self
            .store
            .incident_item(id)
            .await?
            .ok_or(IncidentsError::NotFound("Incident"))?;
        let from = Store::status_of(&item).ok_or(IncidentsError::NotFound("Incident"))?;
        if !from.can_move_to(patch.status) {
            return Err(IncidentsError::InvalidTransition(format!(
                "status: an incident cannot move from {} to {} (ACTIVE -> ACKNOWLEDGED -> RESOLVED; a new occurrence reopens a RESOLVED one)",
                from.as_str(),
                patch.status.as_str()
            )));
        }
        let t = self.store.table().name().to_string();
        let reopen_count = item.counter(&t, "reopenCount")?;
        let now = self.clock.now();
        let event = IncidentEvent {
            at: format_time(now),
            from: Some(from),
            to: patch.status,
            note: patch.note,
            assignee: patch.assignee,
            by: by.username.clone(),
        };
        let alerts = if patch.status == IncidentStatus::Resolved {
            self.alerts_to_resolve(&item, &event.at).await?
        } else {
            RaisedAlerts::default()
        };
        self.store
            .change_incident(id, &event, reopen_count, open_ms(&item, now), &alerts)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Incident"))?;
        self.publish(id).await;
        self.incident(id).await
    }

    /// The alerts incident `item`'s resolve resolves in its own transaction. The rule cap
    /// bounds them (one per rule and opening); any beyond [`RESOLVE_ALERTS_IN_TRANSACTION`]
    /// are resolved first, one by one, so a failure leaves the incident to resolve again.
    async fn alerts_to_resolve(
        &self,
        item: &platform::dynamo::Item,
        now: &str,
    ) -> Result<RaisedAlerts, IncidentsError> {
        let mut alerts = self.store.raised_alerts(item).await?;
        let surplus = alerts
            .unresolved
            .len()
            .saturating_sub(RESOLVE_ALERTS_IN_TRANSACTION);
        for (alert, from) in alerts.unresolved.drain(..surplus) {
            match self
                .store
                .change_alert(&alert, from, AlertStatus::Resolved, now)
                .await
            {
                // Moved since the read (resolved by hand, say): resolved below if still open.
                Ok(()) | Err(StoreError::Changed) => {}
                Err(e) => return Err(IncidentsError::from_store(e, "Alert")),
            }
        }
        if surplus > 0 {
            return Ok(self.store.raised_alerts(item).await?);
        }
        Ok(alerts)
    }

    /// Merges incident `id` into incident `merge.into` (see [`crate::merge`]): `id` is
    /// RESOLVED and points at the target, its count moves there. Merging again into the same
    /// target changes nothing and answers the same. The merged incident as it is now.
    pub async fn merge_incident(
        &self,
        id: &str,
        merge: MergeInput,
        by: &Actor,
    ) -> Result<IncidentDetail, IncidentsError> {
        let ((source, source_count), (target, target_count)) = futures::try_join!(
            self.store.incident_state(id),
            self.store.incident_state(&merge.into)
        )?;
        let source = source.ok_or(IncidentsError::NotFound("Incident"))?;
        let from = Store::status_of(&source).ok_or(IncidentsError::NotFound("Incident"))?;
        let target = target
            .filter(|t| Store::status_of(t).is_some())
            .ok_or_else(|| Invalid::field("into", "must be the id of an incident"))?;
        match check(id, &source, &merge.into, &target) {
            MergeCheck::Done => return self.incident(id).await,
            MergeCheck::Refused(why) => return Err(Invalid::field("into", why).into()),
            MergeCheck::Go => {}
        }
        let now = self.clock.now();
        let said = format!("merged into {}", merge.into);
        let event = IncidentEvent {
            at: format_time(now),
            from: Some(from),
            to: IncidentStatus::Resolved,
            note: Some(match merge.note {
                Some(note) => format!("{said}: {note}"),
                None => said,
            }),
            assignee: None,
            by: by.username.clone(),
        };
        let alerts = self.alerts_to_resolve(&source, &event.at).await?;
        let merged = self
            .store
            .merge_incident(
                id,
                &source,
                source_count.as_ref(),
                &merge.into,
                target_count.as_ref(),
                &event,
                open_ms(&source, now),
                &alerts,
            )
            .await;
        match merged {
            Ok(()) => {}
            // The same merge by a concurrent request (or an earlier try) won: answer as it.
            Err(StoreError::Changed)
                if self
                    .store
                    .incident_item(id)
                    .await?
                    .and_then(|m| m.opt_string("mergedInto"))
                    .as_deref()
                    == Some(merge.into.as_str()) => {}
            Err(e) => return Err(IncidentsError::from_store(e, "Incident")),
        }
        self.incident(id).await
    }

    // ---- alerts ----------------------------------------------------------------------

    /// Alerts (of one status, or of all), newest raised first, below the index key `after`
    /// when given: at most `limit`, and the next page's cursor.
    pub async fn alerts(
        &self,
        status: Option<AlertStatus>,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<Alert>, Option<String>), IncidentsError> {
        let statuses = match status {
            Some(s) => vec![s],
            None => AlertStatus::ALL.to_vec(),
        };
        let pages = futures::future::try_join_all(
            statuses
                .into_iter()
                .map(|s| self.store.alerts(s, limit, after)),
        )
        .await?;
        Ok(merge_pages(pages, limit))
    }

    pub async fn patch_alert(&self, id: &str, to: AlertStatus) -> Result<Alert, IncidentsError> {
        let item = self
            .store
            .alert_item(id)
            .await?
            .ok_or(IncidentsError::NotFound("Alert"))?;
        let alert = self.store.alert_from(&item)?;
        if !alert.status.can_move_to(to) {
            return Err(IncidentsError::InvalidTransition(format!(
                "status: an alert cannot move from {} to {} (OPEN -> ACKNOWLEDGED -> RESOLVED)",
                alert.status.as_str(),
                to.as_str()
            )));
        }
        let now = self.now();
        self.store
            .change_alert(id, alert.status, to, &now)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Alert"))?;
        Ok(Alert {
            status: to,
            updated_at: now,
            ..alert
        })
    }

    // ---- logbook ---------------------------------------------------------------------

    async fn check_incident(&self, incident: Option<&str>) -> Result<(), IncidentsError> {
        if let Some(id) = incident {
            let opened = self
                .store
                .incident_item(id)
                .await?
                .as_ref()
                .and_then(Store::status_of)
                .is_some();
            if !opened {
                return Err(Invalid::field("incidentId", "no such incident").into());
            }
        }
        Ok(())
    }

    /// Logbook entries (of one incident, or all), newest first, below the index key `after`
    /// when given: at most `limit`, and the next page's cursor.
    pub async fn entries(
        &self,
        incident: Option<&str>,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<LogbookEntry>, Option<String>), IncidentsError> {
        let (entries, next) = self.store.entries(incident, limit, after).await?;
        Ok((entries, next.as_deref().map(encode_cursor)))
    }

    pub async fn entry(&self, id: &str) -> Result<LogbookEntry, IncidentsError> {
        self.store
            .entry(id)
            .await?
            .ok_or(IncidentsError::NotFound("Logbook entry"))
    }

    pub async fn create_entry(
        &self,
        input: LogbookInput,
        by: &Actor,
    ) -> Result<LogbookEntry, IncidentsError> {
        self.check_incident(input.incident_id.as_deref()).await?;
        let now = self.now();
        let entry = LogbookEntry {
            id: uuid::Uuid::new_v4().to_string(),
            kind: input.kind,
            title: input.title,
            body: input.body,
            incident_id: input.incident_id,
            author: by.username.clone(),
            author_id: by.id.clone(),
            created_at: now.clone(),
            updated_at: now,
            version: 1,
        };
        self.store
            .create_entry(&entry)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Logbook entry"))?;
        Ok(entry)
    }

    fn may_change(entry: &LogbookEntry, by: &Actor) -> Result<(), IncidentsError> {
        if entry.author_id == by.id || by.admin {
            Ok(())
        } else {
            Err(IncidentsError::Forbidden(
                "Only the author or an admin may change this entry",
            ))
        }
    }

    /// Replaces entry `id` as its author (or an admin), only while it is at the version
    /// `read` that the editor saw: an edit made on an older copy is [`IncidentsError::Stale`].
    pub async fn replace_entry(
        &self,
        id: &str,
        input: LogbookInput,
        read: i64,
        by: &Actor,
    ) -> Result<LogbookEntry, IncidentsError> {
        let existing = self.entry(id).await?;
        Self::may_change(&existing, by)?;
        if existing.version != read {
            return Err(IncidentsError::Stale {
                sent: read,
                current: existing.version,
            });
        }
        self.check_incident(input.incident_id.as_deref()).await?;
        let entry = LogbookEntry {
            kind: input.kind,
            title: input.title,
            body: input.body,
            incident_id: input.incident_id,
            updated_at: self.now(),
            version: read.saturating_add(1),
            ..existing
        };
        match self.store.replace_entry(&entry, read).await {
            Ok(()) => Ok(entry),
            // Edited (or deleted) between the read and the write.
            Err(StoreError::Changed) => match self.store.entry(id).await? {
                Some(now) => Err(IncidentsError::Stale {
                    sent: read,
                    current: now.version,
                }),
                None => Err(IncidentsError::NotFound("Logbook entry")),
            },
            Err(e) => Err(IncidentsError::from_store(e, "Logbook entry")),
        }
    }

    pub async fn delete_entry(&self, id: &str, by: &Actor) -> Result<(), IncidentsError> {
        let existing = self.entry(id).await?;
        Self::may_change(&existing, by)?;
        self.store
            .delete_entry(id)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Logbook entry"))
    }
}

/// Gives each log its id (its time in milliseconds, then a random part) and `receivedAt`, and
/// scrubs its `logContent` with the analysis's redaction: the queue, the timeline, grouped
/// logs, incident samples and alert messages only ever hold the scrubbed text.
pub fn assign(inputs: Vec<LogInput>, received: chrono::DateTime<chrono::Utc>) -> Vec<Log> {
    let received = format_time(received);
    inputs
        .into_iter()
        .map(|input| Log {
            id: format!(
                "{:013}-{}",
                input.timestamp.timestamp_millis().max(0),
                uuid::Uuid::new_v4().simple()
            ),
            service_name: input.service_name,
            log_type: input.log_type,
            severity: input.severity,
            log_content: redact(&input.log_content).text,
            timestamp: format_time(input.timestamp),
            received_at: received.clone(),
            fingerprint: input.fingerprint,
        })
        .collect()
}

/// How long incident `item` has been open at `now` (since it opened or last reopened), in
/// milliseconds; `None` when its times cannot be read.
fn open_ms(item: &platform::dynamo::Item, now: chrono::DateTime<chrono::Utc>) -> Option<u64> {
    let since = item
        .opt_string("reopenedAt")
        .or_else(|| item.opt_string("openedAt"))?;
    let since = chrono::DateTime::parse_from_rfc3339(&since).ok()?;
    let ms = now.signed_duration_since(since).num_milliseconds();
    Some(u64::try_from(ms).unwrap_or(0))
}

fn rule_of(id: String, input: RuleInput, created_at: &str, updated_at: &str) -> AlertRule {
    AlertRule {
        id,
        name: input.name,
        severities: input.severities,
        service_name: input.service_name,
        log_type: input.log_type,
        threshold: input.threshold,
        window_seconds: input.window_seconds,
        enabled: input.enabled,
        escalate_after_minutes: input.escalate_after_minutes,
        created_at: created_at.to_string(),
        updated_at: updated_at.to_string(),
    }
}

/// One page of `limit` from the pages of several status lists (each newest first by index
/// key, each up to `limit`), and the cursor of the next: the last row's key when more follow.
fn merge_pages<T>(pages: Vec<Listed<T>>, limit: usize) -> (Vec<T>, Option<String>) {
    let mut more = pages.iter().any(|p| p.more);
    let mut rows: Vec<(String, T)> = pages.into_iter().flat_map(|p| p.rows).collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0));
    more |= rows.len() > limit;
    rows.truncate(limit);
    let next = match rows.last() {
        Some((key, _)) if more => Some(encode_cursor(key)),
        _ => None,
    };
    (rows.into_iter().map(|(_, row)| row).collect(), next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::dynamo::{s, Item};

    #[test]
    fn an_incident_is_open_since_its_last_reopening() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-24T12:00:10.500Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let mut item = Item::from([("openedAt".to_string(), s("2026-11-24T11:00:00.000Z"))]);
        assert_eq!(open_ms(&item, now), Some(3_610_500));
        item.insert("reopenedAt".into(), s("2026-11-24T12:00:00.000Z"));
        assert_eq!(open_ms(&item, now), Some(10_500));
        // A clock behind the item's time observes 0, never a negative duration.
        item.insert("reopenedAt".into(), s("2026-11-24T12:00:11.000Z"));
        assert_eq!(open_ms(&item, now), Some(0));
        assert_eq!(open_ms(&Item::new(), now), None);
    }

    #[test]
    fn assigned_logs_hold_no_secret() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-24T12:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let logs = assign(
            vec![LogInput {
                service_name: "db".into(),
                log_type: "APPLICATION_LOG".into(),
                severity: crate::model::Severity::Error,
                log_content: "login failed password=hunter2 via postgres://app:s3cret@db/orders"
                    .into(),
                timestamp: at,
                fingerprint: None,
            }],
            at,
        );
        assert_eq!(
            logs[0].log_content,
            "login failed password=[REDACTED:password] via postgres://app:[REDACTED:password]@db/orders"
        );
        assert!(logs[0].id.starts_with("1795521600000-"), "{}", logs[0].id);
    }
}
