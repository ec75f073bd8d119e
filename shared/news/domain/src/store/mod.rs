//! The content table (the "database named content").
//!
//! Keys `pk`/`sk`, and one index `gsi1` (`gsi1pk`/`gsi1sk`) for the source and topic lists.
//! No item that changes with traffic (a counter, fetch bookkeeping, an article) carries a
//! `gsi1` key, so no index copy is rewritten by it. Items:
//!
//! | pk | sk | gsi1pk / gsi1sk | holds |
//! |---|---|---|---|
//! | `SOURCE#{id}` | `META` | `SOURCES` / `{createdAt}#{id}`, or `RETIRED` / `{retiredAt}#{id}` | a source; `retiredAt` once retired; written on creation, retirement, revival and a new title |
//! | `SOURCE#{id}#COUNTS` | `COUNTS` | | its `subscriberCount`, `articleCount`, and `retiredAt` (what every write conditions on); `topicRows` once its rows of each topic are all written |
//! | `SOURCE#{id}` | `FETCH` | | its fetch bookkeeping: validators, failures, `nextFetchAt`, `lastFetchedAt`, `pushUntil` (the end of its WebSub lease) |
//! | `SOURCE#{id}` | `WEBSUB` | | its WebSub subscription: `hub`, `topic`, `secret`, `state` (pending, subscribed, denied, unsubscribing), `requestedAt`, `leaseSeconds`, `expiresAt` (`websub`); at target a few writes a week per source (subscribe, verification, renewal before the 7-day lease ends) |
//! | `SOURCE#{id}` | `SUB#{userId}` | | one subscriber (membership as items) |
//! | `SOURCE#{id}` | `ART#{publishedAt}#{articleId}` | | the source's articles (with their topic ids) |
//! | `SOURCE#{id}` | `T#{topicId}#ART#{publishedAt}#{articleId}` | | the source's articles of one topic |
//! | `SOURCE#{id}` | `TOPIC#{topicId}` | | how many of them |
//! | `SOURCE#{id}#PAGES` | `PAGE#{articleId}` | | an excerpt-only article's page left for a later refresh (`link`, TTL `expiresAt` two days on); at target each source's partition sees one refresh every 15 min: one Query, at most 10 conditional deletes and 100 puts (`pages`) |
//! | `ARTICLE#{id}` | `META` | | an article |
//! | `ARTICLES#{year}#{shard}` | `ART#{publishedAt}#{articleId}` | | the list of every article: a year bucket of one of 8 write shards |
//! | `TOPIC#{id}` | `META` | `TOPICS` / `{name}` | a topic (written once) |
//! | `TOPIC#{id}#{year}#{shard}` | `ART#{publishedAt}#{articleId}` | | a topic's articles: a year bucket of one of 4 write shards |
//! | `TOPIC#{id}#COUNT#{shard}` | `COUNT` | | one shard of a topic's article count |
//! | `STATS#{shard}` | `ARTICLES` | | one shard of the article counters: `articleCount` (stored) and `retiredCount` (of retired sources, not yet swept) |
//! | `SCHEDULER` | `WALK` | | where the scheduler's walk over the sources goes on |
//! | `IMPORT#{importId}` | `META` | | an OPML import: its person (`userId`), `total` feeds, `done` so far; TTL `expiresAt` a week on, as every item of the partition; at target at most 50 feeds of one import worked at once (5 workers of 10), so under 100 writes a second on its partition while it runs |
//! | `IMPORT#{importId}` | `CLAIM#{index}` | | a feed the OPML worker started: whether the person subscribed to its source before (`wasSubscribed`); one put per feed |
//! | `IMPORT#{importId}` | `RESULT#{index}` | | a feed's outcome (`url`, `title`, `labels`, `outcome`, `sourceId`, `message`), put once with `done` + 1 in one transaction; one per feed |
//! | `ITEM#{hex16}` | `ITEM` | | the Google Reader item id (an article id's first 16 hex digits) of one article: `articleId`, `sourceId`, `publishedAt`; put in the article's insert transaction (conditional on none: a collision keeps the first), or when the reader first serves an older article (then `aliased` on its source row); at target about 580 puts a second (50M articles a day), each on its own key, written once |
//! | `READER#{userId}` | `SUB#{sourceId}` | | a person's subscription as the reader sees it: `labels`, the source's watermark `readBefore` / `readBeforeSetAt`; in the subscribe and unsubscribe transactions; at target a person's own pace (subscribing, labelling), and the counts' one Query a poll (0.7% of a partition at one poll a second, `local/bench-keyheat`) |
//! | `READER#{userId}` | `LABEL#{name}` | | the watermark of "mark all as read" on a label; one write per mark-all-read |
//! | `READER#{userId}` | `ALL` | | the watermark of "mark all as read" on everything; `importedAt` once identity's saved articles and subscriptions came over; one write per mark-all-read |
//! | `MARKS#{userId}#{sourceId}` | `{publishedAt}#{articleId}` | | a person's mark on one article: `read` / `readSetAt`, `starredAt`; TTL `expiresAt` a day past the read horizon unless starred; at target 20,000 marks a second over 1M readers, one write each, a key at a person's reading pace (0.0% of a partition) |
//! | `STARRED#{userId}` | `{starredAt}#{articleId}` | | a person's starred articles by when starred (`sourceId`, `publishedAt`), written with the mark in one transaction; a person's starring pace |
//!
//! Items written before this layout (counters and fetch state in the source's `META`,
//! `STATS`/`ARTICLES`, topic counts in `TOPIC#{id}`/`META`) still read: a source's counters
//! item is made from its `META` the first time it is read (conditional on not existing), its
//! fetch state falls back to `META` until the first fetch writes `FETCH`, and the legacy
//! counters are added into every sum. Articles stored before it are not in the sharded lists
//! (their source rows still list them by source, and the lists of every article and of a
//! topic read the old rows too); their source's rows of each topic are backfilled
//! ([`ContentStore::backfill_step`], a chain on the sweep queue the scheduler's walk starts
//! for each source whose counters item lacks `topicRows`).
//!
//! Access patterns (no Scan anywhere), and the call that serves each:
//! - list sources, topics ([`ContentStore::sources`], [`ContentStore::topics`]): Query `gsi1`
//!   on `SOURCES` / `TOPICS`, then the counters (BatchGetItem); the scheduler's walk reads a
//!   page at a time ([`ContentStore::sources_page`]);
//! - one source, one article ([`ContentStore::source`], [`ContentStore::article`]): its three
//!   items in one BatchGetItem; GetItem;
//! - saved articles ([`ContentStore::articles_by_ids`]): BatchGetItem, answered in the order
//!   asked;
//! - articles newest first ([`ContentStore::articles_page`]), by page number or by cursor
//!   (see [`feed`]): every article, or a topic's, merges the shards of one year bucket then
//!   the one before, stopping when the page is full or the walk has passed as many rows as
//!   the counters say are stored; a source's (of a topic), or several sources' (a personal
//!   feed, [`ContentStore::feed_page`]), merges the sources' own rows. Each partition is read
//!   lazily, a page's share at a time. Totals: the sharded counters summed (BatchGetItem);
//! - subscribe / unsubscribe ([`ContentStore::subscribe`], [`ContentStore::unsubscribe`]): one
//!   transaction puts or deletes the membership item and adds ±1 to the counters item, whose
//!   condition does not depend on the exact count (but for the last subscriber); the last
//!   subscriber leaving retires the source in the same transaction: `retiredAt` on both items,
//!   moved to the `RETIRED` list, its articles counted as retired. A retired source answers no
//!   read (its articles are filtered out by their source) and takes no subscriber;
//! - the sweep ([`ContentStore::sweep_step`], driven by the source-sweeper function from its
//!   queue): a bounded batch of a retired source's articles per step with every index row and
//!   counter, each transaction conditional on the same retirement; the source's items go
//!   last. Retires first a source nobody subscribed to within the grace period. Submitting a
//!   retired source's URL again revives it ([`ContentStore::create_source`]);
//! - store articles ([`ContentStore::upsert_articles`]): one BatchGetItem finds the articles
//!   already stored; the new ones go several to a transaction (at most 100 items and
//!   [`TRANSACTION_BYTES_BUDGET`] bytes, each article capped by [`fit_article`] to fit an
//!   item), each conditional on the article not existing and on the source's counters item
//!   being live, with one shard of each counter they change: redelivery is a no-op. A
//!   topic's item is created once per process, outside the transactions;
//! - fetch bookkeeping ([`ContentStore::record_fetch`]): the `FETCH` item, conditional on the
//!   next fetch time the refresh read (so one of two deliveries records it) and on the source
//!   being live; the title only when it changed;
//! - retired sources ([`ContentStore::retired_sources`]): Query `gsi1` on `RETIRED`, the
//!   oldest first, a bounded number;
//! - OPML imports ([`ContentStore::create_import`], [`ContentStore::record_import_result`],
//!   [`ContentStore::import_results`]): one partition per import (at most 2,001 small items,
//!   written once each by the worker as it goes); a result is a conditional Put with `done`'s
//!   ADD in one transaction, so a redelivered feed counts nothing; the progress is the `META`
//!   GetItem and a Query of a page of `RESULT#` rows, both consistent.
//! - a person's reading state (`reader.rs`, the facade [`crate::Reader`]; the design and its
//!   costs in `docs/news-reader-state.md`): their partition `READER#{userId}` in one Query;
//!   "mark all as read" one UpdateItem of a watermark whatever the scope; a mark one
//!   UpdateItem (starring: a transaction with the starred row); an unread count per source a
//!   Query of its newest row, a COUNT Query of its rows after the watermark and a Query of
//!   the person's marks after the horizon, 16 sources at a time; the stream the
//!   subscriptions' rows merged a chunk per partition at a time (as the personal feed's), the
//!   starred list a Query by starred time; item ids resolved by BatchGetItem of their aliases.

mod articles;
mod backfill;
mod feed;
mod imports;
mod items;
mod pages;
mod reader;
mod sources;
mod subscriptions;
mod sweep;
mod websub;

pub use articles::{article_writes, transaction_groups, TRANSACTION_BYTES_BUDGET};
pub use backfill::BackfillStep;
pub use feed::{ArticlePage, Cursor, Window, MAX_BUCKETS_PER_PAGE};
pub use imports::{ImportRecord, ImportResultRecord, IMPORT_TTL_SECONDS};
pub use items::{
    cut_to_bytes, fit_article, ARTICLE_ITEM_BUDGET, MAX_TEXT_FIELD_BYTES, MAX_TITLE_BYTES,
    MAX_URL_BYTES,
};
pub use pages::{PendingPage, PAGE_WAIT};
pub use reader::{
    is_read, ArticleKey, Continuation, MarkState, ReaderRow, ReaderState, RowsRequest,
    StreamSource, Watermark, WatermarkTarget,
};
pub use sources::SourcesPage;
pub use sweep::SweepStep;
pub use websub::{PushState, PushSubscription};

use platform::aws::AwsClients;
use platform::dynamo::{s, Attributes, DynamoError, Item, Table, TransactionError};
use platform::{Clock, ConfigError, Env};

use crate::model::TopicRef;

/// Why the content table could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("source not found")]
    SourceNotFound,
    /// Concurrent writers kept winning the race for the same items.
    #[error("concurrent updates kept conflicting; try again")]
    Contention,
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
}

impl StoreError {
    /// True when DynamoDB could not be reached or is throttling: worth answering 503.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::Dynamo(e) if e.is_unavailable())
    }
}

impl From<TransactionError> for StoreError {
    /// For the outcomes a caller did not single out: a lost race, or a condition that changed
    /// underneath it, both worth trying again later.
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Conflict | TransactionError::Condition { .. } => Self::Contention,
            TransactionError::Dynamo(e) => Self::Dynamo(e),
        }
    }
}

/// Runs `work` at most `limit` at a time, answering in order. The futures are built before
/// they are streamed, so no closure sits in the stream (whose lifetimes would keep a caller's
/// future from being `Send`).
pub(crate) async fn bounded<T, E, F>(work: Vec<F>, limit: usize) -> Result<Vec<T>, E>
where
    F: std::future::Future<Output = Result<T, E>>,
{
    use futures::{StreamExt, TryStreamExt};
    futures::stream::iter(work)
        .buffered(limit.max(1))
        .try_collect()
        .await
}

/// A source as first stored.
#[derive(Debug, Clone)]
pub struct NewSource {
    pub id: String,
    pub url: String,
    pub title: String,
    pub site_url: Option<String>,
    pub description: Option<String>,
}

/// An article as the feed worker stores it.
#[derive(Debug, Clone)]
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

/// What storing one article did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upsert {
    Inserted,
    AlreadyStored,
    SourceGone,
}

/// What an unsubscribe left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsubscription {
    /// Subscribers left (0 once the source is retired).
    pub subscriber_count: i64,
    /// The last subscriber left: the source is retired (gone from every read) and its rows
    /// are for the sweep.
    pub source_deleted: bool,
}

/// Fetch bookkeeping of a source.
#[derive(Debug, Clone, Default)]
pub struct FetchState {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Fetches failed in a row.
    pub failures: u32,
    pub next_fetch_at: Option<String>,
    /// When its WebSub lease ends (absent: not pushed); written by the hub's verification.
    pub push_until: Option<String>,
}

/// Which articles a page lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArticleFilter {
    /// No source, one, or (with a topic) several: the topic's articles from any of them.
    pub source_ids: Vec<String>,
    pub topic_id: Option<String>,
}

/// The topics this process has seen stored (shared by its clones), so an article does not
/// write its topics' items; forgotten all at once past [`KnownTopics::MAX`].
#[derive(Clone, Debug, Default)]
struct KnownTopics(std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

impl KnownTopics {
    const MAX: usize = 10_000;

    fn contains(&self, id: &str) -> bool {
        self.0.lock().map(|set| set.contains(id)).unwrap_or(false)
    }

    fn insert(&self, id: &str) {
        if let Ok(mut set) = self.0.lock() {
            if set.len() >= Self::MAX {
                set.clear();
            }
            set.insert(id.to_string());
        }
    }
}

/// The content table. Cheap to clone.
#[derive(Clone, Debug)]
pub struct ContentStore {
    table: Table,
    clock: Clock,
    known_topics: KnownTopics,
}

impl ContentStore {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self {
            table,
            clock,
            known_topics: KnownTopics::default(),
        }
    }

    /// The table named by `CONTENT_TABLE`, on the system clock.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        Ok(Self::new(
            Table::from_env(env, aws, "CONTENT_TABLE")?,
            Clock::system(),
        ))
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The table's name.
    pub fn table_name(&self) -> &str {
        self.table.name()
    }

    /// Every item of one `gsi1` list, in index order.
    async fn list(&self, partition: &str) -> Result<Vec<Item>, StoreError> {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :list")
            .expression_attribute_values(":list", s(partition));
        Ok(self.table.query_all(query, None).await?)
    }

    /// At most `limit` items of the `gsi1` list `partition` after the sort key `after`, and
    /// the sort key the next page starts after (`None` at the end).
    async fn list_page(
        &self,
        partition: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<Item>, Option<String>), StoreError> {
        let wanted = limit.saturating_add(1);
        let mut query = self
            .table
            .query()
            .index_name("gsi1")
            .expression_attribute_values(":list", s(partition))
            .limit(i32::try_from(wanted).unwrap_or(i32::MAX));
        query = match after {
            Some(after) => query
                .key_condition_expression("gsi1pk = :list AND gsi1sk > :after")
                .expression_attribute_values(":after", s(after)),
            None => query.key_condition_expression("gsi1pk = :list"),
        };
        let mut items = self.table.query_all(query, Some(wanted)).await?;
        let more = items.len() > limit;
        items.truncate(limit);
        let next = match items.last() {
            Some(last) if more => last.opt_string("gsi1sk"),
            _ => None,
        };
        Ok((items, next))
    }

    /// Reads one small item: proves the table answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        Ok(self.table.ping().await?)
    }
}
