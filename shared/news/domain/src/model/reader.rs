//! What the reader shows one person: their subscriptions with labels and unread counts, the
//! article stream with each article's read and starred state, and the marks they set. Pure.

use serde::Serialize;

use super::{Article, Source};

/// One subscription as its person's reader sees it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReaderSubscription {
    pub source: Source,
    /// The person's labels (folders) on it, in the order they were given.
    pub labels: Vec<String>,
    /// Articles of the source the person has not read (within the read horizon).
    pub unread: u64,
    /// When the source's newest article was published; absent when it has none.
    #[schema(format = DateTime, nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newest_at: Option<String>,
    /// When the person subscribed (absent for subscriptions older than the reader).
    #[schema(format = DateTime, nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscribed_at: Option<String>,
}

/// A label with the unread articles of its subscriptions.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelSummary {
    pub name: String,
    /// Subscriptions carrying it.
    pub subscriptions: u64,
    pub unread: u64,
    /// The newest article of its subscriptions.
    #[schema(format = DateTime, nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newest_at: Option<String>,
}

/// One source's unread count.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceCount {
    pub source_id: String,
    pub unread: u64,
    #[schema(format = DateTime, nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newest_at: Option<String>,
}

/// A person's unread counts: per source, per label, and in all.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnreadCounts {
    pub total: u64,
    #[schema(format = DateTime, nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newest_at: Option<String>,
    pub sources: Vec<SourceCount>,
    pub labels: Vec<LabelSummary>,
}

/// An article with the person's state of it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReaderArticle {
    #[serde(flatten)]
    pub article: Article,
    pub read: bool,
    pub starred: bool,
    /// When the person starred it.
    #[schema(format = DateTime, nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starred_at: Option<String>,
    /// The person's labels on the article's source.
    pub labels: Vec<String>,
}

/// A page of the stream, and where the next one starts.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StreamPage {
    pub items: Vec<ReaderArticle>,
    /// The `cursor` of the next page; absent on the last one.
    #[schema(nullable = false)]
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

/// An article of the stream by id only (the Google Reader `stream/items/ids`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemRef {
    /// The article's id (32 hex).
    pub id: String,
    /// Its Google Reader item id, as a signed decimal (the short form).
    pub item_id: i64,
    pub source_id: String,
    #[schema(format = DateTime)]
    pub published_at: String,
    /// When the person starred it (the starred stream's order).
    #[schema(format = DateTime, nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starred_at: Option<String>,
}

/// A page of [`ItemRef`]s.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemRefPage {
    pub items: Vec<ItemRef>,
    #[schema(nullable = false)]
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

/// What a mark request did.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Marked {
    /// Articles found and marked (unknown ids are left out).
    pub marked: u64,
}

/// One mark on articles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Read,
    Unread,
    Starred,
    Unstarred,
}

/// The order of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Order {
    #[default]
    NewestFirst,
    OldestFirst,
}

/// Which articles of a scope a stream shows by their read state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum StateFilter {
    #[default]
    Any,
    Unread,
    Read,
}
