//! The page reader: consumes [`news::ReadPages`] messages from the page queue and reads each
//! source's listed article pages for the full text of excerpt-only feeds
//! (`news::ingest::PageReading`; docs/news-full-text.md). Submissions, WebSub deliveries and
//! the feed worker's refreshes list the pages and send the messages; the readability extractor
//! (dom_smoothie, html5ever) is linked into this function alone.
//!
//! Each message claims and reads up to 10 listed pages within 8 seconds; when pages are still
//! listed afterwards it sends one more message for the source, so a big first batch drains
//! without waiting for refreshes (each page is claimed once, so the chain ends).
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - pages read (or none listed, the source gone or retired, its full text `off`): done; a
//!   page that could not be had keeps its article's teaser, and is not retried;
//! - the content table is unavailable (throttled, unreachable), or the message is unreadable:
//!   a batch item failure, so SQS redelivers it and, after `maxReceiveCount`, moves it to the
//!   dead-letter queue.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::FutureExt;
use news::ingest::PageReading;
use platform::aws::AwsClients;
use platform::batch::{self, Outcome, Unreadable};
use platform::{BoxError, Env, SqsHandler};

/// Sources read at once within one batch: reading mostly waits on the pages' servers, so
/// one invocation keeps its whole batch (the event source's `BatchSize`) in flight.
const CONCURRENCY: usize = 10;

pub struct PageReaderWorker {
    reading: Arc<PageReading>,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(Arc::new(PageReaderWorker::new(Arc::new(
        PageReading::from_env(&env, &aws)?,
    ))))
}

impl PageReaderWorker {
    pub fn new(reading: Arc<PageReading>) -> Self {
        Self { reading }
    }

    /// Reads one source's listed pages. Only an unavailable content table is an `Err`,
    /// which means "deliver its messages again"; any other failure of the table would only
    /// fail again.
    pub async fn read(reading: &PageReading, source_id: &str) -> Result<(), BoxError> {
        match reading.read(source_id).await {
            Ok(report) => {
                tracing::info!(
                    source_id,
                    gone = report.gone,
                    off = report.off,
                    claimed = report.claimed,
                    full_text = report.full_text,
                    more = report.more,
                    enqueued = report.enqueued,
                    "article pages read"
                );
                Ok(())
            }
            Err(e) if e.is_unavailable() => Err(e.into()),
            Err(error) => {
                tracing::warn!(source_id, %error, "article pages not read");
                Ok(())
            }
        }
    }
}

impl SqsHandler for PageReaderWorker {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let reading = Arc::clone(&self.reading);
        async move {
            // One read per source even when the batch repeats it: the second would find the
            // first's pages claimed.
            let read = |message: news::ReadPages| {
                let reading = Arc::clone(&reading);
                async move {
                    let source_id = message.source_id.as_str();
                    match PageReaderWorker::read(&reading, source_id).await {
                        Ok(()) => Outcome::Done,
                        Err(error) => {
                            tracing::warn!(source_id, %error, "pages messages will be retried");
                            Outcome::Retry
                        }
                    }
                }
            };
            Ok(batch::each_distinct(
                event,
                "pages message",
                Unreadable::Retry,
                |message: &news::ReadPages| message.source_id.clone(),
                CONCURRENCY,
                read,
            )
            .await)
        }
        .boxed()
    }
}
