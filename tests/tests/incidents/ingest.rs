//! Ingestion: a batch of 500 is queued and stored, the timeline reads it back newest first
//! page by page, a queue that fails never gets a 202, a redelivered message stores nothing
//! twice, and deletions.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use stack_tests::content::sqs_event;
use stack_tests::incidents::{deliver_repeatedly, eventually, log, LOGS};
use stack_tests::router::{request, send};
use stack_tests::stack::INGEST_KEY;
use stack_tests::{assert_news_error, TestStack};

fn ids_of(logs: &[Value]) -> Vec<String> {
    logs.iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_batch_of_500_is_stored_and_read_back_newest_first_page_by_page() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("ingester").await;
    let base = chrono::Utc::now() - chrono::Duration::hours(3);
    // Spread over three hours, so the pages cross hour partitions.
    let batch: Vec<Value> = (0..500)
        .map(|i| {
            let at = base + chrono::Duration::seconds(i * 20);
            let severity = if i % 5 == 0 { "WARN" } else { "INFO" };
            let mut l = log("payments", severity, &format!("request {i} served"));
            l["timestamp"] = json!(at.to_rfc3339());
            l
        })
        .collect();
    let response = t.ingest(&Value::Array(batch)).await;
    assert_eq!(response.status(), 202);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["accepted"], 500);
    let ids: Vec<String> = answer["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 500);

    let all = t
        .timeline_with(&token, "serviceName=payments&limit=500", 500)
        .await;
    let got = ids_of(&all);
    let mut newest_first = ids.clone();
    newest_first.sort();
    newest_first.reverse();
    assert_eq!(got, newest_first, "newest first, every log once");
    assert_eq!(all[0]["serviceName"], "payments");
    assert_eq!(all[0]["logContent"], "request 499 served");

    // Pages of 200 by cursor, without the service filter (the time partitions).
    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..5 {
        let path = match &cursor {
            Some(c) => format!("{LOGS}?limit=200&cursor={c}"),
            None => format!("{LOGS}?limit=200"),
        };
        let response = t.get_auth(&path, &token).await;
        assert_eq!(response.status(), 200);
        cursor = response
            .headers()
            .get("x-next-cursor")
            .map(|v| v.to_str().unwrap().to_string());
        let page: Vec<Value> = response.json().await.unwrap();
        paged.extend(ids_of(&page));
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(paged, newest_first, "pages join up without gaps or repeats");

    // Filters: severity, and a time range.
    let warns = t
        .timeline_with(&token, "severity=WARN&limit=500", 100)
        .await;
    assert!(warns.iter().all(|l| l["severity"] == "WARN"));
    let from = (base + chrono::Duration::seconds(100 * 20)).to_rfc3339();
    let to = (base + chrono::Duration::seconds(199 * 20)).to_rfc3339();
    let path = format!("from={}&to={}&limit=500", urlencode(&from), urlencode(&to));
    let ranged = t.timeline_with(&token, &path, 100).await;
    assert_eq!(ranged[0]["logContent"], "request 199 served");
    assert_eq!(ranged[99]["logContent"], "request 100 served");
}

fn urlencode(raw: &str) -> String {
    raw.replace('+', "%2B").replace(':', "%3A")
}

#[tokio::test]
async fn no_202_when_the_queue_write_failed() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let env = t.env("IncidentsIngestFunction");
    let good = env.get("INGEST_QUEUE_URL").unwrap().to_string();
    // The same stack's function, its queue gone.
    let gone = format!("{}-gone", good);
    let router = incidents_ingest_function::router(env.with("INGEST_QUEUE_URL", gone))
        .await
        .unwrap();
    let body = json!([log("api", "ERROR", "boom"), log("api", "INFO", "fine")]).to_string();
    let answer = send(
        &router,
        request(
            "POST",
            LOGS,
            &[
                ("content-type", "application/json"),
                ("x-api-key", INGEST_KEY),
            ],
            body,
        ),
    )
    .await;
    assert_eq!(answer.status.as_u16(), 503, "{}", answer.text());
    let error = answer.json();
    assert_eq!(error["code"], 503);
    assert!(error.get("ids").is_none());
}

#[tokio::test]
async fn a_redelivered_message_stores_and_groups_nothing_twice() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("redelivery").await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let now = chrono::Utc::now();
    let millis = now.timestamp_millis();
    let logs: Vec<Value> = (0..3)
        .map(|i| {
            json!({
                "id": format!("{millis:013}-{:032x}", 0xabc0 + i),
                "serviceName": "orders",
                "type": "APPLICATION_LOG",
                "severity": "ERROR",
                "logContent": format!("order {i} failed: stock service 503"),
                "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                "receivedAt": now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            })
        })
        .collect();
    let message = json!({"kind": "logs", "logs": logs}).to_string();
    deliver_repeatedly(processor.as_ref(), &message).await;
    let stored = t.timeline_with(&token, "serviceName=orders", 3).await;
    assert_eq!(stored.len(), 3);
    let incidents = t.incidents_when(&token, 1).await;
    assert_eq!(incidents[0]["occurrences"], 3, "{}", incidents[0]);
    let alerts = t.get_ok_auth("/api/v1/alerts", &token).await;
    assert_eq!(alerts.as_array().unwrap().len(), 1, "{alerts}");
    let detail = t
        .get_ok_auth(
            &format!("/api/v1/incidents/{}", incidents[0]["id"].as_str().unwrap()),
            &token,
        )
        .await;
    assert_eq!(detail["recentOccurrences"].as_array().unwrap().len(), 3);
    assert_eq!(
        detail["history"].as_array().unwrap().len(),
        1,
        "opened once"
    );

    // An unreadable message is a batch item failure; the good one beside it is not.
    let response = processor
        .handle(sqs_event(&[("bad", "not json".into()), ("good", message)]))
        .await
        .unwrap();
    let failed: Vec<_> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.clone())
        .collect();
    assert_eq!(failed, vec!["bad".to_string()]);
}

/// Grouped-log samples carry the table's TTL attribute, counted from each log's own time, and
/// grouped markers expire; incidents, their counts and alerts are kept; raw logs are no table
/// rows (they are S3 objects: `objects.rs`). The table's TTL is on.
#[tokio::test]
async fn grouped_logs_expire_after_the_retention() {
    let t =
        TestStack::start_with([("IncidentLogRetentionDays".to_string(), "7".to_string())].into())
            .await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    // A day old: its expiry is six days away, not seven.
    let at = chrono::Utc::now() - chrono::Duration::days(1);
    let millis = at.timestamp_millis();
    let stamp = at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let logs: Vec<Value> = (0..2)
        .map(|i| {
            json!({
                "id": format!("{millis:013}-{:032x}", 0xe0 + i),
                "serviceName": "retention",
                "type": "APPLICATION_LOG",
                "severity": "ERROR",
                "logContent": "disk full on volume 7",
                "timestamp": stamp,
                "receivedAt": stamp,
            })
        })
        .collect();
    let message = json!({"kind": "logs", "logs": logs}).to_string();
    deliver_repeatedly(processor.as_ref(), &message).await;

    let expected = millis.div_euclid(1000) + 7 * 86_400;
    let items = t.scan("IncidentsTable").await;
    let expiry = |item: &stack_tests::stack::Item| {
        item.get("expiresAt")
            .and_then(|v| v.as_n().ok())
            .map(|n| n.parse::<i64>().unwrap())
    };
    let pk = |item: &stack_tests::stack::Item| item["pk"].as_s().unwrap().clone();
    let sk = |item: &stack_tests::stack::Item| item["sk"].as_s().unwrap().clone();
    let (mut logs_seen, mut grouped, mut hours, mut incidents) = (0, 0, 0, 0);
    let marker_expiry = chrono::Utc::now().timestamp() + 15 * 86_400;
    for item in &items {
        let (pk, sk) = (pk(item), sk(item));
        if pk.starts_with("LOG#") {
            logs_seen += 1;
        } else if sk == "SAMPLE" {
            grouped += 1;
            assert_eq!(expiry(item), Some(expected), "{pk} {sk}");
        } else if pk.starts_with("GROUPED#") {
            // A message's grouped marker outlives the queue and its DLQ, then goes.
            let at = expiry(item).unwrap();
            assert!(
                (marker_expiry - 60..=marker_expiry).contains(&at),
                "{pk} {sk}"
            );
        } else if pk == "LOGHOURS" {
            hours += 1;
        } else {
            if pk.starts_with("INC#") && sk == "META" {
                incidents += 1;
            }
            assert_eq!(expiry(item), None, "{pk} {sk} is kept");
        }
    }
    // Two first samples, and the batch's newest log in the ring of the latest batches; the
    // logs themselves are in S3 (expired by the bucket's lifecycle rule), not in the table.
    assert_eq!((logs_seen, grouped, hours, incidents), (0, 3, 0, 1));

    let ttl = t
        .dynamodb()
        .await
        .describe_time_to_live()
        .table_name(t.table("IncidentsTable"))
        .send()
        .await
        .unwrap();
    let ttl = ttl.time_to_live_description().unwrap();
    assert_eq!(ttl.attribute_name(), Some("expiresAt"));
    assert_eq!(
        ttl.time_to_live_status(),
        Some(&aws_sdk_dynamodb::types::TimeToLiveStatus::Enabled)
    );
}

#[tokio::test]
async fn logs_are_deleted_one_by_one_and_by_filter() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("deleter").await;
    let mut batch: Vec<Value> = (0..30)
        .map(|i| log("noisy", "DEBUG", &format!("tick {i}")))
        .collect();
    batch.extend((0..5).map(|i| log("quiet", "INFO", &format!("note {i}"))));
    let ids = t.ingest_ok(&Value::Array(batch)).await;
    t.timeline_with(&token, "limit=500", 35).await;

    let one = &ids[34];
    let path = format!("{LOGS}/{one}");
    assert_eq!(t.delete_auth(&path, &token).await.status(), 204);
    assert_news_error(t.delete_auth(&path, &token).await, 404, &path).await;
    t.timeline_with(&token, "serviceName=quiet", 4).await;

    // A deletion by filter is an admin's.
    let admin = t.admin_token().await;
    let response = t
        .delete_auth(&format!("{LOGS}?serviceName=noisy"), &admin)
        .await;
    assert_eq!(response.status(), 204);
    t.timeline_with(&token, "serviceName=noisy", 0).await;
    let left = t.timeline_with(&token, "limit=500", 4).await;
    assert!(left.iter().all(|l| l["serviceName"] == "quiet"));
    // The path is shared with the ingestion function: a 405 names its POST too.
    let r = t.put_json_auth(LOGS, &token, &json!({})).await;
    assert_eq!(r.status(), 405);
    assert_eq!(
        r.headers().get("allow").unwrap().to_str().unwrap(),
        "GET,HEAD,DELETE,POST"
    );
    // Deleting again finds nothing more to delete.
    assert_eq!(
        t.delete_auth(&format!("{LOGS}?serviceName=noisy"), &admin)
            .await
            .status(),
        204
    );
    eventually("the quiet logs to stay", || async {
        let logs = t.get_ok_auth(&format!("{LOGS}?limit=500"), &token).await;
        (logs.as_array().unwrap().len() == 4).then_some(())
    })
    .await;
}

/// What the fake SQS saw, and how many more calls it refuses an entry of.
#[derive(Default)]
struct FakeSqs {
    calls: Vec<(String, usize)>,
    refuse: usize,
}

async fn fake_sqs(
    axum::extract::State(shared): axum::extract::State<std::sync::Arc<std::sync::Mutex<FakeSqs>>>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let target = stack_tests::header(&headers, "x-amz-target").to_string();
    let input: Value = serde_json::from_slice(&body).unwrap_or_default();
    let entries: Vec<String> = input["Entries"]
        .as_array()
        .map(|e| {
            e.iter()
                .map(|e| e["Id"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut state = stack_tests::server::lock(&shared);
    state.calls.push((target, entries.len()));
    let refuse = state.refuse > 0;
    if refuse {
        state.refuse -= 1;
    }
    let (failed, ok): (Vec<&String>, Vec<&String>) =
        entries.iter().partition(|id| refuse && id.as_str() == "m0");
    let answer = json!({
        "Successful": ok.iter().map(|id| json!({"Id": id, "MessageId": format!("msg-{id}"), "MD5OfMessageBody": ""})).collect::<Vec<_>>(),
        "Failed": failed.iter().map(|id| json!({"Id": id, "Code": "InternalError", "SenderFault": false})).collect::<Vec<_>>(),
    });
    (
        [("content-type", "application/x-amz-json-1.0")],
        answer.to_string(),
    )
        .into_response()
}

#[tokio::test]
async fn a_refused_entry_is_sent_again_once_and_then_there_is_no_202() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let batch = Value::Array(
        (0..500)
            .map(|i| log("api", "INFO", &format!("request {i} served in 12 ms")))
            .collect(),
    );
    for (refuse, status, calls) in [(0, 202, 1), (1, 202, 2), (usize::MAX, 503, 2)] {
        let fake = stack_tests::server::FakeServer::start(
            FakeSqs {
                calls: Vec::new(),
                refuse,
            },
            fake_sqs,
        )
        .await;
        // Only SQS answers at this endpoint: the key's rate limit is not counted here.
        let router = incidents_ingest_function::router(
            t.env("IncidentsIngestFunction")
                .with("AWS_ENDPOINT_URL", fake.url(""))
                .with("RATE_LIMIT_TABLE", ""),
        )
        .await
        .unwrap();
        let answer = send(
            &router,
            request(
                "POST",
                LOGS,
                &[
                    ("content-type", "application/json"),
                    ("x-api-key", INGEST_KEY),
                ],
                batch.to_string(),
            ),
        )
        .await;
        assert_eq!(
            answer.status.as_u16(),
            status,
            "refuse {refuse}: {}",
            answer.text()
        );
        let seen = &fake.lock().calls;
        assert_eq!(seen.len(), calls, "refuse {refuse}: {seen:?}");
        assert!(seen
            .iter()
            .all(|(target, _)| target == "AmazonSQS.SendMessageBatch"));
        // 500 small logs: one call of a few messages; a retry sends the refused entry alone.
        assert!((1..=10).contains(&seen[0].1), "{seen:?}");
        if calls == 2 {
            assert_eq!(seen[1].1, 1, "{seen:?}");
        }
    }
}

/// A log stored when an hour had 4 shards (the id's last hex digit modulo 4) is still in
/// the timeline, by service too, and deleted by its id.
#[tokio::test]
async fn a_log_stored_under_the_former_shards_is_read_and_deleted() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("legacy").await;
    let at = chrono::Utc::now();
    let id = format!("{:013}-{:032x}", at.timestamp_millis(), 0xfe);
    let hour = at.format("%Y-%m-%dT%H").to_string();
    let stamp = at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let s = |v: &str| AttributeValue::S(v.to_string());
    // Last digit e: shard 14 now, 2 of the former 4.
    let item = [
        ("pk", s(&format!("LOG#{hour}#2"))),
        ("sk", s(&id)),
        ("gsi1pk", s(&format!("SVC#billing#{hour}#2"))),
        ("gsi1sk", s(&id)),
        ("id", s(&id)),
        ("serviceName", s("billing")),
        ("type", s("APPLICATION_LOG")),
        ("severity", s("INFO")),
        ("logContent", s("invoice sent")),
        ("timestamp", s(&stamp)),
        ("receivedAt", s(&stamp)),
    ];
    let dynamodb = t.dynamodb().await;
    let mut put = dynamodb.put_item().table_name(t.table("IncidentsTable"));
    for (name, value) in item {
        put = put.item(name, value);
    }
    put.send().await.unwrap();
    let hours = dynamodb
        .put_item()
        .table_name(t.table("IncidentsTable"))
        .item("pk", s("LOGHOURS"))
        .item("sk", s(&hour));
    hours.send().await.unwrap();

    let all = t.timeline_with(&token, "limit=10", 1).await;
    assert_eq!(all[0]["id"], id.as_str());
    let by_service = t.timeline_with(&token, "serviceName=billing", 1).await;
    assert_eq!(by_service[0]["id"], id.as_str());
    let path = format!("{LOGS}/{id}");
    assert_eq!(t.delete_auth(&path, &token).await.status(), 204);
    t.timeline_with(&token, "limit=10", 0).await;
    assert_news_error(t.delete_auth(&path, &token).await, 404, &path).await;
}
