//! The feed worker: consumes [`news::FeedRefresh`] messages from the feed queue and refreshes
//! each source (conditional GET, parse, idempotent article upserts; see `news::ingest`).
//!
//! Each refresh enqueues the source's next one, delayed until it is due (`news::FeedRefresh`):
//! the sources' chains of messages are the schedule, so no run reads every source.
//!
//! Article pages are not read here: a refresh lists the pages its new articles want and sends
//! the page queue the source's pages message (the page reader function reads them, so the
//! readability extractor is not linked into this one). A pages message still arriving on the
//! feed queue (sent before the page queue) is forwarded to the page queue unread.
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - refreshed, not modified, a pages message forwarded, the source is gone or retired (its chain ends), nobody
//!   subscribes to it (not fetched, kept on its chain), a repeat of a message already handled,
//!   or not due yet (enqueued again): done;
//! - the feed failed (unreachable, timed out, too large, not a feed), or its entries could
//!   not be stored: done, because the refresh has recorded a back-off and the scheduler
//!   retries the source when it is due again;
//! - the content table is unavailable (throttled, unreachable), the next refresh could not be
//!   enqueued, a pages message could not be forwarded, or the message is unreadable:
//!   a batch item failure, so SQS redelivers it and, after `maxReceiveCount`, moves it to the
//!   dead-letter queue.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::FutureExt;
use news::ingest::{Ingest, IngestError};
use platform::aws::AwsClients;
use platform::batch::{self, Outcome, Unreadable};
use platform::{BoxError, Env, SqsHandler};

/// Sources refreshed at once within one batch: a refresh mostly waits on the feed's server,
/// so one invocation keeps its whole batch (the event source's `BatchSize`) in flight.
const CONCURRENCY: usize = 10;

pub struct FeedWorker {
    ingest: Arc<Ingest>,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(Arc::new(FeedWorker::new(Arc::new(Ingest::from_env(
        &env, &aws,
    )?))))
}

impl FeedWorker {
    pub fn new(ingest: Arc<Ingest>) -> Self {
        Self { ingest }
    }

    /// Refreshes one source. Only an unavailable content table is an `Err`, which means
    /// "deliver its messages again": a failed feed, or one whose entries could not be stored,
    /// has already been backed off by the refresh, and a retried poison would only fail again.
    pub async fn refresh(ingest: &Ingest, refresh: &news::FeedRefresh) -> Result<(), BoxError> {
        let source_id = refresh.source_id.as_str();
        match ingest.refresh(refresh).await {
            Ok(report) => {
                tracing::info!(
                    source_id,
                    not_modified = report.not_modified,
                    unsubscribed = report.unsubscribed,
                    skipped = report.skipped,
                    gone = report.gone,
                    inserted = report.inserted,
                    already_stored = report.already_stored,
                    left_out = report.left_out,
                    cut = report.cut,
                    pages_pending = report.pages_pending,
                    pages_enqueued = report.pages_enqueued,
                    pages_forwarded = report.pages_forwarded,
                    "feed refreshed"
                );
                Ok(())
            }
            Err(IngestError::Store(news::store::StoreError::SourceNotFound)) => {
                tracing::info!(source_id, "source retired during its refresh");
                Ok(())
            }
            Err(IngestError::Store(e)) if e.is_unavailable() => Err(e.into()),
            Err(IngestError::Queue(e)) => Err(e.into()),
            Err(other) => {
                tracing::info!(source_id, error = %other, "feed failed; backed off");
                Ok(())
            }
        }
    }
}

impl SqsHandler for FeedWorker {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let ingest = Arc::clone(&self.ingest);
        async move {
            // One refresh per source even when the batch repeats it (scheduler overlap,
            // redelivery): concurrent refreshes of one feed would only fetch it twice.
            let refresh = |refresh: news::FeedRefresh| {
                let ingest = Arc::clone(&ingest);
                async move {
                    match FeedWorker::refresh(&ingest, &refresh).await {
                        Ok(()) => Outcome::Done,
                        Err(error) => {
                            let source_id = &refresh.source_id;
                            tracing::warn!(%source_id, %error, "feed messages will be retried");
                            Outcome::Retry
                        }
                    }
                }
            };
            Ok(batch::each_distinct(
                event,
                "feed message",
                Unreadable::Retry,
                |refresh: &news::FeedRefresh| refresh.source_id.clone(),
                CONCURRENCY,
                refresh,
            )
            .await)
        }
        .boxed()
    }
}
