//! Reactions and bookmarks as the service answers them.

use serde::Serialize;
use utoipa::ToSchema;

/// A post's reaction counts and the caller's own reaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReactionResult {
    pub like_count: i64,
    pub dislike_count: i64,
    pub is_liked_by_me: bool,
    pub is_disliked_by_me: bool,
}

/// A post's bookmark count and whether the caller has bookmarked it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookmarkResult {
    pub save_count: i64,
    pub is_bookmarked_by_me: bool,
}

/// A reaction to a post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReactionKind {
    Like,
    Dislike,
}

impl ReactionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Like => "LIKE",
            Self::Dislike => "DISLIKE",
        }
    }

    pub(crate) fn parse(raw: &str) -> Option<Self> {
        match raw {
            "LIKE" => Some(Self::Like),
            "DISLIKE" => Some(Self::Dislike),
            _ => None,
        }
    }
}
