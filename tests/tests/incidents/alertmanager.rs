//! Prometheus Alertmanager's webhook receiver: notifications shaped and sent as Alertmanager
//! 0.27 sends them (its User-Agent, `http_config.authorization` as a Bearer key, or
//! `basic_auth`), firing alerts opening one incident per alert fingerprint and notified, the
//! whole group re-sent without inflating or reopening anything, acknowledging an incident
//! acknowledging its alerts, resolved alerts resolving incident and alerts, a new firing
//! reopening; bad bodies and keys refused.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use incidents::fingerprint::{client_fingerprint, incident_id};
use serde_json::{json, Value};
use stack_tests::incidents::{eventually, log, ALERTS, INCIDENTS};
use stack_tests::server::FakeServer;
use stack_tests::stack::{TestStack, INGEST_KEY};

const RECEIVER: &str = "/api/v1/integrations/alertmanager";

/// One alert of a notification, as Alertmanager renders it.
fn alert(status: &str, fingerprint: &str, name: &str, severity: &str, starts_at: &str) -> Value {
    json!({
        "status": status,
        "labels": {"alertname": name, "job": "checkout", "severity": severity,
                   "instance": "checkout-1:9100"},
        "annotations": {"summary": format!("{name} on checkout"),
                        "runbook_url": "https://runbooks.example/checkout"},
        "startsAt": starts_at,
        "endsAt": if status == "firing" { "0001-01-01T00:00:00Z".to_string() }
                  else { chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Nanos, true) },
        "generatorURL": "http://prometheus:9090/graph?g0.expr=up&g0.tab=1",
        "fingerprint": fingerprint
    })
}

/// A notification of `alerts`, as Alertmanager's webhook receiver sends it.
fn notification(status: &str, alerts: Vec<Value>) -> Value {
    json!({
        "receiver": "incident-platform",
        "status": status,
        "alerts": alerts,
        "groupLabels": {"job": "checkout"},
        "commonLabels": {"job": "checkout"},
        "commonAnnotations": {},
        "externalURL": "http://alertmanager:9093",
        "version": "4",
        "groupKey": "{}/{severity=~\"critical|warning\"}:{job=\"checkout\"}",
        "truncatedAlerts": 0
    })
}

/// Posts `body` as Alertmanager does, with `authorization` as the Authorization header.
async fn send(t: &TestStack, authorization: Option<&str>, body: &Value) -> reqwest::Response {
    let mut request = t
        .http
        .post(t.url(RECEIVER))
        .header("user-agent", "Alertmanager/0.27.0")
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    t.send(request).await
}

async fn send_ok(t: &TestStack, body: &Value) -> Value {
    let r = send(t, Some(&format!("Bearer {INGEST_KEY}")), body).await;
    let status = r.status();
    let answer: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{answer}");
    answer
}

fn incident_of(fingerprint: &str) -> String {
    incident_id(&client_fingerprint(
        "checkout",
        &format!("alertmanager:{fingerprint}"),
    ))
}

/// Waits until the processor has taken everything sent before: a log sent after it is on
/// the timeline (one poller takes the queue's messages in order).
async fn settled(t: &TestStack, token: &str, marker: &str) {
    t.ingest_ok(&json!(log("settle", "INFO", marker))).await;
    t.timeline_with(token, &format!("serviceName=settle&contains={marker}"), 1)
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
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

async fn hooked(State(seen): State<Arc<Mutex<Vec<Value>>>>, uri: Uri, body: String) -> StatusCode {
    if let Ok(mut event) = serde_json::from_str::<Value>(&body) {
        event["path"] = json!(uri.path());
        stack_tests::server::lock(&seen).push(event);
    }
    StatusCode::NO_CONTENT
}

async fn notified(receiver: &FakeServer<Vec<Value>>, incident: &str, kind: &str) -> Value {
    eventually(&format!("{kind} of {incident} notified"), || async {
        receiver
            .lock()
            .iter()
            .find(|e| e["type"] == kind && e["detail"]["incidentId"] == incident)
            .cloned()
    })
    .await
}

#[tokio::test]
async fn alertmanager_alerts_open_repeat_acknowledge_and_resolve_incidents() {
    let t = TestStack::start_with(
        [(
            "WebhookAllowPrivateNetworks".to_string(),
            "true".to_string(),
        )]
        .into(),
    )
    .await;
    let receiver = FakeServer::start(Vec::<Value>::new(), hooked).await;
    let (_, token) = t.operator("oncall").await;
    let r = t
        .post_json_auth(
            "/api/v1/notifications/channels",
            &token,
            &json!({"name": "checkout", "kind": "webhook", "url": receiver.url("/hooks"),
                    "secret": "checkout-secret-0001", "services": ["checkout"]}),
        )
        .await;
    assert_eq!(r.status(), 201);

    // Two alerts fire in one group.
    let started = "2026-12-03T07:55:12.345678901Z";
    let firing = notification(
        "firing",
        vec![
            alert(
                "firing",
                "3f1e2d4c5b6a7988",
                "HighErrorRate",
                "critical",
                started,
            ),
            alert(
                "firing",
                "0a1b2c3d4e5f6071",
                "SlowCheckout",
                "warning",
                started,
            ),
        ],
    );
    let answer = send_ok(&t, &firing).await;
    assert_eq!(answer["accepted"], 2);
    let errors = incident_of("3f1e2d4c5b6a7988");
    let slow = incident_of("0a1b2c3d4e5f6071");
    let incident = t
        .incident_when(&token, &errors, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(incident["serviceName"], "checkout");
    assert_eq!(incident["type"], "ALERTMANAGER_ALERT");
    assert_eq!(incident["sampleMessage"], "HighErrorRate on checkout");
    assert_eq!(incident["occurrences"], 1);
    let sample = &incident["recentOccurrences"][0];
    assert_eq!(sample["severity"], "FATAL");
    assert_eq!(sample["ruleIds"], json!(["integration"]));
    assert_eq!(sample["attributes"]["instance"], "checkout-1:9100");
    assert_eq!(
        sample["attributes"]["annotations.runbook_url"],
        "https://runbooks.example/checkout"
    );
    let other = t
        .incident_when(&token, &slow, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(other["recentOccurrences"][0]["severity"], "WARN");
    let opened = notified(&receiver, &errors, "Incident Opened").await;
    assert_eq!(opened["detail"]["severity"], "FATAL");
    let raised = eventually("the alerts raised", || async {
        let a = alerts_of(&t, &token, &errors).await;
        (a.len() == 1).then_some(a)
    })
    .await;
    assert_eq!(raised[0]["status"], "OPEN");
    assert_eq!(raised[0]["ruleId"], "integration");

    // repeat_interval: the same group again changes nothing.
    send_ok(&t, &firing).await;
    send_ok(&t, &firing).await;
    settled(&t, &token, "after-repeats").await;
    let incident = t.incident_when(&token, &errors, |_| true).await;
    assert_eq!(incident["occurrences"], 1, "a repeat is the same alert");
    assert_eq!(alerts_of(&t, &token, &errors).await.len(), 1);

    // Acknowledged by an operator: its alert with it.
    let r = t
        .patch_json_auth(
            &format!("{INCIDENTS}/{errors}"),
            &token,
            &json!({"status": "ACKNOWLEDGED"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let acknowledged = alerts_of(&t, &token, &errors).await;
    assert_eq!(
        acknowledged[0]["status"], "ACKNOWLEDGED",
        "{acknowledged:?}"
    );
    assert_eq!(alerts_of(&t, &token, &slow).await[0]["status"], "OPEN");

    // Both resolve in Prometheus: Alertmanager sends them resolved.
    let resolved = notification(
        "resolved",
        vec![
            alert(
                "resolved",
                "3f1e2d4c5b6a7988",
                "HighErrorRate",
                "critical",
                started,
            ),
            alert(
                "resolved",
                "0a1b2c3d4e5f6071",
                "SlowCheckout",
                "warning",
                started,
            ),
        ],
    );
    send_ok(&t, &resolved).await;
    for id in [&errors, &slow] {
        let incident = t
            .incident_when(&token, id, |i| i["status"] == "RESOLVED")
            .await;
        let last = incident["history"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(last["by"], "alertmanager", "{last}");
        assert_eq!(last["to"], "RESOLVED");
        let alerts = alerts_of(&t, &token, id).await;
        assert!(
            alerts.iter().all(|a| a["status"] == "RESOLVED"),
            "{alerts:?}"
        );
        notified(&receiver, id, "Incident Resolved").await;
    }

    // The old firing notification re-sent, and the resolved one again: nothing reopens.
    send_ok(&t, &firing).await;
    send_ok(&t, &resolved).await;
    settled(&t, &token, "after-stale").await;
    let incident = t.incident_when(&token, &errors, |_| true).await;
    assert_eq!(incident["status"], "RESOLVED");
    assert_eq!(incident["reopenCount"], 0);
    assert_eq!(incident["occurrences"], 1);

    // It fires again (a new start): the incident reopens and a new alert is raised.
    let again = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    send_ok(
        &t,
        &notification(
            "firing",
            vec![alert(
                "firing",
                "3f1e2d4c5b6a7988",
                "HighErrorRate",
                "critical",
                &again,
            )],
        ),
    )
    .await;
    let reopened = t
        .incident_when(&token, &errors, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(reopened["reopenCount"], 1);
    assert_eq!(reopened["occurrences"], 2);
    let alerts = eventually("a second alert", || async {
        let a = alerts_of(&t, &token, &errors).await;
        (a.len() == 2).then_some(a)
    })
    .await;
    assert_eq!(alerts.iter().filter(|a| a["status"] == "OPEN").count(), 1);
}

#[tokio::test]
async fn the_receiver_takes_the_key_as_alertmanager_sends_it_and_refuses_bad_bodies() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let empty = notification("firing", vec![]);
    // basic_auth: any username, the key as the password.
    use base64::Engine;
    let basic =
        base64::engine::general_purpose::STANDARD.encode(format!("alertmanager:{INGEST_KEY}"));
    let r = send(&t, Some(&format!("Basic {basic}")), &empty).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["accepted"], 0);

    for authorization in [None, Some("Bearer not-a-key"), Some("Basic bm90LWEta2V5")] {
        let r = send(&t, authorization, &empty).await;
        assert_eq!(r.status(), 401, "{authorization:?}");
    }
    let (_, user) = t.user("plain").await;
    let r = send(&t, Some(&format!("Bearer {user}")), &empty).await;
    assert_eq!(r.status(), 401, "a person's token is no ingest key");

    let bearer = format!("Bearer {INGEST_KEY}");
    let r = send(
        &t,
        Some(&bearer),
        &json!({"version": "4", "alerts": [{"status": "pending", "labels": {}, "startsAt": "2026-12-03T07:00:00Z"}]}),
    )
    .await;
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["details"].to_string().contains("alerts[0].status"),
        "{body}"
    );
    let too_many: Vec<Value> = (0..501)
        .map(|i| {
            alert(
                "firing",
                &format!("{i:016x}"),
                "A",
                "info",
                "2026-12-03T07:00:00Z",
            )
        })
        .collect();
    let r = send(&t, Some(&bearer), &notification("firing", too_many)).await;
    assert_eq!(r.status(), 400);
    let r = t
        .send(
            t.http
                .post(t.url(RECEIVER))
                .header("authorization", &bearer)
                .header("content-type", "application/json")
                .body("{not json"),
        )
        .await;
    assert_eq!(r.status(), 400);

    // A key bound to another service may not send checkout's alerts.
    let admin = t.admin_token().await;
    let r = t
        .post_json_auth(
            "/api/v1/ingest/keys",
            &admin,
            &json!({"name": "payments-am", "services": ["payments"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let key = r.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    let one = notification(
        "firing",
        vec![alert(
            "firing",
            "00000000000000aa",
            "A",
            "info",
            "2026-12-03T07:00:00Z",
        )],
    );
    let r = send(&t, Some(&format!("Bearer {key}")), &one).await;
    assert_eq!(r.status(), 403);
}
