//! The sweep queue (`INTELLIGENCE_QUEUE_URL`): `DELETE /api/v1/analyses` marks every analysis
//! older than now deleted (invisible at once) and queues a sweep; the sweeper function deletes
//! them a bounded step per message and queues the next step until none is left.

use platform::aws::sqs::Sqs;
use platform::queue::QueueMessage;
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

#[derive(Debug, thiserror::Error)]
#[error("sweep queue: {0}")]
pub struct QueueError(pub String);

/// The sweep queue.
#[derive(Clone, Debug)]
pub struct SweepQueue {
    sqs: Sqs,
    url: String,
}

impl SweepQueue {
    pub fn new(sqs: Sqs, url: impl Into<String>) -> Self {
        Self {
            sqs,
            url: url.into(),
        }
    }

    pub fn from_env(env: &platform::Env, sqs: Sqs) -> Result<Self, platform::ConfigError> {
        Ok(Self::new(sqs, env.require("INTELLIGENCE_QUEUE_URL")?))
    }

    pub async fn send(&self, message: &SweepMessage) -> Result<(), QueueError> {
        let body = serde_json::to_string(message).map_err(|e| QueueError(e.to_string()))?;
        self.sqs
            .send_message(&self.url, &body)
            .await
            .map(|_| ())
            .map_err(|e| QueueError(e.to_string()))
    }
}

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
