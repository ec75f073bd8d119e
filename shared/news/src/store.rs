//! The content table (Document A's "database named content").
//!
//! Keys `pk`/`sk`, and one index `gsi1` (`gsi1pk`/`gsi1sk`) for the three lists. Items:
//!
//! | pk | sk | gsi1pk / gsi1sk | holds |
//! |---|---|---|---|
//! | `SOURCE#{id}` | `META` | `SOURCES` / `{createdAt}#{id}` | a source, its counters and fetch state |
//! | `SOURCE#{id}` | `SUB#{userId}` | | one subscriber (membership as items) |
//! | `SOURCE#{id}` | `ART#{publishedAt}#{articleId}` | | the source's articles, newest last |
//! | `ARTICLE#{id}` | `META` | `ARTICLES` / `{publishedAt}#{id}` | an article |
//! | `TOPIC#{id}` | `META` | `TOPICS` / `{name}` | a topic and its article count |
//! | `TOPIC#{id}` | `ART#{publishedAt}#{articleId}` | | the topic's articles |
//! | `STATS` | `ARTICLES` | | the number of articles |
//!
//! Access patterns (no Scan anywhere):
//! - list sources, topics: Query `gsi1` on `SOURCES` / `TOPICS`;
//! - one source, article: GetItem; saved articles: BatchGetItem in the order asked;
//! - articles newest first: Query `gsi1` on `ARTICLES`, or the `ART#` rows of a source or topic
//!   descending, then BatchGetItem of the page; totals from the counters above (GetItem);
//! - subscribe / unsubscribe: one transaction puts or deletes the membership item and adds ±1
//!   to `subscriberCount`, so concurrent and repeated calls never drift the count;
//! - upsert article: one transaction, conditional on the article not existing and the source
//!   existing, writes the article, its index rows and every counter: redelivery is a no-op.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Delete, KeysAndAttributes, Put, TransactWriteItem, Update,
};
use aws_sdk_dynamodb::Client;
use platform::aws::describe;
use platform::dynamo::{key, n, s, Attributes, Item};

use crate::model::{Article, Page, Source, TopicRef, TopicSummary};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("source not found")]
    SourceNotFound,
    #[error("concurrent update, try again")]
    Contention,
    #[error("content table: {0}")]
    Aws(String),
    #[error("content table holds an unreadable item: {0}")]
    Corrupt(String),
}

/// A source as first stored.
pub struct NewSource {
    pub id: String,
    pub url: String,
    pub title: String,
    pub site_url: Option<String>,
    pub description: Option<String>,
}

/// An article as the feed worker stores it.
pub struct NewArticle {
    pub id: String,
    pub source_id: String,
    pub source_title: String,
    pub title: String,
    pub link: Option<String>,
    pub author: Option<String>,
    pub published_at: String,
    pub summary: Option<String>,
    pub paragraphs: Vec<String>,
    pub topics: Vec<TopicRef>,
    pub image_url: Option<String>,
}

/// What an upsert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upsert {
    Inserted,
    AlreadyStored,
    SourceGone,
}

/// Fetch bookkeeping of a source.
#[derive(Debug, Clone, Default)]
pub struct FetchState {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub failures: u32,
    pub next_fetch_at: Option<String>,
}

/// Which articles a page lists.
#[derive(Debug, Clone, Default)]
pub struct ArticleFilter {
    pub source_id: Option<String>,
    pub topic_id: Option<String>,
}

#[derive(Clone)]
pub struct ContentStore {
    db: Client,
    table: String,
}

// Interim: the toolkit migration of this store replaces these.
fn opt_s(item: &Item, name: &str) -> Option<String> {
    item.opt_string(name)
}
fn num(item: &Item, name: &str) -> i64 {
    item.counter("content", name).unwrap_or(0)
}
fn cancellation_codes(err: &SdkError<TransactWriteItemsError>) -> Option<Vec<String>> {
    match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(e)) => Some(
            e.cancellation_reasons()
                .iter()
                .map(|r| r.code().unwrap_or("None").to_string())
                .collect(),
        ),
        _ => None,
    }
}
fn failed_at(codes: &[String], index: usize) -> bool {
    codes
        .get(index)
        .is_some_and(|c| c == "ConditionalCheckFailed")
}
fn contention(codes: &[String]) -> bool {
    codes.iter().any(|c| c == "TransactionConflict")
}

fn req_s(item: &Item, name: &str) -> Result<String, StoreError> {
    opt_s(item, name).ok_or_else(|| StoreError::Corrupt(format!("missing {name}")))
}

fn put_opt(item: &mut Item, name: &str, value: &Option<String>) {
    if let Some(v) = value {
        item.insert(name.to_string(), s(v));
    }
}

fn aws<E: std::error::Error>(e: E) -> StoreError {
    StoreError::Aws(describe(&e))
}

fn to_source(item: &Item) -> Result<Source, StoreError> {
    Ok(Source {
        id: req_s(item, "id")?,
        url: req_s(item, "url")?,
        title: req_s(item, "title")?,
        site_url: opt_s(item, "siteUrl"),
        description: opt_s(item, "description"),
        subscriber_count: num(item, "subscriberCount"),
        last_fetched_at: opt_s(item, "lastFetchedAt"),
        created_at: req_s(item, "createdAt")?,
    })
}

fn to_fetch_state(item: &Item) -> FetchState {
    FetchState {
        etag: opt_s(item, "etag"),
        last_modified: opt_s(item, "lastModified"),
        failures: num(item, "failures").max(0) as u32,
        next_fetch_at: opt_s(item, "nextFetchAt"),
    }
}

fn to_article(item: &Item, with_body: bool) -> Result<Article, StoreError> {
    let topics = item
        .get("topics")
        .and_then(|v| v.as_l().ok())
        .map(|l| {
            l.iter()
                .filter_map(|t| t.as_m().ok())
                .filter_map(|m| {
                    Some(TopicRef {
                        id: opt_s(m, "id")?,
                        name: opt_s(m, "name")?,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let paragraphs = with_body.then(|| {
        item.get("paragraphs")
            .and_then(|v| v.as_l().ok())
            .map(|l| l.iter().filter_map(|p| p.as_s().ok()).cloned().collect())
            .unwrap_or_default()
    });
    Ok(Article {
        id: req_s(item, "id")?,
        source_id: req_s(item, "sourceId")?,
        source_title: req_s(item, "sourceTitle")?,
        title: req_s(item, "title")?,
        link: opt_s(item, "link"),
        author: opt_s(item, "author"),
        published_at: req_s(item, "publishedAt")?,
        summary: opt_s(item, "summary"),
        paragraphs,
        topics,
        image_url: opt_s(item, "imageUrl"),
    })
}

const ATTEMPTS: u64 = 5;
/// DynamoDB's limit on the items of one transaction.
const MAX_TRANSACTION_ITEMS: usize = 100;

async fn backoff(attempt: u64) {
    tokio::time::sleep(std::time::Duration::from_millis(15 * attempt * attempt)).await;
}

impl ContentStore {
    pub fn new(db: Client, table: impl Into<String>) -> Self {
        Self {
            db,
            table: table.into(),
        }
    }

    /// The table named by `CONTENT_TABLE`.
    pub fn from_env(
        env: &platform::Env,
        aws: &platform::aws::AwsClients,
    ) -> Result<Self, platform::ConfigError> {
        Ok(Self::new(
            aws.dynamodb.clone(),
            env.require("CONTENT_TABLE")?,
        ))
    }

    fn put(&self, item: Item, condition: Option<&str>) -> Result<TransactWriteItem, StoreError> {
        let put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_string))
            .build()
            .map_err(aws)?;
        Ok(TransactWriteItem::builder().put(put).build())
    }

    fn delete(&self, key: Item, condition: Option<&str>) -> Result<TransactWriteItem, StoreError> {
        let delete = Delete::builder()
            .table_name(&self.table)
            .set_key(Some(key))
            .set_condition_expression(condition.map(str::to_string))
            .build()
            .map_err(aws)?;
        Ok(TransactWriteItem::builder().delete(delete).build())
    }

    fn add(
        &self,
        key: Item,
        attribute: &str,
        delta: i64,
        condition: Option<&str>,
    ) -> Result<TransactWriteItem, StoreError> {
        let update = Update::builder()
            .table_name(&self.table)
            .set_key(Some(key))
            .update_expression("ADD #c :d")
            .expression_attribute_names("#c", attribute)
            .expression_attribute_values(":d", n(delta))
            .set_condition_expression(condition.map(str::to_string))
            .build()
            .map_err(aws)?;
        Ok(TransactWriteItem::builder().update(update).build())
    }

    async fn transact(
        &self,
        items: Vec<TransactWriteItem>,
    ) -> Result<(), SdkError<TransactWriteItemsError>> {
        self.db
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
            .map(|_| ())
    }

    /// Stores a new source; when one with the same id (same normalised URL) exists, returns
    /// that one instead and `false`.
    pub async fn create_source(&self, new: NewSource) -> Result<(Source, bool), StoreError> {
        let now = now();
        let mut item = key(format!("SOURCE#{}", new.id), "META");
        item.insert("id".into(), s(&new.id));
        item.insert("url".into(), s(&new.url));
        item.insert("title".into(), s(&new.title));
        put_opt(&mut item, "siteUrl", &new.site_url);
        put_opt(&mut item, "description", &new.description);
        item.insert("subscriberCount".into(), n(0));
        item.insert("articleCount".into(), n(0));
        item.insert("createdAt".into(), s(&now));
        item.insert("gsi1pk".into(), s("SOURCES"));
        item.insert("gsi1sk".into(), s(format!("{now}#{}", new.id)));
        let result = self
            .db
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item.clone()))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        match result {
            Ok(_) => Ok((to_source(&item)?, true)),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                let existing = self.source(&new.id).await?.ok_or(StoreError::Contention)?;
                Ok((existing, false))
            }
            Err(e) => Err(aws(e)),
        }
    }

    async fn source_item(&self, id: &str) -> Result<Option<Item>, StoreError> {
        let out = self
            .db
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(format!("SOURCE#{id}"), "META")))
            .consistent_read(true)
            .send()
            .await
            .map_err(aws)?;
        Ok(out.item)
    }

    pub async fn source(&self, id: &str) -> Result<Option<Source>, StoreError> {
        self.source_item(id)
            .await?
            .as_ref()
            .map(to_source)
            .transpose()
    }

    /// The source with its fetch bookkeeping (for the feed worker).
    pub async fn source_for_fetch(
        &self,
        id: &str,
    ) -> Result<Option<(Source, FetchState)>, StoreError> {
        match self.source_item(id).await? {
            Some(item) => Ok(Some((to_source(&item)?, to_fetch_state(&item)))),
            None => Ok(None),
        }
    }

    /// Every item of one `gsi1` list, in index order.
    async fn list_index(
        &self,
        partition: &str,
        newest_first: bool,
    ) -> Result<Vec<Item>, StoreError> {
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let out = self
                .db
                .query()
                .table_name(&self.table)
                .index_name("gsi1")
                .key_condition_expression("gsi1pk = :p")
                .expression_attribute_values(":p", s(partition))
                .scan_index_forward(!newest_first)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(aws)?;
            items.extend(out.items.unwrap_or_default());
            start = out.last_evaluated_key;
            if start.is_none() {
                return Ok(items);
            }
        }
    }

    pub async fn sources(&self) -> Result<Vec<Source>, StoreError> {
        self.list_index("SOURCES", false)
            .await?
            .iter()
            .map(to_source)
            .collect()
    }

    /// Sources and their fetch state (for the scheduler).
    pub async fn sources_for_fetch(&self) -> Result<Vec<(Source, FetchState)>, StoreError> {
        self.list_index("SOURCES", false)
            .await?
            .iter()
            .map(|item| Ok((to_source(item)?, to_fetch_state(item))))
            .collect()
    }

    pub async fn topics(&self) -> Result<Vec<TopicSummary>, StoreError> {
        Ok(self
            .list_index("TOPICS", false)
            .await?
            .iter()
            .filter_map(|item| {
                Some(TopicSummary {
                    id: opt_s(item, "id")?,
                    name: opt_s(item, "name")?,
                    article_count: num(item, "articleCount"),
                })
            })
            .filter(|t| t.article_count > 0)
            .collect())
    }

    /// Adds `user_id` as a subscriber; a repeat is a no-op. Returns the source.
    pub async fn subscribe(&self, source_id: &str, user_id: &str) -> Result<Source, StoreError> {
        let pk = format!("SOURCE#{source_id}");
        for attempt in 1..=ATTEMPTS {
            let mut membership = key(&pk, format!("SUB#{user_id}"));
            membership.insert("userId".into(), s(user_id));
            membership.insert("subscribedAt".into(), s(now()));
            let items = vec![
                self.put(membership, Some("attribute_not_exists(pk)"))?,
                self.add(
                    key(&pk, "META"),
                    "subscriberCount",
                    1,
                    Some("attribute_exists(pk)"),
                )?,
            ];
            match self.transact(items).await {
                Ok(()) => break,
                Err(err) => match cancellation_codes(&err) {
                    Some(codes) if failed_at(&codes, 1) => return Err(StoreError::SourceNotFound),
                    Some(codes) if failed_at(&codes, 0) => break,
                    Some(codes) if contention(&codes) && attempt < ATTEMPTS => {
                        backoff(attempt).await
                    }
                    Some(_) => return Err(StoreError::Contention),
                    None => return Err(aws(err)),
                },
            }
        }
        self.source(source_id)
            .await?
            .ok_or(StoreError::SourceNotFound)
    }

    /// Removes `user_id`; a repeat is a no-op. When the last subscriber leaves, deletes the
    /// source and its articles. Returns the remaining count and whether the source is gone.
    pub async fn unsubscribe(
        &self,
        source_id: &str,
        user_id: &str,
    ) -> Result<(i64, bool), StoreError> {
        let pk = format!("SOURCE#{source_id}");
        if self.source_item(source_id).await?.is_none() {
            return Err(StoreError::SourceNotFound);
        }
        for attempt in 1..=ATTEMPTS {
            let items = vec![
                self.delete(
                    key(&pk, format!("SUB#{user_id}")),
                    Some("attribute_exists(pk)"),
                )?,
                self.add(
                    key(&pk, "META"),
                    "subscriberCount",
                    -1,
                    Some("attribute_exists(pk)"),
                )?,
            ];
            match self.transact(items).await {
                Ok(()) => break,
                Err(err) => match cancellation_codes(&err) {
                    Some(codes) if failed_at(&codes, 1) => return Ok((0, true)),
                    Some(codes) if failed_at(&codes, 0) => break,
                    Some(codes) if contention(&codes) && attempt < ATTEMPTS => {
                        backoff(attempt).await
                    }
                    Some(_) => return Err(StoreError::Contention),
                    None => return Err(aws(err)),
                },
            }
        }
        let Some(item) = self.source_item(source_id).await? else {
            return Ok((0, true));
        };
        let count = num(&item, "subscriberCount");
        if count > 0 {
            return Ok((count, false));
        }
        let deleted = self.delete_source_if_unsubscribed(source_id).await?;
        Ok((0, deleted))
    }

    /// Deletes the source when it still has no subscriber (a subscribe racing in keeps it),
    /// then its articles.
    async fn delete_source_if_unsubscribed(&self, source_id: &str) -> Result<bool, StoreError> {
        let result = self
            .db
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key(format!("SOURCE#{source_id}"), "META")))
            .condition_expression("subscriberCount <= :zero")
            .expression_attribute_values(":zero", n(0))
            .send()
            .await;
        match result {
            Ok(_) => {}
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                // Either a subscriber arrived (source stays) or a concurrent unsubscribe deleted it.
                return Ok(self.source_item(source_id).await?.is_none());
            }
            Err(e) => return Err(aws(e)),
        }
        tracing::info!(
            source_id,
            "last subscriber left; deleting source and its articles"
        );
        self.delete_articles_of(source_id).await?;
        Ok(true)
    }

    /// Deletes every row under the source's partition (memberships and articles with their
    /// topic rows and counters). Safe to run twice.
    async fn delete_articles_of(&self, source_id: &str) -> Result<(), StoreError> {
        let pk = format!("SOURCE#{source_id}");
        let mut start = None;
        loop {
            let out = self
                .db
                .query()
                .table_name(&self.table)
                .key_condition_expression("pk = :p")
                .expression_attribute_values(":p", s(&pk))
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(aws)?;
            for row in out.items.unwrap_or_default() {
                let sk = req_s(&row, "sk")?;
                if let Some(rest) = sk.strip_prefix("ART#") {
                    self.delete_article(&pk, &sk, rest, &row).await?;
                } else {
                    self.db
                        .delete_item()
                        .table_name(&self.table)
                        .set_key(Some(key(&pk, &sk)))
                        .send()
                        .await
                        .map_err(aws)?;
                }
            }
            start = out.last_evaluated_key;
            if start.is_none() {
                return Ok(());
            }
        }
    }

    async fn delete_article(
        &self,
        pk: &str,
        sk: &str,
        rest: &str,
        row: &Item,
    ) -> Result<(), StoreError> {
        let article_id = req_s(row, "articleId")?;
        let topic_ids: Vec<String> = row
            .get("topicIds")
            .and_then(|v| v.as_l().ok())
            .map(|l| l.iter().filter_map(|t| t.as_s().ok()).cloned().collect())
            .unwrap_or_default();
        let mut items = vec![
            self.delete(
                key(format!("ARTICLE#{article_id}"), "META"),
                Some("attribute_exists(pk)"),
            )?,
            self.delete(key(pk, sk), None)?,
            self.add(key("STATS", "ARTICLES"), "articleCount", -1, None)?,
        ];
        for topic in &topic_ids {
            items.push(self.delete(key(format!("TOPIC#{topic}"), format!("ART#{rest}")), None)?);
            items.push(self.add(
                key(format!("TOPIC#{topic}"), "META"),
                "articleCount",
                -1,
                None,
            )?);
        }
        match self.transact(items).await {
            Ok(()) => Ok(()),
            // Already deleted by a concurrent cleanup: only the index row may remain.
            Err(err) if cancellation_codes(&err).is_some_and(|c| failed_at(&c, 0)) => self
                .db
                .delete_item()
                .table_name(&self.table)
                .set_key(Some(key(pk, sk)))
                .send()
                .await
                .map(|_| ())
                .map_err(aws),
            Err(err) => Err(aws(err)),
        }
    }

    /// The article item and its index rows, each conditional so a repeat writes nothing.
    fn article_writes(&self, a: &NewArticle) -> Result<Vec<TransactWriteItem>, StoreError> {
        let sort = format!("ART#{}#{}", a.published_at, a.id);
        let topic_ids: Vec<AttributeValue> = a.topics.iter().map(|t| s(&t.id)).collect();
        let mut article = key(format!("ARTICLE#{}", a.id), "META");
        article.insert("id".into(), s(&a.id));
        article.insert("sourceId".into(), s(&a.source_id));
        article.insert("sourceTitle".into(), s(&a.source_title));
        article.insert("title".into(), s(&a.title));
        put_opt(&mut article, "link", &a.link);
        put_opt(&mut article, "author", &a.author);
        article.insert("publishedAt".into(), s(&a.published_at));
        put_opt(&mut article, "summary", &a.summary);
        put_opt(&mut article, "imageUrl", &a.image_url);
        article.insert(
            "paragraphs".into(),
            AttributeValue::L(a.paragraphs.iter().map(s).collect()),
        );
        article.insert(
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
        article.insert("gsi1pk".into(), s("ARTICLES"));
        article.insert("gsi1sk".into(), s(format!("{}#{}", a.published_at, a.id)));

        let mut by_source = key(format!("SOURCE#{}", a.source_id), &sort);
        by_source.insert("articleId".into(), s(&a.id));
        by_source.insert("topicIds".into(), AttributeValue::L(topic_ids));

        let mut items = vec![
            self.put(article, Some("attribute_not_exists(pk)"))?,
            self.put(by_source, None)?,
        ];
        for topic in &a.topics {
            let mut row = key(format!("TOPIC#{}", topic.id), &sort);
            row.insert("articleId".into(), s(&a.id));
            row.insert("sourceId".into(), s(&a.source_id));
            items.push(self.put(row, None)?);
        }
        Ok(items)
    }

    /// Adds `delta` articles to a topic, creating it on first use.
    fn topic_counter(&self, topic: &TopicRef, delta: i64) -> Result<TransactWriteItem, StoreError> {
        let update = Update::builder()
            .table_name(&self.table)
            .set_key(Some(key(format!("TOPIC#{}", topic.id), "META")))
            .update_expression(
                "SET #id = :id, #name = if_not_exists(#name, :name), gsi1pk = :list, \
                 gsi1sk = if_not_exists(gsi1sk, :name) ADD articleCount :n",
            )
            .expression_attribute_names("#id", "id")
            .expression_attribute_names("#name", "name")
            .expression_attribute_values(":id", s(&topic.id))
            .expression_attribute_values(":name", s(&topic.name))
            .expression_attribute_values(":list", s("TOPICS"))
            .expression_attribute_values(":n", n(delta))
            .build()
            .map_err(aws)?;
        Ok(TransactWriteItem::builder().update(update).build())
    }

    /// One transaction storing `articles` (all of one source) with every counter they change:
    /// the source's (item 0, conditional on the source existing), the total, each topic's.
    fn articles_transaction(
        &self,
        articles: &[&NewArticle],
    ) -> Result<(Vec<TransactWriteItem>, Vec<usize>), StoreError> {
        let Some(first) = articles.first() else {
            return Ok((Vec::new(), Vec::new()));
        };
        let count = articles.len() as i64;
        let mut items = vec![
            self.add(
                key(format!("SOURCE#{}", first.source_id), "META"),
                "articleCount",
                count,
                Some("attribute_exists(pk)"),
            )?,
            self.add(key("STATS", "ARTICLES"), "articleCount", count, None)?,
        ];
        let mut topics: Vec<(&TopicRef, i64)> = Vec::new();
        for topic in articles.iter().flat_map(|a| &a.topics) {
            match topics.iter_mut().find(|(t, _)| t.id == topic.id) {
                Some((_, n)) => *n += 1,
                None => topics.push((topic, 1)),
            }
        }
        for (topic, delta) in topics {
            items.push(self.topic_counter(topic, delta)?);
        }
        // Where each article's conditional put sits, to tell which one already existed.
        let mut article_positions = Vec::with_capacity(articles.len());
        for a in articles {
            article_positions.push(items.len());
            items.extend(self.article_writes(a)?);
        }
        Ok((items, article_positions))
    }

    /// At most how many items [`Self::articles_transaction`] writes for one more article: its
    /// own writes and a counter per topic (the source and total counters come once).
    fn items_for(a: &NewArticle) -> usize {
        2 + 2 * a.topics.len()
    }

    /// Stores an article once: a repeat (redelivered message, refetched feed) changes nothing.
    pub async fn upsert_article(&self, a: &NewArticle) -> Result<Upsert, StoreError> {
        let (items, positions) = self.articles_transaction(&[a])?;
        for attempt in 1..=ATTEMPTS {
            match self.transact(items.clone()).await {
                Ok(()) => return Ok(Upsert::Inserted),
                Err(err) => match cancellation_codes(&err) {
                    Some(codes) if failed_at(&codes, positions[0]) => {
                        return Ok(Upsert::AlreadyStored)
                    }
                    Some(codes) if failed_at(&codes, 0) => return Ok(Upsert::SourceGone),
                    Some(codes) if contention(&codes) && attempt < ATTEMPTS => {
                        backoff(attempt).await
                    }
                    Some(_) => return Err(StoreError::Contention),
                    None => return Err(aws(err)),
                },
            }
        }
        Err(StoreError::Contention)
    }

    /// Stores a source's articles, each once, answering per article in the order given.
    /// Articles already stored are found with one batch read; the new ones are written
    /// several to a transaction (counters summed), falling back to one at a time when a
    /// transaction finds one of them stored meanwhile.
    pub async fn upsert_articles(
        &self,
        articles: &[NewArticle],
    ) -> Result<Vec<Upsert>, StoreError> {
        let ids: Vec<String> = articles.iter().map(|a| a.id.clone()).collect();
        let stored = self.existing_article_ids(&ids).await?;
        // A feed may repeat an entry; one transaction must not write an item twice.
        let mut seen = std::collections::HashSet::new();
        let mut results: Vec<Option<Upsert>> = articles
            .iter()
            .map(|a| {
                (stored.contains(&a.id) || !seen.insert(a.id.as_str()))
                    .then_some(Upsert::AlreadyStored)
            })
            .collect();
        let fresh: Vec<usize> = (0..articles.len())
            .filter(|i| results[*i].is_none())
            .collect();

        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut size = 0;
        for i in fresh {
            let needed = Self::items_for(&articles[i]);
            if groups.is_empty() || size + needed > MAX_TRANSACTION_ITEMS - 2 {
                groups.push(Vec::new());
                size = 0;
            }
            size += needed;
            if let Some(group) = groups.last_mut() {
                group.push(i);
            }
        }
        for group in groups {
            let members: Vec<&NewArticle> = group.iter().map(|i| &articles[*i]).collect();
            let (items, _) = self.articles_transaction(&members)?;
            let outcome = self.transact(items).await;
            match outcome {
                Ok(()) => group
                    .iter()
                    .for_each(|i| results[*i] = Some(Upsert::Inserted)),
                Err(err) => match cancellation_codes(&err) {
                    Some(codes) if failed_at(&codes, 0) => {
                        for r in results.iter_mut().filter(|r| r.is_none()) {
                            *r = Some(Upsert::SourceGone);
                        }
                        break;
                    }
                    // One of them was stored meanwhile, or contention: one at a time.
                    Some(_) => {
                        for i in group {
                            results[i] = Some(self.upsert_article(&articles[i]).await?);
                        }
                    }
                    None => return Err(aws(err)),
                },
            }
        }
        Ok(results
            .into_iter()
            .map(|r| r.unwrap_or(Upsert::SourceGone))
            .collect())
    }

    /// Which of these article ids are stored (one BatchGetItem per 100 ids).
    async fn existing_article_ids(
        &self,
        ids: &[String],
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        self.article_items(ids, Some("id"))
            .await?
            .iter()
            .map(|item| req_s(item, "id"))
            .collect()
    }

    /// The article items with these ids (each asked once), in no particular order: one
    /// BatchGetItem per 100 ids, retrying unprocessed keys.
    async fn article_items(
        &self,
        ids: &[String],
        projection: Option<&str>,
    ) -> Result<Vec<Item>, StoreError> {
        // BatchGetItem refuses a request that names one key twice.
        let mut unique: Vec<&String> = Vec::with_capacity(ids.len());
        for id in ids {
            if !unique.contains(&id) {
                unique.push(id);
            }
        }
        let mut items = Vec::new();
        for chunk in unique.chunks(100) {
            let mut keys: Vec<Item> = chunk
                .iter()
                .map(|id| key(format!("ARTICLE#{id}"), "META"))
                .collect();
            let mut rounds = 0;
            while !keys.is_empty() && rounds < 8 {
                rounds += 1;
                let request = KeysAndAttributes::builder()
                    .set_keys(Some(keys.clone()))
                    .set_projection_expression(projection.map(str::to_string))
                    .build()
                    .map_err(aws)?;
                let out = self
                    .db
                    .batch_get_item()
                    .request_items(&self.table, request)
                    .send()
                    .await
                    .map_err(aws)?;
                items.extend(
                    out.responses
                        .and_then(|mut r| r.remove(&self.table))
                        .unwrap_or_default(),
                );
                keys = out
                    .unprocessed_keys
                    .and_then(|mut u| u.remove(&self.table))
                    .map(|k| k.keys)
                    .unwrap_or_default();
                if !keys.is_empty() {
                    backoff(rounds).await;
                }
            }
        }
        Ok(items)
    }

    /// Records a fetch attempt's outcome on the source.
    pub async fn record_fetch(
        &self,
        source_id: &str,
        state: &FetchState,
        fetched: bool,
        title: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut sets = vec!["failures = :f"];
        let mut values: Item = HashMap::from([(":f".to_string(), n(i64::from(state.failures)))]);
        let mut removes = Vec::new();
        for (attr, placeholder, value) in [
            ("etag", ":e", &state.etag),
            ("lastModified", ":m", &state.last_modified),
            ("nextFetchAt", ":n", &state.next_fetch_at),
        ] {
            match value {
                Some(v) => {
                    sets.push(match attr {
                        "etag" => "etag = :e",
                        "lastModified" => "lastModified = :m",
                        _ => "nextFetchAt = :n",
                    });
                    values.insert(placeholder.to_string(), s(v));
                }
                None => removes.push(attr),
            }
        }
        if fetched {
            sets.push("lastFetchedAt = :now");
            values.insert(":now".into(), s(now()));
        }
        if let Some(t) = title.filter(|t| !t.trim().is_empty()) {
            sets.push("title = :t");
            values.insert(":t".into(), s(t));
        }
        let mut expression = format!("SET {}", sets.join(", "));
        if !removes.is_empty() {
            expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        let result = self
            .db
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(format!("SOURCE#{source_id}"), "META")))
            .update_expression(expression)
            .condition_expression("attribute_exists(pk)")
            .set_expression_attribute_values(Some(values))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Err(StoreError::SourceNotFound)
            }
            Err(e) => Err(aws(e)),
        }
    }

    pub async fn article(&self, id: &str) -> Result<Option<Article>, StoreError> {
        let out = self
            .db
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(format!("ARTICLE#{id}"), "META")))
            .send()
            .await
            .map_err(aws)?;
        out.item.as_ref().map(|i| to_article(i, true)).transpose()
    }

    /// The articles with these ids, in the order asked; unknown ids are skipped.
    pub async fn articles_by_ids(
        &self,
        ids: &[String],
        with_body: bool,
    ) -> Result<Vec<Article>, StoreError> {
        let mut found: HashMap<String, Article> = HashMap::new();
        for item in self.article_items(ids, None).await? {
            let article = to_article(&item, with_body)?;
            found.insert(article.id.clone(), article);
        }
        Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
    }

    /// One page of articles, newest first.
    pub async fn articles_page(
        &self,
        filter: &ArticleFilter,
        page: u32,
        size: u32,
    ) -> Result<Page<Article>, StoreError> {
        let skip = u64::from(page) * u64::from(size);
        let wanted = skip + u64::from(size);
        let (ids, total) = match (&filter.source_id, &filter.topic_id) {
            (None, None) => {
                let ids = self.index_ids("ARTICLES", wanted).await?;
                let total = num(
                    &self
                        .get(key("STATS", "ARTICLES"))
                        .await?
                        .unwrap_or_default(),
                    "articleCount",
                );
                (ids, total.max(0) as u64)
            }
            (Some(source), None) => {
                let pk = format!("SOURCE#{source}");
                let ids = self.partition_ids(&pk, None, wanted).await?;
                let total = num(
                    &self.get(key(&pk, "META")).await?.unwrap_or_default(),
                    "articleCount",
                );
                (ids, total.max(0) as u64)
            }
            (None, Some(topic)) => {
                let pk = format!("TOPIC#{topic}");
                let ids = self.partition_ids(&pk, None, wanted).await?;
                let total = num(
                    &self.get(key(&pk, "META")).await?.unwrap_or_default(),
                    "articleCount",
                );
                (ids, total.max(0) as u64)
            }
            (Some(source), Some(topic)) => {
                // The topic's rows filtered by source: counted as we read them all.
                let ids = self
                    .partition_ids(&format!("TOPIC#{topic}"), Some(source), u64::MAX)
                    .await?;
                let total = ids.len() as u64;
                (ids, total)
            }
        };
        let page_ids: Vec<String> = ids
            .into_iter()
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .take(size as usize)
            .collect();
        let content = self.articles_by_ids(&page_ids, false).await?;
        Ok(Page::new(content, page, size, total))
    }

    async fn get(&self, key: Item) -> Result<Option<Item>, StoreError> {
        Ok(self
            .db
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key))
            .send()
            .await
            .map_err(aws)?
            .item)
    }

    /// Article ids of a `gsi1` list, newest first, at most `limit`.
    async fn index_ids(&self, partition: &str, limit: u64) -> Result<Vec<String>, StoreError> {
        let mut ids = Vec::new();
        let mut start = None;
        while (ids.len() as u64) < limit {
            let out = self
                .db
                .query()
                .table_name(&self.table)
                .index_name("gsi1")
                .key_condition_expression("gsi1pk = :p")
                .expression_attribute_values(":p", s(partition))
                .projection_expression("id")
                .scan_index_forward(false)
                .limit(i32::try_from((limit - ids.len() as u64).min(1000)).unwrap_or(1000))
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(aws)?;
            ids.extend(
                out.items
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|i| opt_s(i, "id")),
            );
            start = out.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
        Ok(ids)
    }

    /// Article ids under `ART#` rows of a partition, newest first, at most `limit`.
    async fn partition_ids(
        &self,
        pk: &str,
        source: Option<&str>,
        limit: u64,
    ) -> Result<Vec<String>, StoreError> {
        let mut ids = Vec::new();
        let mut start = None;
        while (ids.len() as u64) < limit {
            let mut query = self
                .db
                .query()
                .table_name(&self.table)
                .key_condition_expression("pk = :p AND begins_with(sk, :art)")
                .expression_attribute_values(":p", s(pk))
                .expression_attribute_values(":art", s("ART#"))
                .scan_index_forward(false)
                .set_exclusive_start_key(start);
            if let Some(source) = source {
                query = query
                    .filter_expression("sourceId = :source")
                    .expression_attribute_values(":source", s(source));
            } else {
                query = query
                    .limit(i32::try_from((limit - ids.len() as u64).min(1000)).unwrap_or(1000));
            }
            let out = query.send().await.map_err(aws)?;
            ids.extend(
                out.items
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|i| opt_s(i, "articleId")),
            );
            start = out.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
        Ok(ids)
    }

    /// Reads one small item: proves the table answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.get(key("HEALTH", "PING")).await.map(|_| ())
    }
}

pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
