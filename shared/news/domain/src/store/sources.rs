//! Sources: creation, reads, and the fetch bookkeeping the feed worker keeps on them.
//!
//! A source is three items: its `META` (listed in `gsi1`, written when it is created,
//! retired, revived or renamed), its counters (`SOURCE#{id}#COUNTS`, see
//! [`super::items::counts_key`]) and its fetch bookkeeping (`FETCH`), neither of which any
//! index copies. A source written before the split holds all three in `META`: its reads fall
//! back to it, and its counters item is made from it the first time it is needed.

use std::collections::HashMap;

use platform::dynamo::{is_condition_failed, key, n, s, Attributes, Item, Transaction};

use super::items::{
    counts_key, fetch_key, is_retired, new_counts_item, new_source_item, shard_of, source_key,
    stats_key, to_fetch_state, to_source, ARTICLE_SHARDS, FULL_TEXT, RETIRED, RETIRED_AT, SOURCES,
    TOPIC_ROWS, TOPIC_ROWS_DONE,
};
use super::{ContentStore, FetchState, NewSource, StoreError};
use crate::model::Source;

/// The condition of every write that needs the source live, on its counters item.
pub(super) const LIVE_COUNTS: &str = "attribute_exists(pk) AND attribute_not_exists(#retiredAt)";

/// A source's items as read together.
#[derive(Debug, Clone)]
pub(super) struct SourceRecord {
    pub item: Item,
    pub counts: Item,
    /// The `FETCH` item, or for a source never fetched since the split, its `META`.
    pub fetch: Item,
}

impl SourceRecord {
    pub fn retired(&self) -> bool {
        is_retired(&self.item) || is_retired(&self.counts)
    }

    pub fn source(&self, table: &str) -> Result<Source, StoreError> {
        Ok(to_source(table, &self.item, &self.counts, &self.fetch)?)
    }

    pub fn fetch_state(&self, table: &str) -> Result<FetchState, StoreError> {
        Ok(to_fetch_state(table, &self.fetch)?)
    }
}

/// One page of the list of sources, for the scheduler's walk.
#[derive(Debug, Clone, Default)]
pub struct SourcesPage {
    /// Each live source with its fetch state.
    pub sources: Vec<(Source, FetchState)>,
    /// The live sources whose rows of each topic are not all written yet (see `backfill`).
    pub backfills: Vec<String>,
    /// Where the next page starts; `None` at the end of the list.
    pub next: Option<String>,
}

impl ContentStore {
    /// Stores a new source; when one with the same id (same normalised URL) exists, returns
    /// that one instead and `false`. A retired source of the same URL (its rows not yet swept)
    /// comes back as a new source: `true`.
    pub async fn create_source(&self, new: NewSource) -> Result<(Source, bool), StoreError> {
        let item = new_source_item(&new, &self.clock.timestamp());
        let counts = new_counts_item(&new.id);
        let mut tx = Transaction::new(&self.table);
        tx.put(item.clone(), Some("attribute_not_exists(pk)"))?
            .put(counts.clone(), None)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok((to_source(self.table.name(), &item, &counts, &item)?, true)),
            Err(e) if e.failed_at(0) => {
                // Created meanwhile by another submission of the same URL, or retired and
                // not yet swept; gone meanwhile only if its sweep finished in between.
                let existing = self
                    .source_record(&new.id)
                    .await?
                    .ok_or(StoreError::Contention)?;
                if existing.retired() {
                    return Ok((self.revive(&new, &existing).await?, true));
                }
                Ok((existing.source(self.table.name())?, false))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Brings a retired source back as new: its fields from the submission, no subscriber,
    /// no fetch state, created now, listed again, and its articles not yet swept counted
    /// again. Its sweep, conditional on the same retirement, stops at its next step.
    async fn revive(&self, new: &NewSource, retired: &SourceRecord) -> Result<Source, StoreError> {
        let table = self.table.name();
        let stamp = retired.counts.string(table, RETIRED_AT)?;
        let articles = retired.counts.counter(table, "articleCount")?;
        let now = self.clock.timestamp();
        let (expression, values) = revived_source(new, &now);
        let mut tx = Transaction::new(&self.table);
        let counts = tx
            .update_builder(counts_key(&new.id))
            .update_expression("SET subscriberCount = :zero REMOVE #retiredAt")
            .condition_expression("#retiredAt = :stamp AND articleCount = :articles")
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":zero", n(0))
            .expression_attribute_values(":stamp", s(&stamp))
            .expression_attribute_values(":articles", n(articles));
        let update = tx
            .update_builder(source_key(&new.id))
            .update_expression(expression)
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#url", "url")
            .expression_attribute_names("#title", "title")
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .set_expression_attribute_values(Some(values));
        tx.update(counts)?
            .update(update)?
            .delete(fetch_key(&new.id), None)?;
        if articles != 0 {
            tx.add(
                stats_key(shard_of(&new.id, ARTICLE_SHARDS)),
                "retiredCount",
                -articles,
                None,
            )?;
        }
        tx.commit_retrying().await?;
        tracing::info!(source_id = %new.id, "retired source submitted again: revived");
        self.source(&new.id).await?.ok_or(StoreError::Contention)
    }

    /// The source's items, retired or not (one BatchGetItem); `None` when it does not exist.
    pub(super) async fn source_record(&self, id: &str) -> Result<Option<SourceRecord>, StoreError> {
        let keys = vec![source_key(id), counts_key(id), fetch_key(id)];
        let (mut item, mut counts, mut fetch) = (None, None, None);
        for found in self.table.batch_get_all(keys, None).await? {
            match found.opt_string("sk").as_deref() {
                Some("META") => item = Some(found),
                Some("COUNTS") => counts = Some(found),
                Some("FETCH") => fetch = Some(found),
                _ => {}
            }
        }
        let Some(item) = item else {
            return Ok(None);
        };
        let counts = match counts {
            Some(counts) => counts,
            None => self.split_counts(id, &item).await?,
        };
        let fetch = fetch.unwrap_or_else(|| item.clone());
        Ok(Some(SourceRecord {
            item,
            counts,
            fetch,
        }))
    }

    /// The source's counters item read consistently, made from its `META` when the source
    /// was written before the split; `None` when the source does not exist.
    pub(super) async fn counts(&self, id: &str) -> Result<Option<Item>, StoreError> {
        if let Some(counts) = self.table.get(counts_key(id)).await? {
            return Ok(Some(counts));
        }
        match self.table.get(source_key(id)).await? {
            Some(item) => Ok(Some(self.split_counts(id, &item).await?)),
            None => Ok(None),
        }
    }

    /// Makes the counters item of a source written before the split from its `META` (once:
    /// conditional on it not existing), and answers the item as stored.
    async fn split_counts(&self, id: &str, item: &Item) -> Result<Item, StoreError> {
        let table = self.table.name();
        let mut counts = counts_key(id);
        for name in ["subscriberCount", "articleCount"] {
            counts.insert(name.into(), n(item.counter(table, name)?));
        }
        if let Some(stamp) = item.opt_string(RETIRED_AT) {
            counts.insert(RETIRED_AT.into(), s(stamp));
        }
        let put = self
            .table
            .put_item()
            .set_item(Some(counts.clone()))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        match put {
            Ok(_) => Ok(counts),
            Err(e) if is_condition_failed(&e) => self
                .table
                .get(counts_key(id))
                .await?
                .ok_or(StoreError::Contention),
            Err(e) => Err(self.table.fail("PutItem", &e).into()),
        }
    }

    /// The source, unless it does not exist or is retired.
    pub async fn source(&self, id: &str) -> Result<Option<Source>, StoreError> {
        match self.source_record(id).await? {
            Some(record) if !record.retired() => Ok(Some(record.source(self.table.name())?)),
            _ => Ok(None),
        }
    }

    /// Sets the source's [`crate::FullTextMode`]; `None` when it does not exist or is retired.
    pub async fn set_full_text(
        &self,
        id: &str,
        mode: crate::FullTextMode,
    ) -> Result<Option<Source>, StoreError> {
        let outcome = self
            .table
            .update_item()
            .set_key(Some(source_key(id)))
            .update_expression("SET #fullText = :mode")
            .condition_expression("attribute_exists(pk) AND attribute_not_exists(#retiredAt)")
            .expression_attribute_names("#fullText", FULL_TEXT)
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":mode", s(mode.as_str()))
            .send()
            .await;
        match outcome {
            Ok(_) => self.source(id).await,
            Err(e) if is_condition_failed(&e) => Ok(None),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    /// The ids of the oldest `limit` retired sources with when each was retired (for the
    /// scheduler's re-enqueuing of sweeps that were lost).
    pub async fn retired_sources(&self, limit: usize) -> Result<Vec<(String, String)>, StoreError> {
        let table = self.table.name();
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :list")
            .expression_attribute_values(":list", s(RETIRED))
            .limit(i32::try_from(limit.clamp(1, 1000)).unwrap_or(1));
        self.table
            .query_all(query, Some(limit.max(1)))
            .await?
            .iter()
            .map(|item| Ok((item.string(table, "id")?, item.string(table, RETIRED_AT)?)))
            .collect()
    }

    /// The source with its fetch bookkeeping (for the feed worker).
    pub async fn source_for_fetch(
        &self,
        id: &str,
    ) -> Result<Option<(Source, FetchState)>, StoreError> {
        let table = self.table.name();
        match self.source_record(id).await? {
            Some(record) if !record.retired() => {
                Ok(Some((record.source(table)?, record.fetch_state(table)?)))
            }
            _ => Ok(None),
        }
    }

    /// Every source, oldest first.
    pub async fn sources(&self) -> Result<Vec<Source>, StoreError> {
        let items = self.list(SOURCES).await?;
        Ok(self
            .with_records(items)
            .await?
            .into_iter()
            .map(|(source, _, _)| source)
            .collect())
    }

    /// A page of at most `limit` sources, oldest first, after the sort key `after`, and the
    /// sort key the next page starts after (`None` at the end).
    pub async fn sources_list(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<Source>, Option<String>), StoreError> {
        let (items, next) = self.list_page(SOURCES, after, limit).await?;
        let sources = self.with_records(items).await?;
        Ok((
            sources.into_iter().map(|(source, _, _)| source).collect(),
            next,
        ))
    }

    /// A page of at most `limit` sources, oldest first, from `after` (a page's `next`).
    pub async fn sources_page(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<SourcesPage, StoreError> {
        let mut query = self
            .table
            .query()
            .index_name("gsi1")
            .expression_attribute_values(":list", s(SOURCES))
            .limit(i32::try_from(limit.clamp(1, 1000)).unwrap_or(1));
        query = match after {
            Some(after) => query
                .key_condition_expression("gsi1pk = :list AND gsi1sk > :after")
                .expression_attribute_values(":after", s(after)),
            None => query.key_condition_expression("gsi1pk = :list"),
        };
        let out = query
            .send()
            .await
            .map_err(|e| self.table.fail("Query", &e))?;
        let items = out.items.unwrap_or_default();
        let next = out
            .last_evaluated_key
            .filter(|key| !key.is_empty())
            .and_then(|key| key.get("gsi1sk").and_then(|v| v.as_s().ok()).cloned());
        let records = self.with_records(items).await?;
        let backfills = records
            .iter()
            .filter(|(_, _, done)| !done)
            .map(|(source, _, _)| source.id.clone())
            .collect();
        Ok(SourcesPage {
            sources: records.into_iter().map(|(s, f, _)| (s, f)).collect(),
            backfills,
            next,
        })
    }

    /// The live sources of these `META` items with their counters and fetch state, and
    /// whether their topic rows are all written (one BatchGetItem per 50 sources).
    async fn with_records(
        &self,
        items: Vec<Item>,
    ) -> Result<Vec<(Source, FetchState, bool)>, StoreError> {
        let table = self.table.name();
        let live: Vec<Item> = items.into_iter().filter(|i| !is_retired(i)).collect();
        let mut keys = Vec::with_capacity(live.len() * 2);
        for item in &live {
            let id = item.string(table, "id")?;
            keys.push(counts_key(&id));
            keys.push(fetch_key(&id));
        }
        let mut found: HashMap<(String, String), Item> = HashMap::new();
        for item in self.table.batch_get_all(keys, None).await? {
            if let (Some(pk), Some(sk)) = (item.opt_string("pk"), item.opt_string("sk")) {
                found.insert((pk, sk), item);
            }
        }
        let mut out = Vec::with_capacity(live.len());
        for item in live {
            let id = item.string(table, "id")?;
            let take = |key: Item, found: &mut HashMap<(String, String), Item>| {
                let pk = key.get("pk").and_then(|v| v.as_s().ok()).cloned();
                let sk = key.get("sk").and_then(|v| v.as_s().ok()).cloned();
                pk.zip(sk).and_then(|k| found.remove(&k))
            };
            let counts = match take(counts_key(&id), &mut found) {
                Some(counts) => counts,
                None => self.split_counts(&id, &item).await?,
            };
            if is_retired(&counts) {
                continue;
            }
            let fetch = take(fetch_key(&id), &mut found).unwrap_or_else(|| item.clone());
            let topic_rows = counts.opt_string(TOPIC_ROWS).as_deref() == Some(TOPIC_ROWS_DONE);
            out.push((
                to_source(table, &item, &counts, &fetch)?,
                to_fetch_state(table, &fetch)?,
                topic_rows,
            ));
        }
        Ok(out)
    }

    /// Where the scheduler's walk over the sources goes on (a source list position), if
    /// anywhere: `None` starts from the top.
    pub async fn walk_position(&self) -> Result<Option<String>, StoreError> {
        Ok(self
            .table
            .get(key("SCHEDULER", "WALK"))
            .await?
            .and_then(|item| item.opt_string("after")))
    }

    /// Keeps where the walk goes on (`None`: from the top).
    pub async fn set_walk_position(&self, after: Option<&str>) -> Result<(), StoreError> {
        let mut item = key("SCHEDULER", "WALK");
        if let Some(after) = after {
            item.insert("after".into(), s(after));
        }
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map_err(|e| self.table.fail("PutItem", &e))?;
        Ok(())
    }

    /// Records a fetch attempt's outcome (not on a retired source): its validators, failure
    /// count and next fetch time; when `fetched`, the time of the fetch; `title` (the feed's,
    /// and the source's as read) replaces the source's when not blank and different. Conditional on the next fetch
    /// time still being `claimed` (what the caller read), so that of two deliveries of one
    /// refresh only one records it: [`StoreError::Contention`] for the other.
    pub async fn record_fetch(
        &self,
        source_id: &str,
        state: &FetchState,
        claimed: Option<&str>,
        fetched: bool,
        title: Option<(&str, &str)>,
    ) -> Result<(), StoreError> {
        let mut sets = vec!["failures = :failures".to_string()];
        let mut values: Item =
            HashMap::from([(":failures".to_string(), n(i64::from(state.failures)))]);
        let mut removes = Vec::new();
        for (attribute, value) in [
            ("etag", &state.etag),
            ("lastModified", &state.last_modified),
            ("nextFetchAt", &state.next_fetch_at),
        ] {
            match value {
                Some(v) => {
                    sets.push(format!("{attribute} = :{attribute}"));
                    values.insert(format!(":{attribute}"), s(v));
                }
                None => removes.push(attribute),
            }
        }
        if fetched {
            sets.push("lastFetchedAt = :now".into());
            values.insert(":now".into(), s(self.clock.timestamp()));
        }
        let mut expression = format!("SET {}", sets.join(", "));
        if !removes.is_empty() {
            expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        let mut tx = Transaction::new(&self.table);
        tx.check(counts_key(source_id), LIVE_COUNTS_NAMED)?;
        let mut update = tx
            .update_builder(fetch_key(source_id))
            .update_expression(expression)
            .set_expression_attribute_values(Some(values));
        update = match claimed {
            // A source not fetched since its bookkeeping was split off has no item yet.
            Some(claimed) => update
                .condition_expression("attribute_not_exists(pk) OR nextFetchAt = :claimed")
                .expression_attribute_values(":claimed", s(claimed)),
            None => update.condition_expression("attribute_not_exists(nextFetchAt)"),
        };
        tx.update(update)?;
        // Only a new title writes the item (and its copy in the source list).
        if let Some((title, _)) = title.filter(|(t, p)| !t.trim().is_empty() && t != p) {
            let rename = tx
                .update_builder(source_key(source_id))
                .update_expression("SET title = :title")
                .condition_expression("attribute_exists(pk)")
                .expression_attribute_values(":title", s(title));
            tx.update(rename)?;
        }
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            Err(e) if e.failed_at(0) => Err(StoreError::SourceNotFound),
            Err(e) => Err(e.into()),
        }
    }
}

/// The update of a revived source's item (`#url`, `#title` and `#retiredAt` named), and its
/// values: the submission's fields, created `now` and listed again; the rest removed.
fn revived_source(new: &NewSource, now: &str) -> (String, Item) {
    let mut sets = vec![
        "#url = :url",
        "#title = :title",
        "createdAt = :now",
        "gsi1pk = :list",
        "gsi1sk = :sk",
    ];
    // Counters and fetch state a source kept in its item before they were split off.
    let mut removes = vec![
        "#retiredAt",
        "etag",
        "lastModified",
        "nextFetchAt",
        "lastFetchedAt",
        "failures",
        "subscriberCount",
        "articleCount",
        FULL_TEXT,
    ];
    let mut values = Item::from([
        (":url".to_string(), s(&new.url)),
        (":title".to_string(), s(&new.title)),
        (":now".to_string(), s(now)),
        (":list".to_string(), s(SOURCES)),
        (":sk".to_string(), s(format!("{now}#{}", new.id))),
    ]);
    match &new.site_url {
        Some(v) => {
            sets.push("siteUrl = :site");
            values.insert(":site".into(), s(v));
        }
        None => removes.push("siteUrl"),
    }
    match &new.description {
        Some(v) => {
            sets.push("description = :description");
            values.insert(":description".into(), s(v));
        }
        None => removes.push("description"),
    }
    let expression = format!("SET {} REMOVE {}", sets.join(", "), removes.join(", "));
    (expression, values)
}

/// [`LIVE_COUNTS`] with its attribute name spelt out, for a condition check (which takes no
/// expression attribute names in [`Transaction::check`]).
pub(super) const LIVE_COUNTS_NAMED: &str =
    "attribute_exists(pk) AND attribute_not_exists(retiredAt)";
