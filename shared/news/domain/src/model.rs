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
