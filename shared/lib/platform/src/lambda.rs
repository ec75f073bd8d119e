//! Running a function's handler (HTTP router, SQS or schedule handler) under Lambda.

use std::future::Future;
use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_lambda_events::event::sqs::SqsEvent;
use lambda_runtime::{service_fn, LambdaEvent};

use crate::config::Env;
use crate::function::{ScheduleHandler, SqsHandler};
use crate::BoxError;

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

/// Set to `RESPONSE_STREAM` on a function whose URL has that `InvokeMode`.
pub const FUNCTION_URL_INVOKE_MODE: &str = "FUNCTION_URL_INVOKE_MODE";

impl Serve for axum::Router {
    async fn serve(self) -> Result<(), BoxError> {
        if std::env::var(FUNCTION_URL_INVOKE_MODE).as_deref() == Ok("RESPONSE_STREAM") {
            serve_streaming_url(self).await
        } else {
            lambda_http::run(self).await
        }
    }
}

/// A router whose function URL streams: its requests are answered with a streamed response
/// (flushed as the body is written), while the HTTP API's, which API Gateway reads whole,
/// keep the buffered payload it understands: one runtime answers both, choosing per event.
async fn serve_streaming_url(router: axum::Router) -> Result<(), BoxError> {
    use lambda_http::request::LambdaRequest;
    use lambda_http::tower::ServiceExt;
    use lambda_runtime::FunctionResponse;

    let buffered = lambda_http::Adapter::from(router.clone());
    let streamed = lambda_http::StreamAdapter::from(router);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<LambdaRequest>| {
        let buffered = buffered.clone();
        let streamed = streamed.clone();
        async move {
            if is_function_url(&event.payload) {
                streamed
                    .oneshot(event)
                    .await
                    .map(FunctionResponse::StreamingResponse)
            } else {
                buffered
                    .oneshot(event)
                    .await
                    .map(FunctionResponse::BufferedResponse)
            }
        }
    }))
    .await
}

/// A function URL request (its domain is `<id>.lambda-url.<region>.on.aws`), not the HTTP API's.
fn is_function_url(request: &lambda_http::request::LambdaRequest) -> bool {
    match request {
        lambda_http::request::LambdaRequest::ApiGatewayV2(event) => event
            .request_context
            .domain_name
            .as_deref()
            .is_some_and(|d| d.contains(".lambda-url.")),
        _ => false,
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

/// CloudFormation waits for the answer at the request's `ResponseURL` (a presigned S3 URL), not
/// for the invocation's result: the handler's outcome is PUT there, FAILED included, so a
/// failure rolls the deployment back instead of hanging it for an hour.
#[cfg(feature = "http-client")]
impl Serve for Arc<dyn crate::custom_resource::CustomResourceHandler> {
    async fn serve(self) -> Result<(), BoxError> {
        let http = crate::tls::http_client()
            .timeout(std::time::Duration::from_secs(30))
            .build()?;
        lambda_runtime::run(service_fn(move |event: LambdaEvent<serde_json::Value>| {
            let handler = Arc::clone(&self);
            let http = http.clone();
            async move {
                let raw = event.payload;
                // Answer FAILED before Lambda stops the invocation: an answer never sent leaves
                // the stack waiting for the resource's ServiceTimeout.
                let budget = crate::custom_resource::answer_budget(
                    event.context.deadline,
                    std::time::SystemTime::now(),
                );
                let outcome = match serde_json::from_value(raw.clone()) {
                    Ok(request) => {
                        match tokio::time::timeout(budget, handler.handle(request)).await {
                            Ok(done) => done.map_err(|e| e.to_string()),
                            Err(_) => Err(format!(
                                "the function did not finish within {} s of its timeout",
                                budget.as_secs()
                            )),
                        }
                    }
                    Err(e) => Err(format!("not a custom resource request: {e}")),
                };
                if let Err(reason) = &outcome {
                    tracing::error!(%reason, "custom resource request failed");
                }
                let body = crate::custom_resource::response_body(&raw, &outcome);
                let url = raw
                    .get("ResponseURL")
                    .and_then(serde_json::Value::as_str)
                    .ok_or("the request has no ResponseURL")?;
                // The presigned URL was signed without a content type: send none.
                http.put(url)
                    .header("content-type", "")
                    .body(serde_json::to_vec(&body)?)
                    .send()
                    .await?
                    .error_for_status()?;
                Ok::<_, BoxError>(())
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn event(json: &str) -> lambda_http::request::LambdaRequest {
        serde_json::from_str(json).expect("an HTTP event")
    }

    #[test]
    fn function_url_requests_are_told_from_the_http_apis() {
        let url = event(include_str!(
            "../../../../events/assistant/function-url-stream-summarize.json"
        ));
        assert!(is_function_url(&url));
        let api = event(include_str!("../../../../events/assistant/summarize.json"));
        assert!(!is_function_url(&api));
    }
}
