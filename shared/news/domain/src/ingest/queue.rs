//! The feed queue: each source's chain of refresh messages.

use chrono::{DateTime, Utc};
use platform::queue::{Queue, QueueMessage};

/// The longest delay SQS gives a message (15 minutes): a longer wait takes several hops.
pub const MAX_DELAY_SECONDS: i64 = 900;

/// Why a feed queue message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    #[error("not a feed refresh message: {0}")]
    Malformed(#[from] serde_json::Error),
    #[error("sourceId must not be blank")]
    BlankSourceId,
}

/// The feed queue's message: refresh this source. Each source has one chain of them: a
/// refresh enqueues the next, delayed until it is due, carrying the next fetch time it
/// recorded as `due`; a message whose `due` is no longer the source's next fetch time is a
/// repeat (a redelivery, or a second chain) and is dropped. Without `due` (a rescue of a
/// source whose chain was lost), the source is refreshed if it is due.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedRefresh {
    pub source_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<String>,
    /// Only the article pages left for later: what submissions and WebSub deliveries sent
    /// here before the page queue. One still in flight is forwarded to the page queue as it is
    /// ([`ReadPages`] has the same body).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pages: bool,
}

impl FeedRefresh {
    pub fn new(source_id: impl Into<String>) -> Self {
        Self {
            source_id: source_id.into(),
            due: None,
            pages: false,
        }
    }

    /// The feed queue's former pages message (`{"sourceId":…,"pages":true}`).
    pub fn pages(source_id: impl Into<String>) -> Self {
        Self {
            pages: true,
            ..Self::new(source_id)
        }
    }

    /// The message of the refresh due at `due`.
    pub fn due(source_id: impl Into<String>, due: impl Into<String>) -> Self {
        Self {
            source_id: source_id.into(),
            due: Some(due.into()),
            pages: false,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a message body; the source id must be present and not blank.
    pub fn read(body: &str) -> Result<Self, MessageError> {
        let refresh: Self = serde_json::from_str(body)?;
        if refresh.source_id.trim().is_empty() {
            return Err(MessageError::BlankSourceId);
        }
        Ok(refresh)
    }

    /// How long to delay the message at `now`: until its `due` time (none without one), at
    /// most SQS's 15 minutes (a message that arrives early is enqueued again).
    pub fn delay_seconds(&self, now: DateTime<Utc>) -> u32 {
        let delay = self
            .due
            .as_deref()
            .and_then(|due| DateTime::parse_from_rfc3339(due).ok())
            .map_or(0, |due| (due.with_timezone(&Utc) - now).num_seconds())
            .clamp(0, MAX_DELAY_SECONDS);
        u32::try_from(delay).unwrap_or(0)
    }
}

impl QueueMessage for FeedRefresh {
    const URL_VARIABLE: &'static str = "FEED_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        Self::read(body).map_err(|e| e.to_string())
    }
}

/// The feed queue (`FEED_QUEUE_URL`): each source's next refresh, delayed until it is due
/// ([`FeedRefresh::delay_seconds`]).
pub type RefreshQueue = Queue<FeedRefresh>;

/// The page queue's message: read this source's listed article pages
/// (`{"sourceId":…,"pages":true}`, the feed queue's former pages message, so one in flight
/// during a deploy is forwarded unchanged).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadPages {
    pub source_id: String,
    #[serde(default = "always")]
    pages: bool,
}

fn always() -> bool {
    true
}

impl ReadPages {
    pub fn new(source_id: impl Into<String>) -> Self {
        Self {
            source_id: source_id.into(),
            pages: true,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a message body; the source id must be present and not blank.
    pub fn read(body: &str) -> Result<Self, MessageError> {
        let message: Self = serde_json::from_str(body)?;
        if message.source_id.trim().is_empty() {
            return Err(MessageError::BlankSourceId);
        }
        Ok(Self::new(message.source_id))
    }
}

impl QueueMessage for ReadPages {
    const URL_VARIABLE: &'static str = "PAGE_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        Self::read(body).map_err(|e| e.to_string())
    }
}

/// The page queue (`PAGE_QUEUE_URL`): sources whose listed article pages the page reader is
/// to read, one message each.
pub type PageQueue = Queue<ReadPages>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pages_message_says_so_and_a_refresh_stays_as_it_was() {
        let pages = FeedRefresh::pages("s1");
        assert_eq!(pages.to_json(), r#"{"sourceId":"s1","pages":true}"#);
        assert_eq!(FeedRefresh::read(&pages.to_json()).ok(), Some(pages));
        // Messages already on the queue (no `pages`) are refreshes.
        let refresh = FeedRefresh::read(r#"{"sourceId":"s1","due":"2026-12-03T10:00:00Z"}"#);
        assert!(refresh.is_ok_and(|r| !r.pages));
        assert_eq!(
            FeedRefresh::due("s1", "2026-12-03T10:00:00Z").to_json(),
            r#"{"sourceId":"s1","due":"2026-12-03T10:00:00Z"}"#
        );
    }

    #[test]
    fn a_page_queue_message_is_the_feed_queues_pages_message() {
        let read = ReadPages::new("s1");
        assert_eq!(read.to_json(), FeedRefresh::pages("s1").to_json());
        assert_eq!(ReadPages::read(&read.to_json()).ok(), Some(read.clone()));
        assert_eq!(ReadPages::read(r#"{"sourceId":"s1"}"#).ok(), Some(read));
        assert!(ReadPages::read(r#"{"sourceId":" ","pages":true}"#).is_err());
        assert!(ReadPages::read("[]").is_err());
    }
}
