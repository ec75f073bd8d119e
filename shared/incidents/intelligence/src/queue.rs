//! The sweep queue (`INTELLIGENCE_QUEUE_URL`): `DELETE /api/v1/analyses` marks every analysis
//! older than now deleted (invisible at once) and queues a sweep; the sweeper function deletes
//! them a bounded step per message and queues the next step until none is left.

use platform::queue::{Queue, QueueMessage};
use serde::{Deserialize, Serialize};

/// One message of the sweep queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SweepMessage {
    /// Delete the analyses made before `before` (RFC 3339).
    PurgeAnalyses { before: String },
}

impl QueueMessage for SweepMessage {
    const URL_VARIABLE: &'static str = "INTELLIGENCE_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body).map_err(|e| e.to_string())
    }
}

/// The sweep queue (`INTELLIGENCE_QUEUE_URL`).
pub type SweepQueue = Queue<SweepMessage>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let message = SweepMessage::PurgeAnalyses {
            before: "2026-11-24T12:00:00.000Z".into(),
        };
        let body = serde_json::to_string(&message).unwrap();
        assert_eq!(
            body,
            r#"{"kind":"purge_analyses","before":"2026-11-24T12:00:00.000Z"}"#
        );
        assert_eq!(SweepMessage::parse(&body).unwrap(), message);
        assert!(SweepMessage::parse(r#"{"kind":"other"}"#).is_err());
    }
}
