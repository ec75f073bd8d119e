//! The community sweeper: consumes [`AccountCleanup`] messages from the cleanup queue and
//! undoes a deleted user's posts, comments, reactions, bookmarks and comment likes, one
//! bounded step per message (`community::store::cleanup`).
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - a step undid a full page (more may remain): the cleanup is queued again for the next
//!   step, and this message is done; if that send fails, the message is a batch item
//!   failure, so SQS redelivers it and the step runs again (harmlessly);
//! - nothing is left: done;
//! - the table failed, or the message is unreadable: a batch item failure, redelivered and,
//!   after `maxReceiveCount`, dead-lettered.
//!
//! Posts it soft-deletes are sent to the search indexer (their outbox rows are written in
//! the same transactions, so the index scheduler catches any send that fails).
//!
//! Its own function: only it deletes other users' marks in bulk (least privilege), and its
//! steps must not compete with the API for the community function's concurrency.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use community::{AccountCleanup, CleanupQueue, Community, IndexQueue};
use futures::future::BoxFuture;
use futures::FutureExt;
use platform::aws::AwsClients;
use platform::{BoxError, Env, SqsHandler};

pub struct CommunitySweeper {
    community: Arc<Community>,
    cleanups: Arc<CleanupQueue>,
    index: Arc<IndexQueue>,
}

/// Builds the handler from its environment (`COMMUNITY_TABLE`,
/// `COMMUNITY_CLEANUP_QUEUE_URL`, `SEARCH_INDEX_QUEUE_URL`): what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(Arc::new(CommunitySweeper {
        community: Arc::new(Community::from_env(&env, &aws)?),
        cleanups: Arc::new(CleanupQueue::from_env(&env, aws.sqs())?),
        index: Arc::new(IndexQueue::from_env(&env, aws.sqs())?),
    }))
}

impl CommunitySweeper {
    /// One step of one user's cleanup; `Err` means "deliver the message again".
    async fn step(&self, user_id: &str) -> Result<(), BoxError> {
        let step = self.community.cleanup_step(user_id).await?;
        if !step.deleted_posts.is_empty() {
            if let Err(error) = self.index.request_all(&step.deleted_posts).await {
                tracing::warn!(%error, "index requests not sent; the index scheduler will");
            }
        }
        tracing::info!(
            user_id,
            handled = step.handled,
            posts = step.deleted_posts.len(),
            finished = step.finished,
            "account cleanup step"
        );
        if !step.finished {
            self.cleanups.request(user_id).await?;
        }
        Ok(())
    }
}

impl SqsHandler for CommunitySweeper {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let this = Self {
            community: Arc::clone(&self.community),
            cleanups: Arc::clone(&self.cleanups),
            index: Arc::clone(&self.index),
        };
        async move {
            let mut response = SqsBatchResponse::default();
            let mut done: Vec<String> = Vec::new();
            for record in event.records {
                let id = record.message_id.unwrap_or_default();
                let cleanup = match AccountCleanup::parse(record.body.as_deref().unwrap_or("")) {
                    Ok(cleanup) => cleanup,
                    Err(error) => {
                        tracing::warn!(message_id = %id, %error, "unreadable cleanup message");
                        response.add_failure(id);
                        continue;
                    }
                };
                // A batch repeating a user (a redelivery beside the next step) steps once.
                if done.contains(&cleanup.user_id) {
                    continue;
                }
                match this.step(&cleanup.user_id).await {
                    Ok(()) => done.push(cleanup.user_id),
                    Err(error) => {
                        tracing::warn!(user_id = %cleanup.user_id, %error, "cleanup step failed; will be retried");
                        response.add_failure(id);
                    }
                }
            }
            Ok(response)
        }
        .boxed()
    }
}
