//! What the community service answers, in the API's field names. Schema names that would
//! clash with the news reader's in the merged contract take a `Community` prefix.

pub mod comments;
pub mod jobs;
pub mod moderation;
pub mod notifications;
pub mod reports;
pub mod social;
pub mod stats;
pub mod summary;

use serde::Serialize;
use utoipa::ToSchema;

/// A post's author, as snapshotted when the post was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    #[schema(format = "uuid")]
    pub id: String,
    pub username: String,
    pub display_name: String,
    /// `USER` or `ADMIN`.
    #[schema(example = "USER")]
    pub role: String,
    /// Always null: the platform has no organisations.
    pub organisation: Option<String>,
}

/// A topic by id and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = CommunityTopicRef)]
pub struct TopicRef {
    #[schema(format = "uuid")]
    pub id: String,
    pub name: String,
}

/// A full post.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Post {
    #[schema(format = "uuid")]
    pub id: String,
    pub author: Author,
    /// `DRAFT` or `PUBLISHED`.
    #[schema(example = "PUBLISHED")]
    pub status: String,
    pub title: String,
    pub excerpt: String,
    /// The AI summary of the content (null before the first; while PENDING, the previous).
    pub summary: Option<String>,
    /// `PENDING`, `COMPLETED` or `FAILED`; null for a post never published.
    #[schema(value_type = Option<summary::SummaryStatusName>)]
    pub summary_status: Option<String>,
    #[schema(format = "date-time")]
    pub summary_generated_at: Option<String>,
    /// The model that wrote the summary.
    pub summary_model: Option<String>,
    /// The post's text as written: CommonMark (a post written before Markdown is plain lines,
    /// which read the same).
    pub content: String,
    /// `content` rendered by the server into safe HTML (`community::markdown`): what the web
    /// client shows. On a single post's answers (read, create, replace, patch) only: a list
    /// leaves it out (20 posts at the bounds would pass Lambda's 6 MB answer) and shows
    /// `excerpt`, plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub content_html: Option<String>,
    pub cover_image_url: Option<String>,
    pub source_url: Vec<String>,
    pub topics: Vec<TopicRef>,
    pub read_time_minutes: i64,
    pub like_count: i64,
    pub dislike_count: i64,
    pub comment_count: i64,
    pub view_count: i64,
    pub save_count: i64,
    pub is_liked_by_me: bool,
    pub is_disliked_by_me: bool,
    pub is_bookmarked_by_me: bool,
    #[schema(format = "date-time")]
    pub created_at: String,
    #[schema(format = "date-time")]
    pub updated_at: String,
}

/// A post without its body, for lists of cards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostCard {
    #[schema(format = "uuid")]
    pub id: String,
    pub author: Author,
    pub title: String,
    pub excerpt: String,
    pub topics: Vec<TopicRef>,
    pub read_time_minutes: i64,
    pub like_count: i64,
    pub comment_count: i64,
    pub view_count: i64,
    pub is_liked_by_me: bool,
    #[schema(format = "date-time")]
    pub created_at: String,
}

/// One page of posts.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostPage {
    pub content: Vec<Post>,
    pub page: u32,
    pub size: u32,
    pub total_pages: u64,
    pub total_elements: u64,
    /// The `cursor` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_cursor: Option<String>,
}

/// A topic with its statistics (how they are computed: [`crate::stats`]), defined with the
/// community client, which the digests read it through.
pub use community_client::Topic;

/// A category of the catalog with its topics.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicCategory {
    pub id: String,
    pub label: String,
    pub sort_order: u32,
    pub topics: Vec<Topic>,
}

/// A topic suggested as a writer types its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicSuggestion {
    #[schema(format = "uuid")]
    pub id: String,
    /// The topic's name as shown.
    pub name: String,
    pub slug: String,
    /// Published live posts carrying it.
    pub post_count: i64,
}
