//! The digest worker: consumes `{"jobId"}` messages from the digest queue and runs each
//! generation job to its final status (`GENERATED`, `SKIPPED` or `FAILED`, with a message and
//! `finishedAt`), through the same service and ports as the HTTP function
//! (`community_digests_edge::DigestEdge`).
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - the job ran (whatever its outcome), was already finished, is running elsewhere, or is
//!   unknown: done;
//! - the outcome could not be recorded (the digests table unavailable), or the message is
//!   unreadable: a batch item failure, delivered again and, after `maxReceiveCount`,
//!   dead-lettered. A job left RUNNING by a run that died is claimed again once
//!   `community_digests::jobs::STALE_AFTER_MINUTES` have passed.
//!
//! The model's timeout is `LLM_TIMEOUT_SECONDS` (60); the function's is 180 s, so one message
//! a batch (`BatchSize: 1`) always finishes in time.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use community_digests::{JobMessage, Sources};
use community_digests_edge::DigestEdge;
use futures::future::BoxFuture;
use futures::FutureExt;
use platform::batch::{self, Outcome, Unreadable};
use platform::{BoxError, Env, SqsHandler};

pub struct DigestWorker {
    edge: Arc<DigestEdge>,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    Ok(Arc::new(DigestWorker {
        edge: Arc::new(DigestEdge::from_env(&env).await?),
    }))
}

impl DigestWorker {
    /// Runs one job; `Err` means "deliver the message again".
    async fn run(edge: &DigestEdge, job_id: &str) -> Result<(), BoxError> {
        let api = edge.api(edge.internal_api_url.clone());
        let sources = Sources {
            news: &api,
            users: &api,
            topics: &api,
        };
        let ran = edge.digests.run_job(&sources, job_id).await?;
        tracing::info!(job_id, ran, "digest job handled");
        Ok(())
    }
}

impl SqsHandler for DigestWorker {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let edge = Arc::clone(&self.edge);
        async move {
            let work = |message: JobMessage| {
                let edge = Arc::clone(&edge);
                async move {
                    match Self::run(&edge, &message.job_id).await {
                        Ok(()) => Outcome::Done,
                        Err(error) => {
                            tracing::warn!(job_id = %message.job_id, %error, "digest job not recorded; will be retried");
                            Outcome::Retry
                        }
                    }
                }
            };
            Ok(batch::each(event, "digest job message", Unreadable::Retry, work).await)
        }
        .boxed()
    }
}
