//! Items of the content table and the models they hold, both ways.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use platform::dynamo::{key, n, s, Attributes, DynamoError, Item};

use super::{FetchState, NewArticle, NewSource};
use crate::model::{Article, Source, TopicRef};

pub(super) const SOURCES: &str = "SOURCES";
pub(super) const ARTICLES: &str = "ARTICLES";
pub(super) const TOPICS: &str = "TOPICS";
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
