//! The consumer's side of a queue: an SQS batch read into its messages, and the failures
//! reported back with `ReportBatchItemFailures` (only those messages are delivered again).
//!
//! A worker reads the batch with [`Batch::read`] (each body parsed with
//! [`QueueMessage::parse`]; an unreadable one logged, then retried or dropped as the worker
//! says), works per message or per group of messages ([`Batch::distinct_by`],
//! [`Batch::grouped_by`]), marks what is to come back in [`Failures`] and answers
//! [`Failures::into_response`]. A worker that handles its messages one by one calls [`each`]; one
//! that handles one message per key, several at once, calls [`each_distinct`].

use std::future::Future;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};

use crate::queue::QueueMessage;

/// What becomes of a message whose body cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// A batch item failure: delivered again and, after `maxReceiveCount`, dead-lettered.
    Retry,
    /// Logged and dropped (a message not worth a dead letter).
    Drop,
}

/// One message of the batch, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received<M> {
    pub message_id: String,
    pub message: M,
}

/// Messages of a group sharing one key, in the batch's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group<K, M> {
    pub key: K,
    pub messages: Vec<M>,
    pub message_ids: Vec<String>,
}

/// The ids of the messages to deliver again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Failures(Vec<String>);

impl Failures {
    /// Delivers the message `message_id` again.
    pub fn retry(&mut self, message_id: impl Into<String>) {
        self.0.push(message_id.into());
    }

    /// Delivers all of `message_ids` again.
    pub fn retry_all(&mut self, message_ids: impl IntoIterator<Item = String>) {
        self.0.extend(message_ids);
    }

    pub fn ids(&self) -> &[String] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The answer to the event source.
    pub fn into_response(self) -> SqsBatchResponse {
        let mut response = SqsBatchResponse::default();
        for id in self.0 {
            response.add_failure(id);
        }
        response
    }
}

/// An SQS batch, read: its messages in order, and the unreadable ones already marked (when
/// they are to be retried).
#[derive(Clone, Debug)]
pub struct Batch<M> {
    pub messages: Vec<Received<M>>,
    pub failures: Failures,
}

/// A record's message id (empty when absent) and body (empty when absent).
pub fn message_id_and_body(record: &SqsMessage) -> (String, &str) {
    (
        record.message_id.clone().unwrap_or_default(),
        record.body.as_deref().unwrap_or(""),
    )
}

impl<M: QueueMessage> Batch<M> {
    /// Reads `event`'s records; see [`Batch::read_records`].
    pub fn read(event: SqsEvent, what: &str, unreadable: Unreadable) -> Self {
        Self::read_records(event.records, what, unreadable)
    }

    /// Reads each record's body with `M::parse`. An unreadable one is logged as
    /// `unreadable {what}` (`unreadable {what}; dropped` when dropped) with its message id and
    /// the reason, and retried or dropped per `unreadable`.
    pub fn read_records(records: Vec<SqsMessage>, what: &str, unreadable: Unreadable) -> Self {
        let read = Self::read_with(records, what, unreadable, |_| ());
        Self {
            messages: read
                .messages
                .into_iter()
                .map(|r| Received {
                    message_id: r.message_id,
                    message: r.message.0,
                })
                .collect(),
            failures: read.failures,
        }
    }

    /// [`Batch::read_records`], each message beside what `with` takes from its record (its
    /// [`receive_count`], its receipt handle) for a worker that needs more than the body.
    pub fn read_with<A>(
        records: Vec<SqsMessage>,
        what: &str,
        unreadable: Unreadable,
        with: impl Fn(&SqsMessage) -> A,
    ) -> Batch<(M, A)> {
        let mut batch = Batch {
            messages: Vec::with_capacity(records.len()),
            failures: Failures::default(),
        };
        for record in &records {
            let (message_id, body) = message_id_and_body(record);
            match M::parse(body) {
                Ok(message) => batch.messages.push(Received {
                    message_id,
                    message: (message, with(record)),
                }),
                Err(error) => match unreadable {
                    Unreadable::Retry => {
                        tracing::warn!(message_id = %message_id, %error, "unreadable {what}");
                        batch.failures.retry(message_id);
                    }
                    Unreadable::Drop => {
                        tracing::warn!(message_id = %message_id, %error, "unreadable {what}; dropped");
                    }
                },
            }
        }
        batch
    }
}

/// How often SQS has delivered `record` (its `ApproximateReceiveCount`; 1 when absent or
/// unreadable): above 1, it was delivered before.
pub fn receive_count(record: &SqsMessage) -> u32 {
    record
        .attributes
        .get("ApproximateReceiveCount")
        .and_then(|c| c.parse::<u32>().ok())
        .unwrap_or(1)
}

impl<M> Batch<M> {
    /// One message per key (the first of the batch), with the ids of every message sharing
    /// it, in first-seen order; and the failures so far.
    pub fn distinct_by<K: PartialEq>(
        self,
        key: impl Fn(&M) -> K,
    ) -> (Vec<(M, Vec<String>)>, Failures) {
        let (groups, failures) = self.grouped_by(key);
        let distinct = groups
            .into_iter()
            .filter_map(|group| {
                let first = group.messages.into_iter().next()?;
                Some((first, group.message_ids))
            })
            .collect();
        (distinct, failures)
    }

    /// The messages grouped by key, in first-seen order; and the failures so far.
    pub fn grouped_by<K: PartialEq>(self, key: impl Fn(&M) -> K) -> (Vec<Group<K, M>>, Failures) {
        let mut groups: Vec<Group<K, M>> = Vec::new();
        for Received {
            message_id,
            message,
        } in self.messages
        {
            let k = key(&message);
            match groups.iter_mut().find(|g| g.key == k) {
                Some(group) => {
                    group.messages.push(message);
                    group.message_ids.push(message_id);
                }
                None => groups.push(Group {
                    key: k,
                    messages: vec![message],
                    message_ids: vec![message_id],
                }),
            }
        }
        (groups, self.failures)
    }
}

/// What became of one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// Deliver it again.
    Retry,
}

/// Reads `event` (see [`Batch::read_records`]) and runs `work` on each message in turn, in
/// the batch's order; the messages it answers [`Outcome::Retry`] for, with the unreadable ones
/// (when retried), are the batch item failures. `work` logs its own outcomes.
pub async fn each<M, F, Fut>(
    event: SqsEvent,
    what: &str,
    unreadable: Unreadable,
    mut work: F,
) -> SqsBatchResponse
where
    M: QueueMessage,
    F: FnMut(M) -> Fut,
    Fut: Future<Output = Outcome>,
{
    let Batch {
        messages,
        mut failures,
    } = Batch::<M>::read(event, what, unreadable);
    for Received {
        message_id,
        message,
    } in messages
    {
        if work(message).await == Outcome::Retry {
            failures.retry(message_id);
        }
    }
    failures.into_response()
}

/// Reads `event` (see [`Batch::read_records`]), keeps one message per `key` (the first; the
/// others share its outcome: [`Batch::distinct_by`]) and runs `work` on them, at most
/// `concurrency` at once; the messages of the keys it answers [`Outcome::Retry`] for, with the
/// unreadable ones (when retried), are the batch item failures. `work` logs its own outcomes.
pub async fn each_distinct<M, K, F, Fut>(
    event: SqsEvent,
    what: &str,
    unreadable: Unreadable,
    key: impl Fn(&M) -> K,
    concurrency: usize,
    work: F,
) -> SqsBatchResponse
where
    M: QueueMessage,
    K: PartialEq,
    F: Fn(M) -> Fut,
    Fut: Future<Output = Outcome>,
{
    use futures::StreamExt;
    let (distinct, mut failures) = Batch::<M>::read(event, what, unreadable).distinct_by(key);
    let retried: Vec<Vec<String>> = futures::stream::iter(distinct)
        .map(|(message, message_ids)| {
            let outcome = work(message);
            async move {
                match outcome.await {
                    Outcome::Retry => message_ids,
                    Outcome::Done => Vec::new(),
                }
            }
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    failures.retry_all(retried.into_iter().flatten());
    failures.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
    struct Refresh {
        source: String,
        n: u32,
    }

    impl QueueMessage for Refresh {
        const URL_VARIABLE: &'static str = "REFRESH_QUEUE_URL";
        fn parse(body: &str) -> Result<Self, String> {
            let (source, n) = body.split_once(':').ok_or("no colon")?;
            Ok(Self {
                source: source.to_string(),
                n: n.parse().map_err(|_| "not a number".to_string())?,
            })
        }
    }

    fn record(id: &str, body: &str) -> SqsMessage {
        let mut m = SqsMessage::default();
        m.message_id = Some(id.into());
        m.body = Some(body.into());
        m
    }

    fn event(records: &[(&str, &str)]) -> SqsEvent {
        let mut event = SqsEvent::default();
        event.records = records.iter().map(|(id, body)| record(id, body)).collect();
        event
    }

    fn failed(response: &SqsBatchResponse) -> Vec<String> {
        response
            .batch_item_failures
            .iter()
            .map(|f| f.item_identifier.clone())
            .collect()
    }

    fn refresh(source: &str, n: u32) -> Refresh {
        Refresh {
            source: source.into(),
            n,
        }
    }

    #[test]
    fn unreadable_messages_are_retried_or_dropped() {
        let records = [("1", "a:1"), ("2", "junk"), ("3", "b:2")];
        let batch = Batch::<Refresh>::read(event(&records), "refresh", Unreadable::Retry);
        assert_eq!(
            batch.messages,
            vec![
                Received {
                    message_id: "1".into(),
                    message: refresh("a", 1)
                },
                Received {
                    message_id: "3".into(),
                    message: refresh("b", 2)
                },
            ]
        );
        assert_eq!(batch.failures.ids(), ["2".to_string()]);
        let dropped = Batch::<Refresh>::read(event(&records), "refresh", Unreadable::Drop);
        assert_eq!(dropped.messages.len(), 2);
        assert!(dropped.failures.is_empty());
    }

    #[test]
    fn repeated_keys_are_handled_once_or_together() {
        let records = [("1", "a:1"), ("2", "junk"), ("3", "b:2"), ("4", "a:3")];
        let read = || Batch::<Refresh>::read(event(&records), "refresh", Unreadable::Retry);
        let (distinct, failures) = read().distinct_by(|r| r.source.clone());
        assert_eq!(
            distinct,
            vec![
                (refresh("a", 1), vec!["1".to_string(), "4".to_string()]),
                (refresh("b", 2), vec!["3".to_string()]),
            ]
        );
        assert_eq!(failures.ids(), ["2".to_string()]);
        let (groups, _) = read().grouped_by(|r| r.source.clone());
        assert_eq!(
            groups[0],
            Group {
                key: "a".to_string(),
                messages: vec![refresh("a", 1), refresh("a", 3)],
                message_ids: vec!["1".to_string(), "4".to_string()],
            }
        );
        assert_eq!(groups.len(), 2);
    }

    #[test]
    fn failures_become_the_batch_response() {
        let mut failures = Failures::default();
        failures.retry("1");
        failures.retry_all(vec!["2".to_string(), "3".to_string()]);
        assert_eq!(failed(&failures.into_response()), ["1", "2", "3"]);
        let empty = SqsMessage::default();
        let (id, body) = message_id_and_body(&empty);
        assert_eq!((id.as_str(), body), ("", ""));
    }

    #[test]
    fn records_hand_their_receive_count_beside_the_message() {
        let mut records: Vec<SqsMessage> =
            [("1", "a:1"), ("2", "junk"), ("3", "b:2"), ("4", "c:3")]
                .iter()
                .map(|(id, body)| record(id, body))
                .collect();
        records[0]
            .attributes
            .insert("ApproximateReceiveCount".into(), "3".into());
        records[2]
            .attributes
            .insert("ApproximateReceiveCount".into(), "many".into());
        let batch =
            Batch::<Refresh>::read_with(records, "refresh", Unreadable::Retry, receive_count);
        let read: Vec<_> = batch
            .messages
            .iter()
            .map(|r| (r.message_id.as_str(), r.message.1))
            .collect();
        assert_eq!(read, [("1", 3), ("3", 1), ("4", 1)]);
        assert_eq!(batch.messages[0].message.0, refresh("a", 1));
        assert_eq!(batch.failures.ids(), ["2".to_string()]);
    }

    #[tokio::test]
    async fn each_runs_messages_in_order_and_reports_retries() {
        let records = [("1", "a:1"), ("2", "junk"), ("3", "b:2"), ("4", "c:3")];
        let mut seen = Vec::new();
        let response = each(
            event(&records),
            "refresh",
            Unreadable::Retry,
            |r: Refresh| {
                seen.push(r.n);
                let outcome = if r.source == "b" {
                    Outcome::Retry
                } else {
                    Outcome::Done
                };
                async move { outcome }
            },
        )
        .await;
        assert_eq!(seen, [1, 2, 3]);
        assert_eq!(failed(&response), ["2", "3"]);
    }

    #[tokio::test]
    async fn each_distinct_runs_one_message_per_key_and_retries_all_of_its_ids() {
        let records = [
            ("1", "a:1"),
            ("2", "junk"),
            ("3", "b:2"),
            ("4", "a:3"),
            ("5", "c:4"),
        ];
        let seen = std::sync::Mutex::new(Vec::new());
        let response = each_distinct(
            event(&records),
            "refresh",
            Unreadable::Retry,
            |r: &Refresh| r.source.clone(),
            2,
            |r: Refresh| {
                if let Ok(mut seen) = seen.lock() {
                    seen.push(r.n);
                }
                let outcome = if r.source == "a" {
                    Outcome::Retry
                } else {
                    Outcome::Done
                };
                async move { outcome }
            },
        )
        .await;
        let mut seen = seen.into_inner().unwrap_or_default();
        seen.sort_unstable();
        assert_eq!(seen, [1, 2, 4]);
        let mut failed = failed(&response);
        failed.sort();
        assert_eq!(failed, ["1", "2", "4"]);
    }
}
