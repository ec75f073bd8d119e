//! Silences and maintenance windows: an incident a silence matches is recorded (opened,
//! grouped, alerted) and shows `silencedBy`, but nothing is notified nor escalated; when the
//! silence ends (expired by hand or by time) the still-open incident notifies once
//! (`Incident Unsilenced`), however many end passes run; a scheduled silence holds nothing
//! before it starts; bad bodies are 400s naming the field; operators only.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use incidents::escalation::Outcome;
use incidents_sweeper_function::IncidentsSweeper;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::incidents::{log, INCIDENTS};
use stack_tests::server::{lock, FakeServer};
use stack_tests::stack::TestStack;

const CHANNELS: &str = "/api/v1/notifications/channels";
const SILENCES: &str = "/api/v1/silences";

/// The calls a receiver got: path and body.
type Calls = Vec<(String, Value)>;

async fn receive(State(seen): State<Arc<Mutex<Calls>>>, uri: Uri, body: String) -> StatusCode {
    let body = serde_json::from_str(&body).unwrap_or(Value::Null);
    lock(&seen).push((uri.path().to_string(), body));
    StatusCode::NO_CONTENT
}

/// The event types `path` got, in order.
fn types(receiver: &FakeServer<Calls>, path: &str) -> Vec<String> {
    receiver
        .lock()
        .iter()
        .filter(|(p, _)| p == path)
        .map(|(_, b)| b["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Waits (up to 20 s) until `path` got an event of `kind`.
async fn wait_for(receiver: &FakeServer<Calls>, path: &str, kind: &str) {
    for _ in 0..200 {
        if types(receiver, path).iter().any(|t| t == kind) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no {kind} on {path}: {:?}", receiver.lock());
}

fn burst(service: &str) -> Value {
    json!((0..5)
        .map(|i| log(
            service,
            "ERROR",
            &format!("Payment gateway timeout after {i}00 ms")
        ))
        .collect::<Vec<_>>())
}

async fn sweeper_at(t: &TestStack, minutes: i64) -> IncidentsSweeper {
    IncidentsSweeper::from_env(
        &t.env("IncidentsSweeperFunction"),
        Clock::fixed(chrono::Utc::now() + chrono::Duration::minutes(minutes)),
    )
    .await
    .unwrap()
}

async fn created(t: &TestStack, path: &str, token: &str, body: Value) -> Value {
    let r = t.post_json_auth(path, token, &body).await;
    let status = r.status();
    let answer: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{body} -> {answer}");
    answer
}

/// A primary webhook channel for checkout that escalates after a minute to a secondary one.
async fn channels(t: &TestStack, token: &str, receiver: &FakeServer<Calls>) -> (Value, Value) {
    let secondary = created(
        t,
        CHANNELS,
        token,
        json!({"name": "secondary", "kind": "webhook", "url": receiver.url("/secondary"),
               "secret": "secondary-secret-01", "escalationOnly": true}),
    )
    .await;
    let primary = created(
        t,
        CHANNELS,
        token,
        json!({"name": "primary", "kind": "webhook", "url": receiver.url("/primary"),
               "secret": "primary-secret-0001", "services": ["checkout"],
               "escalateAfterMinutes": 1, "escalateTo": secondary["id"]}),
    )
    .await;
    (primary, secondary)
}

fn private_networks() -> BTreeMap<String, String> {
    BTreeMap::from([(
        "WebhookAllowPrivateNetworks".to_string(),
        "true".to_string(),
    )])
}

#[tokio::test]
async fn a_silenced_incident_is_recorded_not_notified_and_notified_once_when_expired() {
    let t = TestStack::start_with(private_networks()).await;
    let receiver = FakeServer::start(Calls::new(), receive).await;
    let (_, token) = t.operator("oncall").await;
    channels(&t, &token, &receiver).await;

    let silence = created(
        &t,
        SILENCES,
        &token,
        json!({"comment": "Payment provider maintenance", "matchers": {"services": ["checkout"]},
               "durationMinutes": 60}),
    )
    .await;
    let sid = silence["id"].as_str().unwrap().to_string();
    assert_eq!(silence["state"], "active");
    assert_eq!(silence["createdBy"], "oncall");
    assert_eq!(silence["matchers"]["services"], json!(["checkout"]));

    // Recorded as usual (opened, alert raised), shown as silenced; nothing sent.
    t.ingest_ok(&burst("checkout")).await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let id = incident["id"].as_str().unwrap().to_string();
    let shown = t
        .incident_when(&token, &id, |i| i["silencedBy"] == json!([sid]))
        .await;
    assert_eq!(shown["status"], "ACTIVE");
    let alerts = t.get_ok_auth("/api/v1/alerts", &token).await;
    assert!(
        alerts
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["incidentId"] == id.as_str()),
        "the alert is raised: {alerts}"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(receiver.lock().is_empty(), "{:?}", receiver.lock());
    // No escalation was scheduled: nobody was told.
    let outcomes = sweeper_at(&t, 5).await.escalate().await.unwrap();
    assert!(outcomes.is_empty(), "{outcomes:?}");

    // Expired by hand: listed as expired, no longer active.
    let r = t.delete_auth(&format!("{SILENCES}/{sid}"), &token).await;
    assert_eq!(r.status(), 204);
    let expired = t.get_ok_auth(&format!("{SILENCES}/{sid}"), &token).await;
    assert_eq!(expired["state"], "expired");
    assert_eq!(expired["expiredBy"], "oncall");
    let active = t
        .get_ok_auth(&format!("{SILENCES}?state=active"), &token)
        .await;
    assert!(active.as_array().unwrap().is_empty(), "{active}");
    let listed = t
        .get_ok_auth(&format!("{SILENCES}?state=expired"), &token)
        .await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["id"], sid.as_str());

    // Two end passes at once, then a third: the incident notifies once.
    let (first, second) = tokio::join!(
        async { sweeper_at(&t, 0).await.release_silences().await.unwrap() },
        async { sweeper_at(&t, 0).await.release_silences().await.unwrap() },
    );
    let third = sweeper_at(&t, 0).await.release_silences().await.unwrap();
    assert!(third.is_empty(), "released already: {third:?}");
    let notified: Vec<String> = first
        .iter()
        .chain(second.iter())
        .flat_map(|(_, r)| r.notified.clone())
        .collect();
    assert_eq!(notified, vec![id.clone()], "{first:?} {second:?}");
    wait_for(&receiver, "/primary", "Incident Unsilenced").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(types(&receiver, "/primary"), vec!["Incident Unsilenced"]);
    let body = receiver.lock()[0].1.clone();
    assert_eq!(body["detail"]["incidentId"], id.as_str());
    assert_eq!(body["detail"]["status"], "ACTIVE");
    assert_eq!(body["detail"]["severity"], "ERROR");
    assert!(
        body["detail"]["note"].as_str().unwrap().contains(&sid),
        "{body}"
    );
    let shown = t
        .incident_when(&token, &id, |i| i.get("silencedBy").is_none())
        .await;
    assert_eq!(shown["status"], "ACTIVE");

    // Told now, so its escalation runs as after an opening.
    let outcomes = sweeper_at(&t, 2).await.escalate().await.unwrap();
    assert!(
        matches!(outcomes.as_slice(), [Outcome::Escalated { incident_id, .. }] if *incident_id == id),
        "{outcomes:?}"
    );
    wait_for(&receiver, "/secondary", "Incident Escalated").await;
}

#[tokio::test]
async fn escalation_waits_while_silenced_and_a_scheduled_silence_starts_later() {
    let t = TestStack::start_with(private_networks()).await;
    let receiver = FakeServer::start(Calls::new(), receive).await;
    let (_, token) = t.operator("oncall").await;
    channels(&t, &token, &receiver).await;

    // Tonight's window: pending until it starts, it holds nothing now.
    let starts = chrono::Utc::now() + chrono::Duration::hours(2);
    let window = created(
        &t,
        SILENCES,
        &token,
        json!({"comment": "DB migration 22:00-23:00", "matchers": {"services": ["checkout"]},
               "startsAt": starts.to_rfc3339(),
               "endsAt": (starts + chrono::Duration::hours(1)).to_rfc3339()}),
    )
    .await;
    assert_eq!(window["state"], "pending");
    let pending = t
        .get_ok_auth(&format!("{SILENCES}?state=pending"), &token)
        .await;
    assert_eq!(pending[0]["id"], window["id"]);
    t.ingest_ok(&burst("checkout")).await;
    let id = t.incidents_when(&token, 1).await.remove(0)["id"]
        .as_str()
        .unwrap()
        .to_string();
    wait_for(&receiver, "/primary", "Incident Opened").await;

    // Silenced after it was told: its escalation is held, not sent.
    let silence = created(
        &t,
        SILENCES,
        &token,
        json!({"comment": "Known issue, vendor on it", "matchers": {"severities": ["ERROR"]},
               "durationMinutes": 5}),
    )
    .await;
    let sid = silence["id"].as_str().unwrap().to_string();
    let outcomes = sweeper_at(&t, 2).await.escalate().await.unwrap();
    assert_eq!(
        outcomes,
        vec![Outcome::Silenced {
            incident_id: id.clone(),
            silences: vec![sid.clone()],
        }]
    );
    t.incident_when(&token, &id, |i| i["silencedBy"] == json!([sid]))
        .await;
    // Before its end nothing is released.
    assert!(sweeper_at(&t, 3)
        .await
        .release_silences()
        .await
        .unwrap()
        .is_empty());

    // It ends by time: the incident, still unacknowledged, notifies once.
    let released = sweeper_at(&t, 6).await.release_silences().await.unwrap();
    assert_eq!(released.len(), 1, "only the ended one: {released:?}");
    assert_eq!(released[0].1.notified, vec![id.clone()]);
    wait_for(&receiver, "/primary", "Incident Unsilenced").await;
    assert!(
        types(&receiver, "/secondary").is_empty(),
        "no escalation while silenced: {:?}",
        receiver.lock()
    );
    // The window is still pending.
    let window = t
        .get_ok_auth(
            &format!("{SILENCES}/{}", window["id"].as_str().unwrap()),
            &token,
        )
        .await;
    assert_eq!(window["state"], "pending");
}

#[tokio::test]
async fn a_resolved_incident_is_released_without_a_notification() {
    let t = TestStack::start_with(private_networks()).await;
    let receiver = FakeServer::start(Calls::new(), receive).await;
    let (_, token) = t.operator("oncall").await;
    channels(&t, &token, &receiver).await;
    let silence = created(
        &t,
        SILENCES,
        &token,
        json!({"comment": "noisy", "matchers": {"types": ["payment"], "services": ["checkout"]},
               "durationMinutes": 30}),
    )
    .await;
    let sid = silence["id"].as_str().unwrap().to_string();
    let logs: Vec<Value> = (0..5)
        .map(|i| {
            let mut l = log("checkout", "ERROR", &format!("Card declined {i}"));
            l["type"] = json!("payment");
            l
        })
        .collect();
    t.ingest_ok(&json!(logs)).await;
    let id = t.incidents_when(&token, 1).await.remove(0)["id"]
        .as_str()
        .unwrap()
        .to_string();
    t.incident_when(&token, &id, |i| i["silencedBy"] == json!([sid]))
        .await;
    // Resolved during the silence: nothing to tell when it ends.
    let r = t
        .patch_json_auth(
            &format!("{INCIDENTS}/{id}"),
            &token,
            &json!({"status": "RESOLVED"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(receiver.lock().is_empty(), "{:?}", receiver.lock());
    let r = t.delete_auth(&format!("{SILENCES}/{sid}"), &token).await;
    assert_eq!(r.status(), 204);
    let released = sweeper_at(&t, 0).await.release_silences().await.unwrap();
    assert_eq!(released.len(), 1);
    assert!(released[0].1.notified.is_empty(), "{released:?}");
    assert_eq!(released[0].1.dropped, 1);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(receiver.lock().is_empty(), "{:?}", receiver.lock());
}

#[tokio::test]
async fn silences_are_validated_paged_and_for_operators() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let (_, user) = t.user("reader").await;
    for (method, path) in [
        ("GET", SILENCES.to_string()),
        ("POST", SILENCES.to_string()),
        ("GET", format!("{SILENCES}/{}", uuid::Uuid::new_v4())),
        ("DELETE", format!("{SILENCES}/{}", uuid::Uuid::new_v4())),
    ] {
        let body = json!({"comment": "x", "matchers": {"services": ["a"]}, "durationMinutes": 5});
        let (anonymous, plain) = match method {
            "GET" => (t.get(&path).await, t.get_auth(&path, &user).await),
            "POST" => (
                t.post_json(&path, &body).await,
                t.post_json_auth(&path, &user, &body).await,
            ),
            _ => (
                t.send(t.http.delete(t.url(&path))).await,
                t.delete_auth(&path, &user).await,
            ),
        };
        assert_eq!(anonymous.status(), 401, "{method} {path}");
        assert_eq!(plain.status(), 403, "{method} {path}");
    }

    let now = chrono::Utc::now();
    for (body, field) in [
        (
            json!({"comment": "x", "matchers": {}, "durationMinutes": 5}),
            "matchers",
        ),
        (json!({"comment": "x", "durationMinutes": 5}), "matchers"),
        (
            json!({"comment": "x", "matchers": {"services": ["a"]},
                "startsAt": (now + chrono::Duration::hours(2)).to_rfc3339(),
                "endsAt": (now + chrono::Duration::hours(1)).to_rfc3339()}),
            "endsAt",
        ),
        (
            json!({"comment": "x", "matchers": {"services": ["a"]}, "durationMinutes": 0}),
            "durationMinutes",
        ),
        (
            json!({"comment": "x", "matchers": {"services": ["a"]}, "durationMinutes": 10081}),
            "durationMinutes",
        ),
        (
            json!({"comment": "x", "matchers": {"services": ["a"]}}),
            "endsAt",
        ),
        (
            json!({"comment": " ", "matchers": {"services": ["a"]}, "durationMinutes": 5}),
            "comment",
        ),
        (
            json!({"comment": "x", "matchers": {"labels": {"env": 3}}, "durationMinutes": 5}),
            "matchers.labels",
        ),
    ] {
        let r = t.post_json_auth(SILENCES, &token, &body).await;
        assert_eq!(r.status(), 400, "{body}");
        let answer: Value = r.json().await.unwrap();
        assert!(
            answer["details"]
                .to_string()
                .contains(&format!("\"{field}\"")),
            "{field} in {answer}"
        );
    }
    for query in ["state=soon", "limit=0", "cursor=zz"] {
        let r = t.get_auth(&format!("{SILENCES}?{query}"), &token).await;
        assert_eq!(r.status(), 400, "{query}");
    }
    for path in [
        "/api/v1/silences/nope",
        &format!("{SILENCES}/{}", uuid::Uuid::new_v4()),
    ] {
        assert_eq!(t.get_auth(path, &token).await.status(), 404, "{path}");
        assert_eq!(t.delete_auth(path, &token).await.status(), 404, "{path}");
    }

    // Pages by cursor: active ones ending soonest first.
    let mut ids = Vec::new();
    for minutes in [30, 10, 20] {
        let s = created(
            &t,
            SILENCES,
            &token,
            json!({"comment": format!("{minutes} min"), "matchers": {"services": ["a"]},
                   "durationMinutes": minutes}),
        )
        .await;
        ids.push((minutes, s["id"].as_str().unwrap().to_string()));
    }
    ids.sort();
    let r = t
        .get_auth(&format!("{SILENCES}?state=active&limit=2"), &token)
        .await;
    assert_eq!(r.status(), 200);
    let cursor = r
        .headers()
        .get("x-next-cursor")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let first: Value = r.json().await.unwrap();
    assert_eq!(first[0]["id"], ids[0].1.as_str());
    assert_eq!(first[1]["id"], ids[1].1.as_str());
    let r = t
        .get_auth(
            &format!("{SILENCES}?state=active&limit=2&cursor={cursor}"),
            &token,
        )
        .await;
    assert!(r.headers().get("x-next-cursor").is_none());
    let rest: Value = r.json().await.unwrap();
    assert_eq!(rest.as_array().unwrap().len(), 1);
    assert_eq!(rest[0]["id"], ids[2].1.as_str());
    // Without a state: the live ones.
    let live = t.get_ok_auth(SILENCES, &token).await;
    assert_eq!(live.as_array().unwrap().len(), 3);
}
