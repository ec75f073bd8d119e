//! Post views, counted off the reader's request path.
//!
//! Opening a post page sends a view beacon (`POST /posts/{id}/views`), which puts a
//! [`ViewRequest`](crate::queues::ViewRequest) on the view queue and writes nothing to the table. The view worker
//! (`community-views`) counts each batch: a view counts at most once per reader, post and
//! hour (a small dedupe row, `VIEW#{post}#{reader}#{hour}`, put only when absent, that
//! expires), written in one transaction with the `ADD` to the post's `viewCount` that counts
//! it, so a view is counted exactly when its row exists, whatever AWS retries or redelivers.
//!
//! Rates at target (a viral post read 10,000 times a second): `VIEW#{post}#{reader}#{hour}`
//! is its own partition per reader, one 2-unit transactional put an hour at most; the post's
//! `ADD` is one per transaction of up to 99 views, 10000 / 99 ≈ 101 a second × 2 write units
//! = 202 (20% of a partition).

use platform::dynamo::{
    n, DynamoError, Item, Transaction, TransactionError, MAX_TRANSACTION_ITEMS,
};

use super::Store;
use crate::keys;
use crate::queues::Reader;

/// A transaction's claims: DynamoDB's 100 items less the post's `ADD`.
const CLAIMS_PER_TRANSACTION: usize = MAX_TRANSACTION_ITEMS - 1;
/// A dedupe row outlives its hour by this long (TTL deletes late; the hour is in its key).
const DEDUPE_KEPT_SECONDS: i64 = 3600;

impl Store {
    /// Counts `views` (reader, hour) of one post: each new (reader, hour) once, none by its
    /// author, none on a post that is not published and live. Answers how many were new.
    ///
    /// A view's dedupe row and the post's `ADD` are written in one transaction (99 views and
    /// the `ADD`), so a view is counted exactly when its row exists: a reply lost after the
    /// write is retried by the SDK with the transaction's token and applies nothing twice,
    /// and a redelivered message finds its rows, is dropped from the transaction and counts
    /// nothing. A transaction that fails past its retries wrote nothing; its views come back
    /// with their messages (the views it did count stay counted, and their rows make the
    /// redelivery skip them).
    pub async fn count_views(
        &self,
        post_id: &str,
        views: &[(String, i64)],
    ) -> Result<u64, DynamoError> {
        let Some(item) = self.table.get_eventual(keys::post(post_id)).await? else {
            return Ok(0);
        };
        let post = crate::store::posts::StoredPost::from_item(self, &item)?;
        if !post.is_public() {
            return Ok(0);
        }
        let mut wanted: Vec<(String, i64)> = views
            .iter()
            .filter(|(reader, _)| Reader::of(reader).user_id() != Some(post.author_id.as_str()))
            .cloned()
            .collect();
        wanted.sort();
        wanted.dedup();
        let mut counted = 0;
        for chunk in wanted.chunks(CLAIMS_PER_TRANSACTION) {
            match self.count_new_views(post_id, chunk).await? {
                Some(new) => counted += new,
                // Deleted or unpublished meanwhile: its views no longer count.
                None => break,
            }
        }
        Ok(counted)
    }

    /// One transaction: the views of `views` not yet counted claim their rows and add
    /// themselves to the post. `None` when the post is no longer live.
    async fn count_new_views(
        &self,
        post_id: &str,
        views: &[(String, i64)],
    ) -> Result<Option<u64>, DynamoError> {
        let mut new: Vec<&(String, i64)> = views.iter().collect();
        // Each round drops at least one view already counted, so this ends.
        while !new.is_empty() {
            let mut transaction = Transaction::new(&self.table);
            let count = i64::try_from(new.len()).unwrap_or(i64::MAX);
            transaction.add(
                keys::post(post_id),
                "viewCount",
                count,
                Some("attribute_exists(pk) AND attribute_not_exists(deletedAt)"),
            )?;
            for (reader, hour) in &new {
                let mut row: Item = keys::view(post_id, reader, *hour);
                row.insert(
                    "expiresAt".to_string(),
                    n((hour + 1) * 3600 + DEDUPE_KEPT_SECONDS),
                );
                transaction.put(row, Some("attribute_not_exists(pk)"))?;
            }
            match transaction.commit_retrying().await {
                Ok(()) => return Ok(Some(u64::try_from(count).unwrap_or(0))),
                Err(TransactionError::Condition { failed }) if failed.contains(&0) => {
                    return Ok(None)
                }
                Err(TransactionError::Condition { failed }) => {
                    // Item i + 1 is view i: those already counted drop out.
                    new = new
                        .into_iter()
                        .enumerate()
                        .filter(|(i, _)| !failed.contains(&(i + 1)))
                        .map(|(_, view)| view)
                        .collect();
                }
                Err(TransactionError::Conflict) => {
                    return Err(DynamoError::Call {
                        operation: "TransactWriteItems",
                        table: self.table.name().to_string(),
                        message: "views: the post's counter stayed contended".to_string(),
                        unavailable: true,
                    })
                }
                Err(TransactionError::Dynamo(e)) => return Err(e),
            }
        }
        Ok(Some(0))
    }
}
