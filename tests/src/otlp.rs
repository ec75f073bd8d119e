//! An OTLP/HTTP receiver for tests: `POST /v1/metrics` and `/v1/traces` with JSON bodies (the
//! encoding the platform exports), decoded and kept so that tests can look up metric points
//! by name and labels, resource attributes, and spans.
//!
//! ```no_run
//! # async fn demo() {
//! let otlp = stack_tests::otlp::OtlpReceiver::start().await;
//! // OTEL_EXPORTER_OTLP_ENDPOINT = otlp.endpoint()
//! // ... call the platform ...
//! let requests = otlp.points("gen_ai.llm.requests");
//! assert_eq!(requests[0].label("endpoint"), Some("summarize"));
//! # }
//! ```

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::server::{self, FakeServer};

/// One data point of a metric, as the newest export that had it says.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub labels: BTreeMap<String, String>,
    /// A sum's value, or a histogram's count.
    pub value: f64,
    /// A histogram's sum.
    pub sum: Option<f64>,
    /// `sum` or `histogram`.
    pub kind: String,
}

impl Point {
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.get(key).map(String::as_str)
    }
}

/// One received span.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub name: String,
    pub kind: i64,
    pub trace_id: String,
    pub span_id: String,
    pub parent_span_id: String,
    pub attributes: BTreeMap<String, String>,
    /// 0 unset, 1 ok, 2 error.
    pub status_code: i64,
    /// Start and end, in nanoseconds since the epoch.
    pub start_nanos: u64,
    pub end_nanos: u64,
}

#[derive(Default)]
struct Received {
    metrics: Vec<Value>,
    traces: Vec<Value>,
}

/// The running receiver; stopped when dropped.
pub struct OtlpReceiver {
    server: FakeServer<Received>,
}

impl OtlpReceiver {
    pub async fn start() -> Self {
        Self {
            server: FakeServer::start(Received::default(), receive).await,
        }
    }

    /// What to configure as `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub fn endpoint(&self) -> String {
        self.server.url("")
    }

    fn lock(&self) -> MutexGuard<'_, Received> {
        self.server.lock()
    }

    /// Every metrics export received, oldest first.
    pub fn metric_exports(&self) -> Vec<Value> {
        self.lock().metrics.clone()
    }

    /// Every traces export received, oldest first.
    pub fn trace_exports(&self) -> Vec<Value> {
        self.lock().traces.clone()
    }

    /// The points of metric `name` in the newest export that has it (the platform exports
    /// cumulative values, so that export holds the totals); empty when it never arrived.
    pub fn points(&self, name: &str) -> Vec<Point> {
        let exports = self.metric_exports();
        for export in exports.iter().rev() {
            let found: Vec<&Value> = metrics_of(export)
                .into_iter()
                .filter(|m| m["name"] == name)
                .collect();
            if !found.is_empty() {
                return found.into_iter().flat_map(points_of).collect();
            }
        }
        Vec::new()
    }

    /// The point of metric `name` whose labels include all of `labels`.
    pub fn point(&self, name: &str, labels: &[(&str, &str)]) -> Option<Point> {
        self.points(name)
            .into_iter()
            .find(|p| labels.iter().all(|(k, v)| p.label(k) == Some(*v)))
    }

    /// The names of every metric received.
    pub fn metric_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .metric_exports()
            .iter()
            .flat_map(metrics_of)
            .filter_map(|m| m["name"].as_str().map(str::to_string))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The resource attributes of the newest metrics export.
    pub fn resource_attributes(&self) -> BTreeMap<String, String> {
        self.metric_exports()
            .last()
            .map(|e| attributes(&e["resourceMetrics"][0]["resource"]["attributes"]))
            .unwrap_or_default()
    }

    /// Every span received, in arrival order.
    pub fn spans(&self) -> Vec<Span> {
        self.trace_exports()
            .iter()
            .flat_map(|export| {
                let mut spans = Vec::new();
                for rs in export["resourceSpans"].as_array().into_iter().flatten() {
                    for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                        for s in ss["spans"].as_array().into_iter().flatten() {
                            spans.push(Span {
                                name: s["name"].as_str().unwrap_or_default().to_string(),
                                kind: s["kind"].as_i64().unwrap_or(0),
                                trace_id: s["traceId"].as_str().unwrap_or_default().to_string(),
                                span_id: s["spanId"].as_str().unwrap_or_default().to_string(),
                                parent_span_id: s["parentSpanId"]
                                    .as_str()
                                    .unwrap_or_default()
                                    .to_string(),
                                attributes: attributes(&s["attributes"]),
                                status_code: s["status"]["code"].as_i64().unwrap_or(0),
                                start_nanos: nanos(&s["startTimeUnixNano"]),
                                end_nanos: nanos(&s["endTimeUnixNano"]),
                            });
                        }
                    }
                }
                spans
            })
            .collect()
    }
}

/// An OTLP/JSON time (a decimal string, as the encoding of 64-bit integers requires).
fn nanos(value: &Value) -> u64 {
    value
        .as_str()
        .and_then(|v| v.parse().ok())
        .or_else(|| value.as_u64())
        .unwrap_or(0)
}

async fn receive(State(received): State<Arc<Mutex<Received>>>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if request.method() != axum::http::Method::POST {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    if !json {
        // This receiver decodes OTLP/JSON only.
        return StatusCode::UNSUPPORTED_MEDIA_TYPE.into_response();
    }
    let Some(body) = server::json_body(request.into_body()).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let mut received = server::lock(&received);
    match path.as_str() {
        "/v1/metrics" if body["resourceMetrics"].is_array() => received.metrics.push(body),
        "/v1/traces" if body["resourceSpans"].is_array() => received.traces.push(body),
        "/v1/metrics" | "/v1/traces" => return StatusCode::BAD_REQUEST.into_response(),
        _ => return StatusCode::NOT_FOUND.into_response(),
    }
    // An empty ExportMetricsServiceResponse / ExportTraceServiceResponse.
    (StatusCode::OK, axum::Json(serde_json::json!({}))).into_response()
}

fn metrics_of(export: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    for rm in export["resourceMetrics"].as_array().into_iter().flatten() {
        for sm in rm["scopeMetrics"].as_array().into_iter().flatten() {
            out.extend(sm["metrics"].as_array().into_iter().flatten());
        }
    }
    out
}

fn points_of(metric: &Value) -> Vec<Point> {
    let (kind, data) = if metric["sum"].is_object() {
        ("sum", &metric["sum"])
    } else if metric["histogram"].is_object() {
        ("histogram", &metric["histogram"])
    } else if metric["gauge"].is_object() {
        ("gauge", &metric["gauge"])
    } else {
        return Vec::new();
    };
    data["dataPoints"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let value = if kind == "histogram" {
                number(&p["count"])
            } else if p.get("asInt").is_some() {
                number(&p["asInt"])
            } else {
                number(&p["asDouble"])
            };
            Point {
                labels: attributes(&p["attributes"]),
                value,
                sum: (kind == "histogram").then(|| number(&p["sum"])),
                kind: kind.to_string(),
            }
        })
        .collect()
}

/// OTLP/JSON sends 64-bit integers as strings.
fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => s.parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

fn attributes(list: &Value) -> BTreeMap<String, String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| {
            let key = a["key"].as_str()?.to_string();
            let v = &a["value"];
            let value = v["stringValue"]
                .as_str()
                .map(str::to_string)
                .or_else(|| v["intValue"].as_str().map(str::to_string))
                .or_else(|| v["intValue"].as_i64().map(|i| i.to_string()))
                .or_else(|| v["boolValue"].as_bool().map(|b| b.to_string()))
                .or_else(|| v["doubleValue"].as_f64().map(|d| d.to_string()))?;
            Some((key, value))
        })
        .collect()
}
