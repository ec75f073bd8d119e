//! The two SQS calls the functions make, SendMessage and SendMessageBatch, over the SDK.

use aws_sdk_sqs::types::SendMessageBatchRequestEntry;

use super::{AwsError, LazyClient};

/// The SQS client, built on its first call. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Sqs {
    client: LazyClient<aws_sdk_sqs::Client>,
}

/// One message of a SendMessageBatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchEntry {
    /// Unique within the batch; failures name it.
    pub id: String,
    pub message_body: String,
}

/// What SendMessageBatch answers: the entries sent and those refused.
#[derive(Clone, Debug, Default)]
pub struct BatchOutcome {
    pub successful: Vec<BatchSent>,
    pub failed: Vec<BatchFailure>,
}

#[derive(Clone, Debug)]
pub struct BatchSent {
    pub id: String,
    pub message_id: String,
}

#[derive(Clone, Debug)]
pub struct BatchFailure {
    pub id: String,
    pub code: String,
    pub message: Option<String>,
    pub sender_fault: bool,
}

impl Sqs {
    pub fn new(client: aws_sdk_sqs::Client) -> Self {
        Self::lazy(LazyClient::ready(client))
    }

    /// Over a client built on its first call.
    pub fn lazy(client: LazyClient<aws_sdk_sqs::Client>) -> Self {
        Self { client }
    }

    /// The SDK client underneath.
    pub fn client(&self) -> &aws_sdk_sqs::Client {
        self.client.get()
    }

    /// Sends `body` to the queue at `queue_url`; the message's id.
    pub async fn send_message(&self, queue_url: &str, body: &str) -> Result<String, AwsError> {
        let out = self
            .client()
            .send_message()
            .queue_url(queue_url)
            .message_body(body)
            .send()
            .await?;
        Ok(out.message_id.unwrap_or_default())
    }

    /// Sends up to 10 messages at once; some may be refused (see [`BatchOutcome::failed`]).
    pub async fn send_message_batch(
        &self,
        queue_url: &str,
        entries: &[BatchEntry],
    ) -> Result<BatchOutcome, AwsError> {
        let entries = entries
            .iter()
            .map(|e| {
                SendMessageBatchRequestEntry::builder()
                    .id(&e.id)
                    .message_body(&e.message_body)
                    .build()
                    .map_err(|e| AwsError::invalid(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let out = self
            .client()
            .send_message_batch()
            .queue_url(queue_url)
            .set_entries(Some(entries))
            .send()
            .await?;
        Ok(BatchOutcome {
            successful: out
                .successful
                .into_iter()
                .map(|s| BatchSent {
                    id: s.id,
                    message_id: s.message_id,
                })
                .collect(),
            failed: out
                .failed
                .into_iter()
                .map(|f| BatchFailure {
                    id: f.id,
                    code: f.code,
                    message: f.message,
                    sender_fault: f.sender_fault,
                })
                .collect(),
        })
    }
}
