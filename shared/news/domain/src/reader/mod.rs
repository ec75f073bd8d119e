//! The news reader's per-person reading state: the facade [`Reader`].
//!
//! Read and unread, starred, "mark all as read" watermarks, labels (folders), unread counts
//! and the article stream of one person's subscriptions. The layout and its costs are in
//! `store/mod.rs` and `docs/news-reader-state.md`; in short:
//!
//! - a subscription's reader row (`READER#{userId}` / `SUB#{sourceId}`) holds its labels and
//!   its watermark; labels' and everything's watermarks sit beside it (`LABEL#{name}`,
//!   `ALL`): "mark all as read" is one write whatever its scope;
//! - a mark is one idempotent write per article, in the person's partition of the source;
//!   starring writes the starred list in the same transaction;
//! - unread counts are computed (a COUNT of the source's rows after its watermark, corrected
//!   by the marks), never kept, so concurrent marks and redelivery leave them exact;
//! - articles published before the read horizon (`READ_HORIZON_DAYS`, default 30) are read.

mod import;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use platform::aws::AwsClients;
use platform::clock::rfc3339;
use platform::{Env, Invalid};

pub use self::import::{NothingToImport, ReaderImport};
use crate::input::reader::{
    ItemId, LabelName, Labels, MarkScope, StreamQuery, StreamScope, MAX_LABELS_PER_PERSON,
};
use crate::input::{ArticleId, SourceId, UserId};
use crate::model::reader::{
    ItemRef, ItemRefPage, LabelSummary, Mark, Marked, ReaderArticle, ReaderSubscription,
    SourceCount, StreamPage, UnreadCounts,
};
use crate::service::NewsError;
use crate::store::{
    bounded, is_read, ArticleKey, ContentStore, ReaderRow, ReaderState, RowsRequest, StreamSource,
    WatermarkTarget,
};
use crate::StartError;

/// The read horizon when `READ_HORIZON_DAYS` is unset: as Google Reader, older articles
/// count as read.
pub const DEFAULT_READ_HORIZON_DAYS: u32 = 30;
/// Sources whose counts are computed at once (each two or three queries).
pub const COUNT_CONCURRENCY: usize = 16;
/// Marks written at once for one request.
const MARK_CONCURRENCY: usize = 16;

/// The people this process has seen imported (shared by its clones), so a warm function
/// does not read whether they were on every request; forgotten all at once past `MAX`.
#[derive(Clone, Debug, Default)]
struct Imported(Arc<Mutex<HashSet<String>>>);

impl Imported {
    const MAX: usize = 10_000;

    fn contains(&self, user: &str) -> bool {
        self.0.lock().map(|set| set.contains(user)).unwrap_or(false)
    }

    fn insert(&self, user: &str) {
        if let Ok(mut set) = self.0.lock() {
            if set.len() >= Self::MAX {
                set.clear();
            }
            set.insert(user.to_string());
        }
    }
}

/// One person's reading state over the content table. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Reader {
    store: ContentStore,
    horizon_days: u32,
    imported: Imported,
}

/// The most items of a person's reading state one [`Reader::forget`] deletes: about 40
/// BatchWriteItems, well inside a request's time.
pub const FORGET_BATCH: usize = 1_000;

impl Reader {
    /// A reader on `store` whose horizon is `horizon_days` (at least 1).
    pub fn new(store: ContentStore, horizon_days: u32) -> Self {
        Self {
            store,
            horizon_days: horizon_days.max(1),
            imported: Imported::default(),
        }
    }

    /// The content table (`CONTENT_TABLE`) and the horizon `READ_HORIZON_DAYS` (1 to 3650,
    /// default [`DEFAULT_READ_HORIZON_DAYS`]).
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, StartError> {
        let days: u32 = env.parse_or("READ_HORIZON_DAYS", DEFAULT_READ_HORIZON_DAYS)?;
        if !(1..=3650).contains(&days) {
            return Err(StartError::Config(platform::ConfigError::Invalid {
                name: "READ_HORIZON_DAYS".into(),
                reason: "must be between 1 and 3650 days".into(),
            }));
        }
        Ok(Self::new(ContentStore::from_env(env, aws)?, days))
    }

    /// Days after which an article counts as read.
    pub fn horizon_days(&self) -> u32 {
        self.horizon_days
    }

    /// The instant before which every article counts as read.
    fn horizon(&self) -> String {
        let now = self.store.clock().now();
        rfc3339(now - Duration::days(i64::from(self.horizon_days)))
    }

    /// Brings over, once per person, what identity held before the reader: saved articles
    /// become starred, and subscriptions older than the reader get their reader row. Called
    /// by each reader route before its work; a failure of identity is logged and tried again
    /// on a later call, never failing the reader. Cheap once done (one GetItem per person
    /// and warm process).
    pub async fn import_once(
        &self,
        user: &UserId,
        from: &impl ReaderImport,
    ) -> Result<(), NewsError> {
        let user = user.as_str();
        if self.imported.contains(user) {
            return Ok(());
        }
        if self.store.reader_imported(user).await? {
            self.imported.insert(user);
            return Ok(());
        }
        let (saved, subscribed) =
            match futures::try_join!(from.saved_ids(), from.subscription_ids()) {
                Ok((Some(saved), Some(subscribed))) => (saved, subscribed),
                Ok(_) => return Ok(()),
                Err(error) => {
                    tracing::warn!(%error, "reader import deferred: identity did not answer");
                    return Ok(());
                }
            };
        let backfills: Vec<_> = subscribed
            .iter()
            .map(|source| self.store.backfill_reader_row(user, source))
            .collect();
        bounded(backfills, COUNT_CONCURRENCY).await?;
        // Oldest saved first, so the starred list keeps identity's order (newest first).
        let keys = self.store.article_keys(&saved).await?;
        for key in keys.iter().rev() {
            self.store
                .set_starred(user, key, true, self.mark_expiry(&key.published_at))
                .await?;
        }
        self.store.set_reader_imported(user).await?;
        self.imported.insert(user);
        tracing::info!(
            saved = saved.len(),
            subscriptions = subscribed.len(),
            "reader state imported from identity"
        );
        Ok(())
    }

    /// The person's subscriptions, each with its source, labels, unread count and newest
    /// article, by source title.
    pub async fn subscriptions(&self, user: &UserId) -> Result<Vec<ReaderSubscription>, NewsError> {
        let state = self.store.reader_state(user.as_str()).await?;
        let rows: Vec<&ReaderRow> = state.subscriptions.iter().collect();
        let mut out = self.described(user, &state, &rows).await?;
        out.sort_by(|a, b| {
            a.source
                .title
                .to_lowercase()
                .cmp(&b.source.title.to_lowercase())
                .then_with(|| a.source.id.cmp(&b.source.id))
        });
        Ok(out)
    }

    /// A page of at most `limit` of the person's subscriptions in source id order, after the
    /// source id `after`, and the source id the next page starts after (`None` at the end).
    /// Only the page's sources are counted.
    pub async fn subscriptions_page(
        &self,
        user: &UserId,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<ReaderSubscription>, Option<String>), NewsError> {
        let state = self.store.reader_state(user.as_str()).await?;
        let mut rows: Vec<&ReaderRow> = state
            .subscriptions
            .iter()
            .filter(|r| after.is_none_or(|a| r.source_id.as_str() > a))
            .collect();
        rows.sort_by(|a, b| a.source_id.cmp(&b.source_id));
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next = rows.last().filter(|_| more).map(|r| r.source_id.clone());
        Ok((self.described(user, &state, &rows).await?, next))
    }

    /// `rows` with their sources and counts, in the same order; retired sources left out.
    async fn described(
        &self,
        user: &UserId,
        state: &ReaderState,
        rows: &[&ReaderRow],
    ) -> Result<Vec<ReaderSubscription>, NewsError> {
        let counts = self.counts_of(user, state, rows).await?;
        let ids: Vec<String> = rows.iter().map(|r| r.source_id.clone()).collect();
        let mut sources = self.store.sources_by_ids(&ids).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let Some(source) = sources.remove(&row.source_id) else {
                continue;
            };
            let (unread, newest_at) = counts.get(&row.source_id).cloned().unwrap_or_default();
            out.push(ReaderSubscription {
                source,
                labels: row.labels.clone(),
                unread,
                newest_at,
                subscribed_at: row.subscribed_at.clone(),
            });
        }
        Ok(out)
    }

    /// Sets the labels of one subscription (replacing its labels); the person may use at most
    /// [`MAX_LABELS_PER_PERSON`] distinct labels. Not subscribed: [`NewsError::NotSubscribed`].
    pub async fn set_labels(
        &self,
        user: &UserId,
        source: &SourceId,
        labels: &Labels,
    ) -> Result<Vec<String>, NewsError> {
        let state = self.store.reader_state(user.as_str()).await?;
        let mut distinct: HashSet<&str> = state
            .subscriptions
            .iter()
            .filter(|r| r.source_id != source.as_str())
            .flat_map(|r| r.labels.iter().map(String::as_str))
            .collect();
        distinct.extend(labels.as_slice().iter().map(LabelName::as_str));
        if distinct.len() > MAX_LABELS_PER_PERSON {
            return Err(Invalid::field(
                "labels",
                format!("a person may use at most {MAX_LABELS_PER_PERSON} labels"),
            )
            .into());
        }
        let names = labels.names();
        if !self
            .store
            .set_reader_labels(user.as_str(), source.as_str(), &names)
            .await?
        {
            return Err(NewsError::NotSubscribed);
        }
        Ok(names)
    }

    /// The person's labels, by name, with their unread counts.
    pub async fn labels(&self, user: &UserId) -> Result<Vec<LabelSummary>, NewsError> {
        Ok(self.unread_counts(user).await?.labels)
    }

    /// Renames a label on every subscription carrying it (its watermark goes along); renaming
    /// onto an existing label merges them. Unknown: [`NewsError::LabelNotFound`].
    pub async fn rename_label(
        &self,
        user: &UserId,
        from: &LabelName,
        to: &LabelName,
    ) -> Result<(), NewsError> {
        let state = self.store.reader_state(user.as_str()).await?;
        let carrying: Vec<&ReaderRow> = state
            .subscriptions
            .iter()
            .filter(|r| r.labels.iter().any(|l| l == from.as_str()))
            .collect();
        if carrying.is_empty() {
            return Err(NewsError::LabelNotFound);
        }
        if from == to {
            return Ok(());
        }
        self.store
            .replace_label(user.as_str(), &carrying, from.as_str(), Some(to.as_str()))
            .await?;
        Ok(())
    }

    /// Takes a label off every subscription (the subscriptions stay).
    /// Deletes a deleted account's reading state, at most [`FORGET_BATCH`] items a call (marks,
    /// starred, labels' watermarks; its subscriptions go with unsubscribing): how many went, and
    /// whether nothing is left. Repeated until it says so.
    pub async fn forget(&self, user: &UserId) -> Result<(usize, bool), NewsError> {
        Ok(self
            .store
            .forget_reader(user.as_str(), FORGET_BATCH)
            .await?)
    }

    pub async fn delete_label(&self, user: &UserId, name: &LabelName) -> Result<(), NewsError> {
        let state = self.store.reader_state(user.as_str()).await?;
        let carrying: Vec<&ReaderRow> = state
            .subscriptions
            .iter()
            .filter(|r| r.labels.iter().any(|l| l == name.as_str()))
            .collect();
        if carrying.is_empty() && !state.labels.contains_key(name.as_str()) {
            return Err(NewsError::LabelNotFound);
        }
        self.store
            .replace_label(user.as_str(), &carrying, name.as_str(), None)
            .await?;
        Ok(())
    }

    /// Marks articles (unknown ids are left out): each one idempotent write, so a repeat or a
    /// redelivery changes nothing and the counts stay exact.
    pub async fn mark(
        &self,
        user: &UserId,
        ids: &[ArticleId],
        mark: Mark,
    ) -> Result<Marked, NewsError> {
        let ids: Vec<String> = ids.iter().map(|i| i.as_str().to_string()).collect();
        let keys = self.store.article_keys(&ids).await?;
        let user = user.as_str();
        let expires = |key: &ArticleKey| self.mark_expiry(&key.published_at);
        let work: Vec<_> = keys
            .iter()
            .map(|key| async move {
                match mark {
                    Mark::Read => self.store.set_read(user, key, true, expires(key)).await,
                    Mark::Unread => self.store.set_read(user, key, false, expires(key)).await,
                    Mark::Starred => self.store.set_starred(user, key, true, expires(key)).await,
                    Mark::Unstarred => self.store.set_starred(user, key, false, expires(key)).await,
                }
            })
            .collect();
        bounded(work, MARK_CONCURRENCY).await?;
        Ok(Marked {
            marked: u64::try_from(keys.len()).unwrap_or(u64::MAX),
        })
    }

    /// When a read mark of an article published at `published_at` stops mattering: a day
    /// after it passes the horizon (epoch seconds, the table's TTL).
    fn mark_expiry(&self, published_at: &str) -> i64 {
        let published = DateTime::parse_from_rfc3339(published_at)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|_| self.store.clock().now());
        (published + Duration::days(i64::from(self.horizon_days) + 1)).timestamp()
    }

    /// Marks every article of `scope` published before `before` (default now; never later
    /// than now) as read: one write whatever the scope. An earlier watermark than the one
    /// set changes nothing. A source the person does not subscribe to:
    /// [`NewsError::NotSubscribed`]; a label no subscription carries: [`NewsError::LabelNotFound`].
    pub async fn mark_all_read(
        &self,
        user: &UserId,
        scope: &MarkScope,
        before: Option<DateTime<Utc>>,
    ) -> Result<(), NewsError> {
        let now = self.store.clock().now();
        let before = rfc3339(before.map_or(now, |b| b.min(now)));
        let target = match scope {
            MarkScope::All => WatermarkTarget::All,
            MarkScope::Source(id) => WatermarkTarget::Source(id.as_str()),
            MarkScope::SourceInLabel(id, name) => {
                let state = self.store.reader_state(user.as_str()).await?;
                subscription_in_label(&state, id, name)?;
                WatermarkTarget::Source(id.as_str())
            }
            MarkScope::Label(name) => {
                let state = self.store.reader_state(user.as_str()).await?;
                if !state
                    .subscriptions
                    .iter()
                    .any(|r| r.labels.iter().any(|l| l == name.as_str()))
                {
                    return Err(NewsError::LabelNotFound);
                }
                WatermarkTarget::Label(name.as_str())
            }
        };
        if !self
            .store
            .set_watermark(user.as_str(), target, &before)
            .await?
        {
            return Err(NewsError::NotSubscribed);
        }
        Ok(())
    }

    /// Unread counts per source, per label and in all, each with its newest article.
    pub async fn unread_counts(&self, user: &UserId) -> Result<UnreadCounts, NewsError> {
        let state = self.store.reader_state(user.as_str()).await?;
        let rows: Vec<&ReaderRow> = state.subscriptions.iter().collect();
        let counts = self.counts_of(user, &state, &rows).await?;
        let mut sources = Vec::with_capacity(state.subscriptions.len());
        let mut labels: BTreeMap<String, LabelSummary> = BTreeMap::new();
        let (mut total, mut newest): (u64, Option<String>) = (0, None);
        for row in &state.subscriptions {
            let Some((unread, newest_at)) = counts.get(&row.source_id).cloned() else {
                continue;
            };
            total = total.saturating_add(unread);
            newest = newest.max(newest_at.clone());
            for label in &row.labels {
                let summary = labels.entry(label.clone()).or_insert_with(|| LabelSummary {
                    name: label.clone(),
                    subscriptions: 0,
                    unread: 0,
                    newest_at: None,
                });
                summary.subscriptions += 1;
                summary.unread = summary.unread.saturating_add(unread);
                summary.newest_at = summary.newest_at.clone().max(newest_at.clone());
            }
            sources.push(SourceCount {
                source_id: row.source_id.clone(),
                unread,
                newest_at,
            });
        }
        Ok(UnreadCounts {
            total,
            newest_at: newest,
            sources,
            labels: labels.into_values().collect(),
        })
    }

    /// Each live subscription's unread count and newest article, [`COUNT_CONCURRENCY`]
    /// sources at a time; retired sources are left out.
    async fn counts_of(
        &self,
        user: &UserId,
        state: &ReaderState,
        rows: &[&ReaderRow],
    ) -> Result<HashMap<String, (u64, Option<String>)>, NewsError> {
        let horizon = self.horizon();
        let ids: Vec<String> = rows.iter().map(|r| r.source_id.clone()).collect();
        let live = self.store.live_source_ids(&ids).await?;
        let work: Vec<_> = rows
            .iter()
            .copied()
            .filter(|r| live.contains(&r.source_id))
            .map(|row| {
                let watermarks = state.watermarks_of(row);
                let horizon = horizon.clone();
                async move {
                    let count = self
                        .store
                        .source_unread(user.as_str(), &row.source_id, &watermarks, &horizon)
                        .await?;
                    Ok::<_, crate::store::StoreError>((row.source_id.clone(), count))
                }
            })
            .collect();
        let counted = bounded(work, COUNT_CONCURRENCY).await?;
        Ok(counted.into_iter().collect())
    }

    /// A page of the stream, with each article's state.
    pub async fn stream(
        &self,
        user: &UserId,
        query: &StreamQuery,
    ) -> Result<StreamPage, NewsError> {
        let (state, keys, continuation) = self.stream_keys(user, query).await?;
        let items = self.with_state(user, &state, &keys).await?;
        Ok(StreamPage {
            items,
            continuation: continuation.map(|c| c.encode()),
        })
    }

    /// The same page as [`Reader::stream`], ids and times only (no article is read).
    pub async fn item_ids(
        &self,
        user: &UserId,
        query: &StreamQuery,
    ) -> Result<ItemRefPage, NewsError> {
        let (_, keys, continuation) = self.stream_keys(user, query).await?;
        let items = keys
            .into_iter()
            .filter_map(|(key, starred_at)| {
                Some(ItemRef {
                    item_id: ItemId::of_article(&key.id)?.short_form(),
                    id: key.id,
                    source_id: key.source_id,
                    published_at: key.published_at,
                    starred_at,
                })
            })
            .collect();
        Ok(ItemRefPage {
            items,
            continuation: continuation.map(|c| c.encode()),
        })
    }

    /// The keys of a stream page (with when each was starred, for the starred scope), the
    /// person's state they were judged with, and the next page's continuation.
    async fn stream_keys(
        &self,
        user: &UserId,
        query: &StreamQuery,
    ) -> Result<
        (
            ReaderState,
            Vec<(ArticleKey, Option<String>)>,
            Option<crate::store::Continuation>,
        ),
        NewsError,
    > {
        let state = self.store.reader_state(user.as_str()).await?;
        let horizon = self.horizon();
        let request = RowsRequest {
            state: query.state,
            newer_than: query.newer_than.map(rfc3339),
            older_than: query.older_than.map(rfc3339),
            order: query.order,
            count: usize::try_from(query.count).unwrap_or(1),
            continuation: query.continuation.clone(),
            horizon,
        };
        let rows = match &query.scope {
            StreamScope::Starred => {
                let (rows, next) = self
                    .store
                    .starred_rows(user.as_str(), &state, &request)
                    .await?;
                return Ok((state, rows, next));
            }
            StreamScope::All => state.subscriptions.iter().collect::<Vec<_>>(),
            StreamScope::Source(id) => {
                let rows: Vec<&ReaderRow> = state
                    .subscriptions
                    .iter()
                    .filter(|r| r.source_id == id.as_str())
                    .collect();
                if rows.is_empty() {
                    return Err(NewsError::NotSubscribed);
                }
                rows
            }
            StreamScope::SourceInLabel(id, name) => vec![subscription_in_label(&state, id, name)?],
            StreamScope::Label(name) => {
                let rows: Vec<&ReaderRow> = state
                    .subscriptions
                    .iter()
                    .filter(|r| r.labels.iter().any(|l| l == name.as_str()))
                    .collect();
                if rows.is_empty() {
                    return Err(NewsError::LabelNotFound);
                }
                rows
            }
        };
        let ids: Vec<String> = rows.iter().map(|r| r.source_id.clone()).collect();
        let live = self.store.live_source_ids(&ids).await?;
        let sources: Vec<StreamSource> = rows
            .into_iter()
            .filter(|r| live.contains(&r.source_id))
            .map(|r| StreamSource {
                source_id: r.source_id.clone(),
                watermarks: state.watermarks_of(r),
            })
            .collect();
        let (keys, next) = self
            .store
            .stream_rows(user.as_str(), &sources, &request)
            .await?;
        Ok((state, keys.into_iter().map(|k| (k, None)).collect(), next))
    }

    /// The articles of `keys` (in that order, those gone left out) with the person's state.
    async fn with_state(
        &self,
        user: &UserId,
        state: &ReaderState,
        keys: &[(ArticleKey, Option<String>)],
    ) -> Result<Vec<ReaderArticle>, NewsError> {
        let ids: Vec<String> = keys.iter().map(|(k, _)| k.id.clone()).collect();
        let plain: Vec<ArticleKey> = keys.iter().map(|(k, _)| k.clone()).collect();
        let (articles, marks) = futures::try_join!(
            self.store.articles_by_ids(&ids, false),
            self.store.marks(user.as_str(), &plain)
        )?;
        let horizon = self.horizon();
        let rows: HashMap<&str, &ReaderRow> = state
            .subscriptions
            .iter()
            .map(|r| (r.source_id.as_str(), r))
            .collect();
        let published: HashMap<&str, &ArticleKey> =
            plain.iter().map(|k| (k.id.as_str(), k)).collect();
        Ok(articles
            .into_iter()
            .map(|article| {
                let row = rows.get(article.source_id.as_str()).copied();
                let watermarks = row
                    .map(|r| state.watermarks_of(r))
                    .unwrap_or_else(|| state.watermarks_without_row());
                let mark = marks.get(&article.id);
                let key = published
                    .get(article.id.as_str())
                    .map(|k| k.sort_key())
                    .unwrap_or_else(|| format!("{}#{}", article.published_at, article.id));
                ReaderArticle {
                    read: is_read(&key, mark, &watermarks, &horizon),
                    starred: mark.is_some_and(|m| m.starred_at.is_some()),
                    starred_at: mark.and_then(|m| m.starred_at.clone()),
                    labels: row.map(|r| r.labels.clone()).unwrap_or_default(),
                    article,
                }
            })
            .collect())
    }

    /// The articles of these Google Reader item ids: each id with its article id, those that
    /// name no article left out.
    pub async fn resolve_items(
        &self,
        ids: &[ItemId],
    ) -> Result<Vec<(ItemId, ArticleId)>, NewsError> {
        let hexes: Vec<String> = ids.iter().map(|i| i.hex()).collect();
        let found = self.store.resolve_item_aliases(&hexes).await?;
        Ok(ids
            .iter()
            .filter_map(|id| {
                found
                    .get(&id.hex())
                    .map(|article| (*id, ArticleId::new(article.clone())))
            })
            .collect())
    }

    /// Articles by id, in the order asked (unknown ones left out), with the person's state.
    pub async fn articles(
        &self,
        user: &UserId,
        ids: &[ArticleId],
    ) -> Result<Vec<ReaderArticle>, NewsError> {
        let ids: Vec<String> = ids.iter().map(|i| i.as_str().to_string()).collect();
        let state = self.store.reader_state(user.as_str()).await?;
        let keys: Vec<(ArticleKey, Option<String>)> = self
            .store
            .article_keys(&ids)
            .await?
            .into_iter()
            .map(|k| (k, None))
            .collect();
        self.with_state(user, &state, &keys).await
    }
}

/// The person's subscription to `source` when it carries `label`: not followed is
/// [`NewsError::NotSubscribed`], followed without the label [`NewsError::LabelNotFound`].
fn subscription_in_label<'a>(
    state: &'a ReaderState,
    source: &SourceId,
    label: &LabelName,
) -> Result<&'a ReaderRow, NewsError> {
    let row = state
        .subscriptions
        .iter()
        .find(|r| r.source_id == source.as_str())
        .ok_or(NewsError::NotSubscribed)?;
    if row.labels.iter().any(|l| l == label.as_str()) {
        Ok(row)
    } else {
        Err(NewsError::LabelNotFound)
    }
}
