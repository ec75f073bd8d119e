//! The sweep: removing a retired source's rows a bounded step at a time, safely repeated.
//!
//! A source is retired (see `subscriptions.rs`) when its last subscriber leaves, or by the
//! sweep itself when nobody subscribed within the grace period. From then on it answers no
//! read, and each [`ContentStore::sweep_step`] deletes at most a batch of its articles, in
//! transactions that each also take the deleted articles off the source's `articleCount`
//! conditional on the same retirement (`retiredAt`): a source submitted again meanwhile is
//! revived and its sweep stops. Each article row is deleted conditional on still existing,
//! so two sweeps of one source (a redelivered message beside its successor) never count an
//! article twice. When no row is left the source item goes, last. A step killed at any point
//! leaves whole transactions behind: running it again continues where the last commit ended.

use chrono::{DateTime, Duration, Utc};
use platform::dynamo::{key, n, s, Attributes, Item, Transaction, MAX_TRANSACTION_ITEMS};

use super::items::{
    article_key, counts_key, fetch_key, index_row_keys, legacy_topic_pk, shard_of, source_key,
    source_pk, source_topic_count_key, stats_key, topic_count_key, ARTICLE_ROW, ARTICLE_SHARDS,
    RETIRED_AT, TOPIC_SHARDS,
};
use super::reader::{alias_key, owns_alias};
use super::sources::SourceRecord;
use super::{ContentStore, StoreError};

/// What one sweep step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepStep {
    /// Deleted this many articles (maybe none, after a concurrent change): sweep again.
    Swept { articles: usize },
    /// The source item and every row of it are gone.
    Finished,
    /// The source is not retired (it has subscribers, was submitted again, or is still
    /// within its grace period): nothing to sweep.
    Kept,
}

/// One article row of a retired source, as the sweep reads it.
struct ArticleRow {
    sk: String,
    article_id: String,
    topic_ids: Vec<String>,
    /// The article holds its item-id alias (see `reader.rs`), which goes with it.
    owns_alias: bool,
}

impl ArticleRow {
    /// The transaction items deleting it takes: its source row, its item, its row in the list
    /// of every article, per topic the topic's row (and the one written before the lists
    /// were sharded) and the source's, and at most two counters per topic.
    fn items(&self) -> usize {
        3 + usize::from(self.owns_alias) + 5 * self.topic_ids.len()
    }

    /// `ART#{publishedAt}#{articleId}`: the publication time.
    fn published_at(&self) -> &str {
        let rest = self.sk.strip_prefix(ARTICLE_ROW).unwrap_or(&self.sk);
        rest.rsplit_once('#')
            .map_or(rest, |(published, _)| published)
    }
}

impl ContentStore {
    /// One bounded step of the sweep of `source_id` at `now`: retires it first when it never
    /// had a subscriber for `grace` since it was created, then deletes at most `batch` of its
    /// articles, or, when none is left, the source itself.
    pub async fn sweep_step(
        &self,
        source_id: &str,
        now: DateTime<Utc>,
        grace: Duration,
        batch: usize,
    ) -> Result<SweepStep, StoreError> {
        let table = self.table.name();
        let Some(record) = self.source_record(source_id).await? else {
            return Ok(SweepStep::Finished);
        };
        if !record.retired() {
            return self
                .retire_if_abandoned(source_id, &record, now, grace)
                .await;
        }
        let stamp = record.counts.string(table, RETIRED_AT)?;
        let pk = source_pk(source_id);
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :rows)")
            .expression_attribute_values(":pk", s(&pk))
            .expression_attribute_values(":rows", s(ARTICLE_ROW))
            .consistent_read(true)
            .limit(i32::try_from(batch.clamp(1, 1000)).unwrap_or(1));
        let mut rows = Vec::new();
        for row in self.table.query_all(query, Some(batch.max(1))).await? {
            rows.push(ArticleRow {
                sk: row.string(table, "sk")?,
                article_id: row.string(table, "articleId")?,
                topic_ids: row.strings(table, "topicIds")?,
                owns_alias: owns_alias(&row),
            });
        }
        if rows.is_empty() {
            return self.delete_retired(source_id, &stamp).await;
        }
        let mut swept = 0;
        for group in groups(rows) {
            let count = group.len();
            match self.delete_articles(source_id, &stamp, &group).await {
                Ok(()) => swept += count,
                // Revived, retired again, or a concurrent sweep took some rows: the next step
                // reads afresh.
                Err(StoreError::Contention) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(SweepStep::Swept { articles: swept })
    }

    /// Retires a source that nobody subscribed to within `grace` of its creation.
    async fn retire_if_abandoned(
        &self,
        source_id: &str,
        record: &SourceRecord,
        now: DateTime<Utc>,
        grace: Duration,
    ) -> Result<SweepStep, StoreError> {
        let table = self.table.name();
        let subscribers = record.counts.counter(table, "subscriberCount")?;
        let created = record.item.string(table, "createdAt")?;
        let created = DateTime::parse_from_rfc3339(&created)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| self.table.corrupt(format!("createdAt {created}: {e}")))?;
        if subscribers > 0 || now < created + grace {
            return Ok(SweepStep::Kept);
        }
        let mut tx = Transaction::new(&self.table);
        self.retire_into(&mut tx, source_id, &record.counts, subscribers)?;
        match tx.commit_retrying().await {
            Ok(()) => {
                tracing::info!(
                    source_id,
                    "nobody subscribed within the grace period; source retired"
                );
                Ok(SweepStep::Swept { articles: 0 })
            }
            // Subscribed, or changed, meanwhile: the scheduler asks again if it stays unwanted.
            Err(e) if e.failed_at(0) => Ok(SweepStep::Kept),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes the articles of `rows` in one transaction, with their topic rows, and takes
    /// them off the source's and the topics' counters, conditional on the source still being
    /// retired as `stamp` and each row still existing: `Contention` when not.
    async fn delete_articles(
        &self,
        source_id: &str,
        stamp: &str,
        rows: &[ArticleRow],
    ) -> Result<(), StoreError> {
        let pk = source_pk(source_id);
        let deleted = i64::try_from(rows.len()).unwrap_or(i64::MAX);
        let mut tx = Transaction::new(&self.table);
        let source = tx
            .update_builder(counts_key(source_id))
            .update_expression("ADD articleCount :minus")
            .condition_expression("#retiredAt = :stamp")
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":minus", n(-deleted))
            .expression_attribute_values(":stamp", s(stamp));
        // Swept articles leave the rows stored and the retired ones alike.
        let stats = tx
            .update_builder(stats_key(shard_of(source_id, ARTICLE_SHARDS)))
            .update_expression("ADD articleCount :minus, retiredCount :minus")
            .expression_attribute_values(":minus", n(-deleted));
        tx.update(source)?.update(stats)?;
        let mut counters: Vec<(Item, i64)> = Vec::new();
        let mut count = |key: Item| match counters.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => counters.push((key, 1)),
        };
        for row in rows {
            tx.delete(key(&pk, &row.sk), Some("attribute_exists(pk)"))?
                .delete(article_key(&row.article_id), None)?;
            if row.owns_alias {
                if let Some(hex) = row.article_id.get(..16) {
                    tx.delete(alias_key(hex), None)?;
                }
            }
            for index in index_row_keys(
                source_id,
                &row.article_id,
                row.published_at(),
                &row.topic_ids,
            ) {
                tx.delete(index, None)?;
            }
            for topic in &row.topic_ids {
                tx.delete(key(legacy_topic_pk(topic), &row.sk), None)?;
                count(topic_count_key(
                    topic,
                    shard_of(&row.article_id, TOPIC_SHARDS),
                ));
                count(source_topic_count_key(source_id, topic));
            }
        }
        for (counter, count) in counters {
            tx.add(counter, "articleCount", -count, None)?;
        }
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            Err(platform::dynamo::TransactionError::Condition { .. }) => {
                Err(StoreError::Contention)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes the retired source's own items once its article rows are gone: its counters
    /// of topics (a bounded batch per step), then its item, counters and fetch bookkeeping.
    async fn delete_retired(&self, source_id: &str, stamp: &str) -> Result<SweepStep, StoreError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :topics)")
            .expression_attribute_values(":pk", s(source_pk(source_id)))
            .expression_attribute_values(":topics", s("TOPIC#"))
            .projection_expression("pk, sk")
            .consistent_read(true)
            .limit(TOPIC_COUNTERS_PER_STEP);
        let counters = self
            .table
            .query_all(query, Some(TOPIC_COUNTERS_PER_STEP as usize))
            .await?;
        let mut tx = Transaction::new(&self.table);
        let more = counters.len() == TOPIC_COUNTERS_PER_STEP as usize;
        if !more {
            tx.delete_if(
                source_key(source_id),
                "retiredAt = :stamp",
                Item::from([(":stamp".to_string(), s(stamp))]),
            )?
            .delete(counts_key(source_id), None)?
            .delete(fetch_key(source_id), None)?
            .delete(super::websub::websub_key(source_id), None)?;
        }
        for counter in counters {
            let sk = counter.string(self.table.name(), "sk")?;
            tx.delete(key(source_pk(source_id), sk), None)?;
        }
        match tx.commit_retrying().await {
            Ok(()) if more => Ok(SweepStep::Swept { articles: 0 }),
            Ok(()) => {
                tracing::info!(source_id, "retired source swept");
                Ok(SweepStep::Finished)
            }
            Err(e) if e.failed_at(0) => Ok(SweepStep::Swept { articles: 0 }),
            Err(e) => Err(e.into()),
        }
    }
}

/// A source's counters of topics deleted per step (with its four own items, within a
/// transaction's 100).
const TOPIC_COUNTERS_PER_STEP: i32 = 90;

/// Rows grouped into transactions of at most DynamoDB's 100 items: the source's counter, each
/// row's deletes, and one counter per topic. Deletes and counters carry keys only, so a group
/// stays far below the 4 MB a transaction may write.
fn groups(rows: Vec<ArticleRow>) -> Vec<Vec<ArticleRow>> {
    let mut groups: Vec<Vec<ArticleRow>> = Vec::new();
    let mut items = 0;
    for row in rows {
        let needed = row.items();
        if groups.is_empty() || items + needed > MAX_TRANSACTION_ITEMS {
            groups.push(Vec::new());
            // The source's and the total's counters.
            items = 2;
        }
        items += needed;
        if let Some(group) = groups.last_mut() {
            group.push(row);
        }
    }
    groups
}
