//! What the content service shows: sources, articles, topics, pages. What other products read
//! too is defined with the news client ([`news_client::model`]).

use serde::Serialize;

pub mod reader;

pub use news_client::model::{Article, Page, Source, TopicRef, Unsubscribed};
pub use news_client::FullTextMode;

/// A topic with how many articles it has.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicSummary {
    pub id: String,
    pub name: String,
    pub article_count: i64,
}

/// The format of a feed: RSS (0.9x, 1.0, 2.0), Atom or JSON Feed.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FeedKind {
    Rss,
    Atom,
    Json,
}

/// A feed found at a site's address, for a person to choose from.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredFeed {
    /// The feed's address, absolute: what `POST /api/content/sources` takes.
    #[schema(format = "uri", max_length = 2048)]
    pub url: String,
    /// The title the page gives the feed (its link's `title`), else the feed's own title,
    /// else its format's name.
    #[schema(max_length = 2048)]
    pub title: String,
    pub kind: FeedKind,
}
