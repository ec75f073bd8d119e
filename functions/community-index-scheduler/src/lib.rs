//! The community index scheduler: on its schedule, sends again to the search index queue
//! every post whose latest write has waited for the index longer than
//! `SEARCH_INDEX_RESCUE_MINUTES` (its outbox row is still there: the community function's
//! message was lost, or the indexer kept failing on it). Indexing is idempotent, so a post
//! sent twice costs one extra read.
//!
//! It rescues the summary outbox the same way (`community::summary`): a wanted summary whose
//! row has waited longer than `SUMMARY_RESCUE_MINUTES` (default 60, longer than the summary
//! queue's whole retry schedule, so a request still being retried is not doubled) has its
//! request `{postId, version, contentHash}` sent again to the summary queue. The summarizer
//! skips a request that has moved on, so a rescue never overwrites a newer summary.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use community::store::Store;
use community::{Community, IndexQueue, PostSearch, SummaryQueue};
use community_search::DynamoSearchIndex;
use futures::future::BoxFuture;
use futures::FutureExt;
use platform::aws::AwsClients;
use platform::{BoxError, ConfigError, Env, ScheduleHandler};

/// Default wait before a post's index request is sent again.
pub const DEFAULT_RESCUE_MINUTES: i64 = 2;
/// Posts sent again per run; the next run takes the rest.
pub const MAX_PER_RUN: usize = 1_000;
/// Default wait before a summary's request is sent again.
pub const DEFAULT_SUMMARY_RESCUE_MINUTES: i64 = 60;

/// The summary outbox's rescue: the table, the queue and the wait.
#[derive(Clone)]
pub struct SummaryRescue {
    store: Store,
    queue: SummaryQueue,
    wait: chrono::Duration,
}

impl SummaryRescue {
    pub fn new(store: Store, queue: SummaryQueue, wait: chrono::Duration) -> Self {
        Self { store, queue, wait }
    }

    /// Sends again every lagging summary request; returns how many were sent.
    pub async fn run(&self) -> Result<usize, BoxError> {
        let before = (self.store.clock().now() - self.wait)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let lagging = self.store.summaries_lagging(&before, MAX_PER_RUN).await?;
        self.queue.request_all(&lagging).await?;
        if !lagging.is_empty() {
            tracing::info!(
                sent = lagging.len(),
                "lagging summaries sent to the summarizer again"
            );
        }
        Ok(lagging.len())
    }
}

#[derive(Clone)]
pub struct CommunityIndexScheduler {
    search: Arc<PostSearch<DynamoSearchIndex>>,
    queue: IndexQueue,
    wait: chrono::Duration,
    summaries: SummaryRescue,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn ScheduleHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let queue = IndexQueue::from_env(&env, aws.sqs())?;
    let summaries = SummaryRescue::new(
        Community::from_env(&env, &aws)?.store().clone(),
        SummaryQueue::from_env(&env, aws.sqs())?,
        minutes_from_env(
            &env,
            "SUMMARY_RESCUE_MINUTES",
            DEFAULT_SUMMARY_RESCUE_MINUTES,
        )?,
    );
    Ok(Arc::new(CommunityIndexScheduler::new(
        PostSearch::from_env(&env, &aws)?,
        queue,
        wait_from_env(&env)?,
        summaries,
    )))
}

/// `SEARCH_INDEX_RESCUE_MINUTES` (default 2, at most a day).
pub fn wait_from_env(env: &Env) -> Result<chrono::Duration, ConfigError> {
    minutes_from_env(env, "SEARCH_INDEX_RESCUE_MINUTES", DEFAULT_RESCUE_MINUTES)
}

/// A number of minutes from 0 to 1440 (a day) in `name`, `default` when unset.
fn minutes_from_env(env: &Env, name: &str, default: i64) -> Result<chrono::Duration, ConfigError> {
    let minutes: i64 = env.parse_or(name, default)?;
    if !(0..=1_440).contains(&minutes) {
        return Err(ConfigError::Invalid {
            name: name.into(),
            reason: "must be from 0 to 1440 (a day)".into(),
        });
    }
    Ok(chrono::Duration::minutes(minutes))
}

impl CommunityIndexScheduler {
    pub fn new(
        search: PostSearch<DynamoSearchIndex>,
        queue: IndexQueue,
        wait: chrono::Duration,
        summaries: SummaryRescue,
    ) -> Self {
        Self {
            search: Arc::new(search),
            queue,
            wait,
            summaries,
        }
    }

    /// Sends again every lagging post; returns how many were sent.
    pub async fn run(&self) -> Result<usize, BoxError> {
        let lagging = self.search.lagging(self.wait, MAX_PER_RUN).await?;
        self.queue.request_all(&lagging).await?;
        if !lagging.is_empty() {
            tracing::info!(
                sent = lagging.len(),
                "lagging posts sent to the indexer again"
            );
        }
        Ok(lagging.len())
    }
}

impl ScheduleHandler for CommunityIndexScheduler {
    fn handle(
        &self,
        _event: EventBridgeEvent<serde_json::Value>,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        let this = self.clone();
        async move {
            // Both rescues run; the first failure is the run's.
            let index = this.run().await;
            let summaries = this.summaries.run().await;
            index.and(summaries).map(|_| ())
        }
        .boxed()
    }
}
