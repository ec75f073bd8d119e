//! The OPML worker: consumes [`news::opml::ImportFeed`] messages from the import queue and
//! imports each feed of a person's OPML file (submit with the feed fetcher's SSRF guard,
//! subscribe through identity, label; see `news::opml`).
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - the feed's result is recorded (whatever it is: subscribed, already subscribed, not a
//!   feed, unreachable, invalid), or was already (a redelivery), or its import is gone: done;
//! - the content table, the users service or the feed queue failed: a batch item failure, so
//!   SQS delivers it again; on its last receive ([`MAX_RECEIVES`], the queue's
//!   `maxReceiveCount`) a failing users service is recorded as the feed's `failed` outcome
//!   instead, so the import still finishes; an unavailable table goes on to the DLQ.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use news::opml::ImportFeed;
use news::ImportWorker;
use platform::aws::AwsClients;
use platform::batch::{receive_count, Batch, Received, Unreadable};
use platform::{BoxError, Env, SqsHandler};

/// Feeds imported at once within one batch: each mostly waits on a feed's server.
const CONCURRENCY: usize = 10;
/// The import queue's `maxReceiveCount` in `template.yaml`.
pub const MAX_RECEIVES: u32 = 5;

pub struct OpmlWorker {
    worker: Arc<ImportWorker>,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(Arc::new(OpmlWorker {
        worker: Arc::new(ImportWorker::from_env(&env, &aws)?),
    }))
}

impl SqsHandler for OpmlWorker {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let worker = Arc::clone(&self.worker);
        async move {
            let batch = Batch::<ImportFeed>::read_with(
                event.records,
                "import feed message",
                Unreadable::Drop,
                receive_count,
            );
            let mut failures = batch.failures;
            let failed: Vec<Option<String>> = futures::stream::iter(batch.messages)
                .map(|Received { message_id, message: (feed, receives) }| {
                    let worker = Arc::clone(&worker);
                    async move {
                        match worker.import_feed(&feed, receives >= MAX_RECEIVES).await {
                            Ok(()) => None,
                            Err(error) => {
                                tracing::warn!(import_id = %feed.import_id, index = feed.index, %error, "import feed will be retried");
                                Some(message_id)
                            }
                        }
                    }
                })
                .buffer_unordered(CONCURRENCY)
                .collect()
                .await;
            failures.retry_all(failed.into_iter().flatten());
            Ok(failures.into_response())
        }
        .boxed()
    }
}
