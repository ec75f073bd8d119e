//! The router layer (`edge` only): one server span per request, and the export awaited
//! before the response leaves.

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;

use super::export::{attr, attr_i64, encode_span, EncodedSpan};
use super::trace::{parse_traceparent, random_span_id, random_trace_id, SpanContext, CURRENT};
use super::{now_nanos, Otel, SpanKind, TRACEPARENT};

/// Gives every request of `router` a server span and exports at the end of each request.
/// Call it last, so the span sees the final response. Off: the router is returned as is.
pub fn instrument(router: axum::Router, otel: &Otel) -> axum::Router {
    if otel.is_enabled() {
        router.layer(axum::middleware::from_fn_with_state(
            otel.clone(),
            trace_request,
        ))
    } else {
        router
    }
}

async fn trace_request(State(otel): State<Otel>, request: Request, next: Next) -> Response {
    let Some(exporter) = otel.0.clone() else {
        return next.run(request).await;
    };
    let parent = request
        .headers()
        .get(TRACEPARENT)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_traceparent);
    let context = SpanContext {
        trace_id: parent.map_or_else(random_trace_id, |p| p.trace_id),
        span_id: random_span_id(),
    };
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string());
    let start = now_nanos();
    let response = CURRENT.scope(context, next.run(request)).await;
    let status = response.status().as_u16();
    let mut attributes = vec![
        attr("http.request.method", &method),
        attr("url.path", &path),
        attr_i64("http.response.status_code", i64::from(status)),
    ];
    if let Some(route) = &route {
        attributes.push(attr("http.route", route));
    }
    let name = match &route {
        Some(route) => format!("{method} {route}"),
        None => method,
    };
    let server_span = ServerSpan {
        exporter: exporter.clone(),
        trace_id: context.trace_id,
        span_id: context.span_id,
        parent_span_id: parent.map(|p| p.span_id),
        name,
        start,
        attributes,
        // Server spans are errors for 5xx only (a 4xx is the client's mistake).
        error: status >= 500,
        pushed: false,
    };
    if !is_stream(&response) {
        server_span.end();
        exporter.flush().await;
        return response;
    }
    // A streamed answer is still being written: its span ends, and what it recorded is
    // exported, when the last byte has gone, before the stream reports its end (an instance
    // may be frozen right after, and the next request may never come).
    let (parts, body) = response.into_parts();
    let tail = futures::stream::once(async move {
        server_span.end();
        exporter.flush().await;
    })
    .filter_map(|()| async { None::<Result<bytes::Bytes, axum::Error>> });
    Response::from_parts(
        parts,
        axum::body::Body::from_stream(body.into_data_stream().chain(tail)),
    )
}

/// A response whose body is written over time (server-sent events).
fn is_stream(response: &Response) -> bool {
    response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The request's server span until it ends; a stream the client abandons still records it
/// (exported with the next flush).
struct ServerSpan {
    exporter: std::sync::Arc<super::export::Exporter>,
    trace_id: [u8; 16],
    span_id: [u8; 8],
    parent_span_id: Option<[u8; 8]>,
    name: String,
    start: u64,
    attributes: Vec<serde_json::Value>,
    error: bool,
    pushed: bool,
}

impl ServerSpan {
    fn end(mut self) {
        self.push();
    }

    fn push(&mut self) {
        if std::mem::replace(&mut self.pushed, true) {
            return;
        }
        self.exporter.push_span(encode_span(&EncodedSpan {
            trace_id: self.trace_id,
            span_id: self.span_id,
            parent_span_id: self.parent_span_id,
            name: &self.name,
            kind: SpanKind::Server,
            start: self.start,
            end: now_nanos(),
            attributes: std::mem::take(&mut self.attributes),
            error: self.error.then(String::new),
        }));
    }
}

impl Drop for ServerSpan {
    fn drop(&mut self) {
        self.push();
    }
}
