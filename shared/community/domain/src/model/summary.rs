//! AI summaries of posts: their states and what the service answers about them (the design,
//! states and outbox, is in [`crate::service`]'s summary part).

use serde::Serialize;
use utoipa::ToSchema;

/// The most failed summaries counted for `totalElements`: a longer list counts this many.
pub const FAILED_COUNT_CAP: usize = 1000;

/// A summary's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryStatus {
    /// Wanted: the summarizer has it (or will, after a retry or a rescue).
    Pending,
    /// The summary describes the post's current content.
    Completed,
    /// Every retry failed; an admin may re-trigger it.
    Failed,
}

impl SummaryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Completed => "COMPLETED",
            Self::Failed => "FAILED",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "PENDING" => Some(Self::Pending),
            "COMPLETED" => Some(Self::Completed),
            "FAILED" => Some(Self::Failed),
            _ => None,
        }
    }
}

/// SHA-256 (hex) of a post's content: what a summary describes.
pub fn content_hash(content: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, content.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A post's AI summary (the product's "Summary state").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostSummary {
    /// `PENDING`, `COMPLETED` or `FAILED`; null for a draft that was never published.
    #[schema(value_type = Option<SummaryStatusName>)]
    pub status: Option<String>,
    /// The summary; while PENDING, the previous one (null before the first).
    pub summary: Option<String>,
    #[schema(format = "date-time")]
    pub generated_at: Option<String>,
    /// The model that wrote it.
    pub model: Option<String>,
}

/// The states of a summary.
#[derive(ToSchema)]
#[allow(dead_code)]
pub enum SummaryStatusName {
    #[schema(rename = "PENDING")]
    Pending,
    #[schema(rename = "COMPLETED")]
    Completed,
    #[schema(rename = "FAILED")]
    Failed,
}

/// A post whose summary failed (the product's "Failed-summary row").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailedSummary {
    #[schema(format = "uuid")]
    pub id: String,
    /// The post's title now.
    pub title: String,
    #[schema(format = "uuid")]
    pub author_id: String,
    #[schema(example = "FAILED")]
    pub summary_status: String,
    /// When the summary was given up.
    #[schema(format = "date-time")]
    pub updated_at: String,
}

/// A page of failed summaries, most recently failed first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailedSummaryPage {
    pub content: Vec<FailedSummary>,
    pub page: u32,
    pub size: u32,
    /// Pages of `totalElements`.
    pub total_pages: u64,
    /// The failed summaries, counted up to 1,000: a longer list says 1,000 (page on with
    /// `nextCursor`).
    #[schema(maximum = 1000)]
    pub total_elements: u64,
    /// The `cursor` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_cursor: Option<String>,
}
