//! Incidents: listed, read, moved through their statuses (resolving their alerts with
//! them) and merged.

use platform::dynamo::Attributes;
use platform::Invalid;

use super::{merge_pages, Actor, Incidents, IncidentsError};
use crate::input::{format_time, Assignment, IncidentPatch, MergeInput};
use crate::model::{AlertStatus, Incident, IncidentDetail, IncidentEvent, IncidentStatus};
use crate::store::{merge_check, MergeCheck};
use crate::store::{RaisedAlerts, Store, StoreError};

/// Alerts a resolve (or an acknowledge) moves in its own transaction (with the incident, its history, outbox and
/// metric rows, within DynamoDB's 100 items); the rule cap keeps an incident's below it.
pub const RESOLVE_ALERTS_IN_TRANSACTION: usize = 80;

impl Incidents {
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

    /// How many incidents have each status (one Query of the counts' partition).
    pub async fn status_counts(&self) -> Result<crate::StatusCounts, IncidentsError> {
        Ok(self.store.status_counts().await?)
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
        let alerts = self.alerts_moving(&item, patch.status, &event.at).await?;
        self.store
            .change_incident(id, &event, reopen_count, open_ms(&item, now), &alerts)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Incident"))?;
        self.publish(id).await;
        self.incident(id).await
    }

    /// Assigns incident `id` (opened, any status) to `assignment.assignee`, its status as it
    /// is: a change in its history (`from` = `to`), notified to nobody.
    pub async fn assign_incident(
        &self,
        id: &str,
        assignment: Assignment,
        by: &Actor,
    ) -> Result<IncidentDetail, IncidentsError> {
        let item = self
            .store
            .incident_item(id)
            .await?
            .ok_or(IncidentsError::NotFound("Incident"))?;
        let status = Store::status_of(&item).ok_or(IncidentsError::NotFound("Incident"))?;
        let t = self.store.table().name().to_string();
        let reopen_count = item.counter(&t, "reopenCount")?;
        let event = IncidentEvent {
            at: format_time(self.clock.now()),
            from: Some(status),
            to: status,
            note: assignment.note,
            assignee: Some(assignment.assignee),
            by: by.username.clone(),
        };
        self.store
            .assign_incident(id, &event, reopen_count)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Incident"))?;
        self.incident(id).await
    }

    /// The alerts incident `item`'s move to `to` moves with it in its own transaction: on a
    /// resolve those not RESOLVED, on an acknowledge the OPEN ones. The rule cap bounds them
    /// (one per rule and opening); any beyond [`RESOLVE_ALERTS_IN_TRANSACTION`] are moved
    /// first, one by one, so a failure leaves the incident to move again.
    pub(super) async fn alerts_moving(
        &self,
        item: &platform::dynamo::Item,
        to: IncidentStatus,
        now: &str,
    ) -> Result<RaisedAlerts, IncidentsError> {
        let alert_to = match to {
            IncidentStatus::Resolved => AlertStatus::Resolved,
            IncidentStatus::Acknowledged => AlertStatus::Acknowledged,
            IncidentStatus::Active => return Ok(RaisedAlerts::default()),
        };
        let mut alerts = self.store.raised_alerts(item).await?;
        alerts.unresolved.retain(|(_, s)| s.can_move_to(alert_to));
        let surplus = alerts
            .unresolved
            .len()
            .saturating_sub(RESOLVE_ALERTS_IN_TRANSACTION);
        for (alert, from) in alerts.unresolved.drain(..surplus) {
            match self.store.change_alert(&alert, from, alert_to, now).await {
                // Moved since the read (resolved by hand, say): resolved below if still open.
                Ok(()) | Err(StoreError::Changed) => {}
                Err(e) => return Err(IncidentsError::from_store(e, "Alert")),
            }
        }
        if surplus > 0 {
            let mut alerts = self.store.raised_alerts(item).await?;
            alerts.unresolved.retain(|(_, s)| s.can_move_to(alert_to));
            return Ok(alerts);
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
        match merge_check(id, &source, &merge.into, &target) {
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
        let alerts = self
            .alerts_moving(&source, IncidentStatus::Resolved, &event.at)
            .await?;
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
}

/// How long incident `item` has been open at `now` (since it opened or last reopened), in
/// milliseconds; `None` when its times cannot be read.
pub(super) fn open_ms(
    item: &platform::dynamo::Item,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<u64> {
    let since = item
        .opt_string("reopenedAt")
        .or_else(|| item.opt_string("openedAt"))?;
    let since = chrono::DateTime::parse_from_rfc3339(&since).ok()?;
    let ms = now.signed_duration_since(since).num_milliseconds();
    Some(u64::try_from(ms).unwrap_or(0))
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
}
