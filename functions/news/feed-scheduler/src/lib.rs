//! The feed scheduler: on its schedule, one bounded step of a walk over the sources, and the
//! re-enqueuing of sweeps that were lost. It no longer enqueues every due source: each
//! source's refreshes are a chain of delayed messages on the feed queue, each refresh
//! enqueuing the next (`news::FeedRefresh`).
//!
//! A run reads one page of the source list ([`WALK_PAGE`] sources, from where the last run
//! stopped, kept in the content table) and
//! - enqueues a refresh (without `due`) for each source whose chain is lost: never fetched,
//!   or more than `news::ingest::LOST_AFTER_MINUTES` past its next fetch time (its message
//!   dead-lettered, or the source written before chains existed); a rescue of a chain that
//!   was only late is dropped by the worker, the source not being due;
//! - puts on the sweep queue (`SWEEP_QUEUE_URL`) each source nobody subscribed to within the
//!   grace period (`SOURCE_GRACE_MINUTES`), for the source sweeper to retire and remove.
//!
//! It also puts on the sweep queue the oldest retired sources retired a while ago, in case
//! their sweep was never enqueued (`news::sweep::lost_sweeps`). Every step is idempotent.
//! A run's work is bounded whatever the number of sources: one page, one query of the
//! retired list, one read and one write of the walk's position.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use futures::FutureExt;
use news::store::{ContentStore, StoreError};
use news::sweep::{grace_from_env, lost_sweeps};
use news::{RefreshSchedule, SourceSweep};
use platform::aws::sqs::BatchEntry;
use platform::aws::{AwsClients, Sqs};
use platform::{BoxError, Clock, Env, ScheduleHandler};

/// SQS takes at most ten messages per batch.
const SQS_BATCH: usize = 10;
/// Sources one run looks at: at one run every 5 minutes, a million sources are walked in
/// under four days, each costing a few read units.
pub const WALK_PAGE: usize = 1000;

/// Why a run did less than it should.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The SendMessageBatch call failed (or could not be built).
    #[error("queue: {0}")]
    Queue(String),
    /// SQS took the call but refused some of its messages.
    #[error("queue refused messages: {0}")]
    Refused(String),
}

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Run {
    /// Sources looked at.
    pub walked: usize,
    /// Refreshes enqueued for sources whose chain was lost.
    pub rescued: usize,
    /// Sweeps enqueued (abandoned sources, and retired ones whose sweep was lost).
    pub sweeps: usize,
    /// Backfills of topic rows started (sources with articles older than those rows).
    pub backfills: usize,
}

#[derive(Clone)]
pub struct FeedScheduler {
    schedule: RefreshSchedule,
    store: ContentStore,
    sqs: Sqs,
    queue_url: String,
    sweep_queue_url: String,
    grace: chrono::Duration,
    page: usize,
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
            page: WALK_PAGE,
        })
    }

    /// The same scheduler walking `page` sources a run.
    pub fn with_page(mut self, page: usize) -> Self {
        self.page = page.max(1);
        self
    }

    /// One step of the walk at `now`, and the lost sweeps.
    pub async fn run(&self, now: DateTime<Utc>) -> Result<Run, ScheduleError> {
        let after = self.store.walk_position().await?;
        let step = self
            .schedule
            .walk(after.as_deref(), self.page, now, self.grace)
            .await?;
        let rescues: Vec<String> = step
            .lost
            .iter()
            .map(|id| news::FeedRefresh::new(id).to_json())
            .collect();
        self.send(&self.queue_url, &rescues).await?;
        let mut sweeps: Vec<String> = step.abandoned.clone();
        for id in lost_sweeps(&self.store, now).await? {
            if !sweeps.contains(&id) {
                sweeps.push(id);
            }
        }
        // Sources with older articles' topic rows missing start their backfill (a chain of
        // steps on the sweep queue, each safe to repeat, so a run enqueueing one again is fine).
        let bodies: Vec<String> = sweeps
            .iter()
            .map(|id| SourceSweep::new(id).to_json())
            .chain(
                step.backfills
                    .iter()
                    .map(|id| SourceSweep::backfill(id, None).to_json()),
            )
            .collect();
        self.send(&self.sweep_queue_url, &bodies).await?;
        // At the end of the list the next run starts again from the top.
        self.store.set_walk_position(step.next.as_deref()).await?;
        let run = Run {
            walked: step.walked,
            rescued: rescues.len(),
            sweeps: sweeps.len(),
            backfills: step.backfills.len(),
        };
        tracing::info!(
            walked = run.walked,
            rescued = run.rescued,
            sweeps = run.sweeps,
            backfills = run.backfills,
            "scheduler run"
        );
        Ok(run)
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
            this.run(this.clock.now()).await?;
            Ok(())
        }
        .boxed()
    }
}
