//! Incidents from integrations: one incident acted on by its PagerDuty `dedup_key` (a storm
//! of triggers from every host of a check, and trigger/acknowledge/resolve cycles), and
//! Alertmanager re-sending its firing groups (the repeats that must cost little and change
//! nothing).

use futures::StreamExt;
use incidents::fingerprint::{client_fingerprint, incident_id};
use serde_json::{json, Value};
use stack_tests::stack::INGEST_KEY;
use stack_tests::TestStack;

use super::{name, Bench};

const ENQUEUE: &str = "/api/v1/integrations/pagerduty/enqueue";
const ALERTMANAGER: &str = "/api/v1/integrations/alertmanager";
/// Events of one scenario, and how many are sent at once.
const EVENTS: usize = 300;
const AT_ONCE: usize = 25;
/// Alerts in each Alertmanager group of the repeats scenario.
const ALERTS_PER_GROUP: usize = 20;

/// Posts `body` to `path` as the integration's clients do (Alertmanager with the key as its
/// bearer token, PagerDuty senders with it as `routing_key`).
async fn post(t: &TestStack, path: &str, body: &Value) {
    let answer = t
        .send(
            t.http
                .post(t.url(path))
                .header("authorization", format!("Bearer {INGEST_KEY}"))
                .json(body),
        )
        .await;
    assert!(answer.status().is_success(), "{path}: {}", answer.status());
}

fn event(action: &str, dedup_key: &str, host: usize) -> Value {
    let mut body =
        json!({"routing_key": INGEST_KEY, "event_action": action, "dedup_key": dedup_key});
    if action == "trigger" {
        body["payload"] = json!({"summary": "checkout 5xx above 5%",
            "source": format!("checkout-{host}.prod"), "severity": "error"});
    }
    body
}

async fn all(t: &TestStack, path: &str, bodies: &[Value]) {
    futures::stream::iter(bodies)
        .map(|body| post(t, path, body))
        .buffer_unordered(AT_ONCE)
        .collect::<Vec<_>>()
        .await;
}

/// A firing group of `alerts` alerts of `service`, as Alertmanager sends it.
fn group(service: &str, alerts: usize) -> Value {
    let alerts: Vec<Value> = (0..alerts)
        .map(|i| {
            json!({"status": "firing",
                "labels": {"alertname": "TargetDown", "job": service, "instance": format!("host-{i}:9100"), "severity": "warning"},
                "annotations": {"summary": format!("host-{i} down")},
                "startsAt": "2026-12-03T07:00:00.000Z", "endsAt": "0001-01-01T00:00:00Z",
                "generatorURL": "http://prometheus:9090/graph",
                "fingerprint": format!("{:016x}", i + 1)})
        })
        .collect();
    json!({"receiver": "platform", "status": "firing", "alerts": alerts, "version": "4",
        "groupKey": format!("{{}}:{{job=\"{service}\"}}"), "truncatedAlerts": 0,
        "groupLabels": {"job": service}, "commonLabels": {"job": service},
        "commonAnnotations": {}, "externalURL": "http://alertmanager:9093"})
}

pub(super) async fn integrations(b: &mut Bench, t: &TestStack) {
    // The incident open already: the steady state of a storm.
    b.warm_up(post(t, ENQUEUE, &event("trigger", "checkout-5xx", 0)))
        .await;
    let storm: Vec<Value> = (0..EVENTS)
        .map(|host| event("trigger", "checkout-5xx", host))
        .collect();
    // 2,000 triggers a second on one dedup_key (a check failing on every host at once),
    // through one key: the rate the logs scenarios give a key (2,000 requests a second).
    b.measure(
        "incidents",
        "PagerDuty triggers on one dedup_key",
        2e3,
        1.0,
        EVENTS,
        all(t, ENQUEUE, &storm),
    )
    .await;
    let cycles: Vec<Value> = (0..EVENTS)
        .map(|i| {
            event(
                ["trigger", "acknowledge", "resolve"][i % 3],
                "flapping-check",
                i,
            )
        })
        .collect();
    // 1,000 events a second on one dedup_key, a third each trigger, acknowledge, resolve:
    // a flapping check opened, acknowledged and resolved over and over.
    b.measure(
        "incidents",
        "PagerDuty trigger/acknowledge/resolve on one dedup_key",
        1e3,
        1.0,
        EVENTS,
        all(t, ENQUEUE, &cycles),
    )
    .await;
    // Alertmanager re-sending firing groups of 20 alerts (every group_interval and
    // repeat_interval): 2,000 notifications a second, 40,000 alerts, over 10,000 groups.
    let services: Vec<String> = (0..5).map(|n| name("amsvc", n)).collect();
    let groups: Vec<Value> = services
        .iter()
        .map(|s| group(s, ALERTS_PER_GROUP))
        .collect();
    let token = t.operator("keyheat-alertmanager").await.1;
    b.warm_up(async {
        all(t, ALERTMANAGER, &groups).await;
        // Every alert's incident open and its alert raised before the repeats are measured.
        for service in &services {
            for i in 0..ALERTS_PER_GROUP {
                let id = incident_id(&client_fingerprint(
                    service,
                    &format!("alertmanager:{:016x}", i + 1),
                ));
                t.incident_when(&token, &id, |i| i["status"] == "ACTIVE")
                    .await;
            }
        }
    })
    .await;
    let repeats: Vec<Value> = (0..EVENTS / groups.len())
        .flat_map(|_| groups.clone())
        .collect();
    b.measure(
        "incidents",
        "Alertmanager repeats of firing groups",
        2e3,
        1e4,
        repeats.len(),
        all(t, ALERTMANAGER, &repeats),
    )
    .await;
}
