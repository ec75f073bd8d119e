//! Running a function's handler (HTTP router, SQS or schedule handler) under Lambda.

use std::future::Future;
use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_lambda_events::event::sqs::SqsEvent;
use lambda_runtime::{service_fn, LambdaEvent};

use crate::config::Env;
use crate::function::{BoxError, ScheduleHandler, SqsHandler};

/// A function's whole `main`: reads the process environment, installs logging, builds the
/// handler once (the cold start) and serves it until the runtime stops the process.
pub fn start<F, Fut, H>(build: F) -> Result<(), BoxError>
where
    F: FnOnce(Env) -> Fut,
    Fut: Future<Output = Result<H, BoxError>>,
    H: Serve,
{
    // Lambda sends one event at a time: worker threads would only cost start-up time and
    // context switches (`spawn_blocking` still has its own pool).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let env = Env::from_process();
        crate::logging::init(&env);
        build(env).await?.serve().await
    })
}

/// What a function's `build` returns, served by its own kind of runtime. Dispatch is static so
/// that a bootstrap links only that runtime: matching a `Function` at run time linked all three
/// into every function (lambda_http and its text decoding into the queue workers, the SQS and
/// EventBridge event types into the HTTP ones).
pub trait Serve {
    /// Serves until the runtime stops the process.
    fn serve(self) -> impl Future<Output = Result<(), BoxError>>;
}

impl Serve for axum::Router {
    fn serve(self) -> impl Future<Output = Result<(), BoxError>> {
        lambda_http::run(self)
    }
}

impl Serve for Arc<dyn SqsHandler> {
    async fn serve(self) -> Result<(), BoxError> {
        lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
            let handler = Arc::clone(&self);
            async move { handler.handle(event.payload).await }
        }))
        .await
    }
}

impl Serve for Arc<dyn ScheduleHandler> {
    async fn serve(self) -> Result<(), BoxError> {
        lambda_runtime::run(service_fn(
            move |event: LambdaEvent<EventBridgeEvent<serde_json::Value>>| {
                let handler = Arc::clone(&self);
                async move { handler.handle(event.payload).await }
            },
        ))
        .await
    }
}
