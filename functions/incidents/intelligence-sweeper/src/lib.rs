//! The incident intelligence sweeper: consumes the sweep queue's messages and deletes what
//! `DELETE /api/v1/analyses` hid, one bounded step per message (`Sweeper::step`: 10
//! analyses, each removed from the index exactly once, then its record).
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - a step deleted a full page (more may remain): the sweep is queued again for the next
//!   step and this message is done; if that send fails, the message is a batch item failure,
//!   so SQS redelivers it and the step runs again (harmlessly);
//! - nothing is left: done;
//! - the table failed, or the message is unreadable: a batch item failure, redelivered and,
//!   after `maxReceiveCount`, dead-lettered.
//!
//! Its own function: only it deletes analyses in bulk, and its steps must not compete with the
//! API for the intelligence function's concurrency.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::FutureExt;
use incidents_intelligence::{SweepMessage, SweepQueue, Sweeper};
use platform::aws::AwsClients;
use platform::batch::{Batch, Received, Unreadable};
use platform::{BoxError, Env, SqsHandler};

pub struct IntelligenceSweeper {
    sweeper: Arc<Sweeper>,
    queue: SweepQueue,
}

/// Builds the handler from its environment (`INTELLIGENCE_TABLE`,
/// `INTELLIGENCE_QUEUE_URL`): what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(Arc::new(IntelligenceSweeper {
        sweeper: Arc::new(Sweeper::from_env(&env, &aws)?),
        queue: SweepQueue::from_env(&env, aws.sqs())?,
    }))
}

impl IntelligenceSweeper {
    /// One step; `Err` means "deliver the message again".
    async fn step(&self, message: &SweepMessage) -> Result<(), BoxError> {
        match message {
            SweepMessage::PurgeAnalyses { before } => {
                let more = self.sweeper.step(before).await?;
                tracing::info!(%before, more, "analyses sweep step");
                if more {
                    self.queue.send(message).await?;
                }
            }
        }
        Ok(())
    }
}

impl SqsHandler for IntelligenceSweeper {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let this = Self {
            sweeper: Arc::clone(&self.sweeper),
            queue: self.queue.clone(),
        };
        async move {
            let Batch {
                messages,
                mut failures,
            } = Batch::<SweepMessage>::read(event, "sweep message", Unreadable::Retry);
            let mut done: Vec<SweepMessage> = Vec::new();
            for Received {
                message_id,
                message,
            } in messages
            {
                // A batch repeating a sweep (a redelivery beside the next step) steps once.
                if done.contains(&message) {
                    continue;
                }
                match this.step(&message).await {
                    Ok(()) => done.push(message),
                    Err(error) => {
                        tracing::warn!(message_id = %message_id, %error, "sweep step failed; will be retried");
                        failures.retry(message_id);
                    }
                }
            }
            Ok(failures.into_response())
        }
        .boxed()
    }
}
