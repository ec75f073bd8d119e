//! The processor's batch of ingest messages, in one call ([`Incidents::process`]): the
//! messages of logs stored together (idempotent), counted in the metrics together and
//! grouped into incidents together (once per fingerprint for the whole batch); each purge
//! step deleted, then the next step queued. What is retried is decided here: a message
//! whose step failed is answered for retry, and SQS redelivers it.

use std::time::{Duration, Instant};

use incidents_metrics::store::batch_key;

use super::{Incidents, IncidentsError};
use crate::input::LogFilter;
use crate::model::{AlertRule, Log};
use crate::queue::IngestMessage;

/// How long a warm instance keeps the rules it read (a rule change applies within this).
pub const RULES_TTL: Duration = Duration::from_secs(10);

/// One ingest message as SQS delivered it.
#[derive(Clone, Debug)]
pub struct Delivery {
    pub message: IngestMessage,
    /// SQS delivered it before (`ApproximateReceiveCount` over 1).
    pub redelivered: bool,
}

/// The rules a warm instance read, and when.
pub(super) type RulesCache = tokio::sync::Mutex<Option<(Instant, Vec<AlertRule>)>>;

/// One message of logs of the batch, with the deliveries that carried it (SQS may deliver a
/// message twice in one batch).
struct Logs<'a> {
    key: String,
    logs: &'a [Log],
    deliveries: Vec<usize>,
    redelivered: bool,
}

impl Incidents {
    /// Processes a batch of deliveries; the positions of those to retry (each failure logged
    /// with why).
    pub async fn process(&self, deliveries: &[Delivery]) -> Vec<usize> {
        let mut retry = Vec::new();
        let mut logs: Vec<Logs<'_>> = Vec::new();
        for (at, delivery) in deliveries.iter().enumerate() {
            match &delivery.message {
                IngestMessage::Logs { logs: batch } => {
                    let key = batch_key(batch.iter().map(|l| l.id.as_str()));
                    match logs.iter_mut().find(|m| m.key == key) {
                        Some(known) => {
                            known.deliveries.push(at);
                            known.redelivered |= delivery.redelivered;
                        }
                        None => logs.push(Logs {
                            key,
                            logs: batch,
                            deliveries: vec![at],
                            redelivered: delivery.redelivered,
                        }),
                    }
                }
                IngestMessage::Purge {
                    job_id,
                    filter,
                    cursor,
                } => {
                    if let Err(error) = self.purge(job_id, filter, cursor.clone()).await {
                        tracing::warn!(%job_id, %error, "log deletion step failed; will be retried");
                        retry.push(at);
                    }
                }
            }
        }
        retry.extend(self.process_logs(&logs).await);
        retry.sort_unstable();
        retry
    }

    /// Queues the deletion of every log matching `filter`, step by step; the job's id.
    pub async fn queue_purge(&self, filter: LogFilter) -> Result<String, IncidentsError> {
        let job_id = uuid::Uuid::new_v4().to_string();
        self.queue
            .send(&IngestMessage::Purge {
                job_id: job_id.clone(),
                filter,
                cursor: None,
            })
            .await?;
        Ok(job_id)
    }

    /// Deletes one step of a deletion job and queues the next (deleting twice deletes
    /// nothing more).
    async fn purge(
        &self,
        job_id: &str,
        filter: &LogFilter,
        cursor: Option<String>,
    ) -> Result<(), IncidentsError> {
        let Some(cursor) = self.purge_step(filter, cursor).await? else {
            tracing::info!(%job_id, "log deletion done");
            return Ok(());
        };
        self.queue
            .send(&IngestMessage::Purge {
                job_id: job_id.to_string(),
                filter: filter.clone(),
                cursor: Some(cursor),
            })
            .await?;
        tracing::info!(%job_id, "log deletion continues");
        Ok(())
    }

    /// The batch's messages of logs stored, counted, then grouped; the deliveries to retry.
    async fn process_logs(&self, messages: &[Logs<'_>]) -> Vec<usize> {
        let every = || messages.iter().flat_map(|m| m.deliveries.iter().copied());
        if messages.is_empty() {
            return Vec::new();
        }
        let all: Vec<&Log> = messages.iter().flat_map(|m| m.logs.iter()).collect();
        let redelivered: Vec<&str> = messages
            .iter()
            .filter(|m| m.redelivered)
            .flat_map(|m| m.logs.iter().map(|l| l.id.as_str()))
            .collect();
        match self.store_logs(&all, &redelivered).await {
            Ok(objects) => tracing::debug!(objects, logs = all.len(), "logs stored"),
            Err(error) => {
                tracing::warn!(%error, "logs not stored; will be retried");
                return every().collect();
            }
        }
        let logs: Vec<&[Log]> = messages.iter().map(|m| m.logs).collect();
        match self.count_logs(&logs).await {
            Ok(0) => tracing::info!(
                messages = messages.len(),
                "logs stored again, counted before"
            ),
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, "logs not counted; will be retried");
                return every().collect();
            }
        }
        let mut rules = match self.cached_rules().await {
            Ok(rules) => rules,
            Err(error) => {
                tracing::warn!(%error, "rules unreadable; will be retried");
                return every().collect();
            }
        };
        if all.iter().any(|l| l.source.is_integration()) {
            rules.push(AlertRule::integration(&self.now()));
        }
        let keyed: Vec<(String, &[Log])> =
            messages.iter().map(|m| (m.key.clone(), m.logs)).collect();
        let mut failed = self.evaluate(&keyed, &rules).await;
        // Actions after the batch's triggers: a trigger and its resolve in one batch open
        // the incident, then resolve it.
        let mut seen = std::collections::HashSet::new();
        let actions: Vec<(&str, &Log)> = messages
            .iter()
            .flat_map(|m| m.logs.iter().map(move |l| (m.key.as_str(), l)))
            .filter(|(_, l)| !l.action.is_trigger() && seen.insert(l.id.as_str()))
            .collect();
        if !actions.is_empty() {
            failed.extend(self.act(&actions).await);
        }
        messages
            .iter()
            .filter(|m| failed.contains(&m.key))
            .flat_map(|m| m.deliveries.iter().copied())
            .collect()
    }

    /// The alert rules, as read at most [`RULES_TTL`] ago.
    async fn cached_rules(&self) -> Result<Vec<AlertRule>, IncidentsError> {
        let mut cache = self.rules_cache.lock().await;
        if let Some((at, rules)) = &*cache {
            if at.elapsed() < RULES_TTL {
                return Ok(rules.clone());
            }
        }
        let rules = self.rules().await?;
        *cache = Some((Instant::now(), rules.clone()));
        Ok(rules)
    }
}
