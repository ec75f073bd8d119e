//! The ingest queue: what `POST /api/v1/logs` and `DELETE /api/v1/logs` hand to the
//! processor, and how a batch of logs is packed under SQS's limits.
//!
//! A message holds many logs (`{"kind":"logs","logs":[...]}`) up to [`MESSAGE_BYTES`], or one
//! larger log alone; a SendMessageBatch call carries at most 10 messages and
//! [`CALL_BYTES`] in all. 500 logs of 300 bytes are three messages in one call. The
//! ingestion is acknowledged only when every entry of every call was accepted: an entry
//! refused twice, or a call that failed, is a [`QueueError`] and the client is told to retry
//! (logs of calls that did succeed may then be stored twice, under different ids).

use platform::aws::sqs::{BatchEntry, Sqs};
use platform::queue::QueueMessage;
use serde::{Deserialize, Serialize};

use crate::input::LogFilter;
use crate::model::Log;

/// The size a message of many logs is filled to: one 64 KiB billing unit of SQS.
pub const MESSAGE_BYTES: usize = 64 * 1024;
/// SQS's limit on one SendMessageBatch call's total payload (and on one message).
pub const CALL_BYTES: usize = 256 * 1024;
/// SQS's limit on the entries of one SendMessageBatch call.
pub const CALL_ENTRIES: usize = 10;

/// One message of the ingest queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum IngestMessage {
    /// Logs to store, ids already assigned.
    Logs { logs: Vec<Log> },
    /// A step of a timeline deletion: the logs matching `filter` below `cursor`.
    #[serde(rename_all = "camelCase")]
    Purge {
        job_id: String,
        filter: LogFilter,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cursor: Option<String>,
    },
}

impl QueueMessage for IngestMessage {
    const URL_VARIABLE: &'static str = "INGEST_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body).map_err(|e| e.to_string())
    }
}

/// Why the queue did not take everything.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("ingest queue call failed: {0}")]
    Call(String),
    #[error("ingest queue refused {0} message(s)")]
    Refused(usize),
    #[error("message could not be built: {0}")]
    Encode(String),
}

/// The messages of `logs`, each a JSON body: logs in order, filled to [`MESSAGE_BYTES`].
pub fn pack(logs: &[Log]) -> Result<Vec<String>, QueueError> {
    const ENVELOPE: usize = r#"{"kind":"logs","logs":[]}"#.len();
    let mut messages = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut size = ENVELOPE;
    for log in logs {
        let json = serde_json::to_string(log).map_err(|e| QueueError::Encode(e.to_string()))?;
        let added = json.len() + usize::from(!current.is_empty());
        if !current.is_empty() && size + added > MESSAGE_BYTES {
            messages.push(envelope(&current));
            current.clear();
            size = ENVELOPE;
        }
        size += json.len() + usize::from(!current.is_empty());
        current.push(json);
    }
    if !current.is_empty() {
        messages.push(envelope(&current));
    }
    Ok(messages)
}

fn envelope(logs: &[String]) -> String {
    format!(r#"{{"kind":"logs","logs":[{}]}}"#, logs.join(","))
}

/// `messages` grouped into calls: at most [`CALL_ENTRIES`] and [`CALL_BYTES`] each.
pub fn calls(messages: Vec<String>) -> Vec<Vec<String>> {
    let mut calls = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut size = 0;
    for message in messages {
        if !current.is_empty()
            && (current.len() == CALL_ENTRIES || size + message.len() > CALL_BYTES)
        {
            calls.push(std::mem::take(&mut current));
            size = 0;
        }
        size += message.len();
        current.push(message);
    }
    if !current.is_empty() {
        calls.push(current);
    }
    calls
}

/// The ingest queue (`INGEST_QUEUE_URL`).
#[derive(Clone, Debug)]
pub struct IngestQueue {
    sqs: Sqs,
    url: String,
}

impl IngestQueue {
    pub fn new(sqs: Sqs, url: impl Into<String>) -> Self {
        Self {
            sqs,
            url: url.into(),
        }
    }

    pub fn from_env(env: &platform::Env, sqs: Sqs) -> Result<Self, platform::ConfigError> {
        Ok(Self::new(sqs, env.require(IngestMessage::URL_VARIABLE)?))
    }

    /// Puts every log on the queue, or fails.
    pub async fn send_logs(&self, logs: &[Log]) -> Result<usize, QueueError> {
        let mut sent = 0;
        for call in calls(pack(logs)?) {
            sent += call.len();
            self.send_call(call).await?;
        }
        Ok(sent)
    }

    /// Sends one message (a purge step).
    pub async fn send(&self, message: &IngestMessage) -> Result<(), QueueError> {
        let body = serde_json::to_string(message).map_err(|e| QueueError::Encode(e.to_string()))?;
        self.sqs
            .send_message(&self.url, &body)
            .await
            .map(|_| ())
            .map_err(|e| QueueError::Call(e.to_string()))
    }

    /// One SendMessageBatch; the entries it refuses are sent once more, then it fails.
    async fn send_call(&self, bodies: Vec<String>) -> Result<(), QueueError> {
        let mut entries: Vec<BatchEntry> = bodies
            .into_iter()
            .enumerate()
            .map(|(i, message_body)| BatchEntry {
                id: format!("m{i}"),
                message_body,
            })
            .collect();
        for attempt in 0..2 {
            let outcome = self
                .sqs
                .send_message_batch(&self.url, &entries)
                .await
                .map_err(|e| QueueError::Call(e.to_string()))?;
            if outcome.failed.is_empty() {
                return Ok(());
            }
            tracing::warn!(
                refused = outcome.failed.len(),
                attempt,
                "ingest queue refused entries"
            );
            entries.retain(|e| outcome.failed.iter().any(|f| f.id == e.id));
        }
        Err(QueueError::Refused(entries.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;

    fn log(i: usize, content_len: usize) -> Log {
        Log {
            id: format!("1732486400000-{i:032x}"),
            service_name: "api".into(),
            log_type: "APP".into(),
            severity: Severity::Info,
            log_content: "x".repeat(content_len),
            timestamp: "2026-11-24T12:00:00.000Z".into(),
            received_at: "2026-11-24T12:00:00.000Z".into(),
            fingerprint: None,
            attributes: Default::default(),
            trace_id: None,
            span_id: None,
            source: Default::default(),
            action: Default::default(),
        }
    }

    #[test]
    fn five_hundred_small_logs_are_one_call() {
        let logs: Vec<Log> = (0..500).map(|i| log(i, 100)).collect();
        let messages = pack(&logs).unwrap();
        assert!(messages.len() <= 6, "{}", messages.len());
        assert!(messages.iter().all(|m| m.len() <= MESSAGE_BYTES));
        let back: usize = messages
            .iter()
            .map(|m| match IngestMessage::parse(m).unwrap() {
                IngestMessage::Logs { logs } => logs.len(),
                IngestMessage::Purge { .. } => 0,
            })
            .sum();
        assert_eq!(back, 500);
        assert_eq!(calls(messages).len(), 1);
    }

    #[test]
    fn calls_respect_entries_and_bytes() {
        let logs: Vec<Log> = (0..500).map(|i| log(i, 16_000)).collect();
        let messages = pack(&logs).unwrap();
        let calls = calls(messages);
        assert!(calls
            .iter()
            .all(|c| c.len() <= CALL_ENTRIES
                && c.iter().map(String::len).sum::<usize>() <= CALL_BYTES));
        assert_eq!(
            calls.iter().map(Vec::len).sum::<usize>(),
            pack(&logs).unwrap().len()
        );
        // A log bigger than a message's fill size travels alone.
        let big = pack(&[log(1, 70_000), log(2, 10)]).unwrap();
        assert_eq!(big.len(), 2);
    }
}
