//! SQS event sources: what Lambda's event source mapping does, against the emulator.
//!
//! A poller long-polls the queue, hands the function a real `SqsEvent` batch and then deletes
//! what succeeded: everything on `Ok`, or with `ReportBatchItemFailures` everything except the
//! reported items; on `Err` nothing, so the visibility timeout redelivers the batch and the
//! queue's own `RedrivePolicy` moves a message to its DLQ after `maxReceiveCount` receives.
//! Failures are logged; they never stop the poller or the stack.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;
use std::time::Duration;

use aws_lambda_events::encodings::Base64Data;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage, SqsMessageAttribute};
use aws_sdk_sqs::error::DisplayErrorContext;
use aws_sdk_sqs::types::{DeleteMessageBatchRequestEntry, Message, MessageSystemAttributeName};
use platform::SqsHandler;
use serde_json::Value as Json;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::intrinsics::json_text;
use crate::invoke;
use crate::shutdown;

/// Long-poll wait. A message sent meanwhile ends the poll at once and shutdown drops the poll,
/// so a longer wait costs nothing, while every poll is a request the emulator answers (at 1 s,
/// a stack's 26 idle pollers made it answer 26 requests a second).
pub const LONG_POLL_SECS: i32 = 10;
/// ReceiveMessage returns at most 10 messages.
const MAX_PER_RECEIVE: usize = 10;
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// One `Type: SQS` event of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqsSource {
    pub function: String,
    pub event: String,
    pub queue_arn: String,
    pub batch_size: usize,
    pub batching_window: Duration,
    pub report_batch_item_failures: bool,
    pub enabled: bool,
}

impl SqsSource {
    /// From the event's resolved `Properties`.
    pub fn from_properties(function: &str, event: &str, props: &Json) -> Result<Self, String> {
        let text = |key: &str| props.get(key).and_then(|v| json_text(v).ok());
        let queue_arn = text("Queue").ok_or("Queue is required")?;
        if !queue_arn.starts_with("arn:") {
            return Err(format!(
                "Queue must be a queue ARN (use !GetAtt Queue.Arn), not {queue_arn}"
            ));
        }
        let number = |key: &str, default: u64| -> Result<u64, String> {
            match text(key) {
                None => Ok(default),
                Some(v) => v
                    .trim()
                    .parse()
                    .map_err(|_| format!("{key} {v} is not a number")),
            }
        };
        let batch_size = number("BatchSize", 10)?;
        if batch_size == 0 {
            return Err("BatchSize must be at least 1".into());
        }
        let report_batch_item_failures = props
            .get("FunctionResponseTypes")
            .and_then(Json::as_array)
            .is_some_and(|types| {
                types
                    .iter()
                    .any(|t| t.as_str() == Some("ReportBatchItemFailures"))
            });
        let enabled = text("Enabled").is_none_or(|v| !v.eq_ignore_ascii_case("false"));
        Ok(Self {
            function: function.to_string(),
            event: event.to_string(),
            queue_arn,
            batch_size: usize::try_from(batch_size).unwrap_or(usize::MAX),
            batching_window: Duration::from_secs(number("MaximumBatchingWindowInSeconds", 0)?),
            report_batch_item_failures,
            enabled,
        })
    }
}

/// The queue URL of `arn`: a queue of this stack, else looked up by name.
pub async fn locate_queue(
    client: &aws_sdk_sqs::Client,
    arn: &str,
    known: &BTreeMap<String, String>,
) -> Result<String, String> {
    if let Some(url) = known.get(arn) {
        return Ok(url.clone());
    }
    let name = arn.rsplit(':').next().unwrap_or(arn);
    client
        .get_queue_url()
        .queue_name(name)
        .send()
        .await
        .map_err(|e| format!("queue {arn}: {}", DisplayErrorContext(&e)))?
        .queue_url
        .ok_or_else(|| format!("queue {arn} has no URL"))
}

/// A running poller's settings.
pub struct Poller {
    pub source: SqsSource,
    pub queue_url: String,
    pub handler: Arc<dyn SqsHandler>,
    pub client: aws_sdk_sqs::Client,
    pub region: String,
    pub timeout: Duration,
}

impl Poller {
    pub fn spawn(self, stop: shutdown::Receiver) -> JoinHandle<()> {
        tokio::spawn(self.run(stop))
    }

    async fn run(self, stop: shutdown::Receiver) {
        debug!(function = %self.source.function, queue = %self.queue_url, "sqs poller started");
        let mut backoff = Duration::from_secs(1);
        loop {
            let batch = tokio::select! {
                _ = shutdown::wait(stop.clone()) => break,
                batch = self.collect_batch() => batch,
            };
            match batch {
                Ok(messages) => {
                    backoff = Duration::from_secs(1);
                    if !messages.is_empty() {
                        self.process(messages).await;
                    }
                }
                Err(e) => {
                    warn!(function = %self.source.function, queue = %self.queue_url, error = %e,
                        "sqs receive failed");
                    tokio::select! {
                        _ = shutdown::wait(stop.clone()) => break,
                        _ = tokio::time::sleep(backoff) => {}
                    }
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
        debug!(function = %self.source.function, "sqs poller stopped");
    }

    /// One receive, then (with a batching window) more until the batch is full or the window
    /// since the first message has passed.
    async fn collect_batch(&self) -> Result<Vec<Message>, String> {
        let want = |have: usize| (self.source.batch_size - have).min(MAX_PER_RECEIVE);
        let mut batch = self.receive(want(0), LONG_POLL_SECS).await?;
        if batch.is_empty() || self.source.batching_window.is_zero() {
            return Ok(batch);
        }
        let deadline = Instant::now() + self.source.batching_window;
        while batch.len() < self.source.batch_size {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            let wait = i32::try_from(left.as_secs())
                .unwrap_or(LONG_POLL_SECS)
                .min(LONG_POLL_SECS);
            match self.receive(want(batch.len()), wait).await {
                Ok(more) if more.is_empty() && wait == 0 => {
                    tokio::time::sleep(left.min(Duration::from_millis(200))).await;
                }
                Ok(more) => batch.extend(more),
                Err(e) => {
                    warn!(function = %self.source.function, error = %e, "sqs receive failed");
                    break;
                }
            }
        }
        Ok(batch)
    }

    async fn receive(&self, max: usize, wait_secs: i32) -> Result<Vec<Message>, String> {
        let out = self
            .client
            .receive_message()
            .queue_url(&self.queue_url)
            .max_number_of_messages(i32::try_from(max.max(1)).unwrap_or(10))
            .wait_time_seconds(wait_secs)
            .message_system_attribute_names(MessageSystemAttributeName::All)
            .message_attribute_names("All")
            .send()
            .await
            .map_err(|e| DisplayErrorContext(&e).to_string())?;
        Ok(out.messages.unwrap_or_default())
    }

    async fn process(&self, messages: Vec<Message>) {
        let records: Vec<SqsMessage> = messages
            .iter()
            .map(|m| to_record(m, &self.source.queue_arn, &self.region))
            .collect();
        let mut event = SqsEvent::default();
        event.records = records.clone();

        let started = Instant::now();
        let outcome = invoke::guarded(self.handler.handle(event), self.timeout).await;
        let response = match &outcome {
            Ok(response) => Some(response),
            Err(e) => {
                warn!(function = %self.source.function, event = %self.source.event, error = %e,
                    "sqs batch failed; the messages will be redelivered");
                None
            }
        };
        let delete = to_delete(&records, response, self.source.report_batch_item_failures);
        let deleted = self.delete(&delete).await;
        info!(
            function = %self.source.function,
            event = %self.source.event,
            messages = records.len(),
            deleted,
            ok = outcome.is_ok(),
            latency_ms = invoke::elapsed_ms(started),
            "sqs batch"
        );
    }

    /// Deletes in chunks of 10; returns how many were deleted.
    async fn delete(&self, entries: &[(String, String)]) -> usize {
        let mut deleted = 0;
        for chunk in entries.chunks(MAX_PER_RECEIVE) {
            let batch: Result<Vec<_>, _> = chunk
                .iter()
                .enumerate()
                .map(|(i, (_, receipt))| {
                    DeleteMessageBatchRequestEntry::builder()
                        .id(i.to_string())
                        .receipt_handle(receipt)
                        .build()
                })
                .collect();
            let Ok(batch) = batch else { continue };
            match self
                .client
                .delete_message_batch()
                .queue_url(&self.queue_url)
                .set_entries(Some(batch))
                .send()
                .await
            {
                Ok(out) => {
                    deleted += out.successful.len();
                    for failed in &out.failed {
                        warn!(function = %self.source.function, id = %failed.id,
                            message = ?failed.message, "sqs delete failed");
                    }
                }
                Err(e) => warn!(function = %self.source.function,
                    error = %DisplayErrorContext(&e), "sqs delete failed"),
            }
        }
        deleted
    }
}

/// A received message as Lambda presents it.
pub fn to_record(message: &Message, queue_arn: &str, region: &str) -> SqsMessage {
    let mut record = SqsMessage::default();
    record.message_id = message.message_id.clone();
    record.receipt_handle = message.receipt_handle.clone();
    record.body = message.body.clone();
    record.md5_of_body = message.md5_of_body.clone();
    record.md5_of_message_attributes = message.md5_of_message_attributes.clone();
    record.attributes = message
        .attributes
        .iter()
        .flatten()
        .map(|(k, v)| (k.as_str().to_string(), v.clone()))
        .collect();
    record.message_attributes = message
        .message_attributes
        .iter()
        .flatten()
        .map(|(name, value)| {
            let mut attribute = SqsMessageAttribute::default();
            attribute.string_value = value.string_value.clone();
            attribute.binary_value = value.binary_value.as_ref().map(|b| base64_data(b.as_ref()));
            attribute.string_list_values = value.string_list_values.clone().unwrap_or_default();
            attribute.binary_list_values = value
                .binary_list_values
                .iter()
                .flatten()
                .map(|b| base64_data(b.as_ref()))
                .collect();
            attribute.data_type = Some(value.data_type.clone());
            (name.clone(), attribute)
        })
        .collect();
    record.event_source = Some("aws:sqs".to_string());
    record.event_source_arn = Some(queue_arn.to_string());
    record.aws_region = Some(region.to_string());
    record
}

/// `Base64Data` is non-exhaustive: built through `Default` and `DerefMut`.
fn base64_data(bytes: &[u8]) -> Base64Data {
    let mut data = Base64Data::default();
    data.extend_from_slice(bytes);
    data
}

/// `(message id, receipt handle)` of the messages to delete after an invocation.
///
/// `response` is `None` when the invocation failed. With `ReportBatchItemFailures`, a
/// response naming an id that is not in the batch fails the whole batch, as in Lambda.
pub fn to_delete(
    records: &[SqsMessage],
    response: Option<&SqsBatchResponse>,
    report_batch_item_failures: bool,
) -> Vec<(String, String)> {
    let Some(response) = response else {
        return Vec::new();
    };
    let failed: BTreeSet<&str> = if report_batch_item_failures {
        let ids: HashSet<&str> = records
            .iter()
            .filter_map(|r| r.message_id.as_deref())
            .collect();
        let failed: BTreeSet<&str> = response
            .batch_item_failures
            .iter()
            .map(|f| f.item_identifier.as_str())
            .collect();
        if failed.iter().any(|id| !ids.contains(id)) {
            return Vec::new();
        }
        failed
    } else {
        BTreeSet::new()
    };
    records
        .iter()
        .filter_map(|r| Some((r.message_id.clone()?, r.receipt_handle.clone()?)))
        .filter(|(id, _)| !failed.contains(id.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_sqs::types::MessageAttributeValue;
    use std::collections::HashMap;

    fn record(id: &str) -> SqsMessage {
        let mut r = SqsMessage::default();
        r.message_id = Some(id.into());
        r.receipt_handle = Some(format!("rh-{id}"));
        r
    }

    fn response(failures: &[&str]) -> SqsBatchResponse {
        let mut r = SqsBatchResponse::default();
        r.set_failures(failures.iter().copied());
        r
    }

    #[test]
    fn deletes_according_to_outcome() {
        let records = vec![record("a"), record("b"), record("c")];
        let ids = |v: Vec<(String, String)>| v.into_iter().map(|(id, _)| id).collect::<Vec<_>>();

        assert!(to_delete(&records, None, true).is_empty());
        assert!(to_delete(&records, None, false).is_empty());
        assert_eq!(
            ids(to_delete(&records, Some(&response(&[])), true)),
            ["a", "b", "c"]
        );
        assert_eq!(
            ids(to_delete(&records, Some(&response(&["b"])), true)),
            ["a", "c"]
        );
        // Without ReportBatchItemFailures the response is ignored, as Lambda does.
        assert_eq!(
            ids(to_delete(&records, Some(&response(&["b"])), false)),
            ["a", "b", "c"]
        );
        // An unknown or empty identifier fails the whole batch.
        assert!(to_delete(&records, Some(&response(&["zz"])), true).is_empty());
        assert!(to_delete(&records, Some(&response(&[""])), true).is_empty());
        assert_eq!(
            to_delete(&records[..1], Some(&response(&[])), true),
            [("a".to_string(), "rh-a".to_string())]
        );
    }

    #[test]
    fn reads_event_source_properties() {
        let props = serde_json::json!({
            "Queue": "arn:aws:sqs:us-east-1:123456789012:q",
            "BatchSize": "5",
            "MaximumBatchingWindowInSeconds": 2,
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
        });
        let s = SqsSource::from_properties("Fn", "Jobs", &props).expect("source");
        assert_eq!(s.batch_size, 5);
        assert_eq!(s.batching_window, Duration::from_secs(2));
        assert!(s.report_batch_item_failures);
        assert!(s.enabled);

        let minimal = serde_json::json!({"Queue": "arn:aws:sqs:r:1:q", "Enabled": false});
        let s = SqsSource::from_properties("Fn", "Jobs", &minimal).expect("source");
        assert_eq!(s.batch_size, 10);
        assert!(!s.report_batch_item_failures);
        assert!(!s.enabled);

        let url = serde_json::json!({"Queue": "http://localhost/123/q"});
        assert!(SqsSource::from_properties("Fn", "Jobs", &url).is_err());
        assert!(SqsSource::from_properties("Fn", "Jobs", &serde_json::json!({})).is_err());
    }

    #[test]
    fn converts_messages_like_lambda() {
        let message = Message::builder()
            .message_id("m1")
            .receipt_handle("r1")
            .body("hello")
            .md5_of_body("md5")
            .attributes(MessageSystemAttributeName::ApproximateReceiveCount, "2")
            .set_message_attributes(Some(HashMap::from([(
                "kind".to_string(),
                MessageAttributeValue::builder()
                    .data_type("String")
                    .string_value("digest")
                    .build()
                    .expect("attribute"),
            )])))
            .build();
        let r = to_record(
            &message,
            "arn:aws:sqs:eu-west-1:123456789012:q",
            "eu-west-1",
        );
        assert_eq!(r.message_id.as_deref(), Some("m1"));
        assert_eq!(r.body.as_deref(), Some("hello"));
        assert_eq!(r.attributes["ApproximateReceiveCount"], "2");
        assert_eq!(
            r.message_attributes["kind"].string_value.as_deref(),
            Some("digest")
        );
        assert_eq!(
            r.message_attributes["kind"].data_type.as_deref(),
            Some("String")
        );
        assert_eq!(r.event_source.as_deref(), Some("aws:sqs"));
        assert_eq!(r.aws_region.as_deref(), Some("eu-west-1"));
        let json = serde_json::to_value(&r).expect("json");
        assert_eq!(
            json["eventSourceARN"],
            "arn:aws:sqs:eu-west-1:123456789012:q"
        );
    }
}
