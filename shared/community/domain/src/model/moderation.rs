//! The moderation log as the service answers it.

use serde::Serialize;
use utoipa::ToSchema;

/// One admin removal, as the moderation log shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModerationLogEntry {
    #[schema(format = "uuid")]
    pub id: String,
    /// The admin who removed it.
    #[schema(format = "uuid")]
    pub moderator_id: String,
    #[schema(example = "POST")]
    pub target_kind: ModerationTarget,
    /// The post's or the comment's id.
    #[schema(format = "uuid")]
    pub target_id: String,
    /// The post removed, or the post of the comment removed.
    #[schema(format = "uuid")]
    pub post_id: String,
    /// The author of what was removed.
    #[schema(format = "uuid")]
    pub author_id: String,
    pub reason: String,
    #[schema(format = "date-time")]
    pub removed_at: String,
}

/// What an admin removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum ModerationTarget {
    Post,
    Comment,
}

/// A page of the moderation log, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModerationLogPage {
    pub content: Vec<ModerationLogEntry>,
    pub page: u32,
    pub size: u32,
    /// Pages of `totalElements`.
    pub total_pages: u64,
    /// The entries, counted up to 1,000: a longer log says 1,000 (page on with `nextCursor`).
    #[schema(maximum = 1000)]
    pub total_elements: u64,
    /// The `cursor` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_cursor: Option<String>,
}

impl ModerationTarget {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Post => "POST",
            Self::Comment => "COMMENT",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "POST" => Some(Self::Post),
            "COMMENT" => Some(Self::Comment),
            _ => None,
        }
    }
}
