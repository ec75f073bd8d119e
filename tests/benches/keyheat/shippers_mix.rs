//! Incidents through the shippers' routes: Loki pushes (snappy protobuf, as Promtail and
//! Alloy send them) and OTLP/HTTP exports (protobuf, as the Collector sends them) at the 1M
//! logs a second target. Each request is one count of the key's rate limit (8 items), then
//! the logs take the path `POST /api/v1/logs`' take: the queue, S3, the metrics' series.

use futures::StreamExt;
use incidents::input::loki::{EntryAdapter, PushRequest, StreamAdapter, Timestamp};
use incidents::input::otlp::{
    AnyValue, ExportLogsServiceRequest, InstrumentationScope, KeyValue, LogRecord, Resource,
    ResourceLogs, ScopeLogs, Value_,
};
use prost::Message;
use stack_tests::stack::{Call, INGEST_KEY};
use stack_tests::TestStack;

use super::{name, Bench};

/// Logs one push or export carries: a Promtail or Alloy batch of 1 MiB of 400-byte lines.
const PER_REQUEST: usize = 2_500;
/// Requests of one measured run: a processor batch at target (12,500 logs).
const REQUESTS: usize = 5;

fn line(i: usize) -> String {
    if i.is_multiple_of(50) {
        format!("level=error msg=\"request {i} failed\" took=12ms")
    } else {
        format!("level=info msg=\"request {i} served\" took=12ms")
    }
}

/// A push of `streams` streams (one a service of `services`, or one service's pods), its
/// entries spread over them.
fn loki_push(services: &[String], streams: usize) -> Vec<u8> {
    let now = chrono::Utc::now();
    let at = Timestamp {
        seconds: now.timestamp(),
        nanos: i32::try_from(now.timestamp_subsec_nanos()).unwrap_or(0),
    };
    let request = PushRequest {
        streams: (0..streams)
            .map(|s| StreamAdapter {
                labels: format!(
                    "{{job=\"varlogs\", pod=\"pod-{s}\", service_name=\"{}\"}}",
                    services[s % services.len()]
                ),
                entries: (0..PER_REQUEST / streams)
                    .map(|i| EntryAdapter {
                        timestamp: Some(at),
                        line: line(s * PER_REQUEST / streams + i),
                        structured_metadata: Vec::new(),
                    })
                    .collect(),
                hash: 0,
            })
            .collect(),
    };
    snap::raw::Encoder::new()
        .compress_vec(&request.encode_to_vec())
        .unwrap()
}

fn text(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(Value_::StringValue(value.into())),
        }),
    }
}

/// An export of one resource a service of `services`, records spread over them.
fn otlp_export(services: &[String]) -> Vec<u8> {
    let at = u64::try_from(chrono::Utc::now().timestamp_nanos_opt().unwrap()).unwrap();
    let per = PER_REQUEST / services.len();
    ExportLogsServiceRequest {
        resource_logs: services
            .iter()
            .enumerate()
            .map(|(s, service)| ResourceLogs {
                resource: Some(Resource {
                    attributes: vec![text("service.name", service), text("host.name", "h")],
                    dropped_attributes_count: 0,
                }),
                scope_logs: vec![ScopeLogs {
                    scope: Some(InstrumentationScope {
                        name: "bench".into(),
                        ..Default::default()
                    }),
                    log_records: (0..per)
                        .map(|i| LogRecord {
                            time_unix_nano: at,
                            severity_number: if (s * per + i).is_multiple_of(50) {
                                17
                            } else {
                                9
                            },
                            body: Some(AnyValue {
                                value: Some(Value_::StringValue(line(s * per + i))),
                            }),
                            trace_id: vec![0x4b; 16],
                            span_id: vec![0x0f; 8],
                            ..Default::default()
                        })
                        .collect(),
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            })
            .collect(),
    }
    .encode_to_vec()
}

async fn send(t: &TestStack, path: &str, body: Vec<u8>, ok: u16) {
    let response = t
        .http
        .post(t.url(path))
        .header("content-type", "application/x-protobuf")
        .bearer_auth(INGEST_KEY)
        .body(body)
        .call()
        .await;
    assert_eq!(response.status(), ok, "POST {path}");
}

async fn all(t: &TestStack, path: &'static str, bodies: Vec<Vec<u8>>, ok: u16) {
    futures::stream::iter(bodies)
        .map(|body| send(t, path, body, ok))
        .buffer_unordered(REQUESTS)
        .collect::<Vec<_>>()
        .await;
}

/// Each path its own system in the summary: its cost a month is that of the whole target
/// arriving that way, not added to `POST /api/v1/logs`' (the same logs, another door).
const LOKI: &str = "incidents (Loki push)";
const OTLP: &str = "incidents (OTLP)";

pub(super) async fn shippers(b: &mut Bench, t: &TestStack) {
    const PUSH: &str = "/loki/api/v1/push";
    const EXPORT: &str = "/otlp/v1/logs";
    let many: Vec<String> = (0..25).map(|n| name("loki", n)).collect();
    b.warm_up(send(t, PUSH, loki_push(&many, 25), 204)).await;
    let pushes = (0..REQUESTS).map(|_| loki_push(&many, 25)).collect();
    // 1M logs a second from 10,000 services, pushed by agents 2,500 entries at a time.
    b.measure(
        LOKI,
        "Loki pushes from many services (2,500 entries a push)",
        1e6,
        1e4,
        REQUESTS * PER_REQUEST,
        all(t, PUSH, pushes, 204),
    )
    .await;
    let one = vec![name("loki-noisy", 0)];
    b.warm_up(send(t, PUSH, loki_push(&one, 100), 204)).await;
    let pushes = (0..REQUESTS).map(|_| loki_push(&one, 100)).collect();
    // One service's 100 pods at 100,000 a second: a push of 100 streams of one service.
    b.measure(
        LOKI,
        "Loki pushes of 100 streams of one service",
        1e5,
        1.0,
        REQUESTS * PER_REQUEST,
        all(t, PUSH, pushes, 204),
    )
    .await;
    let services: Vec<String> = (0..25).map(|n| name("otel", n)).collect();
    b.warm_up(send(t, EXPORT, otlp_export(&services), 200))
        .await;
    let exports = (0..REQUESTS).map(|_| otlp_export(&services)).collect();
    // 1M log records a second from 10,000 services through Collectors.
    b.measure(
        OTLP,
        "OTLP exports from many services (2,500 records an export)",
        1e6,
        1e4,
        REQUESTS * PER_REQUEST,
        all(t, EXPORT, exports, 200),
    )
    .await;
}
