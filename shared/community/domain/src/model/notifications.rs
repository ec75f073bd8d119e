//! A member's notifications as the inbox answers them.

use serde::Serialize;
use utoipa::ToSchema;

/// Why a member was notified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum NotificationKind {
    /// Someone commented on my post.
    Comment,
    /// Someone replied to my comment.
    Reply,
    /// Someone wrote `@my-username` in a post or a comment.
    Mention,
    /// An admin removed my post or comment (`reason` says why).
    Removed,
    /// A report I made was resolved (`outcome` says how).
    ReportResolved,
}

impl NotificationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Comment => "COMMENT",
            Self::Reply => "REPLY",
            Self::Mention => "MENTION",
            Self::Removed => "REMOVED",
            Self::ReportResolved => "REPORT_RESOLVED",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [
            Self::Comment,
            Self::Reply,
            Self::Mention,
            Self::Removed,
            Self::ReportResolved,
        ]
        .into_iter()
        .find(|k| k.as_str() == raw)
    }
}

/// Who caused a notification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotificationActor {
    #[schema(format = "uuid")]
    pub id: String,
    pub username: String,
}

/// One notification in a member's inbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = CommunityNotification)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    /// Time-ordered: the creation's milliseconds since the epoch and 16 hex digits.
    #[schema(
        pattern = "^[0-9]{13}-[0-9a-f]{16}$",
        example = "1764745200123-0f3c1e5b0f3c1e5b"
    )]
    pub id: String,
    pub kind: NotificationKind,
    /// Who commented, replied, mentioned; absent for moderation and reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub actor: Option<NotificationActor>,
    /// The post concerned (the comment's post for a comment).
    #[schema(format = "uuid")]
    pub post_id: String,
    /// The comment concerned, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, format = "uuid")]
    pub comment_id: Option<String>,
    /// The start of the text concerned (at most 140 characters).
    pub excerpt: String,
    /// The admin's reason of a removal, or their note on a report's outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub reason: Option<String>,
    /// A resolved report's outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub outcome: Option<ReportOutcome>,
    pub read: bool,
    #[schema(format = "date-time")]
    pub created_at: String,
}

/// How an admin resolved the reports on a post or comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReportOutcome {
    /// The content was removed.
    Removed,
    /// The reports were dismissed; the content stays.
    Dismissed,
}

impl ReportOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Removed => "removed",
            Self::Dismissed => "dismissed",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "removed" => Some(Self::Removed),
            "dismissed" => Some(Self::Dismissed),
            _ => None,
        }
    }
}

/// A page of the inbox, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = CommunityNotificationPage)]
#[serde(rename_all = "camelCase")]
pub struct NotificationPage {
    pub content: Vec<Notification>,
    /// Unread notifications, counted up to 1,000 (a larger inbox says 1,000).
    #[schema(maximum = 1000)]
    pub unread_count: u64,
    /// The `cursor` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_cursor: Option<String>,
}

/// The unread count after marking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnreadCount {
    /// Unread notifications, counted up to 1,000.
    #[schema(maximum = 1000)]
    pub unread_count: u64,
}
