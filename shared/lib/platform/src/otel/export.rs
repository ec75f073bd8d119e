//! The exporter: what was recorded since the last flush, encoded as OTLP/HTTP JSON and posted
//! to the collector.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{json, Value};

use super::{hex, now_nanos, Instrument, InstrumentKind, SpanKind, SCOPE_NAME};

/// Spans kept while the collector is unreachable; older ones are dropped beyond this.
const MAX_PENDING_SPANS: usize = 2048;

pub(super) struct Exporter {
    http: reqwest::Client,
    pub(super) metrics_url: String,
    traces_url: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    timeout: Duration,
    pub(super) resource: Value,
    start_nanos: u64,
    pub(super) state: Mutex<Recorded>,
}

/// An instrument's name and a sorted label set: one time series.
type SeriesKey = (&'static str, Vec<(String, String)>);

#[derive(Default)]
pub(super) struct Recorded {
    /// Each series' cumulative point.
    pub(super) series: BTreeMap<SeriesKey, Point>,
    pub(super) instruments: BTreeMap<&'static str, &'static Instrument>,
    /// Something was recorded since the last export.
    changed: bool,
    pub(super) spans: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Point {
    Sum(u64),
    Histogram(Histogram),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Histogram {
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

    pub(super) fn observe(&mut self, value: f64) {
        // OTLP buckets are upper-inclusive: (bounds[i-1], bounds[i]].
        let index = self
            .bounds
            .iter()
            .position(|b| value <= *b)
            .unwrap_or(self.bounds.len());
        if let Some(bucket) = self.buckets.get_mut(index) {
            *bucket += 1;
        }
        self.count += 1;
        self.sum += value;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }
}

/// Where and how to export.
pub(super) struct Destination {
    pub(super) base_url: String,
    pub(super) headers: Vec<(HeaderName, HeaderValue)>,
    pub(super) timeout: Duration,
    pub(super) resource: Value,
}

impl Exporter {
    pub(super) fn new(http: reqwest::Client, to: Destination) -> Self {
        Self {
            http,
            metrics_url: format!("{}/v1/metrics", to.base_url),
            traces_url: format!("{}/v1/traces", to.base_url),
            headers: to.headers,
            timeout: to.timeout,
            resource: to.resource,
            start_nanos: now_nanos(),
            state: Mutex::new(Recorded::default()),
        }
    }

    pub(super) fn update(
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

    pub(super) fn push_span(&self, span: Value) {
        if let Ok(mut state) = self.state.lock() {
            if state.spans.len() >= MAX_PENDING_SPANS {
                state.spans.remove(0);
            }
            state.spans.push(span);
        }
    }

    pub(super) async fn flush(&self) {
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
        tokio::join!(send_metrics, send_traces);
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

pub(super) fn encode_metrics(
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
                .map(|((_, labels), point)| encode_point(labels, point, start, now))
                .collect::<Vec<_>>();
            // 2 = AGGREGATION_TEMPORALITY_CUMULATIVE.
            let (field, data) = match instrument.kind {
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
            if let Value::Object(members) = &mut metric {
                members.insert(field.to_string(), data);
            }
            metric
        })
        .collect();
    json!({"resourceMetrics": [{
        "resource": resource,
        "scopeMetrics": [{"scope": {"name": SCOPE_NAME}, "metrics": metrics}],
    }]})
}

fn encode_point(labels: &[(String, String)], point: &Point, start: u64, now: u64) -> Value {
    let attributes: Vec<Value> = labels.iter().map(|(k, v)| attr(k, v)).collect();
    let mut p = serde_json::Map::new();
    p.insert("attributes".into(), json!(attributes));
    p.insert("startTimeUnixNano".into(), json!(start.to_string()));
    p.insert("timeUnixNano".into(), json!(now.to_string()));
    match point {
        Point::Sum(total) => {
            p.insert("asInt".into(), json!(total.to_string()));
        }
        Point::Histogram(h) => {
            p.insert("count".into(), json!(h.count.to_string()));
            p.insert("sum".into(), json!(h.sum));
            p.insert(
                "bucketCounts".into(),
                json!(h.buckets.iter().map(u64::to_string).collect::<Vec<_>>()),
            );
            p.insert("explicitBounds".into(), json!(h.bounds));
            if h.count > 0 {
                p.insert("min".into(), json!(h.min));
                p.insert("max".into(), json!(h.max));
            }
        }
    }
    Value::Object(p)
}

fn encode_traces(resource: &Value, spans: Vec<Value>) -> Value {
    json!({"resourceSpans": [{
        "resource": resource,
        "scopeSpans": [{"scope": {"name": SCOPE_NAME}, "spans": spans}],
    }]})
}

pub(super) struct EncodedSpan<'a> {
    pub(super) trace_id: [u8; 16],
    pub(super) span_id: [u8; 8],
    pub(super) parent_span_id: Option<[u8; 8]>,
    pub(super) name: &'a str,
    pub(super) kind: SpanKind,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) attributes: Vec<Value>,
    /// `Some` marks the span failed (status code 2), with this message.
    pub(super) error: Option<String>,
}

pub(super) fn encode_span(s: &EncodedSpan<'_>) -> Value {
    let status = match &s.error {
        None => json!({"code": 0}),
        Some(message) => json!({"code": 2, "message": message}),
    };
    json!({
        "traceId": hex(&s.trace_id),
        "spanId": hex(&s.span_id),
        "parentSpanId": s.parent_span_id.map(|p| hex(&p)).unwrap_or_default(),
        "name": s.name,
        "kind": s.kind.code(),
        "startTimeUnixNano": s.start.to_string(),
        "endTimeUnixNano": s.end.max(s.start).to_string(),
        "attributes": s.attributes,
        "status": status,
    })
}

pub(super) fn attr(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

pub(super) fn attr_i64(key: &str, value: i64) -> Value {
    json!({"key": key, "value": {"intValue": value.to_string()}})
}

#[cfg(test)]
mod tests {
    use super::super::tests::{enabled, COUNT, TIME};
    use super::*;
    use crate::config::Env;

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
}
