//! The incidents processor: consumes the ingest queue ([`IngestMessage`]).
//!
//! - `logs`: stores the logs (BatchWriteItem; the ids were assigned at ingestion, so a
//!   redelivered message overwrites the same items and stores nothing twice), notes their
//!   hours for the timeline, counts them in the metrics (once per message, however often it
//!   is delivered: `incident_metrics`), then groups the logs that match an alert rule into incidents and
//!   raises alerts (`Incidents::evaluate`, exact once per log however often it runs);
//! - `purge`: deletes one step of a timeline deletion and queues the next step (deleting
//!   twice deletes nothing more).
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`: done, or a batch item
//! failure (the table or queue unavailable, an unreadable message), redelivered and, after
//! `maxReceiveCount`, dead-lettered.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::FutureExt;
use incidents::model::AlertRule;
use incidents::{Incidents, IncidentsError, IngestMessage, IngestQueue};
use platform::aws::AwsClients;
use platform::{BoxError, Env, SqsHandler};
use tokio::sync::Mutex;

/// How long a warm instance keeps the rules it read (a rule change applies within this).
pub const RULES_TTL: Duration = Duration::from_secs(10);

struct Cache {
    rules: Option<(Instant, Vec<AlertRule>)>,
    hours: HashSet<String>,
}

pub struct IncidentsProcessor {
    incidents: Arc<Incidents>,
    queue: IngestQueue,
    cache: Arc<Mutex<Cache>>,
}

/// Builds the handler from its environment (`INCIDENTS_TABLE`, `INGEST_QUEUE_URL`).
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(Arc::new(IncidentsProcessor::new(
        Incidents::from_env(&env, &aws)?,
        IngestQueue::from_env(&env, aws.sqs())?,
    )))
}

impl IncidentsProcessor {
    pub fn new(incidents: Incidents, queue: IngestQueue) -> Self {
        Self {
            incidents: Arc::new(incidents),
            queue,
            cache: Arc::new(Mutex::new(Cache {
                rules: None,
                hours: HashSet::new(),
            })),
        }
    }
}

async fn rules(
    incidents: &Incidents,
    cache: &Mutex<Cache>,
) -> Result<Vec<AlertRule>, IncidentsError> {
    let mut cache = cache.lock().await;
    if let Some((at, rules)) = &cache.rules {
        if at.elapsed() < RULES_TTL {
            return Ok(rules.clone());
        }
    }
    let rules = incidents.rules().await?;
    cache.rules = Some((Instant::now(), rules.clone()));
    Ok(rules)
}

async fn process(
    incidents: &Incidents,
    queue: &IngestQueue,
    cache: &Mutex<Cache>,
    message: IngestMessage,
) -> Result<(), IncidentsError> {
    match message {
        IngestMessage::Logs { logs } => {
            {
                let mut guard = cache.lock().await;
                let counted = incidents.store_logs(&logs, &mut guard.hours).await?;
                if counted == 0 {
                    tracing::info!(logs = logs.len(), "logs stored again, counted before");
                }
            }
            let rules = rules(incidents, cache).await?;
            incidents.evaluate(&logs, &rules).await
        }
        IngestMessage::Purge {
            job_id,
            filter,
            cursor,
        } => {
            let next = incidents.purge_step(&filter, cursor).await?;
            if let Some(cursor) = next {
                queue
                    .send(&IngestMessage::Purge {
                        job_id: job_id.clone(),
                        filter,
                        cursor: Some(cursor),
                    })
                    .await?;
                tracing::info!(%job_id, "log deletion continues");
            } else {
                tracing::info!(%job_id, "log deletion done");
            }
            Ok(())
        }
    }
}

impl SqsHandler for IncidentsProcessor {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let incidents = Arc::clone(&self.incidents);
        let queue = self.queue.clone();
        let cache = Arc::clone(&self.cache);
        async move {
            let mut response = SqsBatchResponse::default();
            for record in event.records {
                let id = record.message_id.unwrap_or_default();
                let message = match IngestMessage::parse(record.body.as_deref().unwrap_or("")) {
                    Ok(m) => m,
                    Err(error) => {
                        tracing::warn!(message_id = %id, %error, "unreadable ingest message");
                        response.add_failure(id);
                        continue;
                    }
                };
                if let Err(error) = process(&incidents, &queue, &cache, message).await {
                    tracing::warn!(message_id = %id, %error, "ingest message failed; will be retried");
                    response.add_failure(id);
                }
            }
            Ok(response)
        }
        .boxed()
    }
}
