//! SQS over its JSON protocol: the two calls the functions make, SendMessage and
//! SendMessageBatch.

use serde::{Deserialize, Serialize};

use super::json::{AwsError, JsonClient};

/// The SQS client. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Sqs {
    client: JsonClient,
}

/// One message of a SendMessageBatch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchEntry {
    /// Unique within the batch; failures name it.
    pub id: String,
    pub message_body: String,
}

/// What SendMessageBatch answers: the entries sent and those refused.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchOutcome {
    #[serde(default)]
    pub successful: Vec<BatchSent>,
    #[serde(default)]
    pub failed: Vec<BatchFailure>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchSent {
    pub id: String,
    pub message_id: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchFailure {
    pub id: String,
    pub code: String,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub sender_fault: bool,
}

impl Sqs {
    pub fn new(client: JsonClient) -> Self {
        Self { client }
    }

    /// Sends `body` to the queue at `queue_url`; the message's id.
    pub async fn send_message(&self, queue_url: &str, body: &str) -> Result<String, AwsError> {
        #[derive(Serialize)]
        #[serde(rename_all = "PascalCase")]
        struct Input<'a> {
            queue_url: &'a str,
            message_body: &'a str,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "PascalCase")]
        struct Output {
            message_id: String,
        }
        let out: Output = self
            .client
            .call(
                "SendMessage",
                &Input {
                    queue_url,
                    message_body: body,
                },
            )
            .await?;
        Ok(out.message_id)
    }

    /// Sends up to 10 messages at once; some may be refused (see [`BatchOutcome::failed`]).
    pub async fn send_message_batch(
        &self,
        queue_url: &str,
        entries: &[BatchEntry],
    ) -> Result<BatchOutcome, AwsError> {
        #[derive(Serialize)]
        #[serde(rename_all = "PascalCase")]
        struct Input<'a> {
            queue_url: &'a str,
            entries: &'a [BatchEntry],
        }
        self.client
            .call("SendMessageBatch", &Input { queue_url, entries })
            .await
    }
}
