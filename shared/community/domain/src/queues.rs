//! The community's messages and the queues that carry them: each message with its JSON body
//! (`to_json`) and its checked reading (`parse`), each queue with its environment variable.
//! [`Queues`] holds the queues a function's facade sends its follow-ups to.

use platform::aws::Sqs;
use platform::queue::{Queue, QueueMessage};
use platform::{ConfigError, Env};
use serde::{Deserialize, Serialize};

pub use platform::accounts::{AccountCleanup, CleanupQueue};

/// The summary queue's message: summarise this post's content at this summary version.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SummaryRequest {
    pub post_id: String,
    /// The post's `summaryVersion` when the summary was wanted.
    pub version: i64,
    /// SHA-256 (hex) of the content to summarise.
    pub content_hash: String,
}

impl SummaryRequest {
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "postId": self.post_id,
            "version": self.version,
            "contentHash": self.content_hash,
        })
        .to_string()
    }

    /// Reads a message body: a uuid, a positive version, a SHA-256 in hex.
    pub fn parse(body: &str) -> Result<Self, String> {
        let request: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        uuid::Uuid::parse_str(&request.post_id)
            .map_err(|_| format!("postId {:?} is not a uuid", request.post_id))?;
        if request.version < 1 {
            return Err(format!("version {} is not positive", request.version));
        }
        let hash = request.content_hash.to_ascii_lowercase();
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("contentHash is not a SHA-256 in hex".into());
        }
        Ok(Self {
            post_id: request.post_id.to_ascii_lowercase(),
            version: request.version,
            content_hash: hash,
        })
    }
}

impl QueueMessage for SummaryRequest {
    const URL_VARIABLE: &'static str = "SUMMARY_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        Self::parse(body)
    }

    fn to_body(&self) -> Result<String, serde_json::Error> {
        Ok(self.to_json())
    }
}

/// The summary queue.
pub type SummaryQueue = Queue<SummaryRequest>;

/// The search index queue's message: bring the index up to date with this post.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexRequest {
    pub post_id: String,
}

impl IndexRequest {
    pub fn new(post_id: impl Into<String>) -> Self {
        Self {
            post_id: post_id.into(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({ "postId": self.post_id }).to_string()
    }

    /// Reads a message body: a post id, which is a uuid.
    pub fn parse(body: &str) -> Result<Self, String> {
        let request: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        uuid::Uuid::parse_str(&request.post_id)
            .map_err(|_| format!("postId {:?} is not a uuid", request.post_id))?;
        Ok(Self::new(request.post_id.to_ascii_lowercase()))
    }
}

impl QueueMessage for IndexRequest {
    const URL_VARIABLE: &'static str = "SEARCH_INDEX_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        Self::parse(body)
    }

    fn to_body(&self) -> Result<String, serde_json::Error> {
        Ok(self.to_json())
    }
}

/// The search index queue.
pub type IndexQueue = Queue<IndexRequest>;

/// The reaction queue's message: `memberId` changed their reaction to `postId`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReactionChange {
    pub post_id: String,
    pub member_id: String,
}

impl ReactionChange {
    pub fn new(post_id: &str, member_id: &str) -> Self {
        Self {
            post_id: post_id.to_string(),
            member_id: member_id.to_string(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({"postId": self.post_id, "memberId": self.member_id}).to_string()
    }

    /// Reads a message body: a uuid post and a uuid member.
    pub fn parse(body: &str) -> Result<Self, String> {
        let change: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        for (name, id) in [("postId", &change.post_id), ("memberId", &change.member_id)] {
            uuid::Uuid::parse_str(id).map_err(|_| format!("{name} {id:?} is not a uuid"))?;
        }
        Ok(Self {
            post_id: change.post_id.to_ascii_lowercase(),
            member_id: change.member_id.to_ascii_lowercase(),
        })
    }
}

impl QueueMessage for ReactionChange {
    const URL_VARIABLE: &'static str = "COMMUNITY_REACTION_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        Self::parse(body)
    }

    fn to_body(&self) -> Result<String, serde_json::Error> {
        Ok(self.to_json())
    }
}

/// The reaction queue.
pub type ReactionQueue = Queue<ReactionChange>;

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

    /// A reader as a view message carries it.
    pub(crate) fn of(raw: &str) -> Self {
        Self(raw.to_string())
    }

    /// The member's id, when the reader is one.
    pub(crate) fn user_id(&self) -> Option<&str> {
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

impl QueueMessage for ViewRequest {
    const URL_VARIABLE: &'static str = "COMMUNITY_VIEW_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        Self::parse(body)
    }

    fn to_body(&self) -> Result<String, serde_json::Error> {
        Ok(self.to_json())
    }
}

/// The view queue.
pub type ViewQueue = Queue<ViewRequest>;

/// The most `@mentions` of one text that notify (the first ones written).
pub const MAX_MENTIONS: usize = 5;
/// The most recipients of one direct notification message (a resolution's reporters come
/// in several).
pub const MAX_DIRECT_RECIPIENTS: usize = 100;

/// The notification queue's message: something happened that notifies members; the worker
/// (`community-views`) works out who and writes each one's inbox row once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum NotificationEvent {
    /// A comment was added: its post's author, the parent comment's author and the members
    /// it mentions (already resolved to ids) are told.
    #[serde(rename_all = "camelCase")]
    Comment {
        comment_id: String,
        post_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_id: Option<String>,
        actor_id: String,
        actor_username: String,
        excerpt: String,
        at: String,
        #[serde(default)]
        mentions: Vec<String>,
    },
    /// A post was published: the members it mentions are told.
    #[serde(rename_all = "camelCase")]
    Post {
        post_id: String,
        actor_id: String,
        actor_username: String,
        excerpt: String,
        at: String,
        #[serde(default)]
        mentions: Vec<String>,
    },
    /// Moderation: `recipients` are told of `kind` (`REMOVED`, `REPORT_RESOLVED`); `key`
    /// names the event (the same key and recipient write one notification).
    #[serde(rename_all = "camelCase")]
    Direct {
        key: String,
        kind: String,
        recipients: Vec<String>,
        post_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        comment_id: Option<String>,
        excerpt: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<String>,
        at: String,
    },
}

fn is_uuid(raw: &str) -> bool {
    uuid::Uuid::try_parse(raw).is_ok()
}

impl NotificationEvent {
    /// Reads a message body: ids are uuids, `at` a timestamp, bounded lists.
    pub fn parse(body: &str) -> Result<Self, String> {
        let event: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        let (ids, at, many, max): (Vec<&String>, &String, usize, usize) = match &event {
            Self::Comment {
                comment_id,
                post_id,
                parent_id,
                actor_id,
                at,
                mentions,
                ..
            } => {
                let mut ids = vec![comment_id, post_id, actor_id];
                ids.extend(parent_id);
                ids.extend(mentions);
                (ids, at, mentions.len(), MAX_MENTIONS)
            }
            Self::Post {
                post_id,
                actor_id,
                at,
                mentions,
                ..
            } => {
                let mut ids = vec![post_id, actor_id];
                ids.extend(mentions);
                (ids, at, mentions.len(), MAX_MENTIONS)
            }
            Self::Direct {
                recipients,
                post_id,
                comment_id,
                kind,
                key,
                at,
                ..
            } => {
                if crate::model::notifications::NotificationKind::parse(kind).is_none() {
                    return Err(format!("kind {kind:?} is not a notification kind"));
                }
                if key.is_empty() || key.len() > 300 {
                    return Err("key is not an event key".into());
                }
                let mut ids = vec![post_id];
                ids.extend(comment_id);
                ids.extend(recipients);
                (ids, at, recipients.len(), MAX_DIRECT_RECIPIENTS)
            }
        };
        if let Some(bad) = ids.iter().find(|id| !is_uuid(id)) {
            return Err(format!("{bad:?} is not a uuid"));
        }
        if chrono::DateTime::parse_from_rfc3339(at).is_err() {
            return Err(format!("at {at:?} is not a timestamp"));
        }
        if many > max {
            return Err("too many recipients".into());
        }
        Ok(event)
    }
}

impl QueueMessage for NotificationEvent {
    const URL_VARIABLE: &'static str = "COMMUNITY_NOTIFICATION_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        Self::parse(body)
    }

    fn to_body(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

/// The notification queue.
pub type NotificationQueue = Queue<NotificationEvent>;

/// The hour (since the epoch) a view at `at` belongs to.
pub fn hour_of(at: chrono::DateTime<chrono::Utc>) -> i64 {
    at.timestamp().div_euclid(3600)
}

/// Index requests for `post_ids`.
pub(crate) fn index_requests(post_ids: &[String]) -> Vec<IndexRequest> {
    post_ids.iter().map(IndexRequest::new).collect()
}

/// The community's cleanup queue (`COMMUNITY_CLEANUP_QUEUE_URL`).
pub fn cleanup_queue(env: &Env, sqs: Sqs) -> Result<CleanupQueue, ConfigError> {
    CleanupQueue::from_env_variable(env, sqs, "COMMUNITY_CLEANUP_QUEUE_URL")
}

/// The queues a facade sends its follow-up messages to: a function holds those it sends to
/// (a facade without one leaves its best-effort follow-ups to the outboxes, and refuses the
/// calls whose answer depends on a send).
#[derive(Clone, Debug, Default)]
pub struct Queues {
    pub(crate) index: Option<IndexQueue>,
    pub(crate) summary: Option<SummaryQueue>,
    pub(crate) reactions: Option<ReactionQueue>,
    pub(crate) views: Option<ViewQueue>,
    pub(crate) cleanup: Option<CleanupQueue>,
    pub(crate) notifications: Option<NotificationQueue>,
}

/// A queue a function's facade may send to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueName {
    /// `SEARCH_INDEX_QUEUE_URL`: post writes ask the indexer to catch up.
    Index,
    /// `SUMMARY_QUEUE_URL`: post writes that want a summary ask the summarizer.
    Summary,
    /// `COMMUNITY_REACTION_QUEUE_URL`: reaction changes go to the reaction counter.
    Reactions,
    /// `COMMUNITY_VIEW_QUEUE_URL`: view beacons go to the view counter.
    Views,
    /// `COMMUNITY_CLEANUP_QUEUE_URL`: account deletions ask the community sweeper.
    Cleanup,
    /// `COMMUNITY_NOTIFICATION_QUEUE_URL`: comments, mentions and moderation notify members.
    Notifications,
}

impl Queues {
    /// The queues `names`, each from its environment variable (required).
    pub fn from_env(env: &Env, sqs: &Sqs, names: &[QueueName]) -> Result<Self, ConfigError> {
        let mut queues = Self::default();
        for name in names {
            match name {
                QueueName::Index => queues.index = Some(IndexQueue::from_env(env, sqs.clone())?),
                QueueName::Summary => {
                    queues.summary = Some(SummaryQueue::from_env(env, sqs.clone())?);
                }
                QueueName::Reactions => {
                    queues.reactions = Some(ReactionQueue::from_env(env, sqs.clone())?);
                }
                QueueName::Views => queues.views = Some(ViewQueue::from_env(env, sqs.clone())?),
                QueueName::Cleanup => queues.cleanup = Some(cleanup_queue(env, sqs.clone())?),
                QueueName::Notifications => {
                    queues.notifications = Some(NotificationQueue::from_env(env, sqs.clone())?);
                }
            }
        }
        Ok(queues)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_and_junk_is_refused() {
        let request = SummaryRequest {
            post_id: "5b0f3c1e-0000-4000-8000-00000000000a".into(),
            version: 3,
            content_hash: crate::model::summary::content_hash("Hello"),
        };
        assert_eq!(
            SummaryRequest::parse(&request.to_json()),
            Ok(request.clone())
        );
        for bad in [
            "junk",
            r#"{"postId":"x","version":1,"contentHash":"00"}"#,
            &request.to_json().replace("\"version\":3", "\"version\":0"),
            &request.to_json().replace(&request.content_hash, "abc"),
            r#"{"postId":"5b0f3c1e-0000-4000-8000-00000000000a"}"#,
        ] {
            assert!(SummaryRequest::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn index_requests_round_trip_and_refuse_junk() {
        let id = "5B0F3C1E-0000-4000-8000-000000000001";
        let parsed = IndexRequest::parse(&IndexRequest::new(id).to_json()).unwrap();
        assert_eq!(parsed.post_id, id.to_ascii_lowercase());
        assert!(IndexRequest::parse("{}").is_err());
        assert!(IndexRequest::parse(r#"{"postId":"POST#x"}"#).is_err());
        assert!(IndexRequest::parse("junk").is_err());
    }

    #[test]
    fn reaction_messages_round_trip_and_junk_is_refused() {
        let change = ReactionChange::new(
            "5B0F3C1E-0000-4000-8000-000000000001",
            "5b0f3c1e-0000-4000-8000-000000000002",
        );
        let back = ReactionChange::parse(&change.to_json()).unwrap();
        assert_eq!(back.post_id, "5b0f3c1e-0000-4000-8000-000000000001");
        assert_eq!(back.member_id, "5b0f3c1e-0000-4000-8000-000000000002");
        for junk in [
            "",
            "{}",
            r#"{"postId":"x","memberId":"5b0f3c1e-0000-4000-8000-000000000002"}"#,
            r#"{"postId":"5b0f3c1e-0000-4000-8000-000000000001","memberId":"REACT#x"}"#,
            r#"{"postId":"5b0f3c1e-0000-4000-8000-000000000001","reader":"u.a","hour":1}"#,
        ] {
            assert!(ReactionChange::parse(junk).is_err(), "{junk}");
        }
    }

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
    fn view_messages_round_trip_and_junk_is_refused() {
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
