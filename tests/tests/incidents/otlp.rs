//! OTLP/HTTP logs (`/otlp/v1/logs`) as a Collector's `otlphttp` exporter and an SDK send
//! them: binary protobuf gzip'd (the exporter's default), OTLP JSON gzip'd; the answers the
//! specification asks for (an `ExportLogsServiceResponse` in the request's encoding, partial
//! success, a `google.rpc.Status` on failure); and the logs on the timeline and in incidents
//! with their attributes and trace ids. Requests are written byte by byte from the
//! opentelemetry-proto files; answers are read with the platform's own messages.

use incidents::input::otlp::{ExportLogsServiceResponse, Status};
use prost::Message;
use serde_json::{json, Value};
use stack_tests::incidents::{eventually, INCIDENTS};
use stack_tests::stack::{Call, INGEST_KEY};
use stack_tests::TestStack;

use crate::loki::{basic, gzip, Wire};

const EXPORT: &str = "/otlp/v1/logs";
const COLLECTOR: &str = "OpenTelemetry Collector Contrib/0.131.0 (linux/amd64)";

fn kv(key: &str, value: &str) -> Wire {
    Wire::default()
        .text(1, key)
        .message(2, &Wire::default().text(1, value))
}

fn nanos(at: chrono::DateTime<chrono::Utc>) -> u64 {
    at.timestamp_nanos_opt().unwrap() as u64
}

/// A `LogRecord`: time, severity number and text, a string body, attributes, trace ids.
fn record(
    at: u64,
    severity: u64,
    text: &str,
    body: &str,
    attributes: &[(&str, &str)],
    ids: Option<(&str, &str)>,
) -> Wire {
    let mut r = Wire::default()
        .fixed64(1, at)
        .uint(2, severity)
        .text(3, text)
        .message(5, &Wire::default().text(1, body));
    for (k, v) in attributes {
        r = r.message(6, &kv(k, v));
    }
    if let Some((trace, span)) = ids {
        r = r
            .bytes(9, &hex(trace))
            .bytes(10, &hex(span))
            .fixed64(11, at);
    }
    r
}

fn hex(raw: &str) -> Vec<u8> {
    (0..raw.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&raw[i..i + 2], 16).unwrap())
        .collect()
}

/// An `ExportLogsServiceRequest` of one resource (`service.name`) and scope.
fn export_request(service: &str, records: &[Wire]) -> Vec<u8> {
    let resource = Wire::default()
        .message(1, &kv("service.name", service))
        .message(1, &kv("deployment.environment", "prod"));
    let mut scope = Wire::default().message(1, &Wire::default().text(1, "io.opentelemetry.log4j"));
    for r in records {
        scope = scope.message(2, r);
    }
    let resource_logs = Wire::default().message(1, &resource).message(2, &scope);
    Wire::default().message(1, &resource_logs).0
}

/// A protobuf export as the Collector's `otlphttp` exporter sends it (gzip, its default).
async fn collector(t: &TestStack, key: Option<&str>, body: &[u8]) -> reqwest::Response {
    let mut request = t
        .http
        .post(t.url(EXPORT))
        .header("content-type", "application/x-protobuf")
        .header("content-encoding", "gzip")
        .header("user-agent", COLLECTOR);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    request.body(gzip(body)).call().await
}

/// The answer's status and `Status`, which must be protobuf.
async fn rpc_status(response: reqwest::Response) -> (u16, Status) {
    let status = response.status().as_u16();
    assert_eq!(
        response.headers()["content-type"],
        "application/x-protobuf",
        "{status}"
    );
    let body = response.bytes().await.unwrap();
    (
        status,
        Status::decode(body.as_ref()).expect("a google.rpc.Status"),
    )
}

#[tokio::test]
async fn a_collector_export_opens_an_incident_with_attributes_and_trace_ids() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let at = nanos(chrono::Utc::now()) - 1_000_000;
    let trace = "5b8efff798038103d269b633813fc60c";
    let body = export_request(
        "billing",
        &[
            record(
                at,
                17,
                "ERROR",
                "Invoice 9913 could not be charged: card declined",
                &[("invoice.id", "9913")],
                Some((trace, "eee19b7ec3c1b174")),
            ),
            record(at + 1, 9, "INFO", "invoice run started", &[], None),
        ],
    );
    let response = collector(&t, Some(INGEST_KEY), &body).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/x-protobuf");
    let answer =
        ExportLogsServiceResponse::decode(response.bytes().await.unwrap().as_ref()).unwrap();
    assert_eq!(
        answer.partial_success, None,
        "a full success leaves it unset"
    );

    let logs = t.timeline_with(&token, "serviceName=billing", 2).await;
    let error = logs.iter().find(|l| l["severity"] == "ERROR").unwrap();
    assert_eq!(error["traceId"], trace);
    assert_eq!(error["spanId"], "eee19b7ec3c1b174");
    assert_eq!(
        error["attributes"],
        json!({"deployment.environment": "prod", "invoice.id": "9913",
            "otel.scope.name": "io.opentelemetry.log4j", "service.name": "billing"})
    );
    let info = logs.iter().find(|l| l["severity"] == "INFO").unwrap();
    assert!(info.get("traceId").is_none());

    let incident = eventually("the billing incident", || async {
        let list = t.get_ok_auth(INCIDENTS, &token).await;
        list.as_array()?
            .iter()
            .find(|i| i["serviceName"] == "billing")
            .cloned()
    })
    .await;
    let id = incident["id"].as_str().unwrap();
    let detail = t.get_ok_auth(&format!("{INCIDENTS}/{id}"), &token).await;
    assert_eq!(detail["recentOccurrences"][0]["traceId"], trace);
    assert_eq!(detail["recentOccurrences"][0]["spanId"], "eee19b7ec3c1b174");
    assert_eq!(
        detail["recentOccurrences"][0]["attributes"]["invoice.id"],
        "9913"
    );
}

#[tokio::test]
async fn a_json_export_gzipped_and_a_partial_success() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let now = chrono::Utc::now();
    let at = nanos(now).to_string();
    let future = nanos(now + chrono::Duration::hours(48)).to_string();
    let body = json!({"resourceLogs": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "ledger"}}]},
        "scopeLogs": [{"scope": {"name": "ledger.py"}, "logRecords": [
            {"timeUnixNano": at, "severityNumber": 13, "severityText": "WARN",
             "body": {"stringValue": "balance drift 0.02"},
             "traceId": "5B8EFFF798038103D269B633813FC60C", "spanId": "EEE19B7EC3C1B174",
             "attributes": [{"key": "retries", "value": {"intValue": "3"}},
                            {"key": "ok", "value": {"boolValue": false}}]},
            {"timeUnixNano": future, "severityNumber": 17, "body": {"stringValue": "from the future"}},
            {"observedTimeUnixNano": at, "severityNumber": 17}
        ]}]
    }]});
    let response = t
        .http
        .post(t.url(EXPORT))
        .header("content-type", "application/json")
        .header("content-encoding", "gzip")
        .header("user-agent", "OTel-OTLP-Exporter-Python/1.36.0")
        .header("x-api-key", INGEST_KEY)
        .body(gzip(body.to_string().as_bytes()))
        .call()
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["partialSuccess"]["rejectedLogRecords"], "2");
    let message = answer["partialSuccess"]["errorMessage"].as_str().unwrap();
    assert!(message.contains("is too new"), "{message}");
    assert!(message.contains("empty body"), "{message}");

    let logs = t.timeline_with(&token, "serviceName=ledger", 1).await;
    assert_eq!(logs[0]["severity"], "WARN");
    assert_eq!(logs[0]["traceId"], "5b8efff798038103d269b633813fc60c");
    assert_eq!(logs[0]["attributes"]["retries"], "3");
    assert_eq!(logs[0]["attributes"]["ok"], "false");

    // A full success in JSON is an empty response object.
    let ok = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"timeUnixNano": at, "body": {"stringValue": "no service named"}}]}]}]});
    let response = t
        .http
        .post(t.url(EXPORT))
        .header("content-type", "application/json")
        .header("authorization", basic("otel", INGEST_KEY))
        .body(ok.to_string())
        .call()
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap(), json!({}));
    let unknown = t
        .timeline_with(&token, "serviceName=unknown_service", 1)
        .await;
    assert_eq!(unknown[0]["severity"], "INFO");
}

#[tokio::test]
async fn failures_are_statuses_in_the_requests_encoding() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let at = nanos(chrono::Utc::now());
    let good = export_request("api", &[record(at, 17, "ERROR", "x", &[], None)]);

    let (status, rpc) = rpc_status(collector(&t, None, &good).await).await;
    assert_eq!((status, rpc.code), (401, 16));
    let (status, _) = rpc_status(collector(&t, Some("nope"), &good).await).await;
    assert_eq!(status, 401);

    // Not protobuf: 400 with a BadRequest naming the body.
    let (status, rpc) =
        rpc_status(collector(&t, Some(INGEST_KEY), b"\x0a\xff\xff\xff").await).await;
    assert_eq!((status, rpc.code), (400, 3));
    assert_eq!(
        rpc.details[0].type_url,
        "type.googleapis.com/google.rpc.BadRequest"
    );
    assert!(
        rpc.message.contains("ExportLogsServiceRequest"),
        "{}",
        rpc.message
    );
    // Gzip that is not.
    let response = t
        .http
        .post(t.url(EXPORT))
        .header("content-type", "application/x-protobuf")
        .header("content-encoding", "gzip")
        .bearer_auth(INGEST_KEY)
        .body(good.clone())
        .call()
        .await;
    assert_eq!(rpc_status(response).await.0, 400);

    // JSON in, JSON out.
    let response = t
        .http
        .post(t.url(EXPORT))
        .header("content-type", "application/json")
        .bearer_auth(INGEST_KEY)
        .body(r#"{"resourceLogs": 5}"#)
        .call()
        .await;
    assert_eq!(response.status(), 400);
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], 3);
    assert_eq!(
        body["details"][0]["@type"],
        "type.googleapis.com/google.rpc.BadRequest"
    );
    assert_eq!(body["details"][0]["fieldViolations"][0]["field"], "body");

    // Another content type: 415.
    let response = t
        .http
        .post(t.url(EXPORT))
        .header("content-type", "text/plain")
        .bearer_auth(INGEST_KEY)
        .body("hello")
        .call()
        .await;
    assert_eq!(response.status(), 415);

    // Over 10,000 records: 413.
    let many: Vec<Wire> = (0..10_001)
        .map(|_| record(at, 9, "INFO", "x", &[], None))
        .collect();
    let (status, rpc) =
        rpc_status(collector(&t, Some(INGEST_KEY), &export_request("api", &many)).await).await;
    assert_eq!(status, 413);
    assert!(rpc.message.contains("limit 10000"), "{}", rpc.message);

    // A key whose limit is spent: 429, retryable, with Retry-After.
    let admin = t.admin_token().await;
    let r = t
        .post_json_auth(
            "/api/v1/ingest/keys",
            &admin,
            &json!({"name": "otel-collector", "rateLimit": {"requests": 1, "windowSeconds": 600}}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let key = r.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(collector(&t, Some(&key), &good).await.status(), 200);
    let response = collector(&t, Some(&key), &good).await;
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=600).contains(&retry));
    let (status, rpc) = rpc_status(response).await;
    assert_eq!((status, rpc.code), (429, 8));
}
