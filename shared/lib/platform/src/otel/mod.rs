//! OpenTelemetry export without the OpenTelemetry SDK: counters, histograms and spans sent as
//! OTLP/HTTP JSON (`POST {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/metrics` and `/v1/traces`).
//!
//! Why hand-written: the SDK, its exporters and their protobuf/gRPC stacks roughly double a
//! function's dependency tree and build time, and its batching assumes a long-lived process.
//! A Lambda instance is frozen between invocations, so what is not sent before the response
//! may never be sent. The router layer therefore exports at the end of every request
//! (`instrument`, with the `edge` feature, awaits [`Otel::flush`] before returning the
//! response), with a short timeout, and never lets an export failure touch the response.
//!
//! Metrics are cumulative (the SDK default) from the instance's start, with a
//! `service.instance.id` per cold start so that a backend can sum instances. Spans: one server
//! span per request (W3C `traceparent` honoured, so the span joins the caller's trace) and
//! the client spans code opens inside it with [`Otel::span`].
//!
//! - this module: the [`Otel`] handle and the [`Instrument`]s it records;
//! - `trace`: spans, their ids and the `traceparent` header;
//! - `export`: what was recorded, encoded as OTLP JSON and posted;
//! - `resource`: the resource attributes and the `key=value` lists of the variables;
//! - `layer` (`edge`): the router layer.
//!
//! Recording needs no HTTP stack, so domain crates (the LLM client) use it without `edge`.
//!
//! Configuration: `OTEL_EXPORTER_OTLP_ENDPOINT` (unset: everything here is a no-op that
//! allocates nothing), `OTEL_SERVICE_NAME` (the function's default otherwise),
//! `OTEL_RESOURCE_ATTRIBUTES` (`key=value,...`, percent-encoded values),
//! `OTEL_EXPORTER_OTLP_HEADERS` (same form), `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds,
//! default 2000 here because export is on the request path), `OTEL_SDK_DISABLED=true`.

mod export;
#[cfg(feature = "edge")]
mod layer;
mod resource;
mod trace;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::{HeaderName, HeaderValue};

use crate::config::Env;
use export::{Destination, Exporter, Point};
#[cfg(feature = "edge")]
pub use layer::instrument;
pub use trace::Span;

/// The W3C trace-context header.
pub const TRACEPARENT: &str = "traceparent";
const DEFAULT_EXPORT_TIMEOUT: Duration = Duration::from_millis(2000);
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
        let base_url = endpoint.trim().trim_end_matches('/').to_string();
        let timeout = env
            .get("OTEL_EXPORTER_OTLP_TIMEOUT")
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map_or(DEFAULT_EXPORT_TIMEOUT, Duration::from_millis);
        let headers = resource::key_values(env.get("OTEL_EXPORTER_OTLP_HEADERS").unwrap_or(""))
            .into_iter()
            .filter_map(|(k, v)| {
                Some((
                    HeaderName::from_bytes(k.as_bytes()).ok()?,
                    HeaderValue::from_str(&v).ok()?,
                ))
            })
            .collect();
        let resource = resource::resource_attributes(env, service_name);
        tracing::info!(endpoint = %base_url, "exporting OpenTelemetry metrics and traces (OTLP/HTTP JSON)");
        Self(Some(Arc::new(Exporter::new(
            http,
            Destination {
                base_url,
                headers,
                timeout,
                resource,
            },
        ))))
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
                Point::Sum(total) => *total = total.saturating_add(whole_count(value)),
            });
        }
    }

    /// Opens a span, a child of the request's server span when there is one. The name is
    /// only built when telemetry is on.
    pub fn span(&self, kind: SpanKind, name: impl FnOnce() -> String) -> Span {
        match &self.0 {
            None => Span(None),
            Some(exporter) => Span(Some(Box::new(trace::SpanData::child(
                exporter,
                kind,
                name(),
            )))),
        }
    }

    /// Sends what was recorded since the last flush; failures are logged, never returned.
    pub async fn flush(&self) {
        if let Some(e) = &self.0 {
            e.flush().await;
        }
    }
}

/// A float observation added to a counter: negative and NaN count nothing, the rest is cut to
/// a whole number.
#[allow(clippy::cast_possible_truncation)] // `as` from a float saturates (NaN is 0): the cut wanted
fn whole_count(value: f64) -> u64 {
    value.max(0.0) as u64
}

fn now_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Span kinds as OTLP numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    Internal,
    Server,
    Client,
}

impl SpanKind {
    /// The OTLP `SpanKind` number.
    pub fn code(self) -> i32 {
        match self {
            Self::Internal => 1,
            Self::Server => 2,
            Self::Client => 3,
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) static COUNT: Instrument = Instrument::counter("test.count", "{call}", "calls");
    pub(crate) static TIME: Instrument =
        Instrument::histogram("test.time", "s", "time", &[0.5, 1.0]);

    pub(crate) fn enabled(env: Env) -> Otel {
        Otel::from_env(
            &env.with("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9/"),
            "svc",
            crate::tls::http_client().build().expect("client"),
        )
    }

    #[test]
    fn unset_endpoint_is_off() {
        let otel = Otel::from_env(
            &Env::new(),
            "svc",
            crate::tls::http_client().build().expect("client"),
        );
        assert!(!otel.is_enabled());
        otel.add(&COUNT, 1, &[("a", "b")]);
        let mut span = otel.span(SpanKind::Client, || unreachable!("name not built when off"));
        span.attr("k", "v");
        assert_eq!(span.traceparent(), None);
        let disabled = Env::new()
            .with("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x")
            .with("OTEL_SDK_DISABLED", "true");
        assert!(!Otel::from_env(
            &disabled,
            "svc",
            crate::tls::http_client().build().expect("client")
        )
        .is_enabled());
    }

    #[test]
    fn float_observations_of_a_counter_count_whole_units() {
        assert_eq!(whole_count(2.9), 2);
        assert_eq!(whole_count(-1.0), 0);
        assert_eq!(whole_count(f64::NAN), 0);
        assert_eq!(whole_count(1e30), u64::MAX);
    }
}
