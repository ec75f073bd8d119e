//! The brake on community writes: each post write, comment and reaction is counted per user in
//! the limits table after its input is parsed (a 400 costs nothing) and before any work; a
//! spent limit is a 429 with `Retry-After`.
//!
//! Posts and comments are kept for good and each post write feeds the search indexer, so
//! when the limits table fails they are refused (503). Reactions, comment likes and bookmarks
//! overwrite one record per user and post, so they go on (logged).

use platform::aws::AwsClients;
use platform::ratelimit::{Brake, Rate, WhenUnavailable};
use platform::{ConfigError, Env};

/// The default limits per user (template parameters `CommunityRateLimit*`).
pub const DEFAULT_POSTS: &str = "10/60,100/86400";
pub const DEFAULT_COMMENTS: &str = "10/60,500/86400";
pub const DEFAULT_REACTIONS: &str = "60/60,2000/86400";
pub const DEFAULT_VIEWS: &str = "120/60,5000/86400";
pub const DEFAULT_PREVIEWS: &str = "30/60,1000/86400";

/// Creating, replacing, patching or deleting a post.
pub const POSTS: Rate = Rate {
    variable: "COMMUNITY_RATE_LIMIT_POSTS",
    name: "community-posts",
    default: DEFAULT_POSTS,
    when_unavailable: WhenUnavailable::Refuse,
};
/// Adding, editing or deleting a comment.
pub const COMMENTS: Rate = Rate {
    variable: "COMMUNITY_RATE_LIMIT_COMMENTS",
    name: "community-comments",
    default: DEFAULT_COMMENTS,
    when_unavailable: WhenUnavailable::Refuse,
};
/// A reaction to a post, a comment like, a bookmark or its removal.
pub const REACTIONS: Rate = Rate {
    variable: "COMMUNITY_RATE_LIMIT_REACTIONS",
    name: "community-reactions",
    default: DEFAULT_REACTIONS,
    when_unavailable: WhenUnavailable::Allow,
};
/// A view beacon, by a user or an anonymous reader's address: only a count, so it goes on
/// when the limits table fails.
pub const VIEWS: Rate = Rate {
    variable: "COMMUNITY_RATE_LIMIT_VIEWS",
    name: "community-views",
    default: DEFAULT_VIEWS,
    when_unavailable: WhenUnavailable::Allow,
};

/// A Markdown preview: it stores nothing, so it goes on when the limits table fails; its own
/// limit, as a writer previews more often than they save.
pub const PREVIEWS: Rate = Rate {
    variable: "COMMUNITY_RATE_LIMIT_PREVIEWS",
    name: "community-previews",
    default: DEFAULT_PREVIEWS,
    when_unavailable: WhenUnavailable::Allow,
};

/// The community function's brake: `RATE_LIMIT_TABLE` (unset: no limits, logged) and the
/// rates' variables.
pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Brake, ConfigError> {
    Brake::from_env(
        env,
        aws,
        "community writes have no rate limits",
        &[POSTS, COMMENTS, REACTIONS, VIEWS, PREVIEWS],
    )
}

platform::too_many_requests_response!(
    /// The documented 429 of a braked write.
    pub(crate) struct TooManyWrites:
        "Too many writes of this kind by this user; retry after Retry-After seconds",
        "ReasonErrorBody"
);
