//! The Loki push API (`/loki/api/v1/push`) as its clients send: a snappy protobuf push as
//! Promtail and Alloy write it (Basic auth, the tenant header), a JSON push gzip'd as Fluent
//! Bit and Vector may, and Loki's answers to bad input (plain text 400, 401, 403, 413, 429).
//! The protobuf is written here byte by byte from Loki's `push.proto`, not with the
//! platform's own messages, so a wrong tag in them cannot hide.

use std::io::Write;

use base64::Engine;
use serde_json::{json, Value};
use stack_tests::incidents::{eventually, INCIDENTS, LOGS};
use stack_tests::stack::{Call, INGEST_KEY};
use stack_tests::TestStack;

pub(crate) const PUSH: &str = "/loki/api/v1/push";
const PROMTAIL: &str = "promtail/3.5.1";

/// A protobuf message written by hand: fields as the wire format lays them out.
#[derive(Default, Clone)]
pub(crate) struct Wire(pub Vec<u8>);

impl Wire {
    fn varint(&mut self, mut n: u64) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }

    fn key(&mut self, tag: u64, wire_type: u64) {
        self.varint((tag << 3) | wire_type);
    }

    /// A length-delimited field: a string, bytes or a message.
    pub(crate) fn bytes(mut self, tag: u64, payload: &[u8]) -> Self {
        self.key(tag, 2);
        self.varint(payload.len() as u64);
        self.0.extend_from_slice(payload);
        self
    }

    pub(crate) fn text(self, tag: u64, text: &str) -> Self {
        self.bytes(tag, text.as_bytes())
    }

    pub(crate) fn message(self, tag: u64, message: &Wire) -> Self {
        self.bytes(tag, &message.0)
    }

    pub(crate) fn uint(mut self, tag: u64, n: u64) -> Self {
        self.key(tag, 0);
        self.varint(n);
        self
    }

    pub(crate) fn fixed64(mut self, tag: u64, n: u64) -> Self {
        self.key(tag, 1);
        self.0.extend_from_slice(&n.to_le_bytes());
        self
    }
}

/// `logproto.EntryAdapter`: a time, a line, structured metadata.
fn entry(at: chrono::DateTime<chrono::Utc>, line: &str, metadata: &[(&str, &str)]) -> Wire {
    let timestamp = Wire::default()
        .uint(1, at.timestamp() as u64)
        .uint(2, u64::from(at.timestamp_subsec_nanos()));
    let mut entry = Wire::default().message(1, &timestamp).text(2, line);
    for (name, value) in metadata {
        entry = entry.message(3, &Wire::default().text(1, name).text(2, value));
    }
    entry
}

/// A `logproto.PushRequest` of (labels, entries) streams, snappy-compressed as Promtail's
/// client does (`snappy.Encode`: one raw block).
fn push_body(streams: &[(&str, Vec<Wire>)]) -> Vec<u8> {
    let mut request = Wire::default();
    for (labels, entries) in streams {
        let mut stream = Wire::default().text(1, labels);
        for e in entries {
            stream = stream.message(2, e);
        }
        request = request.message(1, &stream);
    }
    snap::raw::Encoder::new().compress_vec(&request.0).unwrap()
}

pub(crate) fn basic(user: &str, key: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{key}"))
    )
}

pub(crate) fn gzip(body: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(body).unwrap();
    gz.finish().unwrap()
}

/// A push as Promtail sends it.
async fn promtail(t: &TestStack, authorization: &str, body: Vec<u8>) -> reqwest::Response {
    t.http
        .post(t.url(PUSH))
        .header("content-type", "application/x-protobuf")
        .header("user-agent", PROMTAIL)
        .header("authorization", authorization)
        .header("x-scope-orgid", "team-payments")
        .body(body)
        .call()
        .await
}

/// The answer's status and plain-text body, which must be plain text.
async fn plain(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    assert!(
        content_type.starts_with("text/plain"),
        "{status} {content_type}: {text}"
    );
    (status, text)
}

#[tokio::test]
async fn a_promtail_push_opens_an_incident_with_its_labels_metadata_and_trace() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let now = chrono::Utc::now();
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let body = push_body(&[
        (
            r#"{env="prod", job="payments/checkout", level="error", service_name="checkout"}"#,
            vec![
                entry(
                    now - chrono::Duration::seconds(2),
                    "Payment provider timeout after 3012 ms (order 81723) password=hunter2",
                    &[("trace_id", trace), ("span_id", "00f067aa0ba902b7")],
                ),
                entry(
                    now - chrono::Duration::seconds(1),
                    "Payment provider timeout after 2950 ms (order 81724) password=s3cret",
                    &[("trace_id", trace)],
                ),
            ],
        ),
        (
            // No level label: the line says it (logfmt), the service is `app`.
            r#"{app="search", pod="search-7d9f"}"#,
            vec![entry(
                now,
                r#"ts=1 level=warn msg="slow query" took=812ms"#,
                &[],
            )],
        ),
    ]);
    let response = promtail(&t, &basic("tenant-1", INGEST_KEY), body).await;
    assert_eq!(response.status(), 204);
    assert!(response.text().await.unwrap().is_empty());

    let logs = t
        .timeline_with(&token, "serviceName=checkout&limit=10", 2)
        .await;
    let first = logs
        .iter()
        .find(|l| l["logContent"].as_str().unwrap().contains("81723"))
        .unwrap();
    assert_eq!(first["severity"], "ERROR");
    assert_eq!(first["type"], "APPLICATION_LOG");
    assert_eq!(
        first["logContent"],
        "Payment provider timeout after 3012 ms (order 81723) password=[REDACTED:password]",
        "scrubbed as POST /api/v1/logs' logs are"
    );
    assert_eq!(first["traceId"], trace);
    assert_eq!(first["spanId"], "00f067aa0ba902b7");
    assert_eq!(
        first["attributes"],
        json!({"env": "prod", "job": "payments/checkout", "level": "error",
            "service_name": "checkout", "span_id": "00f067aa0ba902b7",
            "tenant": "team-payments", "trace_id": trace})
    );
    let search = t.timeline_with(&token, "serviceName=search", 1).await;
    assert_eq!(search[0]["severity"], "WARN");
    assert_eq!(search[0]["attributes"]["pod"], "search-7d9f");

    // The two errors are one incident (grouped as any log is); its samples keep the trace.
    let incidents = eventually("the checkout incident", || async {
        let list = t.get_ok_auth(INCIDENTS, &token).await;
        list.as_array()?
            .iter()
            .find(|i| i["serviceName"] == "checkout" && i["occurrences"] == 2)
            .cloned()
    })
    .await;
    let id = incidents["id"].as_str().unwrap();
    let detail = t.get_ok_auth(&format!("{INCIDENTS}/{id}"), &token).await;
    let samples = detail["recentOccurrences"].as_array().unwrap();
    assert_eq!(samples.len(), 2);
    assert!(samples.iter().all(|s| s["traceId"] == trace), "{detail}");
    assert!(samples
        .iter()
        .all(|s| s["attributes"]["tenant"] == "team-payments"));
}

#[tokio::test]
async fn a_json_push_gzipped_with_a_bearer_key_as_vector_sends_it() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let ns = (chrono::Utc::now().timestamp_nanos_opt().unwrap() - 1_000_000).to_string();
    let body = json!({"streams": [{
        "stream": {"service_name": "orders", "detected_level": "critical", "type": "DEPLOYMENT_LOG"},
        "values": [[ns, "migration 42 failed: lock timeout", {"k8s_pod": "orders-0"}]]
    }]});
    let response = t
        .http
        .post(t.url(PUSH))
        .header("content-type", "application/json")
        .header("content-encoding", "gzip")
        .header("user-agent", "Vector/0.48.0 (x86_64-unknown-linux-gnu)")
        .bearer_auth(INGEST_KEY)
        .body(gzip(body.to_string().as_bytes()))
        .call()
        .await;
    assert_eq!(response.status(), 204);
    let logs = t.timeline_with(&token, "serviceName=orders", 1).await;
    assert_eq!(logs[0]["severity"], "FATAL");
    assert_eq!(logs[0]["type"], "DEPLOYMENT_LOG");
    assert_eq!(logs[0]["attributes"]["k8s_pod"], "orders-0");
    assert!(logs[0].get("traceId").is_none());
}

#[tokio::test]
async fn bad_pushes_get_lokis_answers() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let key = basic("promtail", INGEST_KEY);
    let now = chrono::Utc::now();
    let good = || push_body(&[(r#"{job="api"}"#, vec![entry(now, "ok", &[])])]);

    // No key, a wrong one: 401 in plain text.
    let response = t
        .http
        .post(t.url(PUSH))
        .header("content-type", "application/x-protobuf")
        .body(good())
        .call()
        .await;
    assert_eq!(plain(response).await.0, 401);
    let (status, _) = plain(promtail(&t, &basic("promtail", "nope"), good()).await).await;
    assert_eq!(status, 401);

    // A body that is no snappy block, snappy that is no PushRequest, JSON that is not one.
    let (status, text) = plain(promtail(&t, &key, b"\x10junk".to_vec()).await).await;
    assert_eq!(status, 400);
    assert!(text.contains("snappy"), "{text}");
    // A block announcing more than 16 MiB is refused before it is inflated.
    let (status, _) = plain(promtail(&t, &key, b"\xff\xff\xff\xff\x0fjunk".to_vec()).await).await;
    assert_eq!(status, 413);
    let not_proto = snap::raw::Encoder::new()
        .compress_vec(b"\x0a\xff\xff\xff")
        .unwrap();
    let (status, text) = plain(promtail(&t, &key, not_proto).await).await;
    assert_eq!(status, 400);
    assert!(text.contains("PushRequest"), "{text}");
    let response = t
        .http
        .post(t.url(PUSH))
        .header("content-type", "application/json")
        .header("authorization", &key)
        .body(r#"{"streams": [{"stream": {"job": "x"}, "values": [["1"]]}]}"#)
        .call()
        .await;
    assert_eq!(plain(response).await.0, 400);
    let response = t
        .http
        .post(t.url(PUSH))
        .header("content-type", "application/x-protobuf")
        .header("content-encoding", "br")
        .header("authorization", &key)
        .body(good())
        .call()
        .await;
    let (status, text) = plain(response).await;
    assert_eq!(
        (status, text.trim()),
        (400, r#"Content-Encoding "br" not supported"#)
    );

    // Bad labels refuse their stream alone; the good stream is taken, as Loki does.
    let body = push_body(&[
        (r#"{job=checkout}"#, vec![entry(now, "refused", &[])]),
        (r#"{job="accepted"}"#, vec![entry(now, "taken", &[])]),
        (
            r#"{job="future"}"#,
            vec![entry(now + chrono::Duration::hours(30), "too new", &[])],
        ),
    ]);
    let (status, text) = plain(promtail(&t, &key, body).await).await;
    assert_eq!(status, 400);
    assert!(
        text.contains("error parsing labels '{job=checkout}'"),
        "{text}"
    );
    assert!(
        text.contains(r#"entry for stream '{job="future"}' has timestamp that is too new"#),
        "{text}"
    );
    let taken = t.timeline_with(&token, "serviceName=accepted", 1).await;
    assert_eq!(taken[0]["logContent"], "taken");

    // Over the bounds: 65 labels refuse the stream; 10,001 entries, 6 MiB, the whole push.
    let labels: Vec<String> = (0..65).map(|i| format!("l{i}=\"v\"")).collect();
    let many = format!("{{{}}}", labels.join(", "));
    let (status, text) =
        plain(promtail(&t, &key, push_body(&[(&many, vec![entry(now, "x", &[])])])).await).await;
    assert_eq!(status, 400);
    assert!(text.contains("has 65 label names; limit 64"), "{text}");
    let entries: Vec<Wire> = (0..10_001).map(|_| entry(now, "x", &[])).collect();
    let (status, text) =
        plain(promtail(&t, &key, push_body(&[(r#"{job="big"}"#, entries)])).await).await;
    assert_eq!(status, 413);
    assert!(text.contains("10001 entries; limit 10000"), "{text}");
    let (status, _) = plain(promtail(&t, &key, vec![0; 6 * 1024 * 1024 + 1]).await).await;
    assert_eq!(status, 413);

    // A key bound to other services: 403, nothing taken.
    let admin = t.admin_token().await;
    let r = t
        .post_json_auth(
            "/api/v1/ingest/keys",
            &admin,
            &json!({"name": "payments-only", "services": ["payments"],
                "rateLimit": {"requests": 1, "windowSeconds": 3600}}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let issued: Value = r.json().await.unwrap();
    let bound = basic("alloy", issued["key"].as_str().unwrap());
    let (status, text) = plain(promtail(&t, &bound, good()).await).await;
    assert_eq!(status, 403);
    assert!(text.contains("may not send api"), "{text}");
    // Its limit (1 an hour) spent by the refused push: 429 with Retry-After, in plain text.
    let body = push_body(&[(r#"{service_name="payments"}"#, vec![entry(now, "ok", &[])])]);
    let response = promtail(&t, &bound, body).await;
    assert_eq!(response.status(), 429);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3600).contains(&retry));
    assert_eq!(plain(response).await.0, 429);
    let none = t
        .get_ok_auth(&format!("{LOGS}?serviceName=api"), &token)
        .await;
    assert_eq!(none, json!([]), "nothing refused was stored");
}
