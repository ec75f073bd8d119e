//! The incidents processor: consumes the ingest queue ([`IngestMessage`]).
//!
//! - `logs`: stores the batch's logs in S3, one object per service bucket and minute
//!   (`incidents::objects`: named by their content and written only if absent, so a
//!   redelivered batch stores nothing twice); then, for the whole batch at once, counts them in the metrics (one update per series, each message once
//!   however often it is delivered: `incidents_metrics`) and groups the logs that match an alert
//!   rule into incidents, once per fingerprint, fingerprints in parallel, raising alerts
//!   (`Incidents::evaluate`, each message counted once however often it runs);
//! - `purge`: deletes one step of a timeline deletion and queues the next step (deleting
//!   twice deletes nothing more).
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`: done, or a batch item
//! failure (the table or queue unavailable, an unreadable message), redelivered and, after
//! `maxReceiveCount`, dead-lettered.

use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::FutureExt;
use incidents::input::LogFilter;
use incidents::model::{AlertRule, Log};
use incidents::{Incidents, IncidentsError, IngestMessage, IngestQueue};
use incidents_metrics::store::batch_key;
use platform::aws::AwsClients;
use platform::{BoxError, Env, SqsHandler};
use tokio::sync::Mutex;

/// How long a warm instance keeps the rules it read (a rule change applies within this).
pub const RULES_TTL: Duration = Duration::from_secs(10);

struct Cache {
    rules: Option<(Instant, Vec<AlertRule>)>,
}

pub struct IncidentsProcessor {
    incidents: Arc<Incidents>,
    queue: IngestQueue,
    cache: Arc<Mutex<Cache>>,
}

/// Builds the handler from its environment (`INCIDENTS_TABLE`, `LOGS_BUCKET`,
/// `INGEST_QUEUE_URL`).
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
            cache: Arc::new(Mutex::new(Cache { rules: None })),
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

async fn purge(
    incidents: &Incidents,
    queue: &IngestQueue,
    job_id: String,
    filter: LogFilter,
    cursor: Option<String>,
) -> Result<(), IncidentsError> {
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

/// One message of logs of the batch, with the SQS message ids that carried it (SQS may
/// deliver a message twice in one batch).
struct Logs {
    key: String,
    logs: Vec<Log>,
    records: Vec<String>,
    /// SQS delivered it before (`ApproximateReceiveCount` over 1).
    redelivered: bool,
}

/// The batch's messages of logs: stored together (idempotent), then counted in the metrics
/// together and grouped into incidents together (once per fingerprint for the whole batch).
/// Returns the SQS ids of the messages to retry.
async fn process_logs(
    incidents: &Incidents,
    cache: &Mutex<Cache>,
    messages: Vec<Logs>,
) -> Vec<String> {
    let mut retry = Vec::new();
    if messages.is_empty() {
        return retry;
    }
    let all: Vec<&Log> = messages.iter().flat_map(|m| m.logs.iter()).collect();
    let redelivered: Vec<&str> = messages
        .iter()
        .filter(|m| m.redelivered)
        .flat_map(|m| m.logs.iter().map(|l| l.id.as_str()))
        .collect();
    match incidents.store_logs(&all, &redelivered).await {
        Ok(objects) => tracing::debug!(objects, logs = all.len(), "logs stored"),
        Err(error) => {
            tracing::warn!(%error, "logs not stored; will be retried");
            retry.extend(messages.iter().flat_map(|m| m.records.iter().cloned()));
            return retry;
        }
    }
    let ok: Vec<&Logs> = messages.iter().collect();
    let all_retried = |retry: &mut Vec<String>, ok: &[&Logs]| {
        retry.extend(ok.iter().flat_map(|m| m.records.iter().cloned()));
    };
    if ok.is_empty() {
        return retry;
    }
    let logs: Vec<&[Log]> = ok.iter().map(|m| m.logs.as_slice()).collect();
    match incidents.count_logs(&logs).await {
        Ok(0) => tracing::info!(messages = ok.len(), "logs stored again, counted before"),
        Ok(_) => {}
        Err(error) => {
            tracing::warn!(%error, "logs not counted; will be retried");
            all_retried(&mut retry, &ok);
            return retry;
        }
    }
    let rules = match rules(incidents, cache).await {
        Ok(rules) => rules,
        Err(error) => {
            tracing::warn!(%error, "rules unreadable; will be retried");
            all_retried(&mut retry, &ok);
            return retry;
        }
    };
    let keyed: Vec<(String, &[Log])> = ok
        .iter()
        .map(|m| (m.key.clone(), m.logs.as_slice()))
        .collect();
    let failed = incidents.evaluate(&keyed, &rules).await;
    for message in &ok {
        if failed.contains(&message.key) {
            retry.extend(message.records.iter().cloned());
        }
    }
    retry
}

impl SqsHandler for IncidentsProcessor {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let incidents = Arc::clone(&self.incidents);
        let queue = self.queue.clone();
        let cache = Arc::clone(&self.cache);
        async move {
            let mut response = SqsBatchResponse::default();
            let mut logs: Vec<Logs> = Vec::new();
            for record in event.records {
                let id = record.message_id.unwrap_or_default();
                let redelivered = record
                    .attributes
                    .get("ApproximateReceiveCount")
                    .and_then(|c| c.parse::<u32>().ok())
                    .is_some_and(|c| c > 1);
                let message = match IngestMessage::parse(record.body.as_deref().unwrap_or("")) {
                    Ok(m) => m,
                    Err(error) => {
                        tracing::warn!(message_id = %id, %error, "unreadable ingest message");
                        response.add_failure(id);
                        continue;
                    }
                };
                match message {
                    IngestMessage::Logs { logs: batch } => {
                        let key = batch_key(batch.iter().map(|l| l.id.as_str()));
                        match logs.iter_mut().find(|m| m.key == key) {
                            Some(known) => {
                                known.records.push(id);
                                known.redelivered |= redelivered;
                            }
                            None => logs.push(Logs {
                                key,
                                logs: batch,
                                records: vec![id],
                                redelivered,
                            }),
                        }
                    }
                    IngestMessage::Purge {
                        job_id,
                        filter,
                        cursor,
                    } => {
                        if let Err(error) = purge(&incidents, &queue, job_id, filter, cursor).await
                        {
                            tracing::warn!(message_id = %id, %error, "log deletion step failed; will be retried");
                            response.add_failure(id);
                        }
                    }
                }
            }
            for id in process_logs(&incidents, &cache, logs).await {
                tracing::warn!(message_id = %id, "ingest message failed; will be retried");
                response.add_failure(id);
            }
            Ok(response)
        }
        .boxed()
    }
}
