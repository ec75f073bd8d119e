//! Merging incidents: an operator folds incident `source` into `target` (two fingerprints that
//! are one problem). One transaction resolves the source, points it at the target
//! (`mergedInto`), moves its count (occurrences, batches, first and last seen) onto the
//! target's and writes the source's history event; the processor then groups the source's
//! fingerprint into the target ([`Store::follow_merges`]).
//!
//! The same transaction resolves the source's OPEN and ACKNOWLEDGED alerts, as a resolve
//! does (the target raises its own when its rules say so), under the condition that the
//! source lists no alert raised since they were read.
//!
//! Idempotent: merging a source already merged into the same target answers as the first
//! merge did and changes nothing; the count moves under a condition on the count it read, so
//! a batch counted meanwhile fails the merge (409: read again) instead of being lost.

use platform::dynamo::{key, n, s, Attributes, DynamoError, Item, Transaction};

use super::groups::count_key;
use super::{incident_pk, RaisedAlerts, Store, StoreError};
use crate::model::{AlertStatus, IncidentEvent, IncidentStatus};

/// Merge pointers the processor follows at most (a merged incident's target may itself be
/// merged later); beyond them it counts into the last one read.
pub const MAX_MERGE_HOPS: usize = 8;

const META: &str = "META";

/// What a merge found before writing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeCheck {
    /// Merge: the source's status and reopen count as read.
    Go,
    /// Already merged into this target: nothing to do.
    Done,
    /// Refused, with the reason (about the field `into`).
    Refused(String),
}

/// Whether `source` (its `META`) may be merged into `target` (its `META`).
pub fn check(source_id: &str, source: &Item, target_id: &str, target: &Item) -> MergeCheck {
    if source_id == target_id {
        return MergeCheck::Refused("must be another incident than the one merged".into());
    }
    match source.opt_string("mergedInto") {
        Some(into) if into == target_id => return MergeCheck::Done,
        Some(into) => {
            return MergeCheck::Refused(format!(
                "must be {into}: incident {source_id} was merged into it already"
            ))
        }
        None => {}
    }
    if let Some(into) = target.opt_string("mergedInto") {
        return MergeCheck::Refused(format!(
            "must not be a merged incident: {target_id} was merged into {into}, merge into that"
        ));
    }
    MergeCheck::Go
}

impl Store {
    /// Incident `id` after its merge pointers (at most [`MAX_MERGE_HOPS`]), with its
    /// `META` and count items as [`Store::incident_state`] reads them.
    pub async fn follow_merges(
        &self,
        id: &str,
    ) -> Result<(String, Option<Item>, Option<Item>), DynamoError> {
        let mut id = id.to_string();
        let (mut meta, mut count) = self.incident_state(&id).await?;
        for _ in 0..MAX_MERGE_HOPS {
            let Some(into) = meta.as_ref().and_then(|m| m.opt_string("mergedInto")) else {
                break;
            };
            id = into;
            (meta, count) = self.incident_state(&id).await?;
        }
        Ok((id, meta, count))
    }

    /// Merges `source` into `target` as `event` (the source's move to RESOLVED, or RESOLVED
    /// to RESOLVED when it was resolved) says: one transaction, conditional on the source's
    /// status, reopen count and count as read (`source`, `source_count`) and on no merge
    /// meanwhile, and on its raised alerts (`alerts`, resolved here) being those read;
    /// [`StoreError::Changed`] when any of them moved.
    #[allow(clippy::too_many_arguments)]
    pub async fn merge_incident(
        &self,
        source_id: &str,
        source: &Item,
        source_count: Option<&Item>,
        target_id: &str,
        target_count: Option<&Item>,
        event: &IncidentEvent,
        open_ms: Option<u64>,
        alerts: &RaisedAlerts,
    ) -> Result<(), StoreError> {
        let t = self.table().name().to_string();
        let from = event.from.ok_or(StoreError::Changed)?;
        let reopen_count = source.counter(&t, "reopenCount")?;
        let now = event.at.as_str();
        let mut tx = Transaction::new(self.table());
        let mut expression = "SET #status = :resolved, mergedInto = :target, mergedAt = :now, \
                              updatedAt = :now, gsi1pk = :gpk"
            .to_string();
        if from != IncidentStatus::Resolved {
            expression.push_str(", resolvedAt = :now");
        }
        expression.push_str(" REMOVE alertIds");
        let (unchanged, raised) = alerts.unchanged();
        let mut update = tx
            .update_builder(key(incident_pk(source_id), META))
            .update_expression(expression)
            .condition_expression(format!(
                "#status = :from AND reopenCount = :epoch AND attribute_not_exists(mergedInto){unchanged}"
            ))
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":resolved", s(IncidentStatus::Resolved.as_str()))
            .expression_attribute_values(":from", s(from.as_str()))
            .expression_attribute_values(":epoch", n(reopen_count))
            .expression_attribute_values(":target", s(target_id))
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":gpk", s("INCIDENTS#RESOLVED"));
        if let Some(raised) = raised {
            update = update.expression_attribute_values(":raised", raised);
        }
        tx.update(update)?;
        for (alert, status) in &alerts.unresolved {
            self.move_alert_in(&mut tx, alert, *status, AlertStatus::Resolved, now)?;
        }
        tx.put(Self::event_row(source_id, event), None)?;
        if from != IncidentStatus::Resolved {
            Self::count_in(
                &mut tx,
                self.metrics().incident_moved(
                    source_id,
                    from.as_str(),
                    IncidentStatus::Resolved.as_str(),
                    now,
                    open_ms,
                ),
            )?;
            self.status_count_in(
                &mut tx,
                source_id,
                now,
                Some(from),
                IncidentStatus::Resolved,
            )?;
        }
        if let Some(count) = source_count {
            Self::move_count(&mut tx, &t, source_id, count, target_id, target_count)?;
        }
        tx.commit_retrying().await.map_err(StoreError::from)
    }

    /// Moves `source_id`'s count (`count`, as read) to `target_id` in `tx`: the source's
    /// conditional on it being unchanged, its first and last seen merged into the target's
    /// (`target_count`, as read). Nothing moves when it counted nothing.
    fn move_count(
        tx: &mut Transaction,
        t: &str,
        source_id: &str,
        count: &Item,
        target_id: &str,
        target_count: Option<&Item>,
    ) -> Result<(), StoreError> {
        let occurrences = count.counter(t, "occurrences")?;
        let batches = count.counter(t, "batches")?;
        if occurrences > 0 || batches > 0 {
            let zero = tx
                .update_builder(count_key(source_id))
                .update_expression(
                    "SET occurrences = :zero, batches = :zero ADD movedOccurrences :occ",
                )
                .condition_expression("occurrences = :occ AND batches = :batches")
                .expression_attribute_values(":zero", n(0))
                .expression_attribute_values(":occ", n(occurrences))
                .expression_attribute_values(":batches", n(batches));
            tx.update(zero)?;
            let seen = |name: &str| {
                [
                    count.opt_string(name),
                    target_count.and_then(|c| c.opt_string(name)),
                ]
                .into_iter()
                .flatten()
            };
            let (first, last) = (seen("firstSeen").min(), seen("lastSeen").max());
            let mut expression = "ADD occurrences :occ, batches :batches".to_string();
            let mut add = tx
                .update_builder(count_key(target_id))
                .expression_attribute_values(":occ", n(occurrences))
                .expression_attribute_values(":batches", n(batches));
            let mut sets = Vec::new();
            if let Some(first) = first {
                sets.push("firstSeen = :first");
                add = add.expression_attribute_values(":first", s(first));
            }
            if let Some(last) = last {
                sets.push("lastSeen = :last");
                add = add.expression_attribute_values(":last", s(last));
            }
            if !sets.is_empty() {
                expression = format!("SET {} {expression}", sets.join(", "));
            }
            tx.update(add.update_expression(expression))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(merged_into: Option<&str>) -> Item {
        let mut item = key("INC#x", META);
        if let Some(into) = merged_into {
            item.insert("mergedInto".into(), s(into));
        }
        item
    }

    #[test]
    fn a_merge_is_refused_into_itself_or_a_merged_target_and_done_once() {
        let (a, b, c) = ("a".repeat(32), "b".repeat(32), "c".repeat(32));
        assert_eq!(check(&a, &meta(None), &b, &meta(None)), MergeCheck::Go);
        assert_eq!(
            check(&a, &meta(Some(&b)), &b, &meta(None)),
            MergeCheck::Done
        );
        for refused in [
            check(&a, &meta(None), &a, &meta(None)),
            check(&a, &meta(Some(&c)), &b, &meta(None)),
            check(&a, &meta(None), &b, &meta(Some(&c))),
        ] {
            assert!(
                matches!(&refused, MergeCheck::Refused(why) if why.starts_with("must")),
                "{refused:?}"
            );
        }
    }
}
