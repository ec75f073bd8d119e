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

/// Replaces the default rule with `rule`, so only it opens and reopens incidents.
async fn only_rule(t: &TestStack, token: &str, rule: Value) {
    let admin = t.admin_token().await;
    let r = t.delete_auth(&format!("{RULES}/default"), &admin).await;
    assert_eq!(r.status(), 204);
    let r = t.post_json_auth(RULES, token, &rule).await;
    assert_eq!(r.status(), 201);
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

#[tokio::test]
async fn a_reopen_needs_the_rules_threshold_after_the_resolve() {
    let t = TestStack::start().await;
    let (_, token) = t.operator("reopener").await;
    only_rule(
        &t,
        &token,
        json!({"name": "disk pressure", "severities": ["WARN"], "serviceName": "store",
                    "threshold": 5, "windowSeconds": 600}),
    )
    .await;
    let warn = || log("store", "WARN", "Disk 91% full on volume 3");
    t.ingest_ok(&json!([warn(), warn(), warn(), warn(), warn()]))
        .await;
    let id = t.incidents_when(&token, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{INCIDENTS}/{id}");
    let r = t
        .patch_json_auth_raw(&path, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_eq!(r.status(), 200);

    // One log, and five stamped before the resolve: still RESOLVED, no new alert.
    let mut backdated = warn();
    backdated["timestamp"] = json!(chrono::Utc::now()
        .checked_sub_signed(chrono::Duration::minutes(2))
        .unwrap()
        .to_rfc3339());
    t.ingest_ok(&json!([
        warn(),
        backdated.clone(),
        backdated.clone(),
        backdated.clone(),
        backdated.clone(),
        backdated
    ]))
    .await;
    let counted = t
        .incident_when(&token, &id, |i| i["occurrences"] == 11)
        .await;
    assert_eq!(counted["status"], "RESOLVED", "{counted}");
    assert_eq!(counted["reopenCount"], 0);
    assert!(alerts_of(&t, &token, &id, "OPEN").await.is_empty());

    // Four more after the resolve meet the threshold of five: reopened and alerted.
    t.ingest_ok(&json!([warn(), warn(), warn(), warn()])).await;
    let reopened = t
        .incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(reopened["reopenCount"], 1);
    eventually("the reopen's alert", || async {
        let open = alerts_of(&t, &token, &id, "OPEN").await;
        (open.len() == 1).then_some(open)
    })
    .await;
}

/// A processor message of one ERROR log of `service`, stamped now; the log as parsed.
fn one_log_message(service: &str, n: usize) -> (String, incidents::model::Log) {
    let now = chrono::Utc::now();
    let stamp = now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let log = json!({
        "id": format!("{:013}-{n:032x}", now.timestamp_millis()),
        "serviceName": service,
        "type": "APPLICATION_LOG",
        "severity": "ERROR",
        "logContent": "ledger 7 out of balance",
        "timestamp": stamp,
        "receivedAt": stamp,
    });
    let body = json!({"kind": "logs", "logs": [log.clone()]}).to_string();
    (body, serde_json::from_value(log).unwrap())
}

/// Hands one message to the processor; it must succeed.
async fn deliver(processor: &dyn platform::SqsHandler, id: &str, body: &str) {
    let response = processor
        .handle(stack_tests::content::sqs_event(&[(id, body.to_string())]))
        .await
        .expect("batch handled");
    assert!(response.batch_item_failures.is_empty());
}

#[tokio::test]
async fn a_redelivered_message_finishes_a_half_done_reopen() {
    let t = TestStack::start().await;
    let (_, token) = t.operator("redelivery").await;
    only_rule(
        &t,
        &token,
        json!({"name": "ledger drift", "severities": ["ERROR"], "serviceName": "ledger",
                    "threshold": 1, "windowSeconds": 60}),
    )
    .await;
    let env = t.env("IncidentsProcessorFunction");
    let processor = incidents_processor_function::handler(env.clone())
        .await
        .unwrap();
    let (first, _) = one_log_message("ledger", 1);
    deliver(processor.as_ref(), "m1", &first).await;
    let id = t.incidents_when(&token, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{INCIDENTS}/{id}");
    let r = t
        .patch_json_auth_raw(&path, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_eq!(r.status(), 200);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;

    // The half-done state: the log's message counted into the incident (its grouped-log
    // marker, count and window row, as the processor's first step writes them), the reopen
    // that follows never committed.
    let (second, log) = one_log_message("ledger", 2);
    let incidents = incidents::Incidents::from_env(&env, &t.aws().await).unwrap();
    let key = incident_metrics::store::batch_key([log.id.as_str()]);
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let part = incidents::groups::Part {
        message: key,
        logs: vec![&log],
    };
    let counted = incidents
        .store()
        .count_group(&id, &[part], true, &now)
        .await
        .unwrap();
    assert_eq!(counted.logs, 1);
    let half = t.get_ok_auth(&path, &token).await;
    assert_eq!(half["occurrences"], 2, "{half}");
    assert_eq!(half["status"], "RESOLVED");
    assert!(alerts_of(&t, &token, &id, "OPEN").await.is_empty());

    // SQS delivers the message again: counted already, it finishes the reopen, once.
    deliver(processor.as_ref(), "m2", &second).await;
    deliver(processor.as_ref(), "m2-again", &second).await;
    let reopened = t.get_ok_auth(&path, &token).await;
    assert_eq!(reopened["status"], "ACTIVE", "{reopened}");
    assert_eq!(reopened["reopenCount"], 1);
    assert_eq!(reopened["occurrences"], 2, "counted once");
    assert_eq!(alerts_of(&t, &token, &id, "OPEN").await.len(), 1);
}
