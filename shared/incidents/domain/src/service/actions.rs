//! An integration's lifecycle actions (`acknowledge`, `resolve`) on the incident a log's
//! client key names for its service: applied by the processor after the batch's triggers
//! were grouped, recorded in the incident's history `by` the integration and announced
//! through the outbox as a change by hand is.
//!
//! Safe under redelivery and re-sends: a move is conditional on the status read (a second
//! resolve of a RESOLVED incident does nothing), and an action received before the trigger
//! that (re)opened the incident (`triggeredAt`) leaves that opening alone, so a resolve
//! redelivered after a new trigger reopened the incident does not close it again.

use std::collections::BTreeMap;

use platform::dynamo::Attributes;

use super::incidents::open_ms;
use super::{Incidents, IncidentsError};
use crate::fingerprint::{client_fingerprint, incident_id};
use crate::input::format_time;
use crate::model::{IncidentEvent, IncidentStatus, Log, LogAction};
use crate::store::{Store, StoreError};

/// Times a move is tried again after the incident changed under it.
const MOVE_ATTEMPTS: usize = 3;

/// What an action did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acted {
    /// The incident moved.
    Moved,
    /// Nothing to do: no such incident, not opened, already there, or the action predates
    /// the opening.
    Nothing,
}

/// The incident `log` acts on (its service and client key), if it is an action.
pub fn action_target(log: &Log) -> Option<String> {
    if log.action.is_trigger() {
        return None;
    }
    let key = log.fingerprint.as_deref()?;
    Some(incident_id(&client_fingerprint(&log.service_name, key)))
}

impl Incidents {
    /// Applies the actions among `logs` (each with the key of the message carrying it), one
    /// per incident: a resolve if any resolves it, else the newest acknowledge. The keys of
    /// the messages whose action failed (logged with why).
    pub async fn act(&self, logs: &[(&str, &Log)]) -> Vec<String> {
        let mut by_incident: BTreeMap<String, Vec<(&str, &Log)>> = BTreeMap::new();
        for (message, log) in logs {
            if let Some(id) = action_target(log) {
                by_incident.entry(id).or_default().push((message, log));
            }
        }
        let mut failed = Vec::new();
        for (id, actions) in by_incident {
            let Some((_, chosen)) = actions.iter().copied().max_by(|a, b| {
                let rank = |l: &Log| (l.action == LogAction::Resolve, l.received_at.clone());
                rank(a.1).cmp(&rank(b.1)).then_with(|| a.1.id.cmp(&b.1.id))
            }) else {
                continue;
            };
            match self.act_on(&id, chosen).await {
                Ok(Acted::Moved) => {
                    tracing::info!(incident = %id, action = chosen.action.as_str(), source = chosen.source.as_str(), "incident moved by an integration");
                }
                Ok(Acted::Nothing) => {}
                Err(error) => {
                    tracing::warn!(%error, incident = %id, "integration action failed; will be retried");
                    failed.extend(actions.iter().map(|(m, _)| m.to_string()));
                }
            }
        }
        failed
    }

    /// Moves incident `id` (after its merges) as `log` asks, if it can.
    pub async fn act_on(&self, id: &str, log: &Log) -> Result<Acted, IncidentsError> {
        let to = match log.action {
            LogAction::Trigger => return Ok(Acted::Nothing),
            LogAction::Acknowledge => IncidentStatus::Acknowledged,
            LogAction::Resolve => IncidentStatus::Resolved,
        };
        let t = self.store.table().name().to_string();
        for _ in 0..MOVE_ATTEMPTS {
            let (id, item, _) = self.store.follow_merges(id).await?;
            let Some(item) = item else {
                return Ok(Acted::Nothing);
            };
            let Some(from) = Store::status_of(&item) else {
                return Ok(Acted::Nothing);
            };
            if !from.can_move_to(to) {
                return Ok(Acted::Nothing);
            }
            // Sent before the trigger that opened this opening: about an earlier one.
            if item
                .opt_string("triggeredAt")
                .is_some_and(|at| at > log.received_at)
            {
                return Ok(Acted::Nothing);
            }
            let now = self.clock.now();
            let event = IncidentEvent {
                at: format_time(now),
                from: Some(from),
                to,
                note: Some(format!(
                    "{} by a {} event",
                    match to {
                        IncidentStatus::Resolved => "resolved",
                        _ => "acknowledged",
                    },
                    source_name(log)
                )),
                assignee: None,
                by: log.source.as_str().to_string(),
            };
            let alerts = self.alerts_moving(&item, to, &event.at).await?;
            let reopen_count = item.counter(&t, "reopenCount")?;
            match self
                .store
                .change_incident(&id, &event, reopen_count, open_ms(&item, now), &alerts)
                .await
            {
                Ok(()) => {
                    self.publish(&id).await;
                    return Ok(Acted::Moved);
                }
                // Moved, reopened or given an alert meanwhile: read it again.
                Err(StoreError::Changed) => continue,
                Err(e) => return Err(IncidentsError::from_store(e, "Incident")),
            }
        }
        Err(IncidentsError::Changed)
    }
}

/// The integration's name in words.
fn source_name(log: &Log) -> &'static str {
    match log.source {
        crate::model::LogSource::Alertmanager => "Alertmanager",
        crate::model::LogSource::Pagerduty => "PagerDuty",
        crate::model::LogSource::Loki => "Loki",
        crate::model::LogSource::Otlp => "OTLP",
        crate::model::LogSource::Api => "API",
    }
}
