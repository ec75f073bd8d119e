//! What the news (content) service answers, as its handlers serialize it and other products
//! read it: sources, articles, topics, pages.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Whether a source's articles get the text of their page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum FullTextMode {
    /// Every new article's page is fetched.
    On,
    /// Only the feed's text is kept.
    Off,
    /// A new article's page is fetched when the feed's entry is short (an excerpt).
    #[default]
    Auto,
}

impl FullTextMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::On => "on",
            Self::Off => "off",
            Self::Auto => "auto",
        }
    }

    /// The mode a stored value names; anything else is the default.
    pub fn from_stored(value: Option<&str>) -> Self {
        match value {
            Some("on") => Self::On,
            Some("off") => Self::Off,
            _ => Self::Auto,
        }
    }
}

/// A shared RSS/Atom/JSON feed source (one per normalised URL).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub id: String,
    /// The feed's URL.
    #[cfg_attr(feature = "schema", schema(format = "uri"))]
    pub url: String,
    pub title: String,
    /// The website the feed belongs to.
    pub site_url: Option<String>,
    pub description: Option<String>,
    /// How many users are subscribed; the last one leaving deletes the source.
    pub subscriber_count: i64,
    /// When the feed was last fetched.
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub last_fetched_at: Option<String>,
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub created_at: String,
    /// Whether new articles get the text of their page (`auto`: when the feed's entry is
    /// short).
    pub full_text: FullTextMode,
}

/// What an unsubscribe left: the source with `deleted: false` when it survives, or only its
/// id, a zero count and `deleted: true` when the last subscriber left.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "schema",
    schema(
        description = "What an unsubscribe left: when the source survives, every Source field too; when the last subscriber left, only these three, with deleted true."
    )
)]
pub struct Unsubscribed {
    id: String,
    #[cfg_attr(feature = "schema", schema(rename = "subscriberCount"))]
    subscriber_count: i64,
    /// The last subscriber left: the source and its articles are gone from every read (their
    /// rows are removed in the background).
    deleted: bool,
    #[cfg_attr(feature = "schema", schema(ignore))]
    remaining: Option<Source>,
}

impl Unsubscribed {
    /// The source survives, with its current fields.
    pub fn remaining(source: Source) -> Self {
        Self {
            id: source.id.clone(),
            subscriber_count: source.subscriber_count,
            deleted: false,
            remaining: Some(source),
        }
    }

    /// The last subscriber left: the source and its articles are deleted.
    pub fn deleted(id: impl Into<String>) -> Self {
        Self::without_source(id, 0, true)
    }

    /// The source was not deleted by this call but could not be read back (a concurrent
    /// unsubscribe deleted it meanwhile).
    pub fn without_source(id: impl Into<String>, subscriber_count: i64, deleted: bool) -> Self {
        Self {
            id: id.into(),
            subscriber_count,
            deleted,
            remaining: None,
        }
    }

    pub fn is_deleted(&self) -> bool {
        self.deleted
    }

    pub fn subscriber_count(&self) -> i64 {
        self.subscriber_count
    }

    /// The surviving source, when it was read back.
    pub fn source(&self) -> Option<&Source> {
        self.remaining.as_ref()
    }
}

impl Serialize for Unsubscribed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct WithSource<'a> {
            #[serde(flatten)]
            source: &'a Source,
            deleted: bool,
        }
        match &self.remaining {
            Some(source) => WithSource {
                source,
                deleted: self.deleted,
            }
            .serialize(serializer),
            None => {
                let mut body = serializer.serialize_struct("Unsubscribed", 3)?;
                body.serialize_field("id", &self.id)?;
                body.serialize_field("subscriberCount", &self.subscriber_count)?;
                body.serialize_field("deleted", &self.deleted)?;
                body.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Unsubscribed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Left {
            id: String,
            subscriber_count: i64,
            deleted: bool,
        }
        let body = serde_json::Value::deserialize(deserializer)?;
        let left = Left::deserialize(&body).map_err(serde::de::Error::custom)?;
        // Only the three fields: deleted, or a source not read back after the change.
        let remaining = if left.deleted {
            None
        } else {
            Source::deserialize(&body).ok()
        };
        Ok(Self {
            id: left.id,
            subscriber_count: left.subscriber_count,
            deleted: left.deleted,
            remaining,
        })
    }
}

/// A topic an article belongs to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct TopicRef {
    /// The topic's slug, e.g. `open-source`.
    pub id: String,
    /// As the feed spelt it, e.g. `Open Source`.
    pub name: String,
}

/// A full article; lists leave `paragraphs` out.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Article {
    pub id: String,
    pub source_id: String,
    pub source_title: String,
    pub title: String,
    /// The article on the publisher's site.
    pub link: Option<String>,
    pub author: Option<String>,
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub published_at: String,
    /// The feed's short description of the article, as plain text.
    pub summary: Option<String>,
    /// The body as plain-text paragraphs; only on a single article.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(nullable = false))]
    pub paragraphs: Option<Vec<String>>,
    pub topics: Vec<TopicRef>,
    pub image_url: Option<String>,
}

/// The news reader's page envelope.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub content: Vec<T>,
    /// This page's number, from 0.
    pub page: u32,
    /// The page size asked for.
    pub size: u32,
    pub total_elements: u64,
    pub total_pages: u64,
    /// The `cursor` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(nullable = false))]
    pub next_cursor: Option<String>,
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
            next_cursor: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsubscribed_shows_the_surviving_source_or_only_what_is_left() {
        let source = Source {
            id: "s".into(),
            url: "https://example.com/feed".into(),
            title: "T".into(),
            site_url: None,
            description: None,
            subscriber_count: 2,
            last_fetched_at: None,
            created_at: "2026-01-01T00:00:00.000Z".into(),
            full_text: FullTextMode::Auto,
        };
        let mut expected = serde_json::to_value(&source).unwrap();
        expected["deleted"] = false.into();
        assert_eq!(
            serde_json::to_value(Unsubscribed::remaining(source)).unwrap(),
            expected
        );
        assert_eq!(
            serde_json::to_value(Unsubscribed::deleted("s")).unwrap(),
            serde_json::json!({"id": "s", "subscriberCount": 0, "deleted": true})
        );
    }

    #[test]
    fn an_unsubscribe_reads_back_as_it_was_written() {
        let source = Source {
            id: "s".into(),
            url: "https://example.com/feed".into(),
            title: "T".into(),
            site_url: Some("https://example.com".into()),
            description: None,
            subscriber_count: 1,
            last_fetched_at: None,
            created_at: "2026-01-01T00:00:00.000Z".into(),
            full_text: FullTextMode::On,
        };
        for answer in [
            Unsubscribed::remaining(source),
            Unsubscribed::deleted("s"),
            Unsubscribed::without_source("s", 2, false),
        ] {
            let json = serde_json::to_string(&answer).unwrap();
            assert_eq!(serde_json::from_str::<Unsubscribed>(&json).unwrap(), answer);
        }
    }

    #[test]
    fn total_pages_round_up() {
        assert_eq!(Page::<u8>::new(vec![], 0, 20, 0).total_pages, 0);
        assert_eq!(Page::<u8>::new(vec![], 0, 20, 20).total_pages, 1);
        assert_eq!(Page::<u8>::new(vec![], 0, 20, 21).total_pages, 2);
    }
}
