//! The topics as other products see them: the statistics (`GET /api/v1/topics/stats`, the
//! digests' slug → id lookup) and the follower deltas identity sends
//! (`POST /api/v1/internal/topics/follower-deltas`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A topic with its statistics (how they are computed: [`crate::stats`]).
// The contract's description, word for word: `crate` is the community domain there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema), schema(as = CommunityTopic))]
#[serde(rename_all = "camelCase")]
pub struct Topic {
    #[cfg_attr(feature = "schema", schema(format = "uuid"))]
    pub id: String,
    pub name: String,
    pub display_name: String,
    /// The slug of the name (API.md), the topic's identity across systems.
    pub slug: String,
    pub category_id: String,
    pub sort_order: u32,
    /// Published live posts in the topic now.
    pub total_post_count: i64,
    /// Posts first published into the topic in the last 7 UTC days, today included.
    pub posts_this_week: i64,
    /// The same over the 7 days before.
    pub posts_prev_week: i64,
    /// Posts of the last 14 days, each weighted `2^(-age/7)`; 2 decimals.
    pub activity_score: f64,
    /// At least 3 posts this week and at least 1.5 times the week before.
    pub is_hot: bool,
    pub follower_count: i64,
}

/// Follower count changes by topic name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct FollowerDeltasRequest {
    /// Topic name → change (+1 follow, -1 unfollow; -1000 to 1000), at most 200 names.
    // An `Option` so that the route answers a missing one with its own 400.
    #[cfg_attr(feature = "schema", schema(required = true, value_type = BTreeMap<String, i64>, example = json!({"Space": 1, "public-transport": -1})))]
    pub deltas: Option<BTreeMap<String, i64>>,
}

impl FollowerDeltasRequest {
    pub fn new(deltas: BTreeMap<String, i64>) -> Self {
        Self {
            deltas: Some(deltas),
        }
    }
}
