//! Post views, counted off the reader's request path.
//!
//! Opening a post page sends a view beacon (`POST /posts/{id}/views`), which puts a
//! [`ViewRequest`] on the view queue and writes nothing to the table. The view worker
//! (`community-views`) counts each batch: a view counts at most once per reader, post and
//! hour (a small dedupe row, `VIEW#{post}#{reader}#{hour}`, put only when absent, that
//! expires), written in one transaction with the `ADD` to the post's `viewCount` that counts
//! it, so a view is counted exactly when its row exists, whatever AWS retries or redelivers.
//!
//! Rates at target (a viral post read 10,000 times a second): `VIEW#{post}#{reader}#{hour}`
//! is its own partition per reader, one 2-unit transactional put an hour at most; the post's
//! `ADD` is one per transaction of up to 99 views, 10000 / 99 ≈ 101 a second × 2 write units
//! = 202 (20% of a partition).

use platform::aws::sqs::Sqs;
use platform::dynamo::{
    n, DynamoError, Item, Transaction, TransactionError, MAX_TRANSACTION_ITEMS,
};
use platform::{ConfigError, Env};
use serde::{Deserialize, Serialize};

use crate::keys;
use crate::store::Store;

/// Who read a post, for counting one view per reader and hour: a member by id, an anonymous
/// reader by a salted hash of their address (the address itself is never stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reader(String);

impl Reader {
    pub fn member(user_id: &str) -> Self {
        Self(format!("u.{user_id}"))
    }

    /// An anonymous reader: SHA-256 of `salt` and the source address, hex (128 bits kept).
    pub fn anonymous(salt: &[u8], address: &str) -> Self {
        let mut context = ring::digest::Context::new(&ring::digest::SHA256);
        context.update(salt);
        context.update(b"\0");
        context.update(address.as_bytes());
        let digest = context.finish();
        let hex: String = digest
            .as_ref()
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect();
        Self(format!("a.{hex}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The member's id, when the reader is one.
    fn user_id(&self) -> Option<&str> {
        self.0.strip_prefix("u.")
    }
}

/// The view queue's message: `reader` opened `postId` during `hour` (hours since the epoch).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ViewRequest {
    pub post_id: String,
    pub reader: String,
    pub hour: i64,
}

/// The longest reader a message may carry (`u.` and a uuid, or `a.` and 32 hex digits).
const MAX_READER: usize = 40;

impl ViewRequest {
    pub fn new(post_id: &str, reader: &Reader, hour: i64) -> Self {
        Self {
            post_id: post_id.to_string(),
            reader: reader.0.clone(),
            hour,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({"postId": self.post_id, "reader": self.reader, "hour": self.hour})
            .to_string()
    }

    /// Reads a message body: a uuid post, a reader as [`Reader`] makes them, a positive hour.
    pub fn parse(body: &str) -> Result<Self, String> {
        let request: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        uuid::Uuid::parse_str(&request.post_id)
            .map_err(|_| format!("postId {:?} is not a uuid", request.post_id))?;
        let reader_ok = (request.reader.starts_with("u.") || request.reader.starts_with("a."))
            && request.reader.len() <= MAX_READER
            && request.reader[2..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !reader_ok {
            return Err(format!("reader {:?} is not a reader", request.reader));
        }
        if request.hour <= 0 {
            return Err(format!("hour {} is not an hour", request.hour));
        }
        Ok(Self {
            post_id: request.post_id.to_ascii_lowercase(),
            ..request
        })
    }
}

/// The hour (since the epoch) a view at `at` belongs to.
pub fn hour_of(at: chrono::DateTime<chrono::Utc>) -> i64 {
    at.timestamp().div_euclid(3600)
}

/// The view queue (`COMMUNITY_VIEW_QUEUE_URL`).
#[derive(Clone, Debug)]
pub struct ViewQueue {
    sqs: Sqs,
    url: String,
}

/// Why a view could not be queued.
#[derive(Debug, thiserror::Error)]
#[error("view queue: {0}")]
pub struct ViewQueueError(pub String);

impl ViewQueue {
    pub fn new(sqs: Sqs, url: impl Into<String>) -> Self {
        Self {
            sqs,
            url: url.into(),
        }
    }

    pub fn from_env(env: &Env, sqs: Sqs) -> Result<Self, ConfigError> {
        Ok(Self::new(sqs, env.require("COMMUNITY_VIEW_QUEUE_URL")?))
    }

    pub async fn send(&self, view: &ViewRequest) -> Result<(), ViewQueueError> {
        self.sqs
            .send_message(&self.url, &view.to_json())
            .await
            .map(|_| ())
            .map_err(|e| ViewQueueError(e.to_string()))
    }
}

/// A transaction's claims: DynamoDB's 100 items less the post's `ADD`.
const CLAIMS_PER_TRANSACTION: usize = MAX_TRANSACTION_ITEMS - 1;
/// A dedupe row outlives its hour by this long (TTL deletes late; the hour is in its key).
const DEDUPE_KEPT_SECONDS: i64 = 3600;

/// Why some of a post's views were not counted (the worker lets their messages come back;
/// the views it did count stay counted, and their rows make the redelivery skip them).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct ViewCountError(#[from] pub DynamoError);

impl Store {
    /// Counts `views` (reader, hour) of one post: each new (reader, hour) once, none by its
    /// author, none on a post that is not published and live. Answers how many were new.
    ///
    /// A view's dedupe row and the post's `ADD` are written in one transaction (99 views and
    /// the `ADD`), so a view is counted exactly when its row exists: a reply lost after the
    /// write is retried by the SDK with the transaction's token and applies nothing twice,
    /// and a redelivered message finds its rows, is dropped from the transaction and counts
    /// nothing. A transaction that fails past its retries wrote nothing; its views come back
    /// with their messages.
    pub async fn count_views(
        &self,
        post_id: &str,
        views: &[(String, i64)],
    ) -> Result<u64, ViewCountError> {
        let Some(item) = self.table.get_eventual(keys::post(post_id)).await? else {
            return Ok(0);
        };
        let post = crate::store::posts::StoredPost::from_item(self, &item)?;
        if !post.is_public() {
            return Ok(0);
        }
        let mut wanted: Vec<(String, i64)> = views
            .iter()
            .filter(|(reader, _)| Reader(reader.clone()).user_id() != Some(post.author_id.as_str()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_are_members_or_hashed_addresses() {
        let a = Reader::anonymous(b"salt", "203.0.113.7");
        assert_eq!(a, Reader::anonymous(b"salt", "203.0.113.7"));
        assert_ne!(a, Reader::anonymous(b"other", "203.0.113.7"));
        assert_ne!(a, Reader::anonymous(b"salt", "203.0.113.8"));
        assert!(!a.as_str().contains("203"), "{a:?}");
        let m = Reader::member("5b0f3c1e-0000-4000-8000-000000000001");
        assert_eq!(m.user_id(), Some("5b0f3c1e-0000-4000-8000-000000000001"));
        assert_eq!(a.user_id(), None);
    }

    #[test]
    fn messages_round_trip_and_junk_is_refused() {
        let view = ViewRequest::new(
            "5B0F3C1E-0000-4000-8000-000000000001",
            &Reader::anonymous(b"k", "198.51.100.2"),
            493_000,
        );
        let back = ViewRequest::parse(&view.to_json()).unwrap();
        assert_eq!(back.post_id, "5b0f3c1e-0000-4000-8000-000000000001");
        assert_eq!(back.reader, view.reader);
        for junk in [
            "",
            "{}",
            r#"{"postId":"x","reader":"u.a","hour":1}"#,
            r#"{"postId":"5b0f3c1e-0000-4000-8000-000000000001","reader":"VIEW#x","hour":1}"#,
            r#"{"postId":"5b0f3c1e-0000-4000-8000-000000000001","reader":"u.a","hour":0}"#,
        ] {
            assert!(ViewRequest::parse(junk).is_err(), "{junk}");
        }
    }
}
