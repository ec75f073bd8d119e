//! The community index scheduler: on its schedule, sends again to the search index queue
//! every post whose latest write has waited for the index longer than
//! `SEARCH_INDEX_RESCUE_MINUTES` (its outbox row is still there: the community function's
//! message was lost, or the indexer kept failing on it). Indexing is idempotent, so a post
//! sent twice costs one extra read.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use community::{IndexQueue, PostSearch};
use community_search::DynamoSearchIndex;
use futures::future::BoxFuture;
use futures::FutureExt;
use platform::aws::AwsClients;
use platform::{BoxError, ConfigError, Env, ScheduleHandler};

/// Default wait before a post's index request is sent again.
pub const DEFAULT_RESCUE_MINUTES: i64 = 2;
/// Posts sent again per run; the next run takes the rest.
pub const MAX_PER_RUN: usize = 1_000;

#[derive(Clone)]
pub struct CommunityIndexScheduler {
    search: Arc<PostSearch<DynamoSearchIndex>>,
    queue: IndexQueue,
    wait: chrono::Duration,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn ScheduleHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let queue = IndexQueue::from_env(&env, aws.sqs())?;
    Ok(Arc::new(CommunityIndexScheduler::new(
        PostSearch::from_env(&env, &aws)?,
        queue,
        wait_from_env(&env)?,
    )))
}

/// `SEARCH_INDEX_RESCUE_MINUTES` (default 2, at most a day).
pub fn wait_from_env(env: &Env) -> Result<chrono::Duration, ConfigError> {
    let minutes: i64 = env.parse_or("SEARCH_INDEX_RESCUE_MINUTES", DEFAULT_RESCUE_MINUTES)?;
    if !(0..=1_440).contains(&minutes) {
        return Err(ConfigError::Invalid {
            name: "SEARCH_INDEX_RESCUE_MINUTES".into(),
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
    ) -> Self {
        Self {
            search: Arc::new(search),
            queue,
            wait,
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
        async move { this.run().await.map(|_| ()) }.boxed()
    }
}
