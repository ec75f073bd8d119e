//! Incidents: logs of one fingerprint (service, type, message with numbers, ids and
//! timestamps normalised) are grouped into one incident that says which logs and why; the
//! lifecycle ACTIVE → ACKNOWLEDGED → RESOLVED; a new occurrence reopens a RESOLVED incident.

use serde_json::{json, Value};
use stack_tests::incidents::{eventually, log, ALERTS, INCIDENTS};
use stack_tests::{assert_news_error, details, TestStack};

#[tokio::test]
async fn logs_with_one_fingerprint_are_one_incident_that_shows_why() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("grouper").await;
    let ids = t
        .ingest_ok(&json!([
            log(
                "checkout",
                "ERROR",
                "Timeout after 3012 ms calling 10.0.0.7 (req 5b0f3c1e-0000-4000-8000-00000000000a)"
            ),
            log(
                "checkout",
                "FATAL",
                "Timeout after 120 ms calling 10.0.0.9 (req 9d2e3c1e-0000-4000-8000-00000000000b)"
            ),
            log(
                "checkout",
                "INFO",
                "Timeout after 5 ms calling 10.0.0.1 (req 1)"
            ),
            log("checkout", "ERROR", "Card declined for order 81723"),
            log(
                "billing",
                "ERROR",
                "Timeout after 77 ms calling 10.0.0.7 (req 2)"
            ),
        ]))
        .await;
    let incidents = t.incidents_when(&token, 3).await;
    let timeout = incidents
        .iter()
        .find(|i| i["serviceName"] == "checkout" && i["occurrences"] == 2)
        .unwrap_or_else(|| panic!("no grouped checkout incident in {incidents:?}"));
    assert_eq!(timeout["status"], "ACTIVE");
    assert_eq!(
        timeout["normalizedMessage"],
        "Timeout after # ms calling # (req #)"
    );
    assert!(timeout["groupedBy"]
        .as_str()
        .unwrap()
        .contains("serviceName"));
    assert_eq!(timeout["fingerprint"].as_str().unwrap().len(), 64);
    let id = timeout["id"].as_str().unwrap();
    let detail = t
        .incident_when(&token, id, |i| {
            i["recentOccurrences"].as_array().map(Vec::len) == Some(2)
        })
        .await;
    let grouped: Vec<&str> = detail["recentOccurrences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["logId"].as_str().unwrap())
        .collect();
    assert!(grouped.contains(&ids[0].as_str()) && grouped.contains(&ids[1].as_str()));
    assert!(!grouped.contains(&ids[2].as_str()), "INFO matches no rule");
    for occurrence in detail["recentOccurrences"].as_array().unwrap() {
        assert_eq!(occurrence["ruleIds"], json!(["default"]));
    }
    // The ERROR and FATAL of one fingerprint raised one alert of the default rule.
    let alerts = t.get_ok_auth(ALERTS, &token).await;
    let of_timeout: Vec<&Value> = alerts
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["incidentId"] == id)
        .collect();
    assert_eq!(of_timeout.len(), 1, "{alerts}");
    assert_eq!(of_timeout[0]["ruleId"], "default");
    assert_eq!(of_timeout[0]["status"], "OPEN");
}

#[tokio::test]
async fn the_lifecycle_moves_forward_and_a_new_occurrence_reopens() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    t.ingest_ok(&log("search", "ERROR", "Index shard 3 unavailable"))
        .await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let id = incident["id"].as_str().unwrap().to_string();
    let path = format!("{INCIDENTS}/{id}");

    // ACTIVE → ACTIVE and ACTIVE → nonsense are 400s.
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "ACTIVE"}))
        .await;
    let body = assert_news_error(r, 400, &path).await;
    assert!(details(&body)[0].starts_with("status:"), "{body}");

    let r = t
        .patch_json_auth(
            &path,
            &token,
            &json!({"status": "ACKNOWLEDGED", "note": "looking", "assignee": "oncall"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let acked: Value = r.json().await.unwrap();
    assert_eq!(acked["status"], "ACKNOWLEDGED");
    assert_eq!(acked["assignee"], "oncall");
    let listed = t
        .get_ok_auth(&format!("{INCIDENTS}?status=ACKNOWLEDGED"), &token)
        .await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(
        t.get_ok_auth(&format!("{INCIDENTS}?status=ACTIVE"), &token)
            .await,
        json!([])
    );

    // Back to ACTIVE by hand: refused.
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "ACTIVE"}))
        .await;
    assert_news_error(r, 400, &path).await;

    let r = t
        .patch_json_auth(
            &path,
            &token,
            &json!({"status": "RESOLVED", "note": "restarted"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "ACKNOWLEDGED"}))
        .await;
    assert_news_error(r, 400, &path).await;

    // The same problem again (another shard number): reopened, and alerted again.
    t.ingest_ok(&log("search", "ERROR", "Index shard 7 unavailable"))
        .await;
    let reopened = t
        .incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(reopened["reopenCount"], 1);
    assert_eq!(reopened["occurrences"], 2);
    let history: Vec<(Value, Value)> = reopened["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["from"].clone(), e["to"].clone()))
        .collect();
    assert_eq!(
        history,
        vec![
            (Value::Null, json!("ACTIVE")),
            (json!("ACTIVE"), json!("ACKNOWLEDGED")),
            (json!("ACKNOWLEDGED"), json!("RESOLVED")),
            (json!("RESOLVED"), json!("ACTIVE")),
        ]
    );
    let alerts = eventually("a second alert", || async {
        let alerts = t.get_ok_auth(ALERTS, &token).await;
        (alerts.as_array().unwrap().len() == 2).then_some(alerts)
    })
    .await;
    assert!(alerts
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["incidentId"] == id.as_str()));

    // Alerts move forward only as well.
    let alert_id = alerts[0]["id"].as_str().unwrap();
    let alert_path = format!("{ALERTS}/{alert_id}");
    let r = t
        .patch_json_auth(&alert_path, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_eq!(r.status(), 200);
    let r = t
        .patch_json_auth(&alert_path, &token, &json!({"status": "OPEN"}))
        .await;
    assert_news_error(r, 400, &alert_path).await;
    // The first alert was resolved with its incident; this one by hand.
    let resolved = t
        .get_ok_auth(&format!("{ALERTS}?status=RESOLVED"), &token)
        .await;
    assert_eq!(resolved.as_array().unwrap().len(), 2);

    // Unknown incidents and alerts are 404s.
    let missing = format!("{INCIDENTS}/{}", "0".repeat(32));
    assert_news_error(t.get_auth(&missing, &token).await, 404, &missing).await;
    let r = t
        .patch_json_auth(&missing, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_news_error(r, 404, &missing).await;
}
