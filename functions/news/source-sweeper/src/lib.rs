//! The source sweeper: consumes [`news::SourceSweep`] messages from the sweep queue and
//! removes retired sources' rows, one bounded step per message (`news::store::sweep`).
//!
//! Its own function rather than a second event source of the feed worker: it alone may
//! delete content rows (least privilege), and its concurrency is not the feed fetchers'.
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - a step deleted articles (more may remain): the sweep is enqueued again for the next
//!   step, and this message is done; if that enqueue fails, the message is a batch item
//!   failure, so SQS redelivers it and the step runs again (harmlessly);
//! - before a retired source's first step, its WebSub hub (if it is pushed) is asked to stop,
//!   once (the subscription is marked as ending); a hub that does not answer is logged and
//!   left to its lease, each delivery until then answered 410;
//! - the source is gone (finished) or not retired (subscribed, submitted again, within its
//!   grace period): done;
//! - the content table failed, or the message is unreadable: a batch item failure, redelivered
//!   and, after `maxReceiveCount`, dead-lettered.
//!
//! A step killed part-way leaves whole transactions behind, and its message is redelivered
//! after the visibility timeout: the next step continues from what is left.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::FutureExt;
use news::store::{BackfillStep, ContentStore, SweepStep};
use news::sweep::{grace_from_env, DEFAULT_SWEEP_BATCH};
use news::websub::Hub;
use news::{FeedFetcher, FetchConfig, SourceSweep, SweepQueue, Sweeper};
use platform::aws::AwsClients;
use platform::batch::{Batch, Received, Unreadable};
use platform::{BoxError, Env, SqsHandler};

pub struct SourceSweeper {
    sweeper: Arc<Sweeper>,
    queue: Arc<SweepQueue>,
}

/// Builds the handler from its environment (`CONTENT_TABLE`, `SWEEP_QUEUE_URL`,
/// `SOURCE_GRACE_MINUTES`; `PUBLIC_BASE_URL` and the `FEED_*` fetch settings for the WebSub
/// unsubscriptions of retired sources): what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let store = ContentStore::from_env(&env, &aws)?;
    let fetcher = FeedFetcher::new(FetchConfig::from_env(&env)?)?;
    let sweeper = Sweeper::new(store, grace_from_env(&env)?, DEFAULT_SWEEP_BATCH)
        .with_hub(Hub::from_env(&env, fetcher));
    let queue = SweepQueue::from_env(&env, aws.sqs())?;
    Ok(Arc::new(SourceSweeper::new(sweeper, queue)))
}

impl SourceSweeper {
    pub fn new(sweeper: Sweeper, queue: SweepQueue) -> Self {
        Self {
            sweeper: Arc::new(sweeper),
            queue: Arc::new(queue),
        }
    }
}

/// One backfill step: `Err` means "deliver it again".
async fn backfill(
    sweeper: &Sweeper,
    queue: &SweepQueue,
    source_id: &str,
    after: Option<&str>,
) -> Result<(), BoxError> {
    match sweeper.backfill_step(source_id, after).await? {
        BackfillStep::Filled { rows, next } => {
            tracing::info!(
                source_id,
                rows,
                "topic rows backfilled; enqueuing the next step"
            );
            queue
                .send(&SourceSweep::backfill(source_id, Some(next)))
                .await?;
        }
        BackfillStep::Finished { rows } => {
            tracing::info!(source_id, rows, "topic rows backfilled: done");
        }
    }
    Ok(())
}

/// One message's step: `Err` means "deliver it again".
async fn sweep(sweeper: &Sweeper, queue: &SweepQueue, source_id: &str) -> Result<(), BoxError> {
    match sweeper.step(source_id).await? {
        SweepStep::Swept { articles } => {
            tracing::info!(
                source_id,
                articles,
                "source sweep step done; enqueuing the next"
            );
            queue.send(&SourceSweep::new(source_id)).await?;
        }
        SweepStep::Finished => tracing::info!(source_id, "source swept"),
        SweepStep::Kept => tracing::info!(source_id, "source not retired; nothing to sweep"),
    }
    Ok(())
}

impl SqsHandler for SourceSweeper {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let sweeper = Arc::clone(&self.sweeper);
        let queue = Arc::clone(&self.queue);
        async move {
            let Batch {
                messages,
                mut failures,
            } = Batch::<SourceSweep>::read(event, "sweep message", Unreadable::Retry);
            // One at a time: steps of one source must not race (they would only conflict),
            // and each is short.
            let mut done: Vec<String> = Vec::new();
            for Received {
                message_id,
                message: sweep_of,
            } in messages
            {
                if let Some(step) = &sweep_of.backfill {
                    let id = &sweep_of.source_id;
                    if let Err(error) = backfill(&sweeper, &queue, id, step.after.as_deref()).await {
                        tracing::warn!(source_id = %id, %error, "backfill step will be retried");
                        failures.retry(message_id);
                    }
                    continue;
                }
                // A source repeated in one batch (the scheduler's rescue beside a step's own
                // message): one step is enough, its successor is enqueued.
                if done.contains(&sweep_of.source_id) {
                    continue;
                }
                match sweep(&sweeper, &queue, &sweep_of.source_id).await {
                    Ok(()) => done.push(sweep_of.source_id),
                    Err(error) => {
                        tracing::warn!(source_id = %sweep_of.source_id, %error, "sweep step will be retried");
                        failures.retry(message_id);
                    }
                }
            }
            Ok(failures.into_response())
        }
        .boxed()
    }
}
