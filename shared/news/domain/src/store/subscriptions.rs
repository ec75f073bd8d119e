//! Subscriptions: membership items with an exact count, and the last subscriber leaving
//! retiring the source (its rows are removed later by the sweep, see `sweep.rs`).
//!
//! The memberships live in the source's partition and the count in the source's counters
//! item, a partition of its own: a join or a leave writes 2 units to each, so a popular
//! source joined and left 200 times a second takes 400 WCU/s of either partition.

use platform::dynamo::{n, s, Attributes, Item, Transaction};

use super::items::{
    counts_key, membership_key, shard_of, source_key, stats_key, ARTICLE_SHARDS, RETIRED,
    RETIRED_AT,
};
use super::reader::reader_row_key;
use super::sources::LIVE_COUNTS;
use super::{ContentStore, StoreError, Unsubscription};
use crate::model::Source;

/// How often an unsubscribe reads the count again before giving up: only a race with the
/// source's last subscribers (a count read as 1 that changed, or 2 that fell to 1) repeats,
/// and each repeat means another writer succeeded.
const UNSUBSCRIBE_ATTEMPTS: usize = 32;

impl ContentStore {
    /// Adds `user_id` as a subscriber; a repeat is a no-op. Returns the source. A retired
    /// source is not found.
    pub async fn subscribe(&self, source_id: &str, user_id: &str) -> Result<Source, StoreError> {
        // A source written before its counters were split off gets its counters item first.
        if self.counts(source_id).await?.is_none() {
            return Err(StoreError::SourceNotFound);
        }
        let mut membership = membership_key(source_id, user_id);
        membership.insert("userId".into(), s(user_id));
        membership.insert("subscribedAt".into(), s(self.clock.timestamp()));
        let mut tx = Transaction::new(&self.table);
        let count = tx
            .update_builder(counts_key(source_id))
            .update_expression("ADD subscriberCount :one")
            .condition_expression(LIVE_COUNTS)
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":one", n(1));
        // The person's reader row comes with the membership (kept, labels and all, if there).
        let reader_row = self.reader_row_update(&tx, user_id, source_id, &self.clock.timestamp());
        tx.put(membership, Some("attribute_not_exists(pk)"))?
            .update(count)?
            .update(reader_row)?;
        let outcome = tx.commit_retrying().await;
        match outcome {
            Ok(()) => {}
            Err(e) if e.failed_at(1) => return Err(StoreError::SourceNotFound),
            // Already a subscriber: the reader row is put if missing (a subscription older
            // than the reader, posted again).
            Err(e) if e.failed_at(0) => self.backfill_reader_row(user_id, source_id).await?,
            Err(e) => return Err(e.into()),
        }
        self.source(source_id)
            .await?
            .ok_or(StoreError::SourceNotFound)
    }

    /// Removes `user_id`. Not a subscriber (a repeat, or never subscribed): a no-op that
    /// changes nothing. When the last subscriber leaves, the same transaction retires the
    /// source: it disappears from every read at once, and the caller has its rows swept.
    pub async fn unsubscribe(
        &self,
        source_id: &str,
        user_id: &str,
    ) -> Result<Unsubscription, StoreError> {
        self.leave(source_id, user_id, true).await
    }

    /// Takes back `user_id`'s subscription, which the caller could not record on its side:
    /// as [`ContentStore::unsubscribe`], except that a source left with no subscriber stays,
    /// as it was before that subscription (a submitted source nobody subscribes to yet).
    pub async fn take_back(
        &self,
        source_id: &str,
        user_id: &str,
    ) -> Result<Unsubscription, StoreError> {
        self.leave(source_id, user_id, false).await
    }

    async fn leave(
        &self,
        source_id: &str,
        user_id: &str,
        retire_when_last: bool,
    ) -> Result<Unsubscription, StoreError> {
        let table = self.table.name();
        for _ in 0..UNSUBSCRIBE_ATTEMPTS {
            let counts = match self.counts(source_id).await? {
                Some(counts) if !counts.contains_key(RETIRED_AT) => counts,
                _ => return Err(StoreError::SourceNotFound),
            };
            let count = counts.counter(table, "subscriberCount")?;
            let last = retire_when_last && count <= 1;
            let mut tx = Transaction::new(&self.table);
            tx.delete(
                membership_key(source_id, user_id),
                Some("attribute_exists(pk)"),
            )?;
            if last {
                self.retire_into(&mut tx, source_id, &counts, count)?;
            } else {
                // Any count of two or more may lose one without retiring the source, so the
                // condition does not depend on the exact count: concurrent leavers and joiners
                // of a popular source never make each other repeat. A take-back may leave none.
                let floor = if retire_when_last { 1 } else { 0 };
                let leave = tx
                    .update_builder(counts_key(source_id))
                    .update_expression("ADD subscriberCount :minus")
                    .condition_expression(
                        "attribute_not_exists(#retiredAt) AND subscriberCount > :floor",
                    )
                    .expression_attribute_names("#retiredAt", RETIRED_AT)
                    .expression_attribute_values(":minus", n(-1))
                    .expression_attribute_values(":floor", n(floor));
                tx.update(leave)?;
            }
            // The person's reader row (labels, watermark) goes with the membership.
            tx.delete(reader_row_key(user_id, source_id), None)?;
            match tx.commit_retrying().await {
                Ok(()) if last => {
                    tracing::info!(source_id, "last subscriber left; source retired");
                    return Ok(Unsubscription {
                        subscriber_count: 0,
                        source_deleted: true,
                    });
                }
                Ok(()) => {
                    return Ok(Unsubscription {
                        subscriber_count: count.saturating_sub(1),
                        source_deleted: false,
                    })
                }
                // Not a subscriber: nothing to do, whatever the count.
                Err(e) if e.failed_at(0) => {
                    return Ok(Unsubscription {
                        subscriber_count: count,
                        source_deleted: false,
                    })
                }
                // The source was retired, or fell to its last subscriber, or (when this was
                // to be the last) someone joined or an article arrived: read again.
                Err(e) if e.failed_at(1) || e.failed_at(2) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Contention)
    }

    /// Adds to `tx` the retirement of the source whose counters item was read as `counts`
    /// with `subscribers` subscribers (the last one leaving in the same transaction, or
    /// none): the counters item is marked (conditional on nothing having changed since the
    /// read; the feed worker's inserts change `articleCount`), the source leaves the source
    /// list for the retired one, and its articles are counted as retired, so they leave the
    /// article total. The counters item comes first.
    pub(super) fn retire_into(
        &self,
        tx: &mut Transaction,
        source_id: &str,
        counts: &Item,
        subscribers: i64,
    ) -> Result<(), StoreError> {
        let articles = counts.counter(self.table.name(), "articleCount")?;
        let now = self.clock.timestamp();
        let mark = tx
            .update_builder(counts_key(source_id))
            .update_expression("SET #retiredAt = :now, subscriberCount = :zero")
            .condition_expression(
                "attribute_exists(pk) AND attribute_not_exists(#retiredAt) \
                 AND subscriberCount = :read AND articleCount = :articles",
            )
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":now", s(&now))
            .expression_attribute_values(":zero", n(0))
            .expression_attribute_values(":read", n(subscribers))
            .expression_attribute_values(":articles", n(articles));
        let retire = tx
            .update_builder(source_key(source_id))
            .update_expression("SET #retiredAt = :now, gsi1pk = :list, gsi1sk = :sk")
            .condition_expression("attribute_exists(pk) AND attribute_not_exists(#retiredAt)")
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":now", s(&now))
            .expression_attribute_values(":list", s(RETIRED))
            .expression_attribute_values(":sk", s(format!("{now}#{source_id}")));
        tx.update(mark)?.update(retire)?;
        if articles != 0 {
            tx.add(
                stats_key(shard_of(source_id, ARTICLE_SHARDS)),
                "retiredCount",
                articles,
                None,
            )?;
        }
        Ok(())
    }
}
