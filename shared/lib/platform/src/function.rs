//! What a function is, independent of where it runs.
//!
//! Lambda runs one of these per process (see [`crate::lambda`]); the local stack runs all of
//! them in one process. Both call exactly the same handler code.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;

use crate::BoxError;

/// Consumes SQS batches. Returning `Ok` with item failures retries only those messages
/// (the event source has `ReportBatchItemFailures`); `Err` retries the whole batch.
pub trait SqsHandler: Send + Sync + 'static {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>>;
}

/// Runs on an EventBridge schedule.
pub trait ScheduleHandler: Send + Sync + 'static {
    fn handle(
        &self,
        event: EventBridgeEvent<serde_json::Value>,
    ) -> BoxFuture<'static, Result<(), BoxError>>;
}

/// One Lambda function's handler, built once per cold start.
#[derive(Clone)]
pub enum Function {
    /// An HTTP API route family: an axum router that sees the public paths.
    Http(axum::Router),
    /// An SQS consumer.
    Sqs(Arc<dyn SqsHandler>),
    /// A scheduled job.
    Schedule(Arc<dyn ScheduleHandler>),
    /// Invoked by CloudFormation when the stack deploys (a custom resource's `ServiceToken`).
    CustomResource(Arc<dyn crate::custom_resource::CustomResourceHandler>),
}

impl From<axum::Router> for Function {
    fn from(router: axum::Router) -> Self {
        Self::Http(router)
    }
}

impl From<Arc<dyn SqsHandler>> for Function {
    fn from(handler: Arc<dyn SqsHandler>) -> Self {
        Self::Sqs(handler)
    }
}

impl From<Arc<dyn ScheduleHandler>> for Function {
    fn from(handler: Arc<dyn ScheduleHandler>) -> Self {
        Self::Schedule(handler)
    }
}
