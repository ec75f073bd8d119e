//! Account-deletion cleanup queues: when identity deletes an account, each system that holds
//! the user's items marks the account (refusing its writes) and queues an [`AccountCleanup`];
//! its sweeper function then undoes the items a bounded step per message, queueing the next
//! step itself until nothing is left.

use crate::queue::{Queue, QueueError, QueueMessage};

/// A cleanup queue's message: undo the next items of this deleted user.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountCleanup {
    pub user_id: String,
}

impl AccountCleanup {
    pub fn new(user_id: impl Into<String>) -> Self {
        Self {
            user_id: user_id.into(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({ "userId": self.user_id }).to_string()
    }
}

impl QueueMessage for AccountCleanup {
    /// Unused as such: each system's queue has its own variable
    /// ([`Queue::from_env_variable`]).
    const URL_VARIABLE: &'static str = "CLEANUP_QUEUE_URL";

    /// Reads a message body: a user id, which is a uuid (kept lowercase).
    fn parse(body: &str) -> Result<Self, String> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Body {
            user_id: String,
        }
        let body: Body = serde_json::from_str(body).map_err(|e| e.to_string())?;
        if !is_uuid(&body.user_id) {
            return Err(format!("userId {:?} is not a uuid", body.user_id));
        }
        Ok(Self::new(body.user_id.to_ascii_lowercase()))
    }
}

/// The 8-4-4-4-12 hexadecimal form of a uuid.
fn is_uuid(raw: &str) -> bool {
    let groups: Vec<&str> = raw.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, len)| g.len() == len && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Why a cleanup could not be queued.
pub type CleanupQueueError = QueueError;

/// One system's cleanup queue, read with [`Queue::from_env_variable`] (its own variable).
pub type CleanupQueue = Queue<AccountCleanup>;

impl Queue<AccountCleanup> {
    /// Asks for (the next step of) the cleanup of `user_id`.
    pub async fn request(&self, user_id: &str) -> Result<(), QueueError> {
        self.send(&AccountCleanup::new(user_id)).await
    }
}

/// One system's bounded cleanup step: what its sweeper function does per message.
#[cfg(feature = "edge")]
pub trait CleanupSteps: Send + Sync + 'static {
    /// Undoes the next items of `user_id`; `Ok(true)` when nothing is left.
    fn step<'a>(
        &'a self,
        user_id: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<bool, crate::BoxError>>;
}

/// A sweeper function: consumes [`AccountCleanup`] messages and runs one step per user per
/// batch, reported with `ReportBatchItemFailures`:
/// - a step that left more: the next step is queued and this message is done; if that send
///   fails, the message is a batch item failure, so SQS redelivers it and the step runs again
///   (harmlessly: every step is idempotent);
/// - nothing left: done;
/// - a failed step or an unreadable message: a batch item failure, redelivered and, after
///   `maxReceiveCount`, dead-lettered.
#[cfg(feature = "edge")]
pub struct Sweeper<S> {
    steps: std::sync::Arc<S>,
    queue: std::sync::Arc<CleanupQueue>,
}

#[cfg(feature = "edge")]
impl<S: CleanupSteps> Sweeper<S> {
    pub fn new(steps: S, queue: CleanupQueue) -> Self {
        Self {
            steps: std::sync::Arc::new(steps),
            queue: std::sync::Arc::new(queue),
        }
    }
}

#[cfg(feature = "edge")]
impl<S: CleanupSteps> crate::SqsHandler for Sweeper<S> {
    fn handle(
        &self,
        event: aws_lambda_events::event::sqs::SqsEvent,
    ) -> futures::future::BoxFuture<
        'static,
        Result<aws_lambda_events::event::sqs::SqsBatchResponse, crate::BoxError>,
    > {
        let steps = std::sync::Arc::clone(&self.steps);
        let queue = std::sync::Arc::clone(&self.queue);
        Box::pin(async move {
            let crate::batch::Batch {
                messages,
                mut failures,
            } = crate::batch::Batch::<AccountCleanup>::read(
                event,
                "cleanup message",
                crate::batch::Unreadable::Retry,
            );
            let mut done: Vec<String> = Vec::new();
            for crate::batch::Received {
                message_id,
                message: cleanup,
            } in messages
            {
                // A batch repeating a user (a redelivery beside the next step) steps once.
                if done.contains(&cleanup.user_id) {
                    continue;
                }
                let outcome = match steps.step(&cleanup.user_id).await {
                    Ok(true) => Ok(()),
                    Ok(false) => queue.request(&cleanup.user_id).await.map_err(Into::into),
                    Err(error) => Err(error),
                };
                match outcome {
                    Ok(()) => done.push(cleanup.user_id),
                    Err(error) => {
                        tracing::warn!(user_id = %cleanup.user_id, %error, "cleanup step failed; will be retried");
                        failures.retry(message_id);
                    }
                }
            }
            Ok(failures.into_response())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_refuse_junk() {
        let id = "5B0F3C1E-0000-4000-8000-000000000001";
        let parsed = AccountCleanup::parse(&AccountCleanup::new(id).to_json()).unwrap();
        assert_eq!(parsed.user_id, id.to_ascii_lowercase());
        assert_eq!(
            AccountCleanup::new(id).to_body().unwrap(),
            AccountCleanup::new(id).to_json()
        );
        assert!(AccountCleanup::parse("{}").is_err());
        assert!(AccountCleanup::parse(r#"{"userId":"USER#x"}"#).is_err());
        assert!(
            AccountCleanup::parse(r#"{"userId":"5b0f3c1e-0000-4000-8000-00000000000g"}"#).is_err()
        );
        assert!(AccountCleanup::parse("junk").is_err());
    }
}
