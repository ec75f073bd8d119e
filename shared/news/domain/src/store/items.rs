//! Items of the content table and the models they hold, both ways.

use std::collections::HashMap;

use platform::dynamo::{key, n, s, AttributeValue, Attributes, DynamoError, Item};

use super::{FetchState, NewArticle, NewSource};
use crate::model::{Article, Source, TopicRef};

pub(super) const SOURCES: &str = "SOURCES";
pub(super) const TOPICS: &str = "TOPICS";
/// The `gsi1` list of retired sources (the last subscriber left, or none came): hidden from
/// every read, waiting for the sweep that removes their rows.
pub(super) const RETIRED: &str = "RETIRED";
/// The attribute that marks a source retired, holding when it was retired.
pub(super) const RETIRED_AT: &str = "retiredAt";
/// The sort-key prefix of an article's index rows (the sort key is [`article_row_sk`]).
pub(super) const ARTICLE_ROW: &str = "ART#";
/// Write shards of the list of every article: 579 new articles a second, each a 2-unit
/// transactional row, is 1,158 WCU/s, so 8 shards take about 145 each (a partition takes 1,000).
pub(super) const ARTICLE_SHARDS: u32 = 8;
/// Write shards of one topic's list and counter: a topic on every article still leaves each
/// shard under 300 WCU/s.
pub(super) const TOPIC_SHARDS: u32 = 4;
/// Articles published before this year are listed in its bucket (they sort last anyway).
pub(super) const FIRST_YEAR: i32 = 2000;

pub(super) fn source_pk(id: &str) -> String {
    format!("SOURCE#{id}")
}

pub(super) fn source_key(id: &str) -> Item {
    key(source_pk(id), "META")
}

/// The source's counters and the copy of its retirement that every write checks: small and
/// in a partition of its own, so joins and leaves do not share a partition with the
/// membership items, and no index copies it.
pub(super) fn counts_key(id: &str) -> Item {
    key(format!("SOURCE#{id}#COUNTS"), "COUNTS")
}

/// The source's fetch bookkeeping, which no index copies.
pub(super) fn fetch_key(id: &str) -> Item {
    key(source_pk(id), "FETCH")
}

pub(super) fn article_key(id: &str) -> Item {
    key(format!("ARTICLE#{id}"), "META")
}

/// A topic's name, listed once in `gsi1` `TOPICS`; its counts are in [`topic_count_key`].
pub(super) fn topic_key(id: &str) -> Item {
    key(format!("TOPIC#{id}"), "META")
}

/// One shard of a topic's article count.
pub(super) fn topic_count_key(id: &str, shard: u32) -> Item {
    key(format!("TOPIC#{id}#COUNT#{shard}"), "COUNT")
}

/// A source's count of articles in one topic (for the source-and-topic filter).
pub(super) fn source_topic_count_key(source_id: &str, topic_id: &str) -> Item {
    key(source_pk(source_id), format!("TOPIC#{topic_id}"))
}

pub(super) fn membership_key(source_id: &str, user_id: &str) -> Item {
    key(source_pk(source_id), format!("SUB#{user_id}"))
}

/// One shard of the article counters: `articleCount` (rows stored) and `retiredCount` (of
/// those, the articles of retired sources not yet swept).
pub(super) fn stats_key(shard: u32) -> Item {
    key(format!("STATS#{shard}"), ARTICLES_SK)
}

/// The single article counter of items written before the counters were sharded.
pub(super) fn legacy_stats_key() -> Item {
    key("STATS", ARTICLES_SK)
}

const ARTICLES_SK: &str = "ARTICLES";

/// The partition of one year's bucket of one shard of the list of every article.
pub(super) fn articles_pk(year: i32, shard: u32) -> String {
    format!("ARTICLES#{year}#{shard}")
}

/// The partition of one year's bucket of one shard of a topic's articles.
pub(super) fn topic_rows_pk(topic_id: &str, year: i32, shard: u32) -> String {
    format!("TOPIC#{topic_id}#{year}#{shard}")
}

/// The partition of a topic's articles as written before the lists were sharded.
pub(super) fn legacy_topic_pk(id: &str) -> String {
    format!("TOPIC#{id}")
}

/// The sort-key prefix of a source's rows of one topic, in the source's partition.
pub(super) fn source_topic_prefix(topic_id: &str) -> String {
    format!("T#{topic_id}#")
}

/// The shard of `id` among `shards` (FNV-1a: stable across processes and releases).
pub(super) fn shard_of(id: &str, shards: u32) -> u32 {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    u32::try_from(hash % u64::from(shards.max(1))).unwrap_or(0)
}

/// The year bucket of a publication time (`YYYY-...`): its year, not before [`FIRST_YEAR`].
pub(super) fn bucket_year(published_at: &str) -> i32 {
    published_at
        .get(..4)
        .and_then(|y| y.parse::<i32>().ok())
        .unwrap_or(FIRST_YEAR)
        .max(FIRST_YEAR)
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

/// The attribute of a source's counters item saying its articles' rows of each topic are all
/// written: set on every source created since they are, and by the backfill on the others.
pub(super) const TOPIC_ROWS: &str = "topicRows";
/// The value of [`TOPIC_ROWS`].
pub(super) const TOPIC_ROWS_DONE: &str = "DONE";

/// The counters of a new source: no subscriber, no article (and none without topic rows).
pub(super) fn new_counts_item(id: &str) -> Item {
    let mut item = counts_key(id);
    item.insert("subscriberCount".into(), n(0));
    item.insert("articleCount".into(), n(0));
    item.insert(TOPIC_ROWS.into(), s(TOPIC_ROWS_DONE));
    item
}

pub(super) fn new_source_item(new: &NewSource, created_at: &str) -> Item {
    let mut item = source_key(&new.id);
    item.insert("id".into(), s(&new.id));
    item.insert("url".into(), s(&new.url));
    item.insert("title".into(), s(&new.title));
    put_opt(&mut item, "siteUrl", &new.site_url);
    put_opt(&mut item, "description", &new.description);
    item.insert("createdAt".into(), s(created_at));
    item.insert("gsi1pk".into(), s(SOURCES));
    item.insert("gsi1sk".into(), s(format!("{created_at}#{}", new.id)));
    item
}

/// True when the source item is retired: it answers no read.
pub(super) fn is_retired(item: &Item) -> bool {
    item.contains_key(RETIRED_AT)
}

/// A source from its item, its counters and its fetch bookkeeping (for a source written
/// before they were split off, the item itself holds all three).
/// The source's [`crate::FullTextMode`], on its `META` item (absent: `auto`).
pub(super) const FULL_TEXT: &str = "fullText";

pub(super) fn to_source(
    table: &str,
    item: &Item,
    counts: &Item,
    fetch: &Item,
) -> Result<Source, DynamoError> {
    Ok(Source {
        id: item.string(table, "id")?,
        url: item.string(table, "url")?,
        title: item.string(table, "title")?,
        site_url: item.opt_string("siteUrl"),
        description: item.opt_string("description"),
        subscriber_count: counts.counter(table, "subscriberCount")?,
        last_fetched_at: fetch.opt_string("lastFetchedAt"),
        created_at: item.string(table, "createdAt")?,
        full_text: crate::model::FullTextMode::from_stored(item.opt_string(FULL_TEXT).as_deref()),
    })
}

pub(super) fn to_fetch_state(table: &str, item: &Item) -> Result<FetchState, DynamoError> {
    let failures = item.counter(table, "failures")?.max(0);
    Ok(FetchState {
        etag: item.opt_string("etag"),
        last_modified: item.opt_string("lastModified"),
        failures: u32::try_from(failures).unwrap_or(u32::MAX),
        next_fetch_at: item.opt_string("nextFetchAt"),
        push_until: item.opt_string("pushUntil"),
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

/// A narrow row of one list: the article's id under the list's sort key.
pub(super) fn list_row(pk: String, sk: String, article_id: &str) -> Item {
    let mut row = key(pk, sk);
    row.insert("articleId".into(), s(article_id));
    row
}

/// The keys of every index row of an article but its source row: in the list of every
/// article, under each topic, and under each topic of its source.
pub(super) fn index_row_keys(
    source_id: &str,
    article_id: &str,
    published_at: &str,
    topic_ids: &[String],
) -> Vec<Item> {
    let sk = article_row_sk(published_at, article_id);
    let year = bucket_year(published_at);
    let mut keys = vec![key(
        articles_pk(year, shard_of(article_id, ARTICLE_SHARDS)),
        sk.clone(),
    )];
    for topic in topic_ids {
        keys.push(key(
            topic_rows_pk(topic, year, shard_of(article_id, TOPIC_SHARDS)),
            sk.clone(),
        ));
        keys.push(key(
            source_pk(source_id),
            format!("{}{sk}", source_topic_prefix(topic)),
        ));
    }
    keys
}

/// Every index row of an article but its source row (see [`index_row_keys`]).
pub(super) fn index_rows(a: &NewArticle) -> Vec<Item> {
    let topics: Vec<String> = a.topics.iter().map(|t| t.id.clone()).collect();
    index_row_keys(&a.source_id, &a.id, &a.published_at, &topics)
        .into_iter()
        .filter_map(|k| {
            let pk = k.get("pk")?.as_s().ok()?.clone();
            let sk = k.get("sk")?.as_s().ok()?.clone();
            Some(list_row(pk, sk, &a.id))
        })
        .collect()
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
    fn articles_spread_over_every_shard_and_bucket_by_year() {
        let mut counts = [0_u32; ARTICLE_SHARDS as usize];
        for n in 0..8000 {
            let id = crate::ingest::article_id("source", &format!("guid-{n}"));
            let shard = shard_of(&id, ARTICLE_SHARDS);
            assert_eq!(shard, shard_of(&id, ARTICLE_SHARDS), "stable");
            if let Some(count) = counts.get_mut(shard as usize) {
                *count += 1;
            }
        }
        // About 1,000 each: no shard takes much more than its share of the writes.
        assert!(counts.iter().all(|c| (850..1150).contains(c)), "{counts:?}");
        assert_eq!(bucket_year("2025-09-01T10:00:00.000Z"), 2025);
        assert_eq!(bucket_year("1998-01-01T00:00:00.000Z"), FIRST_YEAR);
        assert_eq!(bucket_year("garbage"), FIRST_YEAR);
        let keys = index_row_keys("s", "a1", "2025-09-01T10:00:00.000Z", &["tech".into()]);
        let pks: Vec<String> = keys
            .iter()
            .filter_map(|k| k.get("pk").and_then(|v| v.as_s().ok()).cloned())
            .collect();
        assert_eq!(
            pks,
            vec![
                format!("ARTICLES#2025#{}", shard_of("a1", ARTICLE_SHARDS)),
                format!("TOPIC#tech#2025#{}", shard_of("a1", TOPIC_SHARDS)),
                "SOURCE#s".to_string(),
            ]
        );
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
