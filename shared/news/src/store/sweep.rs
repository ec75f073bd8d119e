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
    article_key, is_retired, source_key, source_pk, topic_key, topic_pk, ARTICLE_ROW, RETIRED_AT,
};
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
}

impl ArticleRow {
    /// The transaction items deleting it takes, the topic counters aside.
    fn items(&self) -> usize {
        2 + self.topic_ids.len()
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
        let Some(item) = self.source_item(source_id).await? else {
            return Ok(SweepStep::Finished);
        };
        if !is_retired(&item) {
            return self.retire_if_abandoned(source_id, &item, now, grace).await;
        }
        let stamp = item.string(table, RETIRED_AT)?;
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
        item: &Item,
        now: DateTime<Utc>,
        grace: Duration,
    ) -> Result<SweepStep, StoreError> {
        let table = self.table.name();
        let subscribers = item.counter(table, "subscriberCount")?;
        let created = item.string(table, "createdAt")?;
        let created = DateTime::parse_from_rfc3339(&created)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| self.table.corrupt(format!("createdAt {created}: {e}")))?;
        if subscribers > 0 || now < created + grace {
            return Ok(SweepStep::Kept);
        }
        let mut tx = Transaction::new(&self.table);
        self.retire_into(&mut tx, source_id, item, subscribers)?;
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
            .update_builder(source_key(source_id))
            .update_expression("ADD articleCount :minus")
            .condition_expression("#retiredAt = :stamp")
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":minus", n(-deleted))
            .expression_attribute_values(":stamp", s(stamp));
        tx.update(source)?;
        let mut topics: Vec<(&str, i64)> = Vec::new();
        for row in rows {
            tx.delete(key(&pk, &row.sk), Some("attribute_exists(pk)"))?
                .delete(article_key(&row.article_id), None)?;
            for topic in &row.topic_ids {
                tx.delete(key(topic_pk(topic), &row.sk), None)?;
                match topics.iter_mut().find(|(t, _)| t == topic) {
                    Some((_, count)) => *count += 1,
                    None => topics.push((topic, 1)),
                }
            }
        }
        for (topic, count) in topics {
            tx.add(topic_key(topic), "articleCount", -count, None)?;
        }
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            Err(platform::dynamo::TransactionError::Condition { .. }) => {
                Err(StoreError::Contention)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes the retired source's own item once its rows are gone.
    async fn delete_retired(&self, source_id: &str, stamp: &str) -> Result<SweepStep, StoreError> {
        let outcome = self
            .table
            .delete_item()
            .set_key(Some(source_key(source_id)))
            .condition_expression("#retiredAt = :stamp")
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":stamp", s(stamp))
            .send()
            .await;
        match outcome {
            Ok(_) => {
                tracing::info!(source_id, "retired source swept");
                Ok(SweepStep::Finished)
            }
            Err(e) if platform::dynamo::is_condition_failed(&e) => {
                Ok(SweepStep::Swept { articles: 0 })
            }
            Err(e) => Err(self.table.fail("DeleteItem", &e).into()),
        }
    }
}

/// Rows grouped into transactions of at most DynamoDB's 100 items: the source's counter, each
/// row's deletes, and one counter per topic. Deletes and counters carry keys only, so a group
/// stays far below the 4 MB a transaction may write.
fn groups(rows: Vec<ArticleRow>) -> Vec<Vec<ArticleRow>> {
    let mut groups: Vec<Vec<ArticleRow>> = Vec::new();
    let mut items = 0;
    for row in rows {
        let needed = row.items() + row.topic_ids.len();
        if groups.is_empty() || items + needed > MAX_TRANSACTION_ITEMS {
            groups.push(Vec::new());
            items = 1;
        }
        items += needed;
        if let Some(group) = groups.last_mut() {
            group.push(row);
        }
    }
    groups
}
