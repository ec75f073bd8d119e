//! The PagerDuty Events API v2 (`/v2/enqueue`): a trigger, acknowledge and resolve sequence
//! by `dedup_key` moving one incident and its alert, answered as PagerDuty answers; a trigger
//! without a key given one; actions on nothing or done already change nothing; bad events
//! and unknown routing keys refused in PagerDuty's shape; a key bound to one service sends
//! that service's events.

use std::time::Duration;

use incidents::fingerprint::{client_fingerprint, incident_id};
use serde_json::{json, Value};
use stack_tests::incidents::{eventually, log, ALERTS};
use stack_tests::stack::{TestStack, INGEST_KEY};

const ENQUEUE: &str = "/api/v1/integrations/pagerduty/enqueue";

/// Posts `body` as a PagerDuty client library does; the status and the JSON answer.
async fn enqueue(t: &TestStack, body: &str) -> (u16, Value) {
    let r = t
        .send(
            t.http
                .post(t.url(ENQUEUE))
                .header("user-agent", "pdpyras/5.4.0")
                .header("content-type", "application/json")
                .body(body.to_string()),
        )
        .await;
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn event(t: &TestStack, body: Value) -> (u16, Value) {
    enqueue(t, &body.to_string()).await
}

fn trigger(key: &str, dedup_key: Option<&str>) -> Value {
    let mut body = json!({
        "routing_key": key,
        "event_action": "trigger",
        "payload": {
            "summary": "Checkout 5xx above 5% on checkout-1",
            "timestamp": chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3f+0000").to_string(),
            "source": "checkout-1.prod.example",
            "severity": "error",
            "component": "nginx",
            "group": "checkout",
            "class": "http 5xx",
            "custom_details": {"rate": "5.3%", "window": "5m"}
        },
        "links": [{"href": "https://grafana.example/d/checkout", "text": "Dashboard"}],
        "client": "Example Monitoring",
        "client_url": "https://monitoring.example"
    });
    if let Some(dedup_key) = dedup_key {
        body["dedup_key"] = json!(dedup_key);
    }
    body
}

fn action(action: &str, dedup_key: &str) -> Value {
    json!({"routing_key": INGEST_KEY, "event_action": action, "dedup_key": dedup_key})
}

fn processed(dedup_key: &str) -> Value {
    json!({"status": "success", "message": "Event processed", "dedup_key": dedup_key})
}

async fn alerts_of(t: &TestStack, token: &str, incident: &str) -> Vec<Value> {
    let all = t.get_ok_auth(&format!("{ALERTS}?limit=100"), token).await;
    all.as_array()
        .unwrap()
        .iter()
        .filter(|a| a["incidentId"] == incident)
        .cloned()
        .collect()
}

/// Waits until the processor has taken everything sent before.
async fn settled(t: &TestStack, token: &str, marker: &str) {
    t.ingest_ok(&json!(log("settle", "INFO", marker))).await;
    t.timeline_with(token, &format!("serviceName=settle&contains={marker}"), 1)
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
}

#[tokio::test]
async fn a_pagerduty_trigger_is_acknowledged_and_resolved_by_its_dedup_key() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    // The deployment's key is bound to no service: its events are of `pagerduty`.
    let id = incident_id(&client_fingerprint("pagerduty", "checkout-5xx"));

    assert_eq!(
        event(&t, trigger(INGEST_KEY, Some("checkout-5xx"))).await,
        (202, processed("checkout-5xx"))
    );
    let incident = t
        .incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(incident["serviceName"], "pagerduty");
    assert_eq!(
        incident["sampleMessage"],
        "Checkout 5xx above 5% on checkout-1"
    );
    let sample = &incident["recentOccurrences"][0];
    assert_eq!(sample["severity"], "ERROR");
    assert_eq!(sample["attributes"]["payload.component"], "nginx");
    assert_eq!(sample["attributes"]["client"], "Example Monitoring");
    let alert = eventually("the alert", || async {
        alerts_of(&t, &token, &id).await.pop()
    })
    .await;
    assert_eq!(alert["status"], "OPEN");

    // A second trigger is the same incident, counted.
    assert_eq!(
        event(&t, trigger(INGEST_KEY, Some("checkout-5xx"))).await.0,
        202
    );
    t.incident_when(&token, &id, |i| i["occurrences"] == 2)
        .await;

    assert_eq!(
        event(&t, action("acknowledge", "checkout-5xx")).await,
        (202, processed("checkout-5xx"))
    );
    let acknowledged = t
        .incident_when(&token, &id, |i| i["status"] == "ACKNOWLEDGED")
        .await;
    let last = acknowledged["history"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["by"], "pagerduty");
    assert_eq!(last["from"], "ACTIVE");
    assert_eq!(
        alerts_of(&t, &token, &id).await[0]["status"],
        "ACKNOWLEDGED"
    );

    assert_eq!(
        event(&t, action("resolve", "checkout-5xx")).await,
        (202, processed("checkout-5xx"))
    );
    let resolved = t
        .incident_when(&token, &id, |i| i["status"] == "RESOLVED")
        .await;
    assert_eq!(alerts_of(&t, &token, &id).await[0]["status"], "RESOLVED");
    let changes = resolved["history"].as_array().unwrap().len();

    // Resolving again, acknowledging a resolved one, or acting on no incident: nothing.
    for body in [
        action("resolve", "checkout-5xx"),
        action("acknowledge", "checkout-5xx"),
        action("resolve", "never-triggered"),
    ] {
        assert_eq!(event(&t, body).await.0, 202);
    }
    settled(&t, &token, "after-actions").await;
    let after = t.incident_when(&token, &id, |_| true).await;
    assert_eq!(after["status"], "RESOLVED");
    assert_eq!(after["history"].as_array().unwrap().len(), changes);
    let missing = incident_id(&client_fingerprint("pagerduty", "never-triggered"));
    let r = t
        .get_auth(&format!("/api/v1/incidents/{missing}"), &token)
        .await;
    assert_eq!(r.status(), 404);

    // A new trigger after the resolve reopens it.
    assert_eq!(
        event(&t, trigger(INGEST_KEY, Some("checkout-5xx"))).await.0,
        202
    );
    let reopened = t
        .incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(reopened["reopenCount"], 1);

    // A trigger without a key is given one, which then resolves it.
    let (status, answer) = event(&t, trigger(INGEST_KEY, None)).await;
    assert_eq!(status, 202);
    let generated = answer["dedup_key"].as_str().unwrap().to_string();
    assert_eq!(generated.len(), 32, "{answer}");
    let other = incident_id(&client_fingerprint("pagerduty", &generated));
    t.incident_when(&token, &other, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(event(&t, action("resolve", &generated)).await.0, 202);
    t.incident_when(&token, &other, |i| i["status"] == "RESOLVED")
        .await;
}

#[tokio::test]
async fn pagerduty_events_are_refused_as_pagerduty_refuses_them() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let invalid = |errors: &[&str]| json!({"status": "invalid event", "message": "Event object is invalid", "errors": errors});
    assert_eq!(
        event(&t, json!({"event_action": "trigger"})).await,
        (400, invalid(&["'routing_key' is missing or blank"]))
    );
    assert_eq!(
        event(&t, trigger("not-a-key", Some("k"))).await,
        (400, invalid(&["Invalid routing key"]))
    );
    assert_eq!(
        event(
            &t,
            json!({"routing_key": INGEST_KEY, "event_action": "resolve"})
        )
        .await,
        (400, invalid(&["'dedup_key' is missing or blank"]))
    );
    let mut bad = trigger(INGEST_KEY, Some("k"));
    bad["payload"]["severity"] = json!("major");
    assert_eq!(
        event(&t, bad).await,
        (
            400,
            invalid(&["'payload.severity' must be one of critical, error, warning or info"])
        )
    );
    assert_eq!(
        event(
            &t,
            json!({"routing_key": INGEST_KEY, "event_action": "page"})
        )
        .await,
        (
            400,
            invalid(&["'event_action' must be one of trigger, acknowledge or resolve"])
        )
    );
    assert_eq!(
        enqueue(&t, "{not json").await,
        (400, invalid(&["Event object is not valid JSON"]))
    );

    // An issued key bound to one service sends that service's events.
    let admin = t.admin_token().await;
    let (_, token) = t.operator("oncall").await;
    let r = t
        .post_json_auth(
            "/api/v1/ingest/keys",
            &admin,
            &json!({"name": "payments-pd", "services": ["payments"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let key = r.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(event(&t, trigger(&key, Some("db-disk"))).await.0, 202);
    let id = incident_id(&client_fingerprint("payments", "db-disk"));
    let incident = t
        .incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(incident["serviceName"], "payments");
}

/// A message of one PagerDuty event as the ingest function queues it: `received` when it
/// was accepted, `n` its id's random part.
fn queued(action: &str, n: u32, received: chrono::DateTime<chrono::Utc>) -> String {
    let stamp = received.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    json!({"kind": "logs", "logs": [{
        "id": format!("{:013}-{n:032x}", received.timestamp_millis()),
        "serviceName": "pagerduty",
        "type": "PAGERDUTY_EVENT",
        "severity": "ERROR",
        "logContent": format!("db-1 disk full ({action})"),
        "timestamp": stamp,
        "receivedAt": stamp,
        "fingerprint": "db-1-disk",
        "source": "pagerduty",
        "action": action,
    }]})
    .to_string()
}

#[tokio::test]
async fn actions_follow_their_triggers_and_a_redelivered_resolve_leaves_a_reopening_alone() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let deliver = |messages: Vec<(&'static str, String)>| {
        let processor = processor.clone();
        async move {
            let response = processor
                .handle(stack_tests::content::sqs_event(&messages))
                .await
                .unwrap();
            assert!(response.batch_item_failures.is_empty());
        }
    };
    let id = incident_id(&client_fingerprint("pagerduty", "db-1-disk"));
    let start = chrono::Utc::now();
    let trigger = queued("trigger", 1, start);
    let resolve = queued("resolve", 2, start + chrono::Duration::milliseconds(5));
    // A trigger and its resolve in one batch: opened, then resolved.
    deliver(vec![("m1", resolve.clone()), ("m2", trigger.clone())]).await;
    let resolved = t
        .incident_when(&token, &id, |i| i["status"] == "RESOLVED")
        .await;
    let history = resolved["history"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(history[1]["by"], "pagerduty");

    // Triggered again later: reopened. The old resolve redelivered leaves it open, the old
    // trigger redelivered counts nothing.
    tokio::time::sleep(Duration::from_millis(20)).await;
    deliver(vec![("m3", queued("trigger", 3, chrono::Utc::now()))]).await;
    let reopened = t
        .incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(reopened["occurrences"], 2);
    deliver(vec![("m4", resolve), ("m5", trigger)]).await;
    let after = t.incident_when(&token, &id, |_| true).await;
    assert_eq!(after["status"], "ACTIVE");
    assert_eq!(after["reopenCount"], 1);
    assert_eq!(after["occurrences"], 2);
}
