//! Topics: the catalog, the statistics of each topic and the follower deltas.

use crate::error::CommunityError;
use crate::input::{FollowerDeltas, IdempotencyKey, TopicIds, TopicPrefix};
use crate::model::stats::{day_of, CATEGORIES};
use crate::model::{Topic, TopicCategory, TopicRef, TopicSuggestion};
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

    /// Up to `limit` public topics whose name starts with `prefix` (case, accents and spacing
    /// folded as slugs are; or a later word of the name does), as a writer types: names
    /// starting with it first, then by published posts, followers and name.
    pub async fn suggest_topics(
        &self,
        prefix: &TopicPrefix,
        limit: usize,
    ) -> Result<Vec<TopicSuggestion>, CommunityError> {
        let wanted = prefix.slug();
        let word = format!("-{wanted}");
        let mut found: Vec<(bool, StoredTopic)> = self
            .store
            .all_topics()
            .await?
            .into_iter()
            .filter_map(|t| {
                let starts = t.slug.starts_with(wanted);
                (starts || t.slug.contains(&word)).then_some((starts, t))
            })
            .collect();
        found.sort_by(|(a_starts, a), (b_starts, b)| {
            b_starts
                .cmp(a_starts)
                .then(b.total_post_count.cmp(&a.total_post_count))
                .then(b.follower_count.cmp(&a.follower_count))
                .then_with(|| a.display_name.cmp(&b.display_name))
        });
        Ok(found
            .into_iter()
            .take(limit)
            .map(|(_, t)| TopicSuggestion {
                id: t.id,
                name: t.display_name,
                slug: t.slug,
                post_count: t.total_post_count.max(0),
            })
            .collect())
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
