//! The community index scheduler: on its schedule, sends again to the search index queue
//! every post whose latest write has waited for the index longer than
//! `SEARCH_INDEX_RESCUE_MINUTES` (its outbox row is still there: the community function's
//! message was lost, or the indexer kept failing on it). Indexing is idempotent, so a post
//! sent twice costs one extra read.
//!
//! It rescues the summary outbox the same way (the facade's summary part): a wanted summary whose
//! row has waited longer than `SUMMARY_RESCUE_MINUTES` (default 60, longer than the summary
//! queue's whole retry schedule, so a request still being retried is not doubled) has its
//! request `{postId, version, contentHash}` sent again to the summary queue. The summarizer
//! skips a request that has moved on, so a rescue never overwrites a newer summary.
//!
//! It also sweeps topics stored before the Unicode slug rule onto it (`C++` was `c`, now
//! `c-plus-plus`; [`community::Community::migrate_topic_slugs`]): at most
//! [`TOPICS_PER_RUN`] per run, idempotent, until a run finds nothing to move and marks it
//! finished; from then on a run reads one item.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use community::{Community, QueueName};
use futures::future::BoxFuture;
use futures::FutureExt;
use platform::aws::AwsClients;
use platform::{BoxError, ConfigError, Env, ScheduleHandler};

/// Default wait before a post's index request is sent again.
pub const DEFAULT_RESCUE_MINUTES: i64 = 2;
/// Posts sent again per run; the next run takes the rest.
pub const MAX_PER_RUN: usize = 1_000;
/// Topics moved to their new slug per run; the next run takes the rest.
pub const TOPICS_PER_RUN: usize = 100;
/// Default wait before a summary's request is sent again.
pub const DEFAULT_SUMMARY_RESCUE_MINUTES: i64 = 60;

/// The summary outbox's rescue: the facade and the wait.
#[derive(Clone)]
pub struct SummaryRescue {
    community: Community,
    wait: chrono::Duration,
}

impl SummaryRescue {
    pub fn new(community: Community, wait: chrono::Duration) -> Self {
        Self { community, wait }
    }

    /// Sends again every lagging summary request; returns how many were sent.
    pub async fn run(&self) -> Result<usize, BoxError> {
        let sent = self
            .community
            .resend_lagging_summaries(self.wait, MAX_PER_RUN)
            .await?;
        if sent > 0 {
            tracing::info!(sent, "lagging summaries sent to the summarizer again");
        }
        Ok(sent)
    }
}

/// The sweep of topics onto the Unicode slug rule, a bounded step per run.
#[derive(Clone)]
pub struct TopicSlugSweep {
    community: Community,
}

impl TopicSlugSweep {
    pub fn new(community: Community) -> Self {
        Self { community }
    }

    /// One step of the topic slug migration.
    pub async fn run(&self) -> Result<(), BoxError> {
        let run = self.community.migrate_topic_slugs(TOPICS_PER_RUN).await?;
        if run.moved > 0 || run.taken > 0 {
            tracing::info!(
                moved = run.moved,
                taken = run.taken,
                finished = run.finished,
                "topic slugs migrated"
            );
        }
        Ok(())
    }
}

/// Table items the mark-index backfill reads per run (a 1 MB Scan page caps it too).
pub const MARK_BACKFILL_ITEMS_PER_RUN: usize = 2_000;

/// The backfill of the post-marks index (`gsi3`) for likes, dislikes and bookmarks written
/// before it, a bounded part per run until the table has been read once.
#[derive(Clone)]
pub struct MarkIndexBackfill {
    community: Community,
}

impl MarkIndexBackfill {
    pub fn new(community: Community) -> Self {
        Self { community }
    }

    pub async fn run(&self) -> Result<(), BoxError> {
        // The facade sends the posts to the indexer, which walks each once, taking a hidden
        // post's marks out of their lists.
        let run = self
            .community
            .backfill_mark_index(MARK_BACKFILL_ITEMS_PER_RUN)
            .await?;
        if run.indexed > 0 {
            tracing::info!(
                indexed = run.indexed,
                posts = run.posts.len(),
                finished = run.finished,
                "marks indexed for their posts"
            );
        }
        Ok(())
    }
}

#[derive(Clone)]
pub struct CommunityIndexScheduler {
    community: Community,
    wait: chrono::Duration,
    summaries: SummaryRescue,
    topics: TopicSlugSweep,
    marks: MarkIndexBackfill,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn ScheduleHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let community = Community::from_env(&env, &aws, &[QueueName::Index, QueueName::Summary])?;
    let topics = TopicSlugSweep::new(community.clone());
    let marks = MarkIndexBackfill::new(community.clone());
    let summaries = SummaryRescue::new(
        community.clone(),
        minutes_from_env(
            &env,
            "SUMMARY_RESCUE_MINUTES",
            DEFAULT_SUMMARY_RESCUE_MINUTES,
        )?,
    );
    Ok(Arc::new(CommunityIndexScheduler::new(
        community,
        wait_from_env(&env)?,
        summaries,
        topics,
        marks,
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
        community: Community,
        wait: chrono::Duration,
        summaries: SummaryRescue,
        topics: TopicSlugSweep,
        marks: MarkIndexBackfill,
    ) -> Self {
        Self {
            community,
            wait,
            summaries,
            topics,
            marks,
        }
    }

    /// Sends again every lagging post; returns how many were sent.
    pub async fn run(&self) -> Result<usize, BoxError> {
        let sent = self
            .community
            .resend_lagging_index(self.wait, MAX_PER_RUN)
            .await?;
        if sent > 0 {
            tracing::info!(sent, "lagging posts sent to the indexer again");
        }
        Ok(sent)
    }
}

impl ScheduleHandler for CommunityIndexScheduler {
    fn handle(
        &self,
        _event: EventBridgeEvent<serde_json::Value>,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        let this = self.clone();
        async move {
            // The rescues, the slug sweep and the mark backfill all run, side by side (each
            // is a read or two of its own): a run waits for the slowest, not for the sum.
            // The first failure is the run's.
            let (index, summaries, topics, marks) = futures::join!(
                this.run(),
                this.summaries.run(),
                this.topics.run(),
                this.marks.run()
            );
            index.and(summaries).and(topics).and(marks).map(|_| ())
        }
        .boxed()
    }
}
