//! Streamed answers on the function URL: `POST /stream/summarize`, `/stream/explain`,
//! `/stream/qa` take the JSON operations' request bodies and answer `text/event-stream`.
//!
//! Events (design in `docs/assistant-streaming.md`):
//! - `delta`, data `{"text": "..."}`: the next piece of the answer, in order;
//! - `done`, data: the JSON operation's whole response body (the finished answer);
//! - `error`, data: the detailed error body (`code` 502): the model failed mid-answer.
//!
//! Anything that fails before the first event (validation, limits, article, cache, the
//! provider refusing the request) is the JSON operations' error response, with its status. A
//! cached answer is one `delta` with the whole text, then `done`. Served under `/api/ai` too,
//! but API Gateway buffers whole responses: the events arrive as they come only on the
//! function URL (`InvokeMode: RESPONSE_STREAM`).

use std::convert::Infallible;
use std::sync::Arc;

use assistant::model::GenAiRequest;
use assistant::{Answer, Answered, LiveAnswer, Operation, Streamed};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, Extensions, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use platform::http::Json;
use platform::{ApiError, ErrorKind, ErrorStyle};

use crate::docs::{OperationErrors, StreamedAnswer};
use crate::{api_origin, GenAi, CACHE_HEADER, EVENT_STREAM};

/// The streamed operations, unprefixed, added to `operations` (behind the same limits).
pub fn routes(operations: Router<Arc<GenAi>>) -> Router<Arc<GenAi>> {
    operations
        .route("/stream/summarize", post(stream_summarize))
        .route("/stream/explain", post(stream_explain))
        .route("/stream/qa", post(stream_qa))
}

impl GenAi {
    /// Every streamed operation: validated, the article read and the cache asked before the
    /// first byte, then the answer as it comes.
    async fn stream(
        &self,
        extensions: &Extensions,
        request: GenAiRequest,
        operation: Operation,
        path: &'static str,
    ) -> Result<Response, ApiError> {
        let job = request.into_job(operation)?;
        let articles = self.content.via(api_origin(extensions));
        let streamed = self
            .assistant
            .stream(job, &articles, self.deadline(extensions))
            .await?;
        let (cache, body) = match streamed {
            Streamed::Whole(answered) => (hit_or_miss(&answered), whole(answered.answer)),
            Streamed::Live(live) => ("miss", live_body(live, path)),
        };
        Ok((
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(EVENT_STREAM)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                (
                    header::HeaderName::from_static(CACHE_HEADER),
                    HeaderValue::from_static(cache),
                ),
            ],
            body,
        )
            .into_response())
    }
}

fn hit_or_miss(answered: &Answered) -> &'static str {
    if answered.cached {
        "hit"
    } else {
        "miss"
    }
}

/// The text a reader reads of a prose answer.
fn text_of(answer: &Answer) -> &str {
    match answer {
        Answer::Summary(a) => &a.summary,
        Answer::Explanation(a) => &a.explanation,
        Answer::Qa(a) => &a.answer,
        Answer::Sentiment(a) => &a.rationale,
    }
}

/// One server-sent event.
fn event(name: &str, data: &serde_json::Value) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

fn delta(text: &str) -> Bytes {
    event("delta", &serde_json::json!({ "text": text }))
}

fn done(answer: &Answer) -> Bytes {
    event(
        "done",
        &serde_json::to_value(answer).unwrap_or(serde_json::Value::Null),
    )
}

/// A known answer: all of it at once.
fn whole(answer: Answer) -> Body {
    let mut bytes = delta(text_of(&answer)).to_vec();
    bytes.extend_from_slice(&done(&answer));
    Body::from(bytes)
}

/// Where a live answer is: writing pieces, or over.
enum Phase {
    Writing(Box<LiveAnswer>),
    Over,
}

/// The model's pieces as `delta` events, then `done` (the answer cached then) or `error`. A
/// reader who stops reading drops the body, and with it the model's stream: nothing is
/// cached then.
fn live_body(live: Box<LiveAnswer>, path: &'static str) -> Body {
    let events = futures::stream::unfold(Phase::Writing(live), move |phase| async move {
        let Phase::Writing(mut live) = phase else {
            return None;
        };
        match live.next().await {
            Some(Ok(piece)) => Some((Ok::<_, Infallible>(delta(&piece)), Phase::Writing(live))),
            Some(Err(e)) => {
                let error = ApiError::from(e);
                // An event, not a response: the error layer never sees this failure.
                if let Some(cause) = &error.cause {
                    if error.kind == ErrorKind::Internal {
                        tracing::error!(path, cause, "streamed answer failed");
                    } else {
                        tracing::warn!(path, cause, "streamed answer failed");
                    }
                }
                let body = error.body(
                    &ErrorStyle::Detailed {
                        strip_prefix: crate::PREFIX,
                    },
                    path,
                );
                Some((Ok(event("error", &body)), Phase::Over))
            }
            None => {
                let answer = live.finish().await;
                Some((Ok(done(&answer)), Phase::Over))
            }
        }
    });
    Body::from_stream(events)
}

/// Summarizes the article as the model writes it (options as `/summarize`).
#[utoipa::path(
    post,
    path = "/stream/summarize",
    operation_id = "aiStreamSummarize",
    security((), ("bearerJwt" = [])),
    tag = "genai",
    request_body = GenAiRequest,
    responses(StreamedAnswer, OperationErrors)
)]
pub(crate) async fn stream_summarize(
    State(genai): State<Arc<GenAi>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<Response, ApiError> {
    genai
        .stream(
            &extensions,
            request,
            Operation::Summarize,
            "/stream/summarize",
        )
        .await
}

/// Explains the article as the model writes it (options as `/explain`).
#[utoipa::path(
    post,
    path = "/stream/explain",
    operation_id = "aiStreamExplain",
    security((), ("bearerJwt" = [])),
    tag = "genai",
    request_body = GenAiRequest,
    responses(StreamedAnswer, OperationErrors)
)]
pub(crate) async fn stream_explain(
    State(genai): State<Arc<GenAi>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<Response, ApiError> {
    genai
        .stream(&extensions, request, Operation::Explain, "/stream/explain")
        .await
}

/// Answers the `question` as the model writes it (options as `/qa`).
#[utoipa::path(
    post,
    path = "/stream/qa",
    operation_id = "aiStreamQa",
    security((), ("bearerJwt" = [])),
    tag = "genai",
    request_body = GenAiRequest,
    responses(StreamedAnswer, OperationErrors)
)]
pub(crate) async fn stream_qa(
    State(genai): State<Arc<GenAi>>,
    extensions: Extensions,
    Json(request): Json<GenAiRequest>,
) -> Result<Response, ApiError> {
    genai
        .stream(&extensions, request, Operation::Qa, "/stream/qa")
        .await
}
