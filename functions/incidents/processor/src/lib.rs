//! The incidents processor: consumes the ingest queue ([`IngestMessage`]) through the
//! facade's one call for a batch ([`Incidents::process`]):
//!
//! - `logs`: stored in S3, one object per service bucket and minute (`incidents::objects`:
//!   named by their content and written only if absent, so a redelivered batch stores
//!   nothing twice); then, for the whole batch at once, counted in the metrics (one update
//!   per series, each message once however often it is delivered) and grouped into
//!   incidents once per fingerprint, raising alerts;
//! - `purge`: one step of a timeline deletion deleted, the next step queued (deleting twice
//!   deletes nothing more).
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`: done, or a batch item
//! failure (the table or queue unavailable, an unreadable message), redelivered and, after
//! `maxReceiveCount`, dead-lettered.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::FutureExt;
use incidents::service::Delivery;
use incidents::{Incidents, IngestMessage};
use platform::aws::AwsClients;
use platform::batch::{receive_count, Batch, Unreadable};
use platform::{BoxError, Env, SqsHandler};

pub struct IncidentsProcessor {
    incidents: Arc<Incidents>,
}

/// Builds the handler from its environment (`INCIDENTS_TABLE`, `LOGS_BUCKET`,
/// `INGEST_QUEUE_URL`).
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(Arc::new(IncidentsProcessor::new(Incidents::from_env(
        &env, &aws,
    )?)))
}

impl IncidentsProcessor {
    pub fn new(incidents: Incidents) -> Self {
        Self {
            incidents: Arc::new(incidents),
        }
    }
}

impl SqsHandler for IncidentsProcessor {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let incidents = Arc::clone(&self.incidents);
        async move {
            let Batch {
                messages,
                mut failures,
            } = Batch::<IngestMessage>::read_with(
                event.records,
                "ingest message",
                Unreadable::Retry,
                |record| receive_count(record) > 1,
            );
            let (ids, deliveries): (Vec<String>, Vec<Delivery>) = messages
                .into_iter()
                .map(|r| {
                    let (message, redelivered) = r.message;
                    (
                        r.message_id,
                        Delivery {
                            message,
                            redelivered,
                        },
                    )
                })
                .unzip();
            for at in incidents.process(&deliveries).await {
                let Some(id) = ids.get(at) else { continue };
                tracing::warn!(message_id = %id, "ingest message failed; will be retried");
                failures.retry(id.clone());
            }
            Ok(failures.into_response())
        }
        .boxed()
    }
}
