//! The feed scheduler: on its schedule, puts every source that is due for a refresh on the
//! feed queue (`FEED_QUEUE_URL`) as a [`FeedRefresh`] message for the feed worker.
//!
//! A source is due when it has never been fetched or its `nextFetchAt` (set by the worker:
//! the refresh interval after a success, a growing back-off after failures) has passed
//! (`news::ingest::is_due`).
//! Enqueuing a source twice is harmless: the worker's refresh is idempotent.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_sdk_sqs::types::SendMessageBatchRequestEntry;
use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use futures::FutureExt;
use news::store::{ContentStore, StoreError};
use news::RefreshSchedule;
use platform::aws::{describe, AwsClients};
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
    sqs: aws_sdk_sqs::Client,
    queue_url: String,
    clock: Clock,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn ScheduleHandler>, BoxError> {
    Ok(Arc::new(FeedScheduler::from_env(&env).await?))
}

impl FeedScheduler {
    /// From `CONTENT_TABLE` and `FEED_QUEUE_URL`.
    pub async fn from_env(env: &Env) -> Result<Self, BoxError> {
        let aws = AwsClients::from_env(env).await;
        let store = ContentStore::from_env(env, &aws)?;
        Ok(Self {
            clock: store.clock().clone(),
            schedule: RefreshSchedule::new(store),
            sqs: aws.sqs(),
            queue_url: env.require("FEED_QUEUE_URL")?.to_string(),
        })
    }

    /// Enqueues every due source; returns how many were enqueued.
    pub async fn run(&self, now: DateTime<Utc>) -> Result<usize, ScheduleError> {
        let due = self.schedule.due_sources(now).await?;
        for chunk in due.chunks(SQS_BATCH) {
            let entries = chunk
                .iter()
                .enumerate()
                .map(|(i, id)| {
                    SendMessageBatchRequestEntry::builder()
                        .id(i.to_string())
                        .message_body(news::FeedRefresh::new(id).to_json())
                        .build()
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ScheduleError::Queue(describe(&e)))?;
            let out = self
                .sqs
                .send_message_batch()
                .queue_url(&self.queue_url)
                .set_entries(Some(entries))
                .send()
                .await
                .map_err(|e| ScheduleError::Queue(describe(&e)))?;
            if !out.failed.is_empty() {
                let reasons: Vec<String> = out
                    .failed
                    .iter()
                    .map(|f| format!("{}: {}", f.id, f.message.as_deref().unwrap_or(&f.code)))
                    .collect();
                return Err(ScheduleError::Refused(reasons.join("; ")));
            }
        }
        tracing::info!(enqueued = due.len(), "due feeds enqueued");
        Ok(due.len())
    }
}

impl ScheduleHandler for FeedScheduler {
    fn handle(
        &self,
        _event: EventBridgeEvent<serde_json::Value>,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        let this = self.clone();
        async move {
            this.run(this.clock.now()).await?;
            Ok(())
        }
        .boxed()
    }
}
