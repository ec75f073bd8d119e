//! Members' reports of posts and comments, and the admins' queue of them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::notifications::ReportOutcome;

/// What a report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReportTarget {
    Post,
    Comment,
}

impl ReportTarget {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Post => "post",
            Self::Comment => "comment",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "post" => Some(Self::Post),
            "comment" => Some(Self::Comment),
            _ => None,
        }
    }
}

/// Why a member reports something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReportReason {
    Spam,
    Abuse,
    OffTopic,
    Other,
}

impl ReportReason {
    pub const ALL: [Self; 4] = [Self::Spam, Self::Abuse, Self::OffTopic, Self::Other];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Spam => "spam",
            Self::Abuse => "abuse",
            Self::OffTopic => "off-topic",
            Self::Other => "other",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == raw)
    }

    /// The queue row's counter of this reason.
    pub fn counter(self) -> &'static str {
        match self {
            Self::Spam => "spamCount",
            Self::Abuse => "abuseCount",
            Self::OffTopic => "offTopicCount",
            Self::Other => "otherCount",
        }
    }
}

/// A member's report, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = CommunityReport)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub target_type: ReportTarget,
    #[schema(format = "uuid")]
    pub target_id: String,
    pub reason: ReportReason,
    /// The reporter's words, if any (at most 500 characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub text: Option<String>,
    #[schema(format = "date-time")]
    pub created_at: String,
    /// How an admin resolved it; absent while it is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub outcome: Option<ReportOutcome>,
}

/// The reports' count by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReasonCounts {
    pub spam: u64,
    pub abuse: u64,
    pub off_topic: u64,
    pub other: u64,
}

/// The open reports on one post or comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportGroup {
    pub target_type: ReportTarget,
    #[schema(format = "uuid")]
    pub target_id: String,
    /// The post, or the comment's post.
    #[schema(format = "uuid")]
    pub post_id: String,
    /// Whose content it is.
    #[schema(format = "uuid")]
    pub author_id: String,
    /// The post's title or the start of the comment, when the first report came.
    pub excerpt: String,
    /// Open reports on it.
    pub count: u64,
    pub reasons: ReasonCounts,
    /// The latest words a reporter gave, if any gave some.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub latest_text: Option<String>,
    /// When its first open report came.
    #[schema(format = "date-time")]
    pub opened_at: String,
    /// When its latest report came.
    #[schema(format = "date-time")]
    pub latest_at: String,
}

/// A page of the admins' queue, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportQueuePage {
    pub content: Vec<ReportGroup>,
    /// The `cursor` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_cursor: Option<String>,
}

/// A resolved group of reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportResolution {
    pub target_type: ReportTarget,
    #[schema(format = "uuid")]
    pub target_id: String,
    pub outcome: ReportOutcome,
    /// The reports closed (each reporter is notified).
    pub reports: u64,
}
