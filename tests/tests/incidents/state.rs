//! Incident state that holds: resolving an incident resolves the alerts it raised, in the
//! resolve's own transaction, so no alert stays OPEN on a RESOLVED incident.

use serde_json::{json, Value};
use stack_tests::incidents::{eventually, log, ALERTS, INCIDENTS, RULES};
use stack_tests::TestStack;

/// The alerts of incident `id` with `status`.
async fn alerts_of(t: &TestStack, token: &str, id: &str, status: &str) -> Vec<Value> {
    let alerts = t
        .get_ok_auth(&format!("{ALERTS}?status={status}"), token)
        .await;
    alerts
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["incidentId"] == id)
        .cloned()
        .collect()
}

#[tokio::test]
async fn resolving_an_incident_resolves_its_open_and_acknowledged_alerts() {
    let t = TestStack::start().await;
    let (_, token) = t.operator("resolver").await;
    let r = t
        .post_json_auth(
            RULES,
            &token,
            &json!({"name": "payments down", "severities": ["ERROR"], "serviceName": "payments",
                    "threshold": 1, "windowSeconds": 60}),
        )
        .await;
    assert_eq!(r.status(), 201);
    t.ingest_ok(&log("payments", "ERROR", "Gateway 502 from acquirer"))
        .await;
    let id = t.incidents_when(&token, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Two rules matched: two alerts, one of them acknowledged by hand.
    let raised = eventually("two alerts", || async {
        let open = alerts_of(&t, &token, &id, "OPEN").await;
        (open.len() == 2).then_some(open)
    })
    .await;
    let acked = format!("{ALERTS}/{}", raised[0]["id"].as_str().unwrap());
    let r = t
        .patch_json_auth_raw(&acked, &token, &json!({"status": "ACKNOWLEDGED"}))
        .await;
    assert_eq!(r.status(), 200);

    let r = t
        .patch_json_auth_raw(
            &format!("{INCIDENTS}/{id}"),
            &token,
            &json!({"status": "RESOLVED", "note": "acquirer back"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(alerts_of(&t, &token, &id, "OPEN").await.is_empty());
    assert!(alerts_of(&t, &token, &id, "ACKNOWLEDGED").await.is_empty());
    let resolved = alerts_of(&t, &token, &id, "RESOLVED").await;
    assert_eq!(resolved.len(), 2, "{resolved:?}");
    assert!(resolved.iter().all(|a| a["status"] == "RESOLVED"));

    // A reopen raises new alerts; resolving again resolves those, and only once each.
    t.ingest_ok(&log("payments", "ERROR", "Gateway 502 from acquirer"))
        .await;
    t.incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    eventually("two new alerts", || async {
        let open = alerts_of(&t, &token, &id, "OPEN").await;
        (open.len() == 2).then_some(open)
    })
    .await;
    let r = t
        .patch_json_auth_raw(
            &format!("{INCIDENTS}/{id}"),
            &token,
            &json!({"status": "RESOLVED"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(alerts_of(&t, &token, &id, "OPEN").await.is_empty());
    assert_eq!(alerts_of(&t, &token, &id, "RESOLVED").await.len(), 4);
}
