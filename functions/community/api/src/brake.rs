//! The brake on community writes: each post write, comment and reaction is counted per user in
//! the limits table after its input is parsed (a 400 costs nothing) and before any work; a
//! spent limit is a 429 with `Retry-After`.
//!
//! Posts and comments are kept for good and each post write feeds the search indexer, so
//! when the limits table fails they are refused (503). Reactions, comment likes and bookmarks
//! overwrite one record per user and post, so they go on (logged).

use std::collections::BTreeMap;

use platform::aws::AwsClients;
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, WhenUnavailable};
use platform::{ApiError, ConfigError, Env};
use utoipa::openapi::{RefOr, Response as OpenApiResponse};
use utoipa::IntoResponses;

/// The default limits per user (template parameters `CommunityRateLimit*`).
pub const DEFAULT_POSTS: &str = "10/60,100/86400";
pub const DEFAULT_COMMENTS: &str = "10/60,500/86400";
pub const DEFAULT_REACTIONS: &str = "60/60,2000/86400";
pub const DEFAULT_VIEWS: &str = "120/60,5000/86400";

/// What a write is, for its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// Creating, replacing or patching a post.
    Post,
    /// Adding a comment or a reply.
    Comment,
    /// A reaction to a post, a comment like, a bookmark or its removal.
    Reaction,
}

/// The per-user write limits, built once per cold start.
pub struct WriteBrake {
    limiter: Option<RateLimiter>,
    posts: Limit,
    comments: Limit,
    reactions: Limit,
    views: Limit,
}

impl WriteBrake {
    /// `RATE_LIMIT_TABLE` (unset: no limits, logged), `COMMUNITY_RATE_LIMIT_POSTS`,
    /// `COMMUNITY_RATE_LIMIT_COMMENTS`, `COMMUNITY_RATE_LIMIT_REACTIONS`, `COMMUNITY_RATE_LIMIT_VIEWS`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!("RATE_LIMIT_TABLE is unset: community writes have no rate limits");
        }
        Ok(Self {
            limiter,
            posts: Limit::from_env(
                env,
                "COMMUNITY_RATE_LIMIT_POSTS",
                "community-posts",
                DEFAULT_POSTS,
            )?,
            comments: Limit::from_env(
                env,
                "COMMUNITY_RATE_LIMIT_COMMENTS",
                "community-comments",
                DEFAULT_COMMENTS,
            )?,
            reactions: Limit::from_env(
                env,
                "COMMUNITY_RATE_LIMIT_REACTIONS",
                "community-reactions",
                DEFAULT_REACTIONS,
            )?,
            views: Limit::from_env(
                env,
                "COMMUNITY_RATE_LIMIT_VIEWS",
                "community-views",
                DEFAULT_VIEWS,
            )?,
        })
    }

    /// Counts one `write` by the user `user_id`.
    pub async fn admit(&self, write: Write, user_id: &str) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        let (limit, when_unavailable) = match write {
            Write::Post => (&self.posts, WhenUnavailable::Refuse),
            Write::Comment => (&self.comments, WhenUnavailable::Refuse),
            Write::Reaction => (&self.reactions, WhenUnavailable::Allow),
        };
        ratelimit::enforce(
            limiter,
            &[(limit, ClientKey::user(user_id))],
            when_unavailable,
        )
        .await
    }
}

impl WriteBrake {
    /// Counts one view beacon by `client` (a user, or an anonymous reader's address). A view
    /// is only a count, so it goes on when the limits table fails.
    pub async fn admit_view(&self, client: ClientKey) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        ratelimit::enforce(limiter, &[(&self.views, client)], WhenUnavailable::Allow).await
    }
}

/// The documented 429 of a braked write.
pub(crate) struct TooManyWrites;

impl IntoResponses for TooManyWrites {
    fn responses() -> BTreeMap<String, RefOr<OpenApiResponse>> {
        BTreeMap::from([platform::openapi::too_many_requests(
            "Too many writes of this kind by this user; retry after Retry-After seconds",
            "ReasonErrorBody",
        )])
    }
}
