//! Topics: the catalog, the statistics of each topic and the follower deltas.

use crate::error::CommunityError;
use crate::input::{FollowerDeltas, IdempotencyKey, TopicIds};
use crate::model::stats::{day_of, CATEGORIES};
use crate::model::{Topic, TopicCategory, TopicRef};
use crate::store::topics::{ApplyError, StoredTopic};

use super::Community;

impl Community {
    /// The catalog: every category (in order) with its public topics and their statistics.
    pub async fn catalog(&self) -> Result<Vec<TopicCategory>, CommunityError> {
        let topics = self.topic_stats().await?;
        Ok(CATEGORIES
            .iter()
            .map(|c| TopicCategory {
                id: c.id.to_string(),
                label: c.label.to_string(),
                sort_order: c.sort_order,
                topics: topics
                    .iter()
                    .filter(|t| t.category_id == c.id)
                    .cloned()
                    .collect(),
            })
            .collect())
    }

    /// Every public topic with its statistics, in catalog order: category, sort order, slug.
    pub async fn topic_stats(&self) -> Result<Vec<Topic>, CommunityError> {
        let today = day_of(self.store.clock().now());
        let mut topics: Vec<Topic> = self
            .store
            .all_topics()
            .await?
            .into_iter()
            .map(|t| topic(t, today))
            .collect();
        let category_rank = |id: &str| {
            CATEGORIES
                .iter()
                .position(|c| c.id == id)
                .unwrap_or(CATEGORIES.len())
        };
        topics.sort_by(|a, b| {
            (category_rank(&a.category_id), a.sort_order, &a.slug).cmp(&(
                category_rank(&b.category_id),
                b.sort_order,
                &b.slug,
            ))
        });
        Ok(topics)
    }

    /// The names of these topics, in the order asked; unknown and not yet public ids left out.
    pub async fn topic_names(&self, ids: &TopicIds) -> Result<Vec<TopicRef>, CommunityError> {
        Ok(self
            .store
            .topics_by_ids(ids.ids())
            .await?
            .into_iter()
            .map(|t| TopicRef {
                id: t.id,
                name: t.name,
            })
            .collect())
    }

    /// Applies follower deltas (matched by slug, clamped at zero); with a key, exactly once.
    /// Answers how many topics were named.
    pub async fn follower_deltas(
        &self,
        deltas: &FollowerDeltas,
        key: Option<&IdempotencyKey>,
    ) -> Result<usize, CommunityError> {
        self.store
            .apply_follower_deltas(deltas.deltas(), key)
            .await
            .map_err(|e| match e {
                ApplyError::Busy => CommunityError::Busy,
                ApplyError::Store(e) => CommunityError::Store(e),
            })?;
        Ok(deltas.deltas().len())
    }
}

fn topic(t: StoredTopic, today: i64) -> Topic {
    let activity = t.ring.activity(today);
    Topic {
        id: t.id,
        name: t.name,
        display_name: t.display_name,
        slug: t.slug,
        category_id: t.category_id,
        sort_order: t.sort_order,
        total_post_count: t.total_post_count,
        posts_this_week: activity.posts_this_week,
        posts_prev_week: activity.posts_prev_week,
        activity_score: activity.activity_score,
        is_hot: activity.is_hot,
        follower_count: t.follower_count,
    }
}
