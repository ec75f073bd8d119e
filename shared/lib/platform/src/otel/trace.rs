//! Spans and their ids: the W3C `traceparent` header, the server span of the request being
//! handled, and the client spans code opens inside it.

use std::sync::Arc;

use serde_json::Value;

use super::export::{attr, attr_i64, encode_span, EncodedSpan, Exporter};
use super::{hex, now_nanos, SpanKind};

/// The ids that make a span the parent of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SpanContext {
    pub(super) trace_id: [u8; 16],
    pub(super) span_id: [u8; 8],
}

tokio::task_local! {
    /// The server span of the request being handled.
    pub(super) static CURRENT: SpanContext;
}

/// An open span; a no-op when telemetry is off. Recorded when [`Span::end`] is called.
pub struct Span(pub(super) Option<Box<SpanData>>);

pub(super) struct SpanData {
    pub(super) exporter: Arc<Exporter>,
    pub(super) trace_id: [u8; 16],
    pub(super) span_id: [u8; 8],
    pub(super) parent_span_id: Option<[u8; 8]>,
    pub(super) name: String,
    pub(super) kind: SpanKind,
    pub(super) start: u64,
    pub(super) attributes: Vec<Value>,
    pub(super) error: Option<String>,
}

impl SpanData {
    /// A span of `exporter`, the child of the request's server span when there is one.
    pub(super) fn child(exporter: &Arc<Exporter>, kind: SpanKind, name: String) -> Self {
        let parent = CURRENT.try_with(|c| *c).ok();
        Self {
            exporter: Arc::clone(exporter),
            trace_id: parent.map_or_else(random_trace_id, |p| p.trace_id),
            span_id: random_span_id(),
            parent_span_id: parent.map(|p| p.span_id),
            name,
            kind,
            start: now_nanos(),
            attributes: Vec::new(),
            error: None,
        }
    }
}

impl Span {
    pub fn attr(&mut self, key: &str, value: &str) {
        if let Some(s) = &mut self.0 {
            s.attributes.push(attr(key, value));
        }
    }

    pub fn attr_i64(&mut self, key: &str, value: i64) {
        if let Some(s) = &mut self.0 {
            s.attributes.push(attr_i64(key, value));
        }
    }

    /// Marks the span failed.
    pub fn error(&mut self, message: &str) {
        if let Some(s) = &mut self.0 {
            s.error = Some(message.to_string());
        }
    }

    /// The `traceparent` value that makes a downstream call this span's child.
    pub fn traceparent(&self) -> Option<String> {
        self.0
            .as_ref()
            .map(|s| format!("00-{}-{}-01", hex(&s.trace_id), hex(&s.span_id)))
    }

    pub fn end(self) {
        if let Some(s) = self.0 {
            let span = encode_span(&EncodedSpan {
                trace_id: s.trace_id,
                span_id: s.span_id,
                parent_span_id: s.parent_span_id,
                name: &s.name,
                kind: s.kind,
                start: s.start,
                end: now_nanos(),
                attributes: s.attributes,
                error: s.error,
            });
            s.exporter.push_span(span);
        }
    }
}

/// A valid `traceparent` value (version 00 form), else `None`; the router layer's.
#[cfg(any(feature = "edge", test))]
pub(super) fn parse_traceparent(value: &str) -> Option<SpanContext> {
    let parts: Vec<&str> = value.trim().split('-').collect();
    let [version, trace, span, _flags] = parts.as_slice() else {
        return None;
    };
    if version.len() != 2 || *version == "ff" {
        return None;
    }
    let trace_id: [u8; 16] = unhex(trace)?.try_into().ok()?;
    let span_id: [u8; 8] = unhex(span)?.try_into().ok()?;
    if trace_id == [0; 16] || span_id == [0; 8] {
        return None;
    }
    Some(SpanContext { trace_id, span_id })
}

#[cfg(any(feature = "edge", test))]
fn unhex(s: &str) -> Option<Vec<u8>> {
    s.as_bytes()
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair).ok().filter(|p| p.len() == 2)?;
            u8::from_str_radix(pair, 16).ok()
        })
        .collect()
}

pub(super) fn random_trace_id() -> [u8; 16] {
    loop {
        let id: [u8; 16] = rand::random();
        if id != [0; 16] {
            return id;
        }
    }
}

pub(super) fn random_span_id() -> [u8; 8] {
    loop {
        let id: [u8; 8] = rand::random();
        if id != [0; 8] {
            return id;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::enabled;
    use super::*;
    use crate::config::Env;

    #[test]
    fn reads_traceparent() {
        let ctx = parse_traceparent(" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ")
            .expect("valid");
        assert_eq!(hex(&ctx.trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(hex(&ctx.span_id), "00f067aa0ba902b7");
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f35-00f067aa0ba902b7-01",
            "nonsense",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad}");
        }
    }

    #[tokio::test]
    async fn child_spans_join_the_request_trace() {
        let otel = enabled(Env::new());
        let parent = SpanContext {
            trace_id: [7; 16],
            span_id: [9; 8],
        };
        let child = CURRENT
            .scope(parent, async {
                let span = otel.span(SpanKind::Client, || "chat".into());
                let header = span.traceparent();
                span.end();
                header
            })
            .await
            .expect("traceparent");
        assert!(
            child.starts_with(&format!("00-{}-", hex(&[7; 16]))),
            "{child}"
        );
        let Some(exporter) = &otel.0 else {
            panic!("enabled");
        };
        let state = exporter.state.lock().expect("lock");
        assert_eq!(state.spans.len(), 1);
        assert_eq!(state.spans[0]["parentSpanId"], hex(&[9; 8]));
        assert_eq!(state.spans[0]["kind"], 3);
        assert_eq!(state.spans[0]["name"], "chat");
    }
}
