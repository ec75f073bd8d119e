//! The counters off the request path: a view beacon queues a view, and the view and reaction
//! counters (`community-views`) count a batch per post (`crate::store::views`,
//! `crate::store::reactions`).

use crate::error::CommunityError;
use crate::input::PostId;
use crate::queues::{hour_of, Reader, ViewRequest};
use crate::store::reactions::ReactionCountError;

use super::{unconfigured, Community};

impl Community {
    /// Queues a view of a post by `reader` for the view counter, in the hour it is now; writes
    /// nothing to the table. A failed send is a 503 (nothing is counted).
    pub async fn view(&self, post: &PostId, reader: &Reader) -> Result<(), CommunityError> {
        let hour = hour_of(self.clock().now());
        let queue = self
            .queues
            .views
            .as_ref()
            .ok_or_else(|| unconfigured("view"))?;
        queue
            .send(&ViewRequest::new(post.as_str(), reader, hour))
            .await
            .map_err(|e| CommunityError::NotQueued {
                queue: "view",
                what: "view",
                reason: e.to_string(),
            })
    }

    /// Counts `views` (reader, hour) of one post, each new one once; answers how many were
    /// new.
    pub async fn count_views(
        &self,
        post_id: &str,
        views: &[(String, i64)],
    ) -> Result<u64, CommunityError> {
        Ok(self.store().count_views(post_id, views).await?)
    }

    /// Counts the reaction changes of `members` on one post, each once; answers the (likes,
    /// dislikes) added.
    pub async fn count_reactions(
        &self,
        post_id: &str,
        members: &[String],
    ) -> Result<(i64, i64), CommunityError> {
        self.store()
            .count_reactions(post_id, members)
            .await
            .map_err(|e| match e {
                ReactionCountError::Store(e) => CommunityError::Store(e),
                ReactionCountError::Busy => CommunityError::Busy,
            })
    }
}
