//! Post views, counted off the reader's request path.
//!
//! Opening a post page sends a view beacon (`POST /posts/{id}/views`), which puts a
//! [`ViewRequest`] on the view queue and writes nothing to the table. The view worker
//! (`community-views`) counts each batch: a view counts at most once per reader, post and
//! hour (a small dedupe row, `VIEW#{post}#{reader}#{hour}`, that expires), and a post's new
//! views of a batch are added to its `viewCount` in the same transaction as their dedupe
//! rows, so a redelivered batch finds its rows and counts nothing twice.

use platform::aws::sqs::Sqs;
use platform::dynamo::{
    n, retry_on_conflict, DynamoError, Item, RetryPolicy, Transaction, TransactionError,
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

/// Dedupe rows per transaction: DynamoDB's 100 items, less the post's counter.
const ROWS_PER_TRANSACTION: usize = platform::dynamo::MAX_TRANSACTION_ITEMS - 1;
/// Times a post's views are read again when another worker counted some of them meanwhile.
const REREADS: u32 = 4;
/// A dedupe row outlives its hour by this long (TTL deletes late; the hour is in its key).
const DEDUPE_KEPT_SECONDS: i64 = 3600;

/// Why a post's views were not counted (the worker lets the messages come back).
#[derive(Debug, thiserror::Error)]
pub enum ViewCountError {
    #[error("other workers kept counting the same views")]
    Busy,
    #[error(transparent)]
    Store(#[from] DynamoError),
}

impl Store {
    /// Counts `views` (reader, hour) of one post: each new (reader, hour) once, none by its
    /// author, none on a post that is not published and live. Answers how many were new.
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
        for chunk in wanted.chunks(ROWS_PER_TRANSACTION) {
            counted += self.count_chunk(post_id, chunk).await?;
        }
        Ok(counted)
    }

    /// One transaction's worth: the rows not yet there, put with the post's `ADD`.
    async fn count_chunk(
        &self,
        post_id: &str,
        views: &[(String, i64)],
    ) -> Result<u64, ViewCountError> {
        for _ in 0..REREADS {
            let seen = self
                .table
                .batch_get_all(
                    views
                        .iter()
                        .map(|(r, h)| keys::view(post_id, r, *h))
                        .collect(),
                    Some("pk"),
                )
                .await?;
            let fresh: Vec<&(String, i64)> = views
                .iter()
                .filter(|(r, h)| {
                    let pk = keys::view(post_id, r, *h);
                    !seen.iter().any(|row| row.get("pk") == pk.get("pk"))
                })
                .collect();
            if fresh.is_empty() {
                return Ok(0);
            }
            let mut tx = Transaction::new(&self.table);
            for (reader, hour) in &fresh {
                let mut row: Item = keys::view(post_id, reader, *hour);
                row.insert(
                    "expiresAt".to_string(),
                    n((hour + 1) * 3600 + DEDUPE_KEPT_SECONDS),
                );
                tx.put(row, Some("attribute_not_exists(pk)"))?;
            }
            let count = i64::try_from(fresh.len()).unwrap_or(i64::MAX);
            tx.update(
                tx.update_builder(keys::post(post_id))
                    .update_expression("ADD viewCount :n")
                    .condition_expression(
                        "attribute_exists(pk) AND attribute_not_exists(deletedAt)",
                    )
                    .expression_attribute_values(":n", n(count)),
            )?;
            match retry_on_conflict(
                RetryPolicy::HOT_COUNTER,
                TransactionError::is_conflict,
                |_| tx.commit(),
            )
            .await
            {
                Ok(()) => return Ok(u64::try_from(count).unwrap_or(0)),
                // The post was deleted meanwhile: its views no longer count.
                Err(e @ TransactionError::Condition { .. }) if e.failed_at(fresh.len()) => {
                    return Ok(0)
                }
                // Another delivery counted some of these meanwhile: read again.
                Err(TransactionError::Condition { .. }) => continue,
                Err(TransactionError::Conflict) => return Err(ViewCountError::Busy),
                Err(TransactionError::Dynamo(e)) => return Err(e.into()),
            }
        }
        Err(ViewCountError::Busy)
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
