//! The feed scheduler: on its schedule, puts every source that is due for a refresh on the
//! feed queue (`FEED_QUEUE_URL`) as a [`FeedRefresh`] message for the feed worker.
//!
//! A source is due when someone subscribes to it and it has never been fetched or its
//! `nextFetchAt` (set by the worker: the refresh interval after a success, a growing back-off
//! after failures) has passed (`news::ingest::is_due`).
//! Enqueuing a source twice is harmless: the worker's refresh is idempotent.
//!
//! The same run puts on the sweep queue (`SWEEP_QUEUE_URL`) every source nobody subscribed to
//! within the grace period (`SOURCE_GRACE_MINUTES`), for the source sweeper to retire and
//! remove, and every source retired a while ago, in case its sweep was never enqueued
//! (`news::sweep::sweep_candidates`); sweep steps are idempotent too.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use futures::FutureExt;
use news::store::{ContentStore, StoreError};
use news::sweep::{grace_from_env, sweep_candidates};
use news::{RefreshSchedule, SourceSweep};
use platform::aws::sqs::BatchEntry;
use platform::aws::{AwsClients, Sqs};
use platform::{BoxError, Clock, Env, ScheduleHandler};

/// SQS takes at most ten messages per batch.
const SQS_BATCH: usize = 10;

/// Why a run enqueued less than every due source.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The SendMessageBatch call failed (or could not be built).
    #[error("feed queue: {0}")]
    Queue(String),
    /// SQS took the call but refused some of its messages.
    #[error("feed queue refused messages: {0}")]
    Refused(String),
}

#[derive(Clone)]
pub struct FeedScheduler {
    schedule: RefreshSchedule,
    store: ContentStore,
    sqs: Sqs,
    queue_url: String,
    sweep_queue_url: String,
    grace: chrono::Duration,
    clock: Clock,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn ScheduleHandler>, BoxError> {
    Ok(Arc::new(FeedScheduler::from_env(&env).await?))
}

impl FeedScheduler {
    /// From `CONTENT_TABLE`, `FEED_QUEUE_URL`, `SWEEP_QUEUE_URL` and `SOURCE_GRACE_MINUTES`.
    pub async fn from_env(env: &Env) -> Result<Self, BoxError> {
        let aws = AwsClients::from_env(env).await;
        let store = ContentStore::from_env(env, &aws)?;
        Ok(Self {
            clock: store.clock().clone(),
            schedule: RefreshSchedule::new(store.clone()),
            store,
            sqs: aws.sqs(),
            queue_url: env.require("FEED_QUEUE_URL")?.to_string(),
            sweep_queue_url: env.require("SWEEP_QUEUE_URL")?.to_string(),
            grace: grace_from_env(env)?,
        })
    }

    /// Enqueues every due source; returns how many were enqueued.
    pub async fn run(&self, now: DateTime<Utc>) -> Result<usize, ScheduleError> {
        let due = self.schedule.due_sources(now).await?;
        let bodies: Vec<String> = due
            .iter()
            .map(|id| news::FeedRefresh::new(id).to_json())
            .collect();
        self.send(&self.queue_url, &bodies).await?;
        tracing::info!(enqueued = due.len(), "due feeds enqueued");
        Ok(due.len())
    }

    /// Enqueues the sweep of every source nobody subscribed to within the grace period and
    /// of every source retired a while ago; returns how many were enqueued.
    pub async fn run_sweeps(&self, now: DateTime<Utc>) -> Result<usize, ScheduleError> {
        let sweeps = sweep_candidates(&self.store, now, self.grace).await?;
        let bodies: Vec<String> = sweeps
            .iter()
            .map(|id| SourceSweep::new(id).to_json())
            .collect();
        self.send(&self.sweep_queue_url, &bodies).await?;
        if !sweeps.is_empty() {
            tracing::info!(enqueued = sweeps.len(), "source sweeps enqueued");
        }
        Ok(sweeps.len())
    }

    /// Sends `bodies` to the queue at `queue_url`, ten to a batch.
    async fn send(&self, queue_url: &str, bodies: &[String]) -> Result<(), ScheduleError> {
        for chunk in bodies.chunks(SQS_BATCH) {
            let entries: Vec<BatchEntry> = chunk
                .iter()
                .enumerate()
                .map(|(i, body)| BatchEntry {
                    id: i.to_string(),
                    message_body: body.clone(),
                })
                .collect();
            let out = self
                .sqs
                .send_message_batch(queue_url, &entries)
                .await
                .map_err(|e| ScheduleError::Queue(e.to_string()))?;
            if !out.failed.is_empty() {
                let reasons: Vec<String> = out
                    .failed
                    .iter()
                    .map(|f| format!("{}: {}", f.id, f.message.as_deref().unwrap_or(&f.code)))
                    .collect();
                return Err(ScheduleError::Refused(reasons.join("; ")));
            }
        }
        Ok(())
    }
}

impl ScheduleHandler for FeedScheduler {
    fn handle(
        &self,
        _event: EventBridgeEvent<serde_json::Value>,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        let this = self.clone();
        async move {
            let now = this.clock.now();
            // Both halves run even when one fails; the run fails if either did.
            let refreshes = this.run(now).await;
            let sweeps = this.run_sweeps(now).await;
            refreshes?;
            sweeps?;
            Ok(())
        }
        .boxed()
    }
}
