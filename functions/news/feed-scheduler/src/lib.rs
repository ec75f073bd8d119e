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
use news::{FeedRefresh, RefreshQueue, RefreshSchedule, SourceSweep, SweepQueue};
use platform::aws::AwsClients;
use platform::queue::QueueError;
use platform::{BoxError, Clock, Env, ScheduleHandler};

/// Sources one run looks at: at one run every 5 minutes, a million sources are walked in
/// under four days, each costing a few read units.
pub const WALK_PAGE: usize = 1000;

/// Why a run did less than it should.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A SendMessageBatch call failed, or SQS refused some of its messages.
    #[error(transparent)]
    Queue(#[from] QueueError),
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
    refreshes: RefreshQueue,
    sweeps: SweepQueue,
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
            refreshes: RefreshQueue::from_env(env, aws.sqs())?,
            sweeps: SweepQueue::from_env(env, aws.sqs())?,
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
        let rescues: Vec<FeedRefresh> = step.lost.iter().map(FeedRefresh::new).collect();
        self.refreshes.send_all(&rescues).await?;
        let mut sweeps: Vec<String> = step.abandoned.clone();
        for id in lost_sweeps(&self.store, now).await? {
            if !sweeps.contains(&id) {
                sweeps.push(id);
            }
        }
        // Sources with older articles' topic rows missing start their backfill (a chain of
        // steps on the sweep queue, each safe to repeat, so a run enqueueing one again is fine).
        let messages: Vec<SourceSweep> = sweeps
            .iter()
            .map(SourceSweep::new)
            .chain(
                step.backfills
                    .iter()
                    .map(|id| SourceSweep::backfill(id, None)),
            )
            .collect();
        self.sweeps.send_all(&messages).await?;
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
