//! Running a [`Function`] under the Lambda runtime.

use std::future::Future;
use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_lambda_events::event::sqs::SqsEvent;
use lambda_runtime::{service_fn, LambdaEvent};

use crate::config::Env;
use crate::function::{BoxError, Function};

/// A function's whole `main`: reads the process environment, installs logging, builds the
/// handler once (the cold start) and serves it until the runtime stops the process.
pub fn start<F, Fut, H>(build: F) -> Result<(), BoxError>
where
    F: FnOnce(Env) -> Fut,
    Fut: Future<Output = Result<H, BoxError>>,
    H: Into<Function>,
{
    // Lambda sends one event at a time: worker threads would only cost start-up time and
    // context switches (`spawn_blocking` still has its own pool).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let env = Env::from_process();
        crate::logging::init(&env);
        let function = build(env).await?.into();
        run(function).await
    })
}

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
