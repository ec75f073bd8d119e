//! Secrets never stored: ingestion scrubs `logContent` with the analysis's redaction before
//! the logs are queued, so the timeline, the grouped logs, the incident's samples and the
//! alert's message (and every item of the table) hold the markers, never the secrets.

use serde_json::Value;
use stack_tests::incidents::{log, ALERTS};
use stack_tests::TestStack;

/// The secrets the logs below carry, each of a kind the redaction knows.
const SECRETS: [&str; 5] = [
    "hunter2-Xy9",
    "s3cretPg!",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
];

fn secret_log(n: usize) -> String {
    format!(
        "payment {n} failed: password=hunter2-Xy9 db=postgres://app:s3cretPg!@db/orders \
         token ghp_0123456789abcdefghijABCDEFGHIJ012345 key AKIAIOSFODNN7EXAMPLE \
         Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl"
    )
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} holds {secret}: {text}");
    }
}

#[tokio::test]
async fn ingested_secrets_reach_no_timeline_incident_alert_or_item() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, oncall) = t.operator("oncall").await;
    t.ingest_ok(&Value::Array(
        (0..2)
            .map(|n| log("payments", "ERROR", &secret_log(n)))
            .collect(),
    ))
    .await;

    // The timeline.
    let logs = t.timeline_with(&oncall, "serviceName=payments", 2).await;
    for l in &logs {
        let content = l["logContent"].as_str().unwrap();
        assert_no_secret("a timeline log", content);
        assert!(
            content.contains("password=[REDACTED:password]")
                && content.contains("postgres://app:[REDACTED:password]@db/orders")
                && content.contains("[REDACTED:aws_access_key]"),
            "{content}"
        );
    }

    // The incident the default rule opened: its samples, its grouped logs.
    let incident = t.incidents_when(&oncall, 1).await.remove(0);
    let id = incident["id"].as_str().unwrap();
    let detail = t
        .incident_when(&oncall, id, |i| {
            i["recentOccurrences"]
                .as_array()
                .is_some_and(|o| o.len() == 2)
        })
        .await;
    assert_no_secret("the incident", &detail.to_string());
    assert!(detail["sampleMessage"]
        .as_str()
        .unwrap()
        .contains("[REDACTED:"));
    for occurrence in detail["recentOccurrences"].as_array().unwrap() {
        assert!(occurrence["logContent"]
            .as_str()
            .unwrap()
            .contains("[REDACTED:token]"));
    }

    // The alert it raised.
    let alerts = t.get_ok_auth(ALERTS, &oncall).await;
    let alert = &alerts.as_array().unwrap()[0];
    assert_no_secret("the alert", &alert.to_string());
    assert!(alert["message"].as_str().unwrap().contains("[REDACTED:"));

    // Nothing anywhere in the table.
    let items = t.scan("IncidentsTable").await;
    assert!(!items.is_empty());
    assert_no_secret("the incidents table", &format!("{items:?}"));
}
