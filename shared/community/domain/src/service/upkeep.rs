//! The index scheduler's calls: the rescues of the search and summary outboxes (requests
//! whose message was lost, sent again) and the bounded migrations it steps through.

use crate::error::CommunityError;
use crate::model::jobs::{MarkBackfill, SlugMigration};
use crate::queues::index_requests;

use super::{unconfigured, Community};

impl Community {
    /// Sends again to the indexer the posts whose latest write has waited for the index
    /// longer than `wait` (at most `limit`); answers how many were sent.
    pub async fn resend_lagging_index(
        &self,
        wait: chrono::Duration,
        limit: usize,
    ) -> Result<usize, CommunityError> {
        let before = self.before(wait);
        let lagging = self.store().index_lagging(&before, limit).await?;
        self.send_index_all(&lagging).await?;
        Ok(lagging.len())
    }

    /// Sends again to the summarizer the summary requests whose outbox row has waited longer
    /// than `wait` (at most `limit`); answers how many were sent.
    pub async fn resend_lagging_summaries(
        &self,
        wait: chrono::Duration,
        limit: usize,
    ) -> Result<usize, CommunityError> {
        let before = self.before(wait);
        let lagging = self.store().summaries_lagging(&before, limit).await?;
        let queue = self
            .queues
            .summary
            .as_ref()
            .ok_or_else(|| unconfigured("summary"))?;
        queue
            .send_all(&lagging)
            .await
            .map_err(|e| CommunityError::Queue(e.to_string()))?;
        Ok(lagging.len())
    }

    /// One step (at most `max` topics) of the migration of topics to the Unicode slug rule.
    pub async fn migrate_topic_slugs(&self, max: usize) -> Result<SlugMigration, CommunityError> {
        Ok(self.store().migrate_topic_slugs(max).await?)
    }

    /// One run (at most `max_items` items read) of the backfill of the post-marks index; the
    /// posts of the marks it indexed are then sent to the indexer, which walks each once.
    pub async fn backfill_mark_index(
        &self,
        max_items: usize,
    ) -> Result<MarkBackfill, CommunityError> {
        let run = self.store().backfill_mark_index(max_items).await?;
        self.send_index_all(&run.posts).await?;
        Ok(run)
    }

    /// RFC 3339 of `wait` ago.
    fn before(&self, wait: chrono::Duration) -> String {
        (self.clock().now() - wait).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    /// Sends index requests for `post_ids`; a failure is the caller's.
    async fn send_index_all(&self, post_ids: &[String]) -> Result<(), CommunityError> {
        let queue = self
            .queues
            .index
            .as_ref()
            .ok_or_else(|| unconfigured("search index"))?;
        queue
            .send_all(&index_requests(post_ids))
            .await
            .map_err(|e| CommunityError::Queue(e.to_string()))
    }
}
