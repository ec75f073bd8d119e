//! What the digest routes answer (OpenAPI schemas), in the API's field names.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A topic by id and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = DigestTopicRef)]
pub struct TopicRef {
    #[schema(format = "uuid")]
    pub id: String,
    /// 1 to 100 characters.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub name: String,
}

/// One report of an event: which outlet, where, when, under which title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventSource {
    /// The news source's title (the feed's name); at most 500 characters.
    #[schema(max_length = 500)]
    pub source_name: String,
    /// The host of the article's link (`news.example.com`), else the source's name; at most
    /// 500 characters.
    #[schema(max_length = 500)]
    pub provider: String,
    #[schema(format = DateTime)]
    pub published_at: Option<String>,
    /// The article's headline at that source; at most 500 characters.
    #[schema(max_length = 500)]
    pub title: String,
}

/// One event of a digest: a story, possibly reported by several sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// 1 to 300 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 300,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub headline: String,
    /// At most 5 bullets of at most 500 characters.
    #[schema(max_items = 5)]
    pub summary_bullets: Vec<String>,
    /// At most 20 topic ids.
    #[schema(max_items = 20, value_type = Vec<uuid::Uuid>)]
    pub topic_ids: Vec<String>,
    /// At most 10 sources.
    #[schema(max_items = 10)]
    pub sources: Vec<EventSource>,
}

/// A digest without its events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DigestSummary {
    #[schema(format = "uuid")]
    pub id: String,
    /// `PERSONAL` or `PUBLIC`.
    #[schema(example = "PERSONAL")]
    pub digest_type: String,
    #[schema(format = Date)]
    pub digest_date: String,
    /// Built by the service: `Your digest for Monday, 1 September 2025` (PERSONAL) or
    /// `Daily digest for Monday, 1 September 2025` (PUBLIC).
    pub title: String,
    pub subtitle: Option<String>,
    pub summary: Option<String>,
    pub event_count: i64,
    /// Distinct sources over all events.
    pub source_count: i64,
    pub read_time_minutes: i64,
    /// The first events' headlines (at most 3).
    pub preview_headlines: Vec<String>,
    pub topics: Vec<TopicRef>,
    #[schema(format = DateTime)]
    pub generated_at: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// A digest with its events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DigestDetail {
    #[serde(flatten)]
    #[schema(inline)]
    pub summary: DigestSummary,
    pub events: Vec<Event>,
    /// The model that wrote it; null when persisted without one.
    pub model: Option<String>,
}

/// A page of digests, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DigestPage {
    pub content: Vec<DigestSummary>,
    pub page: u32,
    pub size: u32,
    pub total_pages: u64,
    pub total_elements: u64,
    /// The next page's `cursor` (days before this page's last); absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = Date)]
    pub next_cursor: Option<String>,
}

/// A digest generation job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DigestGenerationJob {
    #[schema(format = "uuid")]
    pub id: String,
    #[schema(format = "uuid")]
    pub target_user_id: String,
    #[schema(format = Date)]
    pub digest_date: String,
    /// `PENDING`, `RUNNING`, then `GENERATED`, `SKIPPED` or `FAILED`.
    #[schema(example = "PENDING")]
    pub status: String,
    pub message: Option<String>,
    pub force: bool,
    /// The digest the run produced or assigned (`GENERATED` only).
    #[schema(format = "uuid")]
    pub digest_id: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub finished_at: Option<String>,
}

/// What a generation for one user did.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct GenerationOutcome {
    /// `GENERATED` (a new PERSONAL digest, or the day's PUBLIC one assigned) or `SKIPPED`.
    #[schema(example = "GENERATED")]
    pub status: String,
    pub message: String,
    /// The digest (null when skipped).
    pub digest: Option<DigestDetail>,
}
