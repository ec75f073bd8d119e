//! OpenTelemetry export without the OpenTelemetry SDK: counters, histograms and spans sent as
//! OTLP/HTTP JSON (`POST {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/metrics` and `/v1/traces`).
//!
//! Why hand-written: the SDK, its exporters and their protobuf/gRPC stacks roughly double a
//! function's dependency tree and build time, and its batching assumes a long-lived process.
//! A Lambda instance is frozen between invocations, so what is not sent before the response
//! may never be sent. This module therefore exports at the end of every request
//! ([`instrument`] awaits [`Otel::flush`] before returning the response), with a short timeout, and
//! never lets an export failure touch the response.
//!
//! Metrics are cumulative (the SDK default) from the instance's start, with a
//! `service.instance.id` per cold start so that a backend can sum instances. Spans: one server
//! span per request (W3C `traceparent` honoured, so the span joins the caller's trace) and
//! the client spans code opens inside it with [`Otel::span`].
//!
//! Configuration: `OTEL_EXPORTER_OTLP_ENDPOINT` (unset: everything here is a no-op that
//! allocates nothing), `OTEL_SERVICE_NAME` (the function's default otherwise),
//! `OTEL_RESOURCE_ATTRIBUTES` (`key=value,...`, percent-encoded values),
//! `OTEL_EXPORTER_OTLP_HEADERS` (same form), `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds,
//! default 2000 here because export is on the request path), `OTEL_SDK_DISABLED=true`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{json, Value};

use crate::config::Env;

/// The W3C trace-context header.
pub const TRACEPARENT: &str = "traceparent";
const DEFAULT_EXPORT_TIMEOUT: Duration = Duration::from_millis(2000);
/// Spans kept while the collector is unreachable; older ones are dropped beyond this.
const MAX_PENDING_SPANS: usize = 2048;
const SCOPE_NAME: &str = "platform.otel";

/// What an instrument aggregates.
#[derive(Debug, Clone, Copy)]
pub enum InstrumentKind {
    /// A monotonic sum of integers.
    Counter,
    /// An explicit-bucket histogram with these upper bounds.
    Histogram(&'static [f64]),
}

/// A metric's identity: declare each as a `static` next to the code that records it.
#[derive(Debug)]
pub struct Instrument {
    pub name: &'static str,
    pub unit: &'static str,
    pub description: &'static str,
    pub kind: InstrumentKind,
}

impl Instrument {
    pub const fn counter(
        name: &'static str,
        unit: &'static str,
        description: &'static str,
    ) -> Self {
        Self {
            name,
            unit,
            description,
            kind: InstrumentKind::Counter,
        }
    }

    pub const fn histogram(
        name: &'static str,
        unit: &'static str,
        description: &'static str,
        bounds: &'static [f64],
    ) -> Self {
        Self {
            name,
            unit,
            description,
            kind: InstrumentKind::Histogram(bounds),
        }
    }
}

/// Span kinds as OTLP numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    Internal = 1,
    Server = 2,
    Client = 3,
}

/// The telemetry handle of one function instance; cheap to clone. `Otel::default()` is off.
#[derive(Clone, Default)]
pub struct Otel(Option<Arc<Exporter>>);

impl std::fmt::Debug for Otel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            None => f.write_str("Otel(off)"),
            Some(e) => write!(f, "Otel({})", e.metrics_url),
        }
    }
}

impl Otel {
    /// Telemetry as the environment configures it; off when `OTEL_EXPORTER_OTLP_ENDPOINT` is
    /// unset. `service_name` is the default of `OTEL_SERVICE_NAME`.
    pub fn from_env(env: &Env, service_name: &str, http: reqwest::Client) -> Self {
        let Some(endpoint) = env.get("OTEL_EXPORTER_OTLP_ENDPOINT") else {
            return Self(None);
        };
        if env
            .get("OTEL_SDK_DISABLED")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        {
            return Self(None);
        }
        if let Some(protocol) = env
            .get("OTEL_EXPORTER_OTLP_PROTOCOL")
            .filter(|p| p.trim() != "http/json")
        {
            tracing::warn!(%protocol, "only OTLP http/json is exported; OTEL_EXPORTER_OTLP_PROTOCOL is ignored");
        }
        let base = endpoint.trim().trim_end_matches('/');
        let timeout = env
            .get("OTEL_EXPORTER_OTLP_TIMEOUT")
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map_or(DEFAULT_EXPORT_TIMEOUT, Duration::from_millis);
        let headers = key_values(env.get("OTEL_EXPORTER_OTLP_HEADERS").unwrap_or(""))
            .into_iter()
            .filter_map(|(k, v)| {
                Some((
                    HeaderName::from_bytes(k.as_bytes()).ok()?,
                    HeaderValue::from_str(&v).ok()?,
                ))
            })
            .collect();
        let resource = resource_attributes(env, service_name);
        tracing::info!(endpoint = %base, "exporting OpenTelemetry metrics and traces (OTLP/HTTP JSON)");
        Self(Some(Arc::new(Exporter {
            http,
            metrics_url: format!("{base}/v1/metrics"),
            traces_url: format!("{base}/v1/traces"),
            headers,
            timeout,
            resource,
            start_nanos: now_nanos(),
            state: Mutex::new(Recorded::default()),
        })))
    }

    pub fn is_enabled(&self) -> bool {
        self.0.is_some()
    }

    /// Adds `value` to a counter's series for these labels.
    pub fn add(&self, instrument: &'static Instrument, value: u64, labels: &[(&str, &str)]) {
        if let Some(e) = &self.0 {
            e.update(instrument, labels, |point| match point {
                Point::Sum(total) => *total = total.saturating_add(value),
                Point::Histogram(h) => h.observe(value as f64),
            });
        }
    }

    /// Records one observation of a histogram.
    pub fn record(&self, instrument: &'static Instrument, value: f64, labels: &[(&str, &str)]) {
        if let Some(e) = &self.0 {
            e.update(instrument, labels, |point| match point {
                Point::Histogram(h) => h.observe(value),
                Point::Sum(total) => *total = total.saturating_add(value.max(0.0) as u64),
            });
        }
    }

    /// Opens a span, a child of the request's server span when there is one. The name is
    /// only built when telemetry is on.
    pub fn span(&self, kind: SpanKind, name: impl FnOnce() -> String) -> Span {
        let Some(exporter) = &self.0 else {
            return Span(None);
        };
        let parent = CURRENT.try_with(|c| *c).ok();
        Span(Some(Box::new(SpanData {
            exporter: Arc::clone(exporter),
            trace_id: parent.map_or_else(random_trace_id, |p| p.trace_id),
            span_id: random_span_id(),
            parent_span_id: parent.map(|p| p.span_id),
            name: name(),
            kind,
            start: now_nanos(),
            attributes: Vec::new(),
            error: None,
        })))
    }

    /// Sends what was recorded since the last flush; failures are logged, never returned.
    pub async fn flush(&self) {
        if let Some(e) = &self.0 {
            e.flush().await;
        }
    }
}

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
    let parent = traceparent_of(request.headers());
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
    exporter.push_span(encode_span(&EncodedSpan {
        trace_id: context.trace_id,
        span_id: context.span_id,
        parent_span_id: parent.map(|p| p.span_id),
        name: &name,
        kind: SpanKind::Server,
        start,
        end: now_nanos(),
        attributes,
        // Server spans are errors for 5xx only (a 4xx is the client's mistake).
        error: (status >= 500).then(String::new),
    }));
    exporter.flush().await;
    response
}

/// An open span; a no-op when telemetry is off. Recorded when [`Span::end`] is called.
pub struct Span(Option<Box<SpanData>>);

struct SpanData {
    exporter: Arc<Exporter>,
    trace_id: [u8; 16],
    span_id: [u8; 8],
    parent_span_id: Option<[u8; 8]>,
    name: String,
    kind: SpanKind,
    start: u64,
    attributes: Vec<Value>,
    error: Option<String>,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SpanContext {
    trace_id: [u8; 16],
    span_id: [u8; 8],
}

tokio::task_local! {
    /// The server span of the request being handled.
    static CURRENT: SpanContext;
}

struct Exporter {
    http: reqwest::Client,
    metrics_url: String,
    traces_url: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    timeout: Duration,
    resource: Value,
    start_nanos: u64,
    state: Mutex<Recorded>,
}

/// An instrument's name and a sorted label set: one time series.
type SeriesKey = (&'static str, Vec<(String, String)>);

#[derive(Default)]
struct Recorded {
    /// Each series' cumulative point.
    series: BTreeMap<SeriesKey, Point>,
    instruments: BTreeMap<&'static str, &'static Instrument>,
    /// Something was recorded since the last export.
    changed: bool,
    spans: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq)]
enum Point {
    Sum(u64),
    Histogram(Histogram),
}

#[derive(Debug, Clone, PartialEq)]
struct Histogram {
    bounds: &'static [f64],
    buckets: Vec<u64>,
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Self {
        Self {
            bounds,
            buckets: vec![0; bounds.len() + 1],
            count: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }

    fn observe(&mut self, value: f64) {
        // OTLP buckets are upper-inclusive: (bounds[i-1], bounds[i]].
        let index = self
            .bounds
            .iter()
            .position(|b| value <= *b)
            .unwrap_or(self.bounds.len());
        self.buckets[index] += 1;
        self.count += 1;
        self.sum += value;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }
}

impl Exporter {
    fn update(
        &self,
        instrument: &'static Instrument,
        labels: &[(&str, &str)],
        apply: impl FnOnce(&mut Point),
    ) {
        let mut key: Vec<(String, String)> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        key.sort();
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        state.instruments.insert(instrument.name, instrument);
        let point = state
            .series
            .entry((instrument.name, key))
            .or_insert_with(|| match instrument.kind {
                InstrumentKind::Counter => Point::Sum(0),
                InstrumentKind::Histogram(bounds) => Point::Histogram(Histogram::new(bounds)),
            });
        apply(point);
        state.changed = true;
    }

    fn push_span(&self, span: Value) {
        if let Ok(mut state) = self.state.lock() {
            if state.spans.len() >= MAX_PENDING_SPANS {
                state.spans.remove(0);
            }
            state.spans.push(span);
        }
    }

    async fn flush(&self) {
        let (metrics, spans) = {
            let Ok(mut state) = self.state.lock() else {
                return;
            };
            let metrics = state.changed.then(|| {
                encode_metrics(
                    &self.resource,
                    &state.instruments,
                    &state.series,
                    self.start_nanos,
                    now_nanos(),
                )
            });
            state.changed = false;
            let spans = std::mem::take(&mut state.spans);
            (metrics, spans)
        };
        let traces = (!spans.is_empty()).then(|| encode_traces(&self.resource, spans));
        let send_metrics = async {
            if let Some(body) = metrics {
                self.post(&self.metrics_url, body).await;
            }
        };
        let send_traces = async {
            if let Some(body) = traces {
                self.post(&self.traces_url, body).await;
            }
        };
        futures::join!(send_metrics, send_traces);
    }

    async fn post(&self, url: &str, body: Value) {
        let mut request = self
            .http
            .post(url)
            .timeout(self.timeout)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        for (name, value) in &self.headers {
            request = request.header(name.clone(), value.clone());
        }
        match request.send().await {
            Ok(r) if r.status().is_success() => {}
            Ok(r) => tracing::warn!(%url, status = r.status().as_u16(), "OTLP export refused"),
            Err(e) => tracing::warn!(%url, error = %e, "OTLP export failed"),
        }
    }
}

fn encode_metrics(
    resource: &Value,
    instruments: &BTreeMap<&'static str, &'static Instrument>,
    series: &BTreeMap<SeriesKey, Point>,
    start: u64,
    now: u64,
) -> Value {
    let metrics: Vec<Value> = instruments
        .values()
        .map(|instrument| {
            let points = series
                .iter()
                .filter(|((name, _), _)| *name == instrument.name)
                .map(|((_, labels), point)| {
                    let attributes: Vec<Value> = labels.iter().map(|(k, v)| attr(k, v)).collect();
                    let mut p = json!({
                        "attributes": attributes,
                        "startTimeUnixNano": start.to_string(),
                        "timeUnixNano": now.to_string(),
                    });
                    match point {
                        Point::Sum(total) => p["asInt"] = json!(total.to_string()),
                        Point::Histogram(h) => {
                            p["count"] = json!(h.count.to_string());
                            p["sum"] = json!(h.sum);
                            p["bucketCounts"] =
                                json!(h.buckets.iter().map(u64::to_string).collect::<Vec<_>>());
                            p["explicitBounds"] = json!(h.bounds);
                            if h.count > 0 {
                                p["min"] = json!(h.min);
                                p["max"] = json!(h.max);
                            }
                        }
                    }
                    p
                })
                .collect::<Vec<_>>();
            // 2 = AGGREGATION_TEMPORALITY_CUMULATIVE.
            let data = match instrument.kind {
                InstrumentKind::Counter => (
                    "sum",
                    json!({"aggregationTemporality": 2, "isMonotonic": true, "dataPoints": points}),
                ),
                InstrumentKind::Histogram(_) => (
                    "histogram",
                    json!({"aggregationTemporality": 2, "dataPoints": points}),
                ),
            };
            let mut metric = json!({
                "name": instrument.name,
                "unit": instrument.unit,
                "description": instrument.description,
            });
            metric[data.0] = data.1;
            metric
        })
        .collect();
    json!({"resourceMetrics": [{
        "resource": resource,
        "scopeMetrics": [{"scope": {"name": SCOPE_NAME}, "metrics": metrics}],
    }]})
}

fn encode_traces(resource: &Value, spans: Vec<Value>) -> Value {
    json!({"resourceSpans": [{
        "resource": resource,
        "scopeSpans": [{"scope": {"name": SCOPE_NAME}, "spans": spans}],
    }]})
}

struct EncodedSpan<'a> {
    trace_id: [u8; 16],
    span_id: [u8; 8],
    parent_span_id: Option<[u8; 8]>,
    name: &'a str,
    kind: SpanKind,
    start: u64,
    end: u64,
    attributes: Vec<Value>,
    /// `Some` marks the span failed (status code 2), with this message.
    error: Option<String>,
}

fn encode_span(s: &EncodedSpan<'_>) -> Value {
    let status = match &s.error {
        None => json!({"code": 0}),
        Some(message) => json!({"code": 2, "message": message}),
    };
    json!({
        "traceId": hex(&s.trace_id),
        "spanId": hex(&s.span_id),
        "parentSpanId": s.parent_span_id.map(|p| hex(&p)).unwrap_or_default(),
        "name": s.name,
        "kind": s.kind as i32,
        "startTimeUnixNano": s.start.to_string(),
        "endTimeUnixNano": s.end.max(s.start).to_string(),
        "attributes": s.attributes,
        "status": status,
    })
}

fn attr(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

fn attr_i64(key: &str, value: i64) -> Value {
    json!({"key": key, "value": {"intValue": value.to_string()}})
}

/// `service.name` (`OTEL_SERVICE_NAME` wins over `OTEL_RESOURCE_ATTRIBUTES`), the extra
/// attributes, and what identifies this instance.
fn resource_attributes(env: &Env, default_service_name: &str) -> Value {
    let mut attributes: BTreeMap<String, String> =
        key_values(env.get("OTEL_RESOURCE_ATTRIBUTES").unwrap_or(""))
            .into_iter()
            .collect();
    let service = env
        .get("OTEL_SERVICE_NAME")
        .map(str::trim)
        .map(str::to_string)
        .or_else(|| attributes.get("service.name").cloned())
        .unwrap_or_else(|| default_service_name.to_string());
    attributes.insert("service.name".into(), service);
    attributes
        .entry("service.instance.id".into())
        .or_insert_with(|| hex(&random_trace_id()));
    attributes.insert("telemetry.sdk.name".into(), SCOPE_NAME.into());
    attributes.insert("telemetry.sdk.language".into(), "rust".into());
    if let Some(name) = env.get("AWS_LAMBDA_FUNCTION_NAME") {
        attributes
            .entry("faas.name".into())
            .or_insert_with(|| name.to_string());
        attributes
            .entry("cloud.provider".into())
            .or_insert_with(|| "aws".into());
    }
    if let Some(region) = env.get("AWS_REGION") {
        attributes
            .entry("cloud.region".into())
            .or_insert_with(|| region.to_string());
    }
    let list: Vec<Value> = attributes.iter().map(|(k, v)| attr(k, v)).collect();
    json!({ "attributes": list })
}

/// `k=v,k2=v2` with percent-encoded values (the OTEL_* list format); malformed entries are
/// skipped.
fn key_values(raw: &str) -> Vec<(String, String)> {
    raw.split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            let k = k.trim();
            (!k.is_empty()).then(|| (k.to_string(), percent_decode(v.trim())))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex_pair = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex_pair) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A valid incoming `traceparent` (version 00 form), else `None`.
fn traceparent_of(headers: &HeaderMap) -> Option<SpanContext> {
    let value = headers.get(TRACEPARENT)?.to_str().ok()?.trim();
    let parts: Vec<&str> = value.split('-').collect();
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    s.as_bytes()
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair).ok().filter(|p| p.len() == 2)?;
            u8::from_str_radix(pair, 16).ok()
        })
        .collect()
}

fn random_trace_id() -> [u8; 16] {
    loop {
        let id: [u8; 16] = rand::random();
        if id != [0; 16] {
            return id;
        }
    }
}

fn random_span_id() -> [u8; 8] {
    loop {
        let id: [u8; 8] = rand::random();
        if id != [0; 8] {
            return id;
        }
    }
}

fn now_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    static COUNT: Instrument = Instrument::counter("test.count", "{call}", "calls");
    static TIME: Instrument = Instrument::histogram("test.time", "s", "time", &[0.5, 1.0]);

    fn enabled(env: Env) -> Otel {
        Otel::from_env(
            &env.with("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9/"),
            "svc",
            reqwest::Client::new(),
        )
    }

    #[test]
    fn unset_endpoint_is_off() {
        let otel = Otel::from_env(&Env::new(), "svc", reqwest::Client::new());
        assert!(!otel.is_enabled());
        otel.add(&COUNT, 1, &[("a", "b")]);
        let mut span = otel.span(SpanKind::Client, || unreachable!("name not built when off"));
        span.attr("k", "v");
        assert_eq!(span.traceparent(), None);
        let disabled = Env::new()
            .with("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x")
            .with("OTEL_SDK_DISABLED", "true");
        assert!(!Otel::from_env(&disabled, "svc", reqwest::Client::new()).is_enabled());
    }

    #[test]
    fn encodes_cumulative_sums_and_histograms() {
        let otel = enabled(Env::new());
        let Some(exporter) = &otel.0 else {
            panic!("enabled");
        };
        assert_eq!(exporter.metrics_url, "http://127.0.0.1:9/v1/metrics");
        otel.add(&COUNT, 2, &[("endpoint", "x"), ("provider", "cloud")]);
        otel.add(&COUNT, 3, &[("provider", "cloud"), ("endpoint", "x")]);
        otel.add(&COUNT, 1, &[("endpoint", "y"), ("provider", "cloud")]);
        for v in [0.2, 0.5, 0.7, 4.0] {
            otel.record(&TIME, v, &[("endpoint", "x")]);
        }
        let state = exporter.state.lock().expect("lock");
        let body = encode_metrics(&exporter.resource, &state.instruments, &state.series, 1, 2);
        let metrics = &body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"];
        let count = metrics
            .as_array()
            .and_then(|m| m.iter().find(|m| m["name"] == "test.count"))
            .expect("count metric");
        assert_eq!(count["sum"]["aggregationTemporality"], 2);
        assert_eq!(count["sum"]["isMonotonic"], true);
        let points = count["sum"]["dataPoints"].as_array().expect("points");
        assert_eq!(points.len(), 2);
        assert_eq!(points[0]["asInt"], "5");
        assert_eq!(points[0]["attributes"][0]["key"], "endpoint");
        assert_eq!(points[0]["attributes"][0]["value"]["stringValue"], "x");
        assert_eq!(points[0]["startTimeUnixNano"], "1");
        let time = metrics
            .as_array()
            .and_then(|m| m.iter().find(|m| m["name"] == "test.time"))
            .expect("time metric");
        assert_eq!(time["unit"], "s");
        let p = &time["histogram"]["dataPoints"][0];
        assert_eq!(p["count"], "4");
        assert_eq!(p["bucketCounts"], json!(["2", "1", "1"]));
        assert_eq!(p["explicitBounds"], json!([0.5, 1.0]));
        assert_eq!(p["min"], 0.2);
        assert_eq!(p["max"], 4.0);
    }

    #[test]
    fn resource_has_service_and_extra_attributes() {
        let env = Env::new()
            .with(
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=test, team=news%20desk,bad",
            )
            .with("AWS_LAMBDA_FUNCTION_NAME", "GenAi");
        let resource = resource_attributes(&env, "gen-ai");
        let get = |key: &str| {
            resource["attributes"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["key"] == key))
                .map(|x| x["value"]["stringValue"].clone())
        };
        assert_eq!(get("service.name"), Some(json!("gen-ai")));
        assert_eq!(get("deployment.environment"), Some(json!("test")));
        assert_eq!(get("team"), Some(json!("news desk")));
        assert_eq!(get("faas.name"), Some(json!("GenAi")));
        assert!(get("service.instance.id").is_some());
        let named = resource_attributes(
            &Env::new()
                .with("OTEL_SERVICE_NAME", "other")
                .with("OTEL_RESOURCE_ATTRIBUTES", "service.name=ignored"),
            "gen-ai",
        );
        assert!(named["attributes"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["value"]["stringValue"] == "other")));
    }

    #[test]
    fn reads_traceparent() {
        let mut headers = HeaderMap::new();
        headers.insert(
            TRACEPARENT,
            HeaderValue::from_static("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        );
        let ctx = traceparent_of(&headers).expect("valid");
        assert_eq!(hex(&ctx.trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(hex(&ctx.span_id), "00f067aa0ba902b7");
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f35-00f067aa0ba902b7-01",
            "nonsense",
        ] {
            headers.insert(TRACEPARENT, HeaderValue::from_static(bad));
            assert_eq!(traceparent_of(&headers), None, "{bad}");
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
