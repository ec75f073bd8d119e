//! A batch's logs grouped into their fingerprints' incidents: counted, sampled, and opening,
//! reopening and raising alerts as the rules' thresholds are met.

use std::collections::HashSet;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use platform::dynamo::{Attributes, DynamoError, Item};

use super::{Incidents, IncidentsError};
use crate::fingerprint::stable_id;
use crate::groups::{group, Counted, Group, Part};
use crate::model::{Alert, AlertRule, AlertStatus, IncidentStatus, Log};
use crate::store::{log_millis, Store};

/// Fingerprints of one batch grouped at a time (each a few round trips to the table).
pub const GROUP_CONCURRENCY: usize = 16;

/// The messages of a fingerprint's group, and how its grouping went.
type GroupOutcome = (Vec<String>, Result<(), IncidentsError>);

impl Incidents {
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

    /// Counts `parts` into incident `id` and does nothing more: the state a grouping that
    /// stopped after its first write leaves (the tests' half-done reopen).
    #[doc(hidden)]
    pub async fn count_only(
        &self,
        id: &str,
        parts: &[Part<'_>],
        window: bool,
        now: &str,
    ) -> Result<Counted, IncidentsError> {
        Ok(self.store.count_group(id, parts, window, now).await?)
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
        let (mut epoch, before, batches) = epoch_and_counts(&t, meta.as_ref(), count.as_ref())?;
        let matched: Vec<&AlertRule> = rules
            .iter()
            .filter(|r| logs.iter().any(|l| matches(group, r, l)))
            .collect();
        let mut raised = self
            .store
            .alerts_raised(
                &matched
                    .iter()
                    .map(|r| alert_id(r, id, epoch))
                    .collect::<Vec<_>>(),
            )
            .await?;
        let resolved = status == Some(IncidentStatus::Resolved);
        // Window rows only while a threshold above one may still be counted from them.
        let window = resolved
            || matched
                .iter()
                .any(|r| r.threshold > 1 && !raised.contains(&alert_id(r, id, epoch)));
        let fresh = self
            .count_and_sample(id, group, window, &now, before, batches)
            .await?;
        // A RESOLVED incident reopens only on logs stamped after its resolve that meet a
        // rule's threshold within its window (as an opening does).
        let resolved_ms = meta.as_ref().filter(|_| resolved).and_then(resolved_millis);
        for rule in matched {
            if status != Some(IncidentStatus::Resolved)
                && raised.contains(&alert_id(rule, id, epoch))
            {
                continue;
            }
            let Some((anchor, count)) = self
                .rule_met(
                    id,
                    group,
                    &logs,
                    rule,
                    (status, resolved_ms),
                    window,
                    &fresh,
                )
                .await?
            else {
                continue;
            };
            if status.is_none() || status == Some(IncidentStatus::Resolved) {
                changed |= self
                    .open_or_reopen(id, &now, rule, anchor, count, status)
                    .await?;
                if status == Some(IncidentStatus::Resolved) {
                    // Reopened here or by a concurrent batch: either way the next opening.
                    epoch += 1;
                    raised.clear();
                }
                status = Some(IncidentStatus::Active);
            }
            let alert = alert_of(rule, id, epoch, anchor, count, &now);
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

    /// Counts the group's messages into incident `id` (into its window rows too when
    /// `window`), and samples the logs newly counted (`before` occurrences and `batches`
    /// batches were counted before); the ids of the logs newly counted.
    async fn count_and_sample(
        &self,
        id: &str,
        group: &Group<'_>,
        window: bool,
        now: &str,
        before: i64,
        batches: i64,
    ) -> Result<HashSet<String>, IncidentsError> {
        let counted = self
            .store
            .count_group(id, &group.parts, window, now)
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
        Ok(fresh.iter().map(|l| l.id.clone()).collect())
    }

    /// Whether `rule` is met on incident `id` (at `status`, resolved at `resolved_ms` if it
    /// is RESOLVED): its newest matching log (the anchor) and the logs counted within the
    /// rule's window up to it, when they reach its threshold. `fresh`: the logs this call
    /// counted.
    #[allow(clippy::too_many_arguments)]
    async fn rule_met<'g>(
        &self,
        id: &str,
        group: &Group<'_>,
        logs: &[&'g Log],
        rule: &AlertRule,
        (status, resolved_ms): (Option<IncidentStatus>, Option<i64>),
        window: bool,
        fresh: &HashSet<String>,
    ) -> Result<Option<(&'g Log, usize)>, IncidentsError> {
        let after_resolve = |l: &&Log| {
            resolved_ms.is_none_or(|r| {
                if l.source.is_integration() {
                    // An event's time is the sender's (an alert's start may precede a resolve
                    // it follows): one received after the resolve and counted now reopens;
                    // the same alert re-sent is counted already and does not.
                    fresh.contains(&l.id) && received_millis(l).is_some_and(|m| m > r)
                } else {
                    log_millis(&l.id).is_some_and(|m| m > r)
                }
            })
        };
        // Every log here is counted into this incident, now or by a delivery whose reopen
        // failed: one stamped after the resolve has not reopened it, so it may still.
        let matching: Vec<&'g Log> = if status == Some(IncidentStatus::Resolved) {
            logs.iter()
                .copied()
                .filter(after_resolve)
                .collect::<Vec<_>>()
        } else {
            logs.to_vec()
        }
        .into_iter()
        .filter(|l| matches(group, rule, l))
        .collect();
        let Some(anchor) = matching.iter().max_by(|a, b| a.id.cmp(&b.id)).copied() else {
            return Ok(None);
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
        Ok((count >= threshold).then_some((anchor, count)))
    }

    /// Opens incident `id` (`status` None) or reopens it (RESOLVED) for `rule`, met by
    /// `count` logs up to `anchor`; true when this call did it.
    async fn open_or_reopen(
        &self,
        id: &str,
        now: &str,
        rule: &AlertRule,
        anchor: &Log,
        count: usize,
        status: Option<IncidentStatus>,
    ) -> Result<bool, IncidentsError> {
        if status.is_none() {
            let why = format!(
                "opened by rule {} ({count} matching logs within {} s)",
                rule.name, rule.window_seconds
            );
            if self
                .store
                .open_incident(id, now, &why, anchor, rule.escalate_after_minutes)
                .await?
            {
                tracing::info!(incident = %id, rule = %rule.id, "incident opened");
                return Ok(true);
            }
            return Ok(false);
        }
        let why = format!(
            "reopened by rule {} ({count} matching logs within {} s after the resolve)",
            rule.name, rule.window_seconds
        );
        if self
            .store
            .reopen_incident(id, now, &why, anchor, rule.escalate_after_minutes)
            .await?
        {
            tracing::info!(incident = %id, log = %anchor.id, "incident reopened");
            return Ok(true);
        }
        Ok(false)
    }
}

/// Incident `meta`'s opening epoch (its reopen count), and the occurrences and batches its
/// `count` item has counted (0 for an incident not stored yet).
fn epoch_and_counts(
    t: &str,
    meta: Option<&Item>,
    count: Option<&Item>,
) -> Result<(i64, i64, i64), DynamoError> {
    let epoch = match meta {
        Some(item) => item.counter(t, "reopenCount")?,
        None => 0,
    };
    let (before, batches) = match count {
        Some(item) => (item.counter(t, "occurrences")?, item.counter(t, "batches")?),
        None => (0, 0),
    };
    Ok((epoch, before, batches))
}

/// When `log` was received, in milliseconds.
fn received_millis(log: &Log) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(&log.received_at)
        .ok()
        .map(|at| at.timestamp_millis())
}

/// When incident `meta` last resolved, in milliseconds, if it says.
fn resolved_millis(meta: &Item) -> Option<i64> {
    meta.opt_string("resolvedAt")
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(&at).ok())
        .map(|at| at.timestamp_millis())
}

/// Whether `log` of `group` matched `rule`.
fn matches(group: &Group<'_>, rule: &AlertRule, log: &Log) -> bool {
    group
        .rule_ids
        .get(&log.id)
        .is_some_and(|ids| ids.contains(&rule.id))
}

/// The id of the alert `rule` raises on incident `id` in its opening `epoch`.
fn alert_id(rule: &AlertRule, id: &str, epoch: i64) -> String {
    stable_id(&[&rule.id, id, &epoch.to_string()])
}

/// The alert `rule` raises on incident `id`, met by `count` logs up to `anchor`.
fn alert_of(
    rule: &AlertRule,
    id: &str,
    epoch: i64,
    anchor: &Log,
    count: usize,
    now: &str,
) -> Alert {
    Alert {
        id: alert_id(rule, id, epoch),
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
        raised_at: now.to_string(),
        updated_at: now.to_string(),
    }
}
