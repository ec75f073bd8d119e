//! Grouping once per fingerprint per batch: a batch of many messages writes each
//! fingerprint's incident count once (metered), an incident keeps a bounded number of sample
//! logs while its count stays exact, and a batch delivered again (whole, or its messages in
//! other batches) counts nothing twice, in the incident or in the metrics.

use serde_json::{json, Value};
use stack_tests::content::sqs_event;
use stack_tests::keyheat::Meter;
use stack_tests::TestStack;

const FIRST_SAMPLES: usize = incidents::groups::FIRST_SAMPLES;
const LATEST_SAMPLES: usize = incidents::groups::LATEST_SAMPLES;

/// A message of `count` ERROR logs of `service` (one fingerprint), ids from `first` on.
fn message(service: &str, first: usize, count: usize) -> String {
    let now = chrono::Utc::now();
    let millis = now.timestamp_millis();
    let stamp = now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let logs: Vec<Value> = (first..first + count)
        .map(|i| {
            json!({
                "id": format!("{millis:013}-{i:032x}"),
                "serviceName": service,
                "type": "APPLICATION_LOG",
                "severity": "ERROR",
                "logContent": format!("payment {i} declined by gateway 7"),
                "timestamp": stamp,
                "receivedAt": stamp,
            })
        })
        .collect();
    json!({"kind": "logs", "logs": logs}).to_string()
}

/// Hands `messages` to the processor as one SQS batch; every message must succeed.
async fn deliver(processor: &dyn platform::SqsHandler, messages: &[(&str, &String)]) {
    let records: Vec<(&str, String)> = messages
        .iter()
        .map(|(id, body)| (*id, (*body).clone()))
        .collect();
    let response = processor
        .handle(sqs_event(&records))
        .await
        .expect("batch handled");
    assert!(
        response.batch_item_failures.is_empty(),
        "{:?}",
        response.batch_item_failures
    );
}

async fn only_incident(t: &TestStack, token: &str) -> Value {
    let incidents = t.incidents_when(token, 1).await;
    let id = incidents[0]["id"].as_str().unwrap().to_string();
    t.get_ok_auth(&format!("/api/v1/incidents/{id}"), token)
        .await
}

#[tokio::test]
async fn a_batch_writes_each_fingerprints_incident_once() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("batcher").await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let table = t.table("IncidentsTable");
    let prefix = table.strip_suffix("IncidentsTable").unwrap();
    let meter = Meter::start(&stack_tests::emulator(), prefix).await;

    // Six messages of 40 logs of one fingerprint: one count write, not 240.
    let first: Vec<String> = (0..6).map(|m| message("payments", m * 40, 40)).collect();
    let batch: Vec<(String, &String)> = first
        .iter()
        .enumerate()
        .map(|(i, m)| (format!("a{i}"), m))
        .collect();
    let batch: Vec<(&str, &String)> = batch.iter().map(|(i, m)| (i.as_str(), *m)).collect();
    deliver(processor.as_ref(), &batch).await;
    let detail = only_incident(&t, &token).await;
    assert_eq!(detail["occurrences"], 240);
    let id = detail["id"].as_str().unwrap().to_string();
    let count_key = format!("INC#{id}#COUNT");
    let writes_to = |uses: &[stack_tests::keyheat::KeyUse], key: &str, index: &str| -> u64 {
        uses.iter()
            .filter(|u| u.table == table && u.key == key && u.index == index)
            .map(|u| u.writes)
            .sum()
    };
    let uses = meter.take().await;
    assert_eq!(writes_to(&uses, &count_key, ""), 1, "{uses:?}");

    // The next batch of the open, alerted incident: one count write, and neither the
    // incident's item nor the index of active incidents is written.
    let second: Vec<String> = (0..6)
        .map(|m| message("payments", 1_000 + m * 40, 40))
        .collect();
    let batch: Vec<(String, &String)> = second
        .iter()
        .enumerate()
        .map(|(i, m)| (format!("b{i}"), m))
        .collect();
    let batch: Vec<(&str, &String)> = batch.iter().map(|(i, m)| (i.as_str(), *m)).collect();
    deliver(processor.as_ref(), &batch).await;
    let uses = meter.take().await;
    assert_eq!(writes_to(&uses, &count_key, ""), 1, "{uses:?}");
    assert_eq!(writes_to(&uses, &format!("INC#{id}"), ""), 0, "{uses:?}");
    assert_eq!(writes_to(&uses, "INCIDENTS#ACTIVE", "gsi1"), 0, "{uses:?}");
    let detail = only_incident(&t, &token).await;
    assert_eq!(detail["occurrences"], 480);
}

#[tokio::test]
async fn samples_stay_bounded_while_the_count_is_exact() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("sampler").await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let batches: Vec<String> = (0..15).map(|b| message("ledger", b * 30, 30)).collect();
    for (i, body) in batches.iter().enumerate() {
        deliver(processor.as_ref(), &[(&format!("m{i}"), body)]).await;
    }
    let detail = only_incident(&t, &token).await;
    assert_eq!(detail["occurrences"], 450, "every log counted");
    let samples: Vec<String> = detail["recentOccurrences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["logId"].as_str().unwrap().to_string())
        .collect();
    assert!(
        samples.len() <= FIRST_SAMPLES + LATEST_SAMPLES,
        "{} samples",
        samples.len()
    );
    // The incident's first logs, and the newest log of each of the latest batches.
    let id_of = |i: usize| samples.iter().find(|s| s.ends_with(&format!("{i:032x}")));
    for i in 0..FIRST_SAMPLES {
        assert!(id_of(i).is_some(), "first log {i} kept: {samples:?}");
    }
    for b in 15 - LATEST_SAMPLES..15 {
        let newest = b * 30 + 29;
        assert!(
            id_of(newest).is_some(),
            "batch {b}'s newest kept: {samples:?}"
        );
    }
    let id = detail["id"].as_str().unwrap();
    let rows = t
        .scan("IncidentsTable")
        .await
        .into_iter()
        .filter(|i| {
            i["pk"].as_s().unwrap().starts_with(&format!("INC#{id}#"))
                && i["sk"].as_s().unwrap() == "SAMPLE"
        })
        .count();
    assert!(rows <= FIRST_SAMPLES + LATEST_SAMPLES, "{rows} sample rows");
}

#[tokio::test]
async fn a_batch_delivered_again_in_other_batches_counts_nothing_twice() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("redeliverer").await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let a = message("inventory", 0, 20);
    let b = message("inventory", 100, 30);
    let c = message("inventory", 200, 7);
    deliver(processor.as_ref(), &[("a", &a), ("b", &b)]).await;
    let detail = only_incident(&t, &token).await;
    assert_eq!(detail["occurrences"], 50);
    // The same batch again, then its messages with a new one (another composition), and one
    // of them twice in a batch.
    deliver(processor.as_ref(), &[("a2", &a), ("b2", &b)]).await;
    deliver(processor.as_ref(), &[("b3", &b), ("c", &c), ("a3", &a)]).await;
    deliver(processor.as_ref(), &[("c2", &c), ("c3", &c)]).await;
    let detail = only_incident(&t, &token).await;
    assert_eq!(detail["occurrences"], 57, "each message counted once");
    let scrape = t.scrape().await;
    let ingested = scrape.value(
        "incident_logs_ingested_total",
        &[("service", "inventory"), ("severity", "ERROR")],
    );
    assert_eq!(ingested, 57.0, "and counted once in the metrics");
    let alerts = t.get_ok_auth("/api/v1/alerts", &token).await;
    assert_eq!(alerts.as_array().unwrap().len(), 1, "{alerts}");
    assert_eq!(
        detail["history"].as_array().unwrap().len(),
        1,
        "opened once"
    );
}
