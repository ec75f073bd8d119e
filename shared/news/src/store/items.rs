//! Items of the content table and the models they hold, both ways.

use std::collections::HashMap;

use platform::dynamo::{key, n, s, AttributeValue, Attributes, DynamoError, Item};

use super::{FetchState, NewArticle, NewSource};
use crate::model::{Article, Source, TopicRef};

pub(super) const SOURCES: &str = "SOURCES";
pub(super) const ARTICLES: &str = "ARTICLES";
pub(super) const TOPICS: &str = "TOPICS";
/// The `gsi1` list of retired sources (the last subscriber left, or none came): hidden from
/// every read, waiting for the sweep that removes their rows.
pub(super) const RETIRED: &str = "RETIRED";
/// The attribute that marks a source retired, holding when it was retired.
pub(super) const RETIRED_AT: &str = "retiredAt";
/// The sort-key prefix of an article's index rows under its source and its topics.
pub(super) const ARTICLE_ROW: &str = "ART#";

pub(super) fn source_pk(id: &str) -> String {
    format!("SOURCE#{id}")
}

pub(super) fn topic_pk(id: &str) -> String {
    format!("TOPIC#{id}")
}

pub(super) fn source_key(id: &str) -> Item {
    key(source_pk(id), "META")
}

pub(super) fn article_key(id: &str) -> Item {
    key(format!("ARTICLE#{id}"), "META")
}

pub(super) fn topic_key(id: &str) -> Item {
    key(topic_pk(id), "META")
}

pub(super) fn membership_key(source_id: &str, user_id: &str) -> Item {
    key(source_pk(source_id), format!("SUB#{user_id}"))
}

pub(super) fn article_count_key() -> Item {
    key("STATS", ARTICLES)
}

/// The sort key of an article's index rows: newest last, so a descending query is newest first.
pub(super) fn article_row_sk(published_at: &str, article_id: &str) -> String {
    format!("{ARTICLE_ROW}{published_at}#{article_id}")
}

fn put_opt(item: &mut Item, name: &str, value: &Option<String>) {
    if let Some(v) = value {
        item.insert(name.to_string(), s(v));
    }
}

pub(super) fn new_source_item(new: &NewSource, created_at: &str) -> Item {
    let mut item = source_key(&new.id);
    item.insert("id".into(), s(&new.id));
    item.insert("url".into(), s(&new.url));
    item.insert("title".into(), s(&new.title));
    put_opt(&mut item, "siteUrl", &new.site_url);
    put_opt(&mut item, "description", &new.description);
    item.insert("subscriberCount".into(), n(0));
    item.insert("articleCount".into(), n(0));
    item.insert("createdAt".into(), s(created_at));
    item.insert("gsi1pk".into(), s(SOURCES));
    item.insert("gsi1sk".into(), s(format!("{created_at}#{}", new.id)));
    item
}

/// True when the source item is retired: it answers no read.
pub(super) fn is_retired(item: &Item) -> bool {
    item.contains_key(RETIRED_AT)
}

pub(super) fn to_source(table: &str, item: &Item) -> Result<Source, DynamoError> {
    Ok(Source {
        id: item.string(table, "id")?,
        url: item.string(table, "url")?,
        title: item.string(table, "title")?,
        site_url: item.opt_string("siteUrl"),
        description: item.opt_string("description"),
        subscriber_count: item.counter(table, "subscriberCount")?,
        last_fetched_at: item.opt_string("lastFetchedAt"),
        created_at: item.string(table, "createdAt")?,
    })
}

pub(super) fn to_fetch_state(table: &str, item: &Item) -> Result<FetchState, DynamoError> {
    let failures = item.counter(table, "failures")?.max(0);
    Ok(FetchState {
        etag: item.opt_string("etag"),
        last_modified: item.opt_string("lastModified"),
        failures: u32::try_from(failures).unwrap_or(u32::MAX),
        next_fetch_at: item.opt_string("nextFetchAt"),
    })
}

/// An article; its paragraphs only `with_body` (lists leave them out).
pub(super) fn to_article(
    table: &str,
    item: &Item,
    with_body: bool,
) -> Result<Article, DynamoError> {
    let topics = match item.get("topics") {
        Some(AttributeValue::L(list)) => list
            .iter()
            .filter_map(|t| t.as_m().ok())
            .filter_map(|m| {
                Some(TopicRef {
                    id: m.opt_string("id")?,
                    name: m.opt_string("name")?,
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    let paragraphs = if with_body {
        Some(item.strings(table, "paragraphs")?)
    } else {
        None
    };
    Ok(Article {
        id: item.string(table, "id")?,
        source_id: item.string(table, "sourceId")?,
        source_title: item.string(table, "sourceTitle")?,
        title: item.string(table, "title")?,
        link: item.opt_string("link"),
        author: item.opt_string("author"),
        published_at: item.string(table, "publishedAt")?,
        summary: item.opt_string("summary"),
        paragraphs,
        topics,
        image_url: item.opt_string("imageUrl"),
    })
}

/// The article item itself.
pub(super) fn article_item(a: &NewArticle) -> Item {
    let mut item = article_key(&a.id);
    item.insert("id".into(), s(&a.id));
    item.insert("sourceId".into(), s(&a.source_id));
    item.insert("sourceTitle".into(), s(&a.source_title));
    item.insert("title".into(), s(&a.title));
    put_opt(&mut item, "link", &a.link);
    put_opt(&mut item, "author", &a.author);
    item.insert("publishedAt".into(), s(&a.published_at));
    put_opt(&mut item, "summary", &a.summary);
    put_opt(&mut item, "imageUrl", &a.image_url);
    item.insert(
        "paragraphs".into(),
        AttributeValue::L(a.paragraphs.iter().map(s).collect()),
    );
    item.insert(
        "topics".into(),
        AttributeValue::L(
            a.topics
                .iter()
                .map(|t| {
                    AttributeValue::M(HashMap::from([
                        ("id".to_string(), s(&t.id)),
                        ("name".to_string(), s(&t.name)),
                    ]))
                })
                .collect(),
        ),
    );
    item.insert("gsi1pk".into(), s(ARTICLES));
    item.insert("gsi1sk".into(), s(format!("{}#{}", a.published_at, a.id)));
    item
}

/// The article's row under its source; it carries the topic ids so a deletion finds the
/// topic rows.
pub(super) fn source_row(a: &NewArticle) -> Item {
    let mut row = key(
        source_pk(&a.source_id),
        article_row_sk(&a.published_at, &a.id),
    );
    row.insert("articleId".into(), s(&a.id));
    row.insert(
        "topicIds".into(),
        AttributeValue::L(a.topics.iter().map(|t| s(&t.id)).collect()),
    );
    row
}

/// The article's row under one of its topics; it carries the source id for the by-source
/// filter.
pub(super) fn topic_row(a: &NewArticle, topic: &TopicRef) -> Item {
    let mut row = key(topic_pk(&topic.id), article_row_sk(&a.published_at, &a.id));
    row.insert("articleId".into(), s(&a.id));
    row.insert("sourceId".into(), s(&a.source_id));
    row
}

/// The most an article item may take: DynamoDB's 400 KB, less a margin (for attributes a
/// later version adds, and numbers whose size is estimated).
pub const ARTICLE_ITEM_BUDGET: usize = platform::dynamo::MAX_ITEM_BYTES - 50 * 1024;
/// The most a title (an article's, a source's) keeps, in bytes.
pub const MAX_TITLE_BYTES: usize = 2048;
/// The most an author or a feed's description keeps, in bytes.
pub const MAX_TEXT_FIELD_BYTES: usize = 4096;
/// A longer link or image URL is dropped: cut, it would point elsewhere.
pub const MAX_URL_BYTES: usize = 2048;

/// Cuts `text` to at most `max` bytes, on a character boundary.
pub fn cut_to_bytes(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    text.truncate(end);
}

fn drop_long_url(url: &mut Option<String>) {
    if url.as_ref().is_some_and(|u| u.len() > MAX_URL_BYTES) {
        *url = None;
    }
}

/// Caps an article so that its item fits [`ARTICLE_ITEM_BUDGET`] as DynamoDB measures it:
/// the title and author are cut, overlong URLs dropped, and the paragraphs kept in order
/// while they fit, the first that does not cut on a character boundary and the rest left
/// out. Returns whether the body was cut.
pub fn fit_article(a: &mut NewArticle) -> bool {
    cut_to_bytes(&mut a.title, MAX_TITLE_BYTES);
    cut_to_bytes(&mut a.source_title, MAX_TITLE_BYTES);
    if let Some(author) = a.author.as_mut() {
        cut_to_bytes(author, MAX_TEXT_FIELD_BYTES);
    }
    if let Some(summary) = a.summary.as_mut() {
        cut_to_bytes(summary, MAX_TEXT_FIELD_BYTES);
    }
    drop_long_url(&mut a.link);
    drop_long_url(&mut a.image_url);
    let paragraphs = std::mem::take(&mut a.paragraphs);
    let fixed = platform::dynamo::item_size(&article_item(a));
    let mut room = ARTICLE_ITEM_BUDGET.saturating_sub(fixed);
    let total = paragraphs.len();
    for mut paragraph in paragraphs {
        // Each list element costs one byte besides its text.
        let cost = paragraph.len().saturating_add(1);
        if cost <= room {
            room -= cost;
            a.paragraphs.push(paragraph);
            continue;
        }
        if room > 1 {
            cut_to_bytes(&mut paragraph, room - 1);
            if !paragraph.is_empty() {
                a.paragraphs.push(paragraph);
            }
        }
        return true;
    }
    a.paragraphs.len() != total
}

#[cfg(test)]
mod tests {
    use platform::dynamo::item_size;

    use super::*;

    fn article(paragraphs: Vec<String>) -> NewArticle {
        NewArticle {
            id: "a".repeat(32),
            source_id: "s".repeat(32),
            source_title: "Source".into(),
            title: "T".repeat(10_000),
            link: Some(format!("https://example.com/{}", "x".repeat(3000))),
            author: None,
            published_at: "2026-01-01T00:00:00.000Z".into(),
            summary: None,
            paragraphs,
            topics: vec![TopicRef {
                id: "tech".into(),
                name: "Tech".into(),
            }],
            image_url: Some("https://example.com/i.png".into()),
        }
    }

    #[test]
    fn an_oversized_article_is_cut_to_fit_an_item_on_a_character_boundary() {
        // 3-byte characters, so that a cut by bytes would land inside one.
        let huge = "日".repeat(300_000);
        let mut a = article(vec!["intro".into(), huge.clone(), "after".into()]);
        assert!(fit_article(&mut a));
        let size = item_size(&article_item(&a));
        assert!(size <= ARTICLE_ITEM_BUDGET, "{size}");
        assert!(
            size > ARTICLE_ITEM_BUDGET - 4,
            "cut at the budget, not below: {size}"
        );
        assert_eq!(a.paragraphs.len(), 2);
        assert_eq!(a.paragraphs[0], "intro");
        assert!(huge.starts_with(&a.paragraphs[1]));
        assert_eq!(a.title.len(), MAX_TITLE_BYTES);
        assert_eq!(a.link, None, "a cut URL would point elsewhere");
        assert!(a.image_url.is_some());
    }

    #[test]
    fn an_article_that_fits_is_left_alone() {
        let mut a = article(vec!["one".into(), "two".into()]);
        a.title = "Short".into();
        assert!(!fit_article(&mut a));
        assert_eq!(a.paragraphs, vec!["one", "two"]);
        assert_eq!(a.title, "Short");
    }

    #[test]
    fn cuts_respect_character_boundaries() {
        let mut text = "aé日".to_string();
        cut_to_bytes(&mut text, 5);
        assert_eq!(text, "aé");
        cut_to_bytes(&mut text, 2);
        assert_eq!(text, "a");
        cut_to_bytes(&mut text, 10);
        assert_eq!(text, "a");
    }
}
