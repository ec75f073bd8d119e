//! What the content service shows: sources, articles, topics, pages.

use serde::Serialize;

/// A shared RSS/Atom/JSON feed source (one per normalised URL).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub id: String,
    /// The feed's URL.
    #[schema(format = "uri")]
    pub url: String,
    pub title: String,
    /// The website the feed belongs to.
    pub site_url: Option<String>,
    pub description: Option<String>,
    /// How many users are subscribed; the last one leaving deletes the source.
    pub subscriber_count: i64,
    /// When the feed was last fetched.
    #[schema(format = DateTime)]
    pub last_fetched_at: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// A topic an article belongs to.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct TopicRef {
    /// The topic's slug, e.g. `open-source`.
    pub id: String,
    /// As the feed spelt it, e.g. `Open Source`.
    pub name: String,
}

/// A topic with how many articles it has.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicSummary {
    pub id: String,
    pub name: String,
    pub article_count: i64,
}

/// A full article; lists leave `paragraphs` out.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Article {
    pub id: String,
    pub source_id: String,
    pub source_title: String,
    pub title: String,
    /// The article on the publisher's site.
    pub link: Option<String>,
    pub author: Option<String>,
    #[schema(format = DateTime)]
    pub published_at: String,
    /// The feed's short description of the article, as plain text.
    pub summary: Option<String>,
    /// The body as plain-text paragraphs; only on a single article.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub paragraphs: Option<Vec<String>>,
    pub topics: Vec<TopicRef>,
    pub image_url: Option<String>,
}

/// The page envelope of Document A.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub content: Vec<T>,
    /// This page's number, from 0.
    pub page: u32,
    /// The page size asked for.
    pub size: u32,
    pub total_elements: u64,
    pub total_pages: u64,
}

impl<T> Page<T> {
    pub fn new(content: Vec<T>, page: u32, size: u32, total: u64) -> Self {
        let total_pages = if size == 0 {
            0
        } else {
            total.div_ceil(u64::from(size))
        };
        Self {
            content,
            page,
            size,
            total_elements: total,
            total_pages,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_pages_round_up() {
        assert_eq!(Page::<u8>::new(vec![], 0, 20, 0).total_pages, 0);
        assert_eq!(Page::<u8>::new(vec![], 0, 20, 20).total_pages, 1);
        assert_eq!(Page::<u8>::new(vec![], 0, 20, 21).total_pages, 2);
    }
}
