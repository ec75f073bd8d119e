//! Comments as the service answers them.

use serde::Serialize;
use utoipa::ToSchema;

use super::Author;

/// A comment on a post, with its replies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CommunityComment)]
pub struct Comment {
    #[schema(format = "uuid")]
    pub id: String,
    pub author: Author,
    /// `[deleted]` for a deleted comment kept for its replies.
    pub text: String,
    pub like_count: i64,
    pub is_liked_by_me: bool,
    #[schema(format = "date-time")]
    pub created_at: String,
    /// When its author last changed the text; null if never.
    #[schema(format = "date-time")]
    pub edited_at: Option<String>,
    /// Deleted, kept for its replies: `text` and `author` are `[deleted]`.
    pub deleted: bool,
    /// Replies, oldest first.
    #[schema(no_recursion)]
    pub replies: Vec<Comment>,
}

/// A comment's like count and whether the caller likes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LikeResult {
    pub like_count: i64,
    pub is_liked_by_me: bool,
}
