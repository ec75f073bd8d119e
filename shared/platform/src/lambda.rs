//! Running a [`Function`] under the Lambda runtime.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_lambda_events::event::sqs::SqsEvent;
use lambda_runtime::{service_fn, LambdaEvent};

use crate::function::{BoxError, Function};

/// Serves `function` until the runtime stops the process.
pub async fn run(function: Function) -> Result<(), BoxError> {
    match function {
        Function::Http(router) => lambda_http::run(router).await,
        Function::Sqs(handler) => {
            lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
                let handler = Arc::clone(&handler);
                async move { handler.handle(event.payload).await }
            }))
            .await
        }
        Function::Schedule(handler) => {
            lambda_runtime::run(service_fn(
                move |event: LambdaEvent<EventBridgeEvent<serde_json::Value>>| {
                    let handler = Arc::clone(&handler);
                    async move { handler.handle(event.payload).await }
                },
            ))
            .await
        }
    }
}
