//! Each person's reading state: reader rows, watermarks, marks, the starred list, item-id
//! aliases, computed unread counts and the reader's stream (see the table in `mod.rs` and
//! `docs/news-reader-state.md`).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use platform::dynamo::{
    is_condition_failed, key, n, s, AttributeValue, Attributes, DynamoError, Item, Transaction,
};

use super::items::{
    article_key, article_row_sk, counts_key, is_retired, membership_key, source_pk, ARTICLE_ROW,
};
use super::{bounded, ContentStore, StoreError};
use crate::model::reader::{Order, StateFilter};
use crate::model::Source;

/// The partition of one person's reader rows and watermarks.
pub(super) fn reader_pk(user: &str) -> String {
    format!("READER#{user}")
}

/// One person's subscription as the reader sees it.
pub(super) fn reader_row_key(user: &str, source: &str) -> Item {
    key(reader_pk(user), format!("{SUB_PREFIX}{source}"))
}

const SUB_PREFIX: &str = "SUB#";
const LABEL_PREFIX: &str = "LABEL#";
const ALL: &str = "ALL";

fn label_key(user: &str, label: &str) -> Item {
    key(reader_pk(user), format!("{LABEL_PREFIX}{label}"))
}

/// The partition of one person's marks on one source's articles.
fn marks_pk(user: &str, source: &str) -> String {
    format!("MARKS#{user}#{source}")
}

fn mark_key(user: &str, article: &ArticleKey) -> Item {
    key(marks_pk(user, &article.source_id), article.sort_key())
}

/// The partition of one person's starred articles, by when each was starred.
fn starred_pk(user: &str) -> String {
    format!("STARRED#{user}")
}

/// The alias of a Google Reader item id (an article id's first 16 hex digits).
pub(super) fn alias_key(hex16: &str) -> Item {
    key(format!("ITEM#{hex16}"), "ITEM")
}

/// The alias item of an article: its id, source and publication time.
pub(super) fn alias_item(article_id: &str, source_id: &str, published_at: &str) -> Option<Item> {
    let hex = article_id.get(..16)?;
    let mut item = alias_key(hex);
    item.insert("articleId".into(), s(article_id));
    item.insert("sourceId".into(), s(source_id));
    item.insert("publishedAt".into(), s(published_at));
    Some(item)
}

/// The attribute on an article's source row (and a starred row) saying its alias was put.
pub(super) const ALIASED: &str = "aliased";
/// Beside [`ALIASED`]: the alias belongs to another article sharing its first 64 bits.
const ALIAS_COLLISION: &str = "aliasCollision";

/// Whether a source row's article holds its alias (the sweep deletes it with the article).
pub(super) fn owns_alias(row: &Item) -> bool {
    row.opt_bool(ALIASED).unwrap_or(false) && !row.opt_bool(ALIAS_COLLISION).unwrap_or(false)
}

/// Rows of a stream page examined at most beyond its size (a state filter may pass over
/// many); the page then ends short, with a continuation.
const MAX_ROWS_EXAMINED: usize = 5000;
/// Partitions read at once.
const READ_CONCURRENCY: usize = 16;

/// Where an article sits: what a mark needs to find its partition and sort key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArticleKey {
    pub id: String,
    pub source_id: String,
    pub published_at: String,
}

impl ArticleKey {
    /// `{publishedAt}#{articleId}`: the order of the source's rows and of its marks.
    pub fn sort_key(&self) -> String {
        format!("{}#{}", self.published_at, self.id)
    }
}

/// A "mark all as read" watermark: articles published before `before` are read, unless
/// marked unread after `set_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watermark {
    pub before: String,
    pub set_at: String,
}

/// One subscription's reader row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderRow {
    pub source_id: String,
    pub labels: Vec<String>,
    pub watermark: Option<Watermark>,
    pub subscribed_at: Option<String>,
}

/// A person's reader partition, read whole (at most a few hundred KB at 1,000 subscriptions).
#[derive(Debug, Clone, Default)]
pub struct ReaderState {
    pub subscriptions: Vec<ReaderRow>,
    pub labels: BTreeMap<String, Watermark>,
    pub all: Option<Watermark>,
}

impl ReaderState {
    pub fn source_ids(&self) -> Vec<String> {
        self.subscriptions
            .iter()
            .map(|r| r.source_id.clone())
            .collect()
    }

    /// Every watermark that covers `row`'s articles: its own, its labels', everything's.
    pub fn watermarks_of(&self, row: &ReaderRow) -> Vec<Watermark> {
        let mut out: Vec<Watermark> = row.watermark.iter().cloned().collect();
        out.extend(
            row.labels
                .iter()
                .filter_map(|l| self.labels.get(l).cloned()),
        );
        out.extend(self.all.iter().cloned());
        out
    }

    /// The watermarks of an article whose source the person does not subscribe to.
    pub fn watermarks_without_row(&self) -> Vec<Watermark> {
        self.all.iter().cloned().collect()
    }
}

/// A person's mark on one article.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkState {
    /// Read or unread, and when it was set.
    pub read: Option<(bool, String)>,
    pub starred_at: Option<String>,
}

/// Whether the article at `sort_key` (`{publishedAt}#{id}`) is read, given its mark and the
/// watermarks covering its source: before the horizon always; else the latest of its mark
/// and the watermarks that cover it wins.
pub fn is_read(
    sort_key: &str,
    mark: Option<&MarkState>,
    watermarks: &[Watermark],
    horizon: &str,
) -> bool {
    if sort_key < horizon {
        return true;
    }
    let covered: Option<&str> = watermarks
        .iter()
        .filter(|w| sort_key < w.before.as_str())
        .map(|w| w.set_at.as_str())
        .max();
    match (mark.and_then(|m| m.read.as_ref()), covered) {
        (Some((read, set)), Some(covered)) => *read || set.as_str() <= covered,
        (Some((read, _)), None) => *read,
        (None, Some(_)) => true,
        (None, None) => false,
    }
}

/// Which watermark a "mark all as read" sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatermarkTarget<'a> {
    All,
    Source(&'a str),
    Label(&'a str),
}

/// Where the next page of a stream starts: the sort key of the last row examined (a source
/// row's `{publishedAt}#{id}`, or a starred row's `{starredAt}#{id}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continuation {
    pub key: String,
}

impl Continuation {
    /// The opaque text a client gets (`c` and lowercase hex; URL-safe).
    pub fn encode(&self) -> String {
        let hex: String = self.key.bytes().map(|b| format!("{b:02x}")).collect();
        format!("c{hex}")
    }

    /// A continuation this service gave out, or `None`.
    pub fn decode(text: &str) -> Option<Self> {
        let hex = text.strip_prefix('c')?;
        if hex.is_empty()
            || hex.len() % 2 != 0
            || !hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return None;
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        // Printable ASCII, starting with a time (`YYYY-`).
        if !bytes.iter().all(|b| b.is_ascii_graphic()) {
            return None;
        }
        let key = String::from_utf8(bytes).ok()?;
        if !key.get(..4)?.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Self { key })
    }
}

/// A stream page asked of the store (times as the table writes them).
#[derive(Debug, Clone)]
pub struct RowsRequest {
    pub state: StateFilter,
    pub newer_than: Option<String>,
    pub older_than: Option<String>,
    pub order: Order,
    pub count: usize,
    pub continuation: Option<Continuation>,
    pub horizon: String,
}

/// One source of a stream and the watermarks covering it.
#[derive(Debug, Clone)]
pub struct StreamSource {
    pub source_id: String,
    pub watermarks: Vec<Watermark>,
}

/// One row of a source's articles.
#[derive(Debug, Clone)]
struct Row {
    key: String,
    id: String,
    source: usize,
    aliased: bool,
}

/// One source's rows in a stream, read a chunk at a time.
struct Lane {
    pk: String,
    source: usize,
    low: Option<String>,
    high: Option<String>,
    buffered: VecDeque<Row>,
    next: Option<Item>,
    exhausted: bool,
}

fn watermark_of(item: &Item) -> Option<Watermark> {
    Some(Watermark {
        before: item.opt_string("readBefore")?,
        set_at: item.opt_string("readBeforeSetAt")?,
    })
}

fn mark_of(item: &Item) -> MarkState {
    MarkState {
        read: item.opt_bool("read").zip(item.opt_string("readSetAt")),
        starred_at: item.opt_string("starredAt"),
    }
}

/// `key` with a leading `ART#`.
fn art(key: &str) -> String {
    format!("{ARTICLE_ROW}{key}")
}

impl ContentStore {
    /// A person's reader partition (one Query, every page).
    pub async fn reader_state(&self, user: &str) -> Result<ReaderState, StoreError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(reader_pk(user)));
        let mut state = ReaderState::default();
        for item in self.table.query_all(query, None).await? {
            let Some(sk) = item.opt_string("sk") else {
                continue;
            };
            if let Some(source) = sk.strip_prefix(SUB_PREFIX) {
                state.subscriptions.push(ReaderRow {
                    source_id: source.to_string(),
                    labels: item
                        .strings(self.table.name(), "labels")
                        .unwrap_or_default(),
                    watermark: watermark_of(&item),
                    subscribed_at: item.opt_string("subscribedAt"),
                });
            } else if let Some(label) = sk.strip_prefix(LABEL_PREFIX) {
                if let Some(w) = watermark_of(&item) {
                    state.labels.insert(label.to_string(), w);
                }
            } else if sk == ALL {
                state.all = watermark_of(&item);
            }
        }
        Ok(state)
    }

    /// Whether the person's state was imported from identity (`importedAt` on `ALL`).
    pub async fn reader_imported(&self, user: &str) -> Result<bool, StoreError> {
        let item = self.table.get_eventual(key(reader_pk(user), ALL)).await?;
        Ok(item.is_some_and(|i| i.contains_key("importedAt")))
    }

    /// Records the import from identity as done.
    pub async fn set_reader_imported(&self, user: &str) -> Result<(), StoreError> {
        self.table
            .update_item()
            .set_key(Some(key(reader_pk(user), ALL)))
            .update_expression("SET importedAt = if_not_exists(importedAt, :now)")
            .expression_attribute_values(":now", s(self.clock.timestamp()))
            .send()
            .await
            .map_err(|e| self.table.fail("UpdateItem", &e))?;
        Ok(())
    }

    /// Puts the person's reader row of a source they subscribe to (a membership item exists)
    /// if it is missing: subscriptions older than the reader. Else nothing.
    pub async fn backfill_reader_row(&self, user: &str, source: &str) -> Result<(), StoreError> {
        let Some(membership) = self.table.get(membership_key(source, user)).await? else {
            return Ok(());
        };
        let since = membership
            .opt_string("subscribedAt")
            .unwrap_or_else(|| self.clock.timestamp());
        let mut tx = Transaction::new(&self.table);
        tx.check(membership_key(source, user), "attribute_exists(pk)")?;
        let row = self.reader_row_update(&tx, user, source, &since);
        tx.update(row)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            // Unsubscribed meanwhile.
            Err(e) if e.failed_at(0) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// The update that makes a reader row exist, keeping its labels and watermark when it
    /// does (for the subscribe transaction and the backfill).
    pub(super) fn reader_row_update(
        &self,
        tx: &Transaction,
        user: &str,
        source: &str,
        since: &str,
    ) -> platform::dynamo::request::Update {
        tx.update_builder(reader_row_key(user, source))
            .update_expression(
                "SET sourceId = :source, subscribedAt = if_not_exists(subscribedAt, :since)",
            )
            .expression_attribute_values(":source", s(source))
            .expression_attribute_values(":since", s(since))
    }

    /// Replaces a subscription's labels; false when the person has no reader row for it.
    pub async fn set_reader_labels(
        &self,
        user: &str,
        source: &str,
        labels: &[String],
    ) -> Result<bool, StoreError> {
        let outcome = self
            .table
            .update_item()
            .set_key(Some(reader_row_key(user, source)))
            .update_expression("SET labels = :labels")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(
                ":labels",
                AttributeValue::L(labels.iter().map(s).collect()),
            )
            .send()
            .await;
        match outcome {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    /// Renames (`to`) or removes (`None`) the label `from` on each of `rows`, and moves or
    /// deletes its watermark: one conditional update per subscription (on its labels as read;
    /// a subscription changed meanwhile is read again), the watermark last.
    pub async fn replace_label(
        &self,
        user: &str,
        rows: &[&ReaderRow],
        from: &str,
        to: Option<&str>,
    ) -> Result<(), StoreError> {
        for row in rows {
            let mut labels = row.labels.clone();
            for _ in 0..8 {
                let mut next: Vec<String> = Vec::with_capacity(labels.len());
                for label in &labels {
                    let name = if label == from {
                        to
                    } else {
                        Some(label.as_str())
                    };
                    if let Some(name) = name {
                        if !next.iter().any(|l| l == name) {
                            next.push(name.to_string());
                        }
                    }
                }
                let outcome = self
                    .table
                    .update_item()
                    .set_key(Some(reader_row_key(user, &row.source_id)))
                    .update_expression("SET labels = :next")
                    .condition_expression("attribute_exists(pk) AND labels = :read")
                    .expression_attribute_values(
                        ":next",
                        AttributeValue::L(next.iter().map(s).collect()),
                    )
                    .expression_attribute_values(
                        ":read",
                        AttributeValue::L(labels.iter().map(s).collect()),
                    )
                    .send()
                    .await;
                match outcome {
                    Ok(_) => break,
                    Err(e) if is_condition_failed(&e) => {
                        match self.table.get(reader_row_key(user, &row.source_id)).await? {
                            Some(item) => {
                                labels = item
                                    .strings(self.table.name(), "labels")
                                    .unwrap_or_default();
                                if !labels.iter().any(|l| l == from) {
                                    break;
                                }
                            }
                            None => break,
                        }
                    }
                    Err(e) => return Err(self.table.fail("UpdateItem", &e).into()),
                }
            }
        }
        let old = self.table.get(label_key(user, from)).await?;
        if let (Some(to), Some(w)) = (to, old.as_ref().and_then(watermark_of)) {
            self.raise_watermark(label_key(user, to), &w.before, &w.set_at, false)
                .await?;
        }
        if old.is_some() {
            self.table
                .delete_item()
                .set_key(Some(label_key(user, from)))
                .send()
                .await
                .map_err(|e| self.table.fail("DeleteItem", &e))?;
        }
        Ok(())
    }

    /// Sets a watermark to `before` unless it is already there or later: one write. False
    /// when the target is a source the person has no reader row for.
    pub async fn set_watermark(
        &self,
        user: &str,
        target: WatermarkTarget<'_>,
        before: &str,
    ) -> Result<bool, StoreError> {
        let now = self.clock.timestamp();
        match target {
            WatermarkTarget::All => {
                self.raise_watermark(key(reader_pk(user), ALL), before, &now, false)
                    .await
            }
            WatermarkTarget::Label(label) => {
                self.raise_watermark(label_key(user, label), before, &now, false)
                    .await
            }
            WatermarkTarget::Source(source) => {
                self.raise_watermark(reader_row_key(user, source), before, &now, true)
                    .await
            }
        }
    }

    /// Raises the watermark on `item_key` to `before` (set at `set_at`); false only when
    /// `must_exist` and the item does not.
    async fn raise_watermark(
        &self,
        item_key: Item,
        before: &str,
        set_at: &str,
        must_exist: bool,
    ) -> Result<bool, StoreError> {
        let later = "(attribute_not_exists(readBefore) OR readBefore < :before)";
        let condition = if must_exist {
            format!("attribute_exists(pk) AND {later}")
        } else {
            later.to_string()
        };
        let outcome = self
            .table
            .update_item()
            .set_key(Some(item_key.clone()))
            .update_expression("SET readBefore = :before, readBeforeSetAt = :setAt")
            .condition_expression(condition)
            .expression_attribute_values(":before", s(before))
            .expression_attribute_values(":setAt", s(set_at))
            .send()
            .await;
        match outcome {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => {
                if must_exist {
                    Ok(self.table.get(item_key).await?.is_some())
                } else {
                    Ok(true)
                }
            }
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    /// The keys of these articles, in the order asked (unknown ones, and those of retired
    /// sources, left out): from their aliases (small items), else from the articles.
    pub async fn article_keys(&self, ids: &[String]) -> Result<Vec<ArticleKey>, StoreError> {
        let table = self.table.name();
        let aliases = ids
            .iter()
            .filter_map(|id| id.get(..16).map(alias_key))
            .collect();
        let mut found: HashMap<String, ArticleKey> = HashMap::new();
        for item in self.table.batch_get_all(aliases, None).await? {
            let id = item.string(table, "articleId")?;
            found.insert(
                id.clone(),
                ArticleKey {
                    id,
                    source_id: item.string(table, "sourceId")?,
                    published_at: item.string(table, "publishedAt")?,
                },
            );
        }
        let missing: Vec<Item> = ids
            .iter()
            .filter(|id| !found.contains_key(*id))
            .map(|id| article_key(id))
            .collect();
        if !missing.is_empty() {
            for item in self
                .table
                .batch_get_all(missing, Some("id, sourceId, publishedAt"))
                .await?
            {
                let id = item.string(table, "id")?;
                found.insert(
                    id.clone(),
                    ArticleKey {
                        id,
                        source_id: item.string(table, "sourceId")?,
                        published_at: item.string(table, "publishedAt")?,
                    },
                );
            }
        }
        let mut sources: Vec<String> = found.values().map(|k| k.source_id.clone()).collect();
        sources.sort_unstable();
        sources.dedup();
        let live = self.live_source_ids(&sources).await?;
        Ok(ids
            .iter()
            .filter_map(|id| found.remove(id))
            .filter(|k| live.contains(&k.source_id))
            .collect())
    }

    /// Which of these sources exist and are not retired (one BatchGetItem of their counters).
    pub async fn live_source_ids(&self, ids: &[String]) -> Result<HashSet<String>, StoreError> {
        let keys = ids.iter().map(|id| counts_key(id)).collect();
        let mut live = HashSet::new();
        let mut seen = HashSet::new();
        for item in self
            .table
            .batch_get_all(keys, Some("pk, retiredAt"))
            .await?
        {
            let Some(pk) = item.opt_string("pk") else {
                continue;
            };
            let id = pk
                .trim_start_matches("SOURCE#")
                .trim_end_matches("#COUNTS")
                .to_string();
            seen.insert(id.clone());
            if !is_retired(&item) {
                live.insert(id);
            }
        }
        // Sources written before their counters were split off.
        for id in ids.iter().filter(|id| !seen.contains(*id)) {
            if self.counts(id).await?.is_some_and(|c| !is_retired(&c)) {
                live.insert(id.clone());
            }
        }
        Ok(live)
    }

    /// The live sources of these ids (each one BatchGetItem of its three items, a hundred
    /// keys a call).
    pub async fn sources_by_ids(
        &self,
        ids: &[String],
    ) -> Result<HashMap<String, Source>, StoreError> {
        let work: Vec<_> = ids.iter().map(|id| self.source(id)).collect();
        let found: Vec<Option<Source>> = bounded(work, READ_CONCURRENCY).await?;
        Ok(found
            .into_iter()
            .flatten()
            .map(|source| (source.id.clone(), source))
            .collect())
    }

    /// Marks one article read or unread: one idempotent update of its mark (with a TTL a day
    /// past the horizon, `expires`, unless it is starred).
    pub async fn set_read(
        &self,
        user: &str,
        article: &ArticleKey,
        read: bool,
        expires: i64,
    ) -> Result<(), StoreError> {
        let update = |with_expiry: bool| {
            let expression = if with_expiry {
                "SET #read = :read, readSetAt = :now, articleId = :id, expiresAt = :expires"
            } else {
                "SET #read = :read, readSetAt = :now, articleId = :id"
            };
            let mut request = self
                .table
                .update_item()
                .set_key(Some(mark_key(user, article)))
                .update_expression(expression)
                .expression_attribute_names("#read", "read")
                .expression_attribute_values(":read", AttributeValue::Bool(read))
                .expression_attribute_values(":now", s(self.clock.timestamp()))
                .expression_attribute_values(":id", s(&article.id));
            if with_expiry {
                request = request
                    .condition_expression("attribute_not_exists(starredAt)")
                    .expression_attribute_values(":expires", n(expires));
            }
            request
        };
        match update(true).send().await {
            Ok(_) => Ok(()),
            // Starred: kept past the horizon, so without the TTL.
            Err(e) if is_condition_failed(&e) => {
                update(false)
                    .send()
                    .await
                    .map_err(|e| self.table.fail("UpdateItem", &e))?;
                Ok(())
            }
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    /// Stars or unstars one article: its mark and its row in the starred list change in one
    /// transaction, conditional on the mark as read, so repeats and races leave one row.
    pub async fn set_starred(
        &self,
        user: &str,
        article: &ArticleKey,
        starred: bool,
        expires: i64,
    ) -> Result<(), StoreError> {
        for _ in 0..8 {
            let mark = self.table.get(mark_key(user, article)).await?;
            let starred_at = mark.as_ref().and_then(|m| m.opt_string("starredAt"));
            let mut tx = Transaction::new(&self.table);
            match (starred, starred_at) {
                (true, Some(_)) | (false, None) => return Ok(()),
                (true, None) => {
                    let now = self.clock.timestamp();
                    let update = tx
                        .update_builder(mark_key(user, article))
                        .update_expression("SET starredAt = :now, articleId = :id REMOVE expiresAt")
                        .condition_expression("attribute_not_exists(starredAt)")
                        .expression_attribute_values(":now", s(&now))
                        .expression_attribute_values(":id", s(&article.id));
                    let mut row = key(starred_pk(user), format!("{now}#{}", article.id));
                    row.insert("articleId".into(), s(&article.id));
                    row.insert("sourceId".into(), s(&article.source_id));
                    row.insert("publishedAt".into(), s(&article.published_at));
                    tx.update(update)?.put(row, None)?;
                }
                (false, Some(at)) => {
                    let update = tx
                        .update_builder(mark_key(user, article))
                        .update_expression("REMOVE starredAt SET expiresAt = :expires")
                        .condition_expression("starredAt = :at")
                        .expression_attribute_values(":at", s(&at))
                        .expression_attribute_values(":expires", n(expires));
                    tx.update(update)?
                        .delete(key(starred_pk(user), format!("{at}#{}", article.id)), None)?;
                }
            }
            match tx.commit_retrying().await {
                Ok(()) => return Ok(()),
                // Starred or unstarred meanwhile: read again.
                Err(e) if e.failed_at(0) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Contention)
    }

    /// The person's marks on these articles, by article id (one BatchGetItem per 100).
    pub async fn marks(
        &self,
        user: &str,
        articles: &[ArticleKey],
    ) -> Result<HashMap<String, MarkState>, StoreError> {
        let keys = articles.iter().map(|a| mark_key(user, a)).collect();
        let mut out = HashMap::new();
        for item in self.table.batch_get_all(keys, None).await? {
            if let Some(id) = item.opt_string("articleId") {
                out.insert(id, mark_of(&item));
            }
        }
        Ok(out)
    }

    /// Every mark of the person on a source's articles published after `horizon`, by sort key.
    async fn marks_after(
        &self,
        user: &str,
        source: &str,
        horizon: &str,
    ) -> Result<Vec<(String, MarkState)>, StoreError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk > :horizon")
            .expression_attribute_values(":pk", s(marks_pk(user, source)))
            .expression_attribute_values(":horizon", s(horizon))
            .projection_expression("sk, #read, readSetAt, starredAt")
            .expression_attribute_names("#read", "read");
        Ok(self
            .table
            .query_all(query, None)
            .await?
            .iter()
            .filter_map(|item| Some((item.opt_string("sk")?, mark_of(item))))
            .collect())
    }

    /// A source's unread articles for the person and its newest article's time: a COUNT of
    /// the source's rows after the effective watermark, less those marked read, plus those
    /// below it marked unread since. At most three queries; one for a source with nothing
    /// newer than the horizon.
    pub async fn source_unread(
        &self,
        user: &str,
        source: &str,
        watermarks: &[Watermark],
        horizon: &str,
    ) -> Result<(u64, Option<String>), StoreError> {
        let newest = self.newest_row(source).await?;
        let newest_at = newest
            .as_deref()
            .and_then(|k| k.split_once('#'))
            .map(|(at, _)| at.to_string());
        if newest.as_deref().is_none_or(|k| k < horizon) {
            return Ok((0, newest_at));
        }
        let floor = watermarks
            .iter()
            .map(|w| w.before.as_str())
            .chain([horizon])
            .max()
            .unwrap_or(horizon)
            .to_string();
        let (above, marks) = futures::try_join!(
            self.count_rows(source, &floor),
            self.marks_after(user, source, horizon)
        )?;
        let mut unread = i64::try_from(above).unwrap_or(i64::MAX);
        for (key, mark) in &marks {
            let Some((read, _)) = &mark.read else {
                continue;
            };
            if key.as_str() > floor.as_str() {
                if *read {
                    unread -= 1;
                }
            } else if !is_read(key, Some(mark), watermarks, horizon) {
                unread += 1;
            }
        }
        Ok((u64::try_from(unread.max(0)).unwrap_or(0), newest_at))
    }

    /// The sort key (without `ART#`) of the source's newest row.
    async fn newest_row(&self, source: &str) -> Result<Option<String>, StoreError> {
        let out = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
            .expression_attribute_values(":pk", s(source_pk(source)))
            .expression_attribute_values(":low", s(ARTICLE_ROW))
            .expression_attribute_values(":high", s("ART$"))
            .projection_expression("sk")
            .scan_index_forward(false)
            .limit(1)
            .send()
            .await
            .map_err(|e| self.table.fail("Query", &e))?;
        Ok(out
            .items
            .unwrap_or_default()
            .first()
            .and_then(|i| i.opt_string("sk"))
            .and_then(|sk| sk.strip_prefix(ARTICLE_ROW).map(str::to_string)))
    }

    /// How many of the source's rows sort after `floor` (a time): Query with Select COUNT,
    /// every page.
    async fn count_rows(&self, source: &str, floor: &str) -> Result<u64, StoreError> {
        let mut total: u64 = 0;
        let mut start: Option<Item> = None;
        loop {
            let out = self
                .table
                .query()
                .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
                .expression_attribute_values(":pk", s(source_pk(source)))
                .expression_attribute_values(":low", s(art(floor)))
                .expression_attribute_values(":high", s("ART$"))
                .select("COUNT".into())
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| self.table.fail("Query", &e))?;
            total = total.saturating_add(u64::try_from(out.count).unwrap_or(0));
            match out.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return Ok(total),
            }
        }
    }

    /// The Google Reader item ids (16 hex) that have an alias, with their article ids.
    pub async fn resolve_item_aliases(
        &self,
        hexes: &[String],
    ) -> Result<HashMap<String, String>, StoreError> {
        let keys = hexes.iter().map(|h| alias_key(h)).collect();
        let table = self.table.name();
        let mut out = HashMap::new();
        for item in self.table.batch_get_all(keys, None).await? {
            let id = item.string(table, "articleId")?;
            if let Some(hex) = id.get(..16) {
                out.insert(hex.to_string(), id.clone());
            }
        }
        Ok(out)
    }

    /// Gives an article served before aliases existed its alias (conditional on none), and
    /// flags `row` (its source row, or a starred row) so it is not done again. A different
    /// article holding the alias (two ids sharing 64 bits) keeps it, and is logged.
    async fn ensure_alias(&self, article: &ArticleKey, row: Item) -> Result<(), StoreError> {
        let Some(alias) = alias_item(&article.id, &article.source_id, &article.published_at) else {
            return Ok(());
        };
        let put = self
            .table
            .put_item()
            .set_item(Some(alias.clone()))
            .condition_expression("attribute_not_exists(pk) OR articleId = :id")
            .expression_attribute_values(":id", s(&article.id))
            .send()
            .await;
        let collision = match put {
            Ok(_) => false,
            Err(e) if is_condition_failed(&e) => {
                tracing::warn!(article_id = %article.id, "item id collision: another article holds this item id's alias");
                true
            }
            Err(e) => return Err(self.table.fail("PutItem", &e).into()),
        };
        let flag = self
            .table
            .update_item()
            .set_key(Some(row))
            .update_expression("SET #aliased = :yes, #collision = :collision")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#aliased", ALIASED)
            .expression_attribute_names("#collision", ALIAS_COLLISION)
            .expression_attribute_values(":yes", AttributeValue::Bool(true))
            .expression_attribute_values(":collision", AttributeValue::Bool(collision))
            .send()
            .await;
        match flag {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    /// A page of the stream of `sources`: their rows merged in `request.order`, read a
    /// chunk per source at a time ([`READ_CONCURRENCY`] partitions at once), filtered by
    /// read state (which reads the person's marks of each source after the horizon), at most
    /// `count` taken and [`MAX_ROWS_EXAMINED`] more passed over.
    pub async fn stream_rows(
        &self,
        user: &str,
        sources: &[StreamSource],
        request: &RowsRequest,
    ) -> Result<(Vec<ArticleKey>, Option<Continuation>), StoreError> {
        let ascending = request.order == Order::OldestFirst;
        let filtered = request.state != StateFilter::Any;
        // Marks after the horizon, per source, when the state filters.
        let marks: Vec<HashMap<String, MarkState>> = if filtered {
            let work: Vec<_> = sources
                .iter()
                .map(|source| async move {
                    Ok::<_, StoreError>(
                        self.marks_after(user, &source.source_id, &request.horizon)
                            .await?
                            .into_iter()
                            .collect::<HashMap<_, _>>(),
                    )
                })
                .collect();
            bounded(work, READ_CONCURRENCY).await?
        } else {
            vec![HashMap::new(); sources.len()]
        };
        let continuation = request.continuation.as_ref().map(|c| c.key.clone());
        let mut lanes: Vec<Lane> = Vec::with_capacity(sources.len());
        // Articles kept unread below a watermark: a lane already read, for the unread filter.
        let mut kept: Vec<Row> = Vec::new();
        for (index, source) in sources.iter().enumerate() {
            let mut low = request.newer_than.clone();
            let mut high = request.older_than.clone();
            let floor = source
                .watermarks
                .iter()
                .map(|w| w.before.clone())
                .chain([request.horizon.clone()])
                .max();
            if request.state == StateFilter::Unread {
                low = low.max(floor.clone());
                let source_marks = marks.get(index);
                for (key, mark) in source_marks.into_iter().flatten() {
                    let below = floor.as_deref().is_some_and(|f| key.as_str() <= f);
                    if below
                        && mark.read.is_some()
                        && !is_read(key, Some(mark), &source.watermarks, &request.horizon)
                    {
                        let Some((_, id)) = key.split_once('#') else {
                            continue;
                        };
                        kept.push(Row {
                            key: key.clone(),
                            id: id.to_string(),
                            source: index,
                            aliased: false,
                        });
                    }
                }
            }
            if let Some(c) = &continuation {
                if ascending {
                    low = low.max(Some(c.clone()));
                } else {
                    high = Some(high.map_or(c.clone(), |h| h.min(c.clone())));
                }
            }
            lanes.push(Lane {
                pk: source_pk(&source.source_id),
                source: index,
                low,
                high,
                buffered: VecDeque::new(),
                next: None,
                exhausted: false,
            });
        }
        // The kept rows inside the window, in order.
        kept.retain(|row| {
            let after_low = request
                .newer_than
                .as_deref()
                .is_none_or(|l| row.key.as_str() > l);
            let before_high = request
                .older_than
                .as_deref()
                .is_none_or(|h| row.key.as_str() < h);
            let past = continuation.as_deref().is_some_and(|c| {
                if ascending {
                    row.key.as_str() <= c
                } else {
                    row.key.as_str() >= c
                }
            });
            after_low && before_high && !past
        });
        kept.sort_by(|a, b| {
            if ascending {
                a.key.cmp(&b.key)
            } else {
                b.key.cmp(&a.key)
            }
        });
        let mut kept: VecDeque<Row> = kept.into();

        let share = (request.count.saturating_mul(2) / sources.len().max(1)).clamp(2, 100);
        let chunk = request.count.clamp(2, 100);
        let mut first = true;
        let mut taken: Vec<Row> = Vec::new();
        let mut examined = 0_usize;
        let mut last: Option<String> = None;
        let cap = request.count.saturating_add(MAX_ROWS_EXAMINED);
        let complete = loop {
            // Refill every lane that ran dry but has more, concurrently.
            let limit = if first { share } else { chunk };
            first = false;
            let dry: Vec<usize> = lanes
                .iter()
                .enumerate()
                .filter(|(_, l)| l.buffered.is_empty() && !l.exhausted)
                .map(|(i, _)| i)
                .collect();
            if !dry.is_empty() {
                let work: Vec<_> = dry
                    .into_iter()
                    .filter_map(|i| lanes.get(i).map(|lane| (i, lane)))
                    .map(|(i, lane)| async move {
                        let (rows, next) = self.read_lane(lane, ascending, limit).await?;
                        Ok::<_, StoreError>((i, rows, next))
                    })
                    .collect();
                let reads = bounded(work, READ_CONCURRENCY).await?;
                for (i, rows, next) in reads {
                    if let Some(lane) = lanes.get_mut(i) {
                        lane.exhausted = next.is_none();
                        lane.next = next;
                        lane.buffered.extend(rows);
                    }
                }
            }
            if taken.len() >= request.count {
                break false;
            }
            if examined >= cap {
                break false;
            }
            // Nothing more to compare once a lane is dry and not exhausted: refill first.
            if lanes.iter().any(|l| l.buffered.is_empty() && !l.exhausted) {
                continue;
            }
            let pick = |a: &str, b: &str| if ascending { a < b } else { a > b };
            let mut best: Option<(Option<usize>, String)> =
                kept.front().map(|r| (None, r.key.clone()));
            for (i, lane) in lanes.iter().enumerate() {
                if let Some(head) = lane.buffered.front() {
                    if best.as_ref().is_none_or(|(_, k)| pick(&head.key, k)) {
                        best = Some((Some(i), head.key.clone()));
                    }
                }
            }
            let row = match best {
                None => break true,
                Some((None, _)) => kept.pop_front(),
                Some((Some(i), _)) => lanes.get_mut(i).and_then(|l| l.buffered.pop_front()),
            };
            let Some(row) = row else {
                break true;
            };
            examined += 1;
            last = Some(row.key.clone());
            let keep = match request.state {
                StateFilter::Any => true,
                // Rows above the floor (kept rows were judged already) not marked read.
                StateFilter::Unread => {
                    let source = sources.get(row.source);
                    let mark = marks.get(row.source).and_then(|m| m.get(&row.key));
                    source
                        .is_some_and(|s| !is_read(&row.key, mark, &s.watermarks, &request.horizon))
                }
                StateFilter::Read => {
                    let source = sources.get(row.source);
                    let mark = marks.get(row.source).and_then(|m| m.get(&row.key));
                    source.is_some_and(|s| is_read(&row.key, mark, &s.watermarks, &request.horizon))
                }
            };
            if keep && !taken.iter().any(|t| t.id == row.id) {
                taken.push(row);
            }
        };
        let more = !complete
            && (lanes.iter().any(|l| !l.buffered.is_empty() || !l.exhausted) || !kept.is_empty());
        let next = last.filter(|_| more).map(|key| Continuation { key });
        let keys: Vec<ArticleKey> = taken
            .iter()
            .filter_map(|row| {
                let source = sources.get(row.source)?;
                let (published_at, _) = row.key.split_once('#')?;
                Some(ArticleKey {
                    id: row.id.clone(),
                    source_id: source.source_id.clone(),
                    published_at: published_at.to_string(),
                })
            })
            .collect();
        // Articles stored before aliases get theirs as they are first served.
        for (row, key) in taken.iter().zip(&keys) {
            if !row.aliased {
                let source_row = platform::dynamo::key(
                    source_pk(&key.source_id),
                    article_row_sk(&key.published_at, &key.id),
                );
                self.ensure_alias(key, source_row).await?;
            }
        }
        Ok((keys, next))
    }

    /// Up to `limit` rows of a lane within its bounds (both exclusive), in order, from where
    /// its last read stopped.
    async fn read_lane(
        &self,
        lane: &Lane,
        ascending: bool,
        limit: usize,
    ) -> Result<(Vec<Row>, Option<Item>), StoreError> {
        let low = lane
            .low
            .as_deref()
            .map_or_else(|| ARTICLE_ROW.to_string(), art);
        let high = lane.high.as_deref().map_or_else(|| "ART$".to_string(), art);
        if low >= high {
            return Ok((Vec::new(), None));
        }
        let out = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
            .expression_attribute_values(":pk", s(&lane.pk))
            .expression_attribute_values(":low", s(&low))
            .expression_attribute_values(":high", s(&high))
            .projection_expression("sk, articleId, #aliased")
            .expression_attribute_names("#aliased", ALIASED)
            .scan_index_forward(ascending)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .set_exclusive_start_key(lane.next.clone())
            .send()
            .await
            .map_err(|e| self.table.fail("Query", &e))?;
        let rows = out
            .items
            .unwrap_or_default()
            .iter()
            .filter_map(|item| {
                let sk = item.opt_string("sk")?;
                // BETWEEN includes its bounds: a continuation's own row was on the last page.
                if sk == low || sk == high {
                    return None;
                }
                Some(Row {
                    key: sk.strip_prefix(ARTICLE_ROW)?.to_string(),
                    id: item.opt_string("articleId")?,
                    source: lane.source,
                    aliased: item.opt_bool(ALIASED).unwrap_or(false),
                })
            })
            .collect();
        let next = out.last_evaluated_key.filter(|k| !k.is_empty());
        Ok((rows, next))
    }

    /// A page of the person's starred articles by when they were starred, with that time,
    /// filtered by read state; the starred time bounds `newer_than` / `older_than`.
    pub async fn starred_rows(
        &self,
        user: &str,
        state: &ReaderState,
        request: &RowsRequest,
    ) -> Result<(Vec<(ArticleKey, Option<String>)>, Option<Continuation>), StoreError> {
        let ascending = request.order == Order::OldestFirst;
        let table = self.table.name();
        let mut low = request.newer_than.clone();
        let mut high = request.older_than.clone();
        if let Some(c) = &request.continuation {
            if ascending {
                low = low.max(Some(c.key.clone()));
            } else {
                high = Some(high.map_or(c.key.clone(), |h| h.min(c.key.clone())));
            }
        }
        let low = low.unwrap_or_else(|| "0".to_string());
        let high = high.unwrap_or_else(|| "~".to_string());
        let mut start: Option<Item> = None;
        let mut out: Vec<(ArticleKey, Option<String>)> = Vec::new();
        let mut last: Option<String> = None;
        let mut examined = 0_usize;
        let cap = request.count.saturating_add(MAX_ROWS_EXAMINED);
        let rows_by_source: HashMap<&str, &ReaderRow> = state
            .subscriptions
            .iter()
            .map(|r| (r.source_id.as_str(), r))
            .collect();
        let more = loop {
            if low >= high {
                break false;
            }
            let page = self
                .table
                .query()
                .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
                .expression_attribute_values(":pk", s(starred_pk(user)))
                .expression_attribute_values(":low", s(&low))
                .expression_attribute_values(":high", s(&high))
                .scan_index_forward(ascending)
                .limit(i32::try_from(request.count.clamp(1, 100)).unwrap_or(100))
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| self.table.fail("Query", &e))?;
            let mut batch: Vec<(ArticleKey, String, bool)> = Vec::new();
            for item in page.items.unwrap_or_default() {
                let sk = item.string(table, "sk")?;
                if sk == low || sk == high {
                    continue;
                }
                let starred_at = sk
                    .split_once('#')
                    .map(|(at, _)| at.to_string())
                    .unwrap_or_default();
                batch.push((
                    ArticleKey {
                        id: item.string(table, "articleId")?,
                        source_id: item.string(table, "sourceId")?,
                        published_at: item.string(table, "publishedAt")?,
                    },
                    starred_at,
                    item.opt_bool(ALIASED).unwrap_or(false),
                ));
                let _ = &sk;
            }
            let keys: Vec<ArticleKey> = batch.iter().map(|(k, _, _)| k.clone()).collect();
            let marks = if request.state == StateFilter::Any {
                HashMap::new()
            } else {
                self.marks(user, &keys).await?
            };
            let mut full = false;
            for (article, starred_at, aliased) in batch {
                if out.len() >= request.count || examined >= cap {
                    full = true;
                    break;
                }
                examined += 1;
                let row_key = format!("{starred_at}#{}", article.id);
                last = Some(row_key.clone());
                let watermarks = rows_by_source
                    .get(article.source_id.as_str())
                    .map(|r| state.watermarks_of(r))
                    .unwrap_or_else(|| state.watermarks_without_row());
                let read = is_read(
                    &article.sort_key(),
                    marks.get(&article.id),
                    &watermarks,
                    &request.horizon,
                );
                let keep = match request.state {
                    StateFilter::Any => true,
                    StateFilter::Unread => !read,
                    StateFilter::Read => read,
                };
                if !aliased {
                    self.ensure_alias(&article, key(starred_pk(user), row_key))
                        .await?;
                }
                if keep {
                    out.push((article, Some(starred_at)));
                }
            }
            if full {
                break true;
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break false,
            }
        };
        let next = last.filter(|_| more).map(|key| Continuation { key });
        Ok((out, next))
    }

    /// Deletes up to `budget` items of a person's reading state, marks first (of every source
    /// they follow or starred from), then the starred list, then the reader partition's rows
    /// other than subscriptions (which unsubscribing deletes): how many went, and whether
    /// nothing is left. A repeat picks up where the last one stopped.
    pub async fn forget_reader(
        &self,
        user: &str,
        budget: usize,
    ) -> Result<(usize, bool), StoreError> {
        let table = self.table.name();
        let keys_of = |pk: String, projection: &'static str| {
            self.table
                .query()
                .key_condition_expression("pk = :pk")
                .expression_attribute_values(":pk", s(pk))
                .projection_expression(projection)
                .consistent_read(true)
        };
        let reader = self
            .table
            .query_all(keys_of(reader_pk(user), "pk, sk"), None)
            .await?;
        let starred = self
            .table
            .query_all(keys_of(starred_pk(user), "pk, sk, sourceId"), None)
            .await?;
        let mut sources: Vec<String> = Vec::new();
        for item in &reader {
            if let Some(source) = item.string(table, "sk")?.strip_prefix(SUB_PREFIX) {
                sources.push(source.to_string());
            }
        }
        for item in &starred {
            sources.push(item.string(table, "sourceId")?);
        }
        sources.sort();
        sources.dedup();
        let mut doomed: Vec<Item> = Vec::new();
        for source in &sources {
            let room = budget.saturating_sub(doomed.len());
            if room == 0 {
                break;
            }
            doomed.extend(
                self.table
                    .query_all(keys_of(marks_pk(user, source), "pk, sk"), Some(room))
                    .await?,
            );
        }
        let rest = reader.into_iter().filter(|item| {
            item.string(table, "sk")
                .is_ok_and(|sk| !sk.starts_with(SUB_PREFIX))
        });
        for item in starred.into_iter().chain(rest) {
            if doomed.len() >= budget {
                break;
            }
            doomed.push(key(item.string(table, "pk")?, item.string(table, "sk")?));
        }
        let deleted = doomed.len();
        let keys: Vec<Item> = doomed
            .into_iter()
            .map(|item| Ok(key(item.string(table, "pk")?, item.string(table, "sk")?)))
            .collect::<Result<_, DynamoError>>()?;
        self.table.delete_all(keys).await?;
        Ok((deleted, deleted < budget))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(read: bool, at: &str) -> MarkState {
        MarkState {
            read: Some((read, at.to_string())),
            starred_at: None,
        }
    }

    #[test]
    fn the_latest_of_a_mark_and_the_watermarks_covering_it_wins() {
        let horizon = "2026-01-01T00:00:00.000Z";
        let key = "2026-02-01T00:00:00.000Z#a";
        let source = Watermark {
            before: "2026-03-01T00:00:00.000Z".into(),
            set_at: "2026-03-01T00:00:00.000Z".into(),
        };
        assert!(!is_read(key, None, &[], horizon));
        assert!(is_read(key, None, std::slice::from_ref(&source), horizon));
        assert!(
            is_read(
                "2025-12-01T00:00:00.000Z#a",
                Some(&mark(false, "2026-06-01")),
                &[],
                horizon
            ),
            "before the horizon"
        );
        assert!(
            !is_read(
                key,
                Some(&mark(false, "2026-03-02T00:00:00.000Z")),
                std::slice::from_ref(&source),
                horizon
            ),
            "kept unread after the watermark"
        );
        assert!(
            is_read(
                key,
                Some(&mark(false, "2026-02-02T00:00:00.000Z")),
                std::slice::from_ref(&source),
                horizon
            ),
            "unread before the watermark was set"
        );
        // A later watermark of a label that does not reach as far still covers it.
        let label = Watermark {
            before: "2026-02-15T00:00:00.000Z".into(),
            set_at: "2026-04-01T00:00:00.000Z".into(),
        };
        assert!(is_read(
            key,
            Some(&mark(false, "2026-03-02T00:00:00.000Z")),
            &[source, label],
            horizon
        ));
        assert!(is_read(
            key,
            Some(&mark(true, "2026-02-02T00:00:00.000Z")),
            &[],
            horizon
        ));
    }

    #[test]
    fn continuations_round_trip_and_junk_is_refused() {
        let c = Continuation {
            key: "2026-02-01T00:00:00.000Z#0123abcd".into(),
        };
        let text = c.encode();
        assert!(text.chars().all(|ch| ch.is_ascii_alphanumeric()));
        assert_eq!(Continuation::decode(&text), Some(c));
        for junk in ["", "c", "c4", "x3230", "c41414141", "c32303236c3a9", "cZZ"] {
            assert_eq!(Continuation::decode(junk), None, "{junk}");
        }
    }
}
