//! Notifications: channels managed through the API, an incident's events sent to the
//! channels routed to as signed webhook calls (a receiver on loopback) or as mail through the
//! stack's SNS topic, each delivery logged, and escalation to the next channel while nobody
//! acknowledges.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use incidents::escalation::Outcome;
use incidents_sweeper_function::IncidentsSweeper;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::faults::Faults;
use stack_tests::incidents::{log, test_queue, INCIDENTS, RULES};
use stack_tests::server::{lock, FakeServer};
use stack_tests::stack::TestStack;

const CHANNELS: &str = "/api/v1/notifications/channels";

/// One call the receiver got.
#[derive(Clone, Debug)]
struct Hook {
    path: String,
    timestamp: String,
    signature: String,
    event_id: String,
    body: String,
}

impl Hook {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

async fn receive(
    State(seen): State<Arc<Mutex<Vec<Hook>>>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> StatusCode {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    lock(&seen).push(Hook {
        path: uri.path().to_string(),
        timestamp: header("x-timestamp"),
        signature: header("x-signature"),
        event_id: header("x-event-id"),
        body,
    });
    StatusCode::NO_CONTENT
}

/// Whether `hook` carries the HMAC-SHA256 of `{timestamp}.{body}` under `secret`.
fn signed_with(hook: &Hook, secret: &str) -> bool {
    let Some(hex) = hook.signature.strip_prefix("sha256=") else {
        return false;
    };
    let tag: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    let Some(tag) = tag else { return false };
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, secret.as_bytes());
    aws_lc_rs::hmac::verify(
        &key,
        format!("{}.{}", hook.timestamp, hook.body).as_bytes(),
        &tag,
    )
    .is_ok()
}

/// Waits (up to 20 s) for a call on `path` carrying an event of `kind`.
async fn hook(receiver: &FakeServer<Vec<Hook>>, path: &str, kind: &str) -> Hook {
    for _ in 0..200 {
        let found = lock_hooks(receiver)
            .into_iter()
            .find(|h| h.path == path && h.json()["type"] == kind);
        if let Some(found) = found {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "no {kind} on {path}; the receiver got {:?}",
        lock_hooks(receiver)
    );
}

fn lock_hooks(receiver: &FakeServer<Vec<Hook>>) -> Vec<Hook> {
    receiver.lock().clone()
}

/// Five ERROR logs of checkout: the default rule opens an incident.
fn checkout_burst() -> Value {
    let burst: Vec<Value> = (0..5)
        .map(|i| {
            log(
                "checkout",
                "ERROR",
                &format!("Payment gateway timeout after {i}00 ms"),
            )
        })
        .collect();
    json!(burst)
}

async fn create(t: &TestStack, token: &str, body: Value) -> Value {
    let r = t.post_json_auth(CHANNELS, token, &body).await;
    assert_eq!(r.status(), 201, "create {body}");
    r.json().await.unwrap()
}

async fn sweeper_at(t: &TestStack, minutes: i64) -> IncidentsSweeper {
    IncidentsSweeper::from_env(
        &t.env("IncidentsSweeperFunction"),
        Clock::fixed(chrono::Utc::now() + chrono::Duration::minutes(minutes)),
    )
    .await
    .unwrap()
}

fn webhook_stack() -> BTreeMap<String, String> {
    // The receiver listens on loopback.
    BTreeMap::from([(
        "WebhookAllowPrivateNetworks".to_string(),
        "true".to_string(),
    )])
}

#[tokio::test]
async fn an_error_burst_is_notified_signed_and_escalated_until_acknowledged() {
    let t = TestStack::start_with(webhook_stack()).await;
    let receiver = FakeServer::start(Vec::<Hook>::new(), receive).await;
    let (_, token) = t.operator("oncall").await;
    let manager = create(
        &t,
        &token,
        json!({"name": "manager", "kind": "webhook", "url": receiver.url("/manager"),
               "secret": "manager-secret-0001", "escalationOnly": true}),
    )
    .await;
    let secondary = create(
        &t,
        &token,
        json!({"name": "secondary", "kind": "webhook", "url": receiver.url("/secondary"),
               "secret": "secondary-secret-01", "escalationOnly": true,
               "escalateAfterMinutes": 5, "escalateTo": manager["id"]}),
    )
    .await;
    let primary = create(
        &t,
        &token,
        json!({"name": "primary", "kind": "webhook", "url": receiver.url("/primary"),
               "secret": "primary-secret-0001", "services": ["checkout"],
               "severities": ["ERROR", "FATAL"],
               "escalateAfterMinutes": 1, "escalateTo": secondary["id"]}),
    )
    .await;
    create(
        &t,
        &token,
        json!({"name": "billing", "kind": "webhook", "url": receiver.url("/billing"),
               "secret": "billing-secret-0001", "services": ["billing"]}),
    )
    .await;
    assert_eq!(primary["services"], json!(["checkout"]));
    assert!(primary.get("secret").is_none());
    let listed = t.get_ok_auth(CHANNELS, &token).await;
    assert_eq!(listed.as_array().unwrap().len(), 4);
    assert!(listed
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c.get("secret").is_none()));

    // An ERROR burst opens an incident: the primary channel gets it, signed.
    t.ingest_ok(&checkout_burst()).await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let id = incident["id"].as_str().unwrap().to_string();
    let opened = hook(&receiver, "/primary", "Incident Opened").await;
    assert!(signed_with(&opened, "primary-secret-0001"), "{opened:?}");
    assert!(!signed_with(&opened, "secondary-secret-01"));
    let age = chrono::Utc::now().timestamp() - opened.timestamp.parse::<i64>().unwrap();
    assert!((0..60).contains(&age), "timestamp {}", opened.timestamp);
    let body = opened.json();
    assert_eq!(body["source"], "incident-platform");
    assert_eq!(body["id"], opened.event_id.as_str());
    assert_eq!(body["detail"]["incidentId"], id.as_str());
    assert_eq!(body["detail"]["serviceName"], "checkout");
    assert_eq!(body["detail"]["severity"], "ERROR");
    let alert = hook(&receiver, "/primary", "Alert Raised").await;
    assert!(signed_with(&alert, "primary-secret-0001"));

    // Its delivery log.
    let log_path = format!("{CHANNELS}/{}/deliveries", primary["id"].as_str().unwrap());
    let deliveries = t.get_ok_auth(&log_path, &token).await;
    let deliveries = deliveries.as_array().unwrap();
    assert_eq!(deliveries.len(), 2, "{deliveries:?}");
    for d in deliveries {
        assert_eq!(d["status"], "DELIVERED");
        assert_eq!(d["attempts"], 1);
        assert_eq!(d["httpStatus"], 204);
        assert_eq!(d["incidentId"], id.as_str());
    }

    // Not due yet: nothing escalates.
    let outcomes = sweeper_at(&t, 0).await.escalate().await.unwrap();
    assert!(outcomes.is_empty(), "{outcomes:?}");
    // Two minutes on, unacknowledged: escalated to the secondary channel.
    let outcomes = sweeper_at(&t, 2).await.escalate().await.unwrap();
    assert_eq!(
        outcomes,
        vec![Outcome::Escalated {
            incident_id: id.clone(),
            channel_id: secondary["id"].as_str().unwrap().to_string(),
        }]
    );
    let escalated = hook(&receiver, "/secondary", "Incident Escalated").await;
    assert!(signed_with(&escalated, "secondary-secret-01"));
    assert_eq!(escalated.json()["detail"]["channelId"], secondary["id"]);
    assert_eq!(escalated.json()["detail"]["incidentId"], id.as_str());
    // An escalation goes to the channel it names only.
    assert!(lock_hooks(&receiver)
        .iter()
        .all(|h| h.path != "/primary" || h.json()["type"] != "Incident Escalated"));

    // Acknowledging stops the escalation the secondary channel would make to the manager.
    let path = format!("{INCIDENTS}/{id}");
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "ACKNOWLEDGED"}))
        .await;
    assert_eq!(r.status(), 200);
    hook(&receiver, "/primary", "Incident Acknowledged").await;
    let outcomes = sweeper_at(&t, 30).await.escalate().await.unwrap();
    assert_eq!(
        outcomes,
        vec![Outcome::Dropped {
            incident_id: id.clone()
        }]
    );
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_eq!(r.status(), 200);
    hook(&receiver, "/primary", "Incident Resolved").await;
    let outcomes = sweeper_at(&t, 60).await.escalate().await.unwrap();
    assert!(outcomes.is_empty(), "{outcomes:?}");
    assert!(
        lock_hooks(&receiver)
            .iter()
            .all(|h| h.path != "/manager" && h.path != "/billing"),
        "{:?}",
        lock_hooks(&receiver)
    );
}

#[tokio::test]
async fn a_rule_escalation_delay_overrides_the_channels_until_acknowledged() {
    let t = TestStack::start_with(webhook_stack()).await;
    let receiver = FakeServer::start(Vec::<Hook>::new(), receive).await;
    let (_, token) = t.operator("oncall").await;
    let last = create(
        &t,
        &token,
        json!({"name": "last", "kind": "webhook", "url": receiver.url("/last"),
               "secret": "last-secret-000001", "escalationOnly": true}),
    )
    .await;
    let next = create(
        &t,
        &token,
        json!({"name": "next", "kind": "webhook", "url": receiver.url("/next"),
               "secret": "next-secret-000001", "escalationOnly": true,
               "escalateAfterMinutes": 10, "escalateTo": last["id"]}),
    )
    .await;
    create(
        &t,
        &token,
        json!({"name": "front", "kind": "webhook", "url": receiver.url("/front"),
               "secret": "front-secret-00001", "services": ["inventory"],
               "escalateAfterMinutes": 60, "escalateTo": next["id"]}),
    )
    .await;
    // escalateTo alone: only rules that name a delay escalate from it (none routes here).
    let quiet = create(
        &t,
        &token,
        json!({"name": "quiet", "kind": "webhook", "url": receiver.url("/quiet"),
               "secret": "quiet-secret-00001", "services": ["search"],
               "escalateTo": next["id"]}),
    )
    .await;
    assert_eq!(quiet["escalateTo"], next["id"]);
    assert!(quiet.get("escalateAfterMinutes").is_none());
    let r = t
        .post_json_auth(
            RULES,
            &token,
            &json!({"name": "stock warnings", "severities": ["WARN"], "serviceName": "inventory",
                    "threshold": 1, "windowSeconds": 60, "escalateAfterMinutes": 0}),
        )
        .await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("escalateAfterMinutes"));
    let r = t
        .post_json_auth(
            RULES,
            &token,
            &json!({"name": "stock warnings", "severities": ["WARN"], "serviceName": "inventory",
                    "threshold": 1, "windowSeconds": 60, "escalateAfterMinutes": 3}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let rule: Value = r.json().await.unwrap();
    assert_eq!(rule["escalateAfterMinutes"], 3);
    let rule_path = format!("{RULES}/{}", rule["id"].as_str().unwrap());
    assert_eq!(t.get_ok_auth(&rule_path, &token).await, rule);

    t.ingest_ok(&json!([log(
        "inventory",
        "WARN",
        "Stock level below 10 for sku 4411"
    )]))
    .await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let id = incident["id"].as_str().unwrap().to_string();
    let opened = hook(&receiver, "/front", "Incident Opened").await;
    assert!(signed_with(&opened, "front-secret-00001"));
    assert_eq!(opened.json()["detail"]["escalateAfterMinutes"], 3);

    // The rule's 3 minutes, not the channel's 60: due between 2 and 4 minutes on.
    let outcomes = sweeper_at(&t, 2).await.escalate().await.unwrap();
    assert!(outcomes.is_empty(), "{outcomes:?}");
    let outcomes = sweeper_at(&t, 4).await.escalate().await.unwrap();
    assert_eq!(
        outcomes,
        vec![Outcome::Escalated {
            incident_id: id.clone(),
            channel_id: next["id"].as_str().unwrap().to_string(),
        }]
    );
    let escalated = hook(&receiver, "/next", "Incident Escalated").await;
    assert!(signed_with(&escalated, "next-secret-000001"));
    assert_eq!(escalated.json()["detail"]["channelId"], next["id"]);

    // Acknowledging stops the escalation the next channel would make (its own 10 minutes).
    let path = format!("{INCIDENTS}/{id}");
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "ACKNOWLEDGED"}))
        .await;
    assert_eq!(r.status(), 200);
    hook(&receiver, "/front", "Incident Acknowledged").await;
    let outcomes = sweeper_at(&t, 30).await.escalate().await.unwrap();
    assert_eq!(
        outcomes,
        vec![Outcome::Dropped {
            incident_id: id.clone()
        }]
    );
    assert!(
        lock_hooks(&receiver).iter().all(|h| h.path != "/last"),
        "{:?}",
        lock_hooks(&receiver)
    );

    // Resolved, then reopened by the rule: the reopening escalates after the rule's delay too.
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_eq!(r.status(), 200);
    hook(&receiver, "/front", "Incident Resolved").await;
    t.ingest_ok(&json!([log(
        "inventory",
        "WARN",
        "Stock level below 10 for sku 4411"
    )]))
    .await;
    let reopened = hook(&receiver, "/front", "Incident Reopened").await;
    assert_eq!(reopened.json()["detail"]["incidentId"], id.as_str());
    assert_eq!(reopened.json()["detail"]["escalateAfterMinutes"], 3);
    let outcomes = sweeper_at(&t, 2).await.escalate().await.unwrap();
    assert!(outcomes.is_empty(), "{outcomes:?}");
    let outcomes = sweeper_at(&t, 4).await.escalate().await.unwrap();
    assert_eq!(
        outcomes,
        vec![Outcome::Escalated {
            incident_id: id.clone(),
            channel_id: next["id"].as_str().unwrap().to_string(),
        }]
    );
}

#[tokio::test]
async fn channels_are_validated_capped_and_deleted() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let r = t
        .post_json_auth(
            CHANNELS,
            &token,
            &json!({"name": "", "kind": "sms", "url": "ftp://x", "secret": "short",
                    "severities": ["LOUD"], "escalateAfterMinutes": 5000}),
        )
        .await;
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    let details = body["details"].to_string();
    for field in [
        "name",
        "kind",
        "url",
        "secret",
        "severities",
        "escalateAfterMinutes",
    ] {
        assert!(details.contains(field), "{field} in {details}");
    }
    let r = t
        .post_json_auth(
            CHANNELS,
            &token,
            &json!({"name": "x", "kind": "webhook", "url": "https://hooks.example.com/a",
                    "secret": "0123456789abcdef", "escalateAfterMinutes": 5,
                    "escalateTo": uuid::Uuid::new_v4().to_string()}),
        )
        .await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("escalateTo"));

    // The cap holds under concurrent creations.
    let bodies: Vec<Value> = (0..24)
        .map(|i| {
            json!({"name": format!("c{i}"), "kind": "webhook",
                   "url": "https://hooks.example.com/a", "secret": "0123456789abcdef"})
        })
        .collect();
    let creations = bodies
        .iter()
        .map(|body| t.post_json_auth(CHANNELS, &token, body));
    let statuses: Vec<u16> = futures::future::join_all(creations)
        .await
        .iter()
        .map(|r| r.status().as_u16())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        20,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 400),
        "{statuses:?}"
    );
    let listed = t.get_ok_auth(CHANNELS, &token).await;
    let first = listed[0]["id"].as_str().unwrap().to_string();
    assert_eq!(listed.as_array().unwrap().len(), 20);

    let one = format!("{CHANNELS}/{first}");
    assert_eq!(t.delete_auth(&one, &token).await.status(), 204);
    assert_eq!(t.delete_auth(&one, &token).await.status(), 404);
    assert_eq!(t.get_auth(&one, &token).await.status(), 404);
    assert_eq!(
        t.get_auth(&format!("{CHANNELS}/not-a-channel"), &token)
            .await
            .status(),
        404
    );
    // Its place is free again.
    let r = t
        .post_json_auth(
            CHANNELS,
            &token,
            &json!({"name": "again", "kind": "webhook",
                    "url": "https://hooks.example.com/a", "secret": "0123456789abcdef"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let r = t
        .get_auth(&format!("{CHANNELS}/{first}/deliveries?limit=0"), &token)
        .await;
    assert_eq!(r.status(), 400);
}

/// An SQS queue of the test's subscribed to the e-mail topic with `channel`'s filter policy:
/// it gets what that channel's address would be mailed (the emulator fans SNS out to SQS).
async fn mailbox(t: &TestStack, topic: &str, channel: &Value) -> String {
    let aws = t.aws().await;
    let sqs = aws.sqs().client().clone();
    let sns = aws_sdk_sns::Client::new(aws.config());
    let name = format!("mailbox-{}", uuid::Uuid::new_v4().simple());
    let (url, arn) = test_queue(&sqs, &name).await;
    sns.subscribe()
        .topic_arn(topic)
        .protocol("sqs")
        .endpoint(arn)
        .attributes(
            "FilterPolicy",
            incidents::email::filter_policy(channel["id"].as_str().unwrap()),
        )
        .attributes("FilterPolicyScope", "MessageAttributes")
        .send()
        .await
        .unwrap();
    url
}

/// The SNS envelopes in mailbox `url` (waiting up to `seconds` for the first).
async fn mails(t: &TestStack, url: &str, seconds: u32) -> Vec<Value> {
    let sqs = t.aws().await.sqs().client().clone();
    let mut found = Vec::new();
    for _ in 0..seconds {
        let out = sqs
            .receive_message()
            .queue_url(url)
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await
            .unwrap();
        for message in out.messages.unwrap_or_default() {
            found.push(serde_json::from_str(message.body.as_deref().unwrap()).unwrap());
        }
        if !found.is_empty() {
            break;
        }
    }
    found
}

#[tokio::test]
async fn an_email_channel_is_mailed_through_the_topic_for_its_service_only() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let checkout = create(
        &t,
        &token,
        json!({"name": "checkout mail", "kind": "email", "address": "oncall@example.com",
               "services": ["checkout"], "severities": ["ERROR", "FATAL"]}),
    )
    .await;
    assert_eq!(checkout["kind"], "email");
    assert_eq!(checkout["address"], "oncall@example.com");
    assert!(checkout.get("url").is_none() && checkout.get("secret").is_none());
    assert_eq!(checkout["pendingConfirmation"], true);
    let billing = create(
        &t,
        &token,
        json!({"name": "billing mail", "kind": "email", "address": "billing@example.com",
               "services": ["billing"]}),
    )
    .await;
    let shown = t
        .get_ok_auth(
            &format!("{CHANNELS}/{}", checkout["id"].as_str().unwrap()),
            &token,
        )
        .await;
    assert!(shown["pendingConfirmation"].is_boolean(), "{shown}");
    let r = t
        .post_json_auth(
            CHANNELS,
            &token,
            &json!({"name": "bad", "kind": "email", "address": "not-an-address",
                    "url": "https://hooks.example.com/a"}),
        )
        .await;
    assert_eq!(r.status(), 400);
    let details = r.text().await.unwrap();
    assert!(
        details.contains("address") && details.contains("url"),
        "{details}"
    );

    let topic = t
        .env("IncidentsNotifierFunction")
        .require("EMAIL_TOPIC_ARN")
        .unwrap()
        .to_string();
    let checkout_box = mailbox(&t, &topic, &checkout).await;
    let billing_box = mailbox(&t, &topic, &billing).await;

    t.ingest_ok(&checkout_burst()).await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let id = incident["id"].as_str().unwrap().to_string();

    let mut got = Vec::new();
    for _ in 0..3 {
        got.extend(mails(&t, &checkout_box, 20).await);
        if got.iter().any(|m| {
            m["Subject"]
                .as_str()
                .is_some_and(|s| s.starts_with("Incident Opened"))
        }) {
            break;
        }
    }
    let opened = got
        .iter()
        .find(|m| {
            m["Subject"]
                .as_str()
                .is_some_and(|s| s.starts_with("Incident Opened"))
        })
        .unwrap_or_else(|| panic!("no Incident Opened mail: {got:?}"));
    assert!(
        opened["Subject"]
            .as_str()
            .unwrap()
            .contains("checkout [ERROR]"),
        "{opened}"
    );
    let text = opened["Message"].as_str().unwrap();
    assert!(text.contains(&format!("Incident: {id}")), "{text}");
    assert!(text.contains("Service: checkout"), "{text}");
    assert_eq!(
        opened["MessageAttributes"]["channelId"]["Value"],
        checkout["id"]
    );
    // The billing channel's subscription admits none of it.
    assert!(mails(&t, &billing_box, 2).await.is_empty());

    // The delivery log shows the mail, without an HTTP status.
    let log_path = format!("{CHANNELS}/{}/deliveries", checkout["id"].as_str().unwrap());
    let deliveries = t.get_ok_auth(&log_path, &token).await;
    let opened_delivery = deliveries
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["eventType"] == "Incident Opened")
        .unwrap_or_else(|| panic!("{deliveries}"))
        .clone();
    assert_eq!(opened_delivery["status"], "DELIVERED");
    assert_eq!(opened_delivery["incidentId"], id.as_str());
    assert!(opened_delivery.get("httpStatus").is_none());
    let billing_log = format!("{CHANNELS}/{}/deliveries", billing["id"].as_str().unwrap());
    assert_eq!(t.get_ok_auth(&billing_log, &token).await, json!([]));

    // Deleting a channel removes its e-mail subscription.
    let sns = aws_sdk_sns::Client::new(t.aws().await.config());
    let emails = || async {
        sns.list_subscriptions_by_topic()
            .topic_arn(&topic)
            .send()
            .await
            .unwrap()
            .subscriptions
            .unwrap_or_default()
            .into_iter()
            .filter(|s| s.protocol.as_deref() == Some("email"))
            .filter_map(|s| s.endpoint)
            .collect::<Vec<_>>()
    };
    let before = emails().await;
    assert!(
        before.contains(&"billing@example.com".to_string()),
        "{before:?}"
    );
    let one = format!("{CHANNELS}/{}", billing["id"].as_str().unwrap());
    assert_eq!(t.delete_auth(&one, &token).await.status(), 204);
    let after = emails().await;
    assert!(
        !after.contains(&"billing@example.com".to_string()),
        "{after:?}"
    );
    assert!(
        after.contains(&"oncall@example.com".to_string()),
        "{after:?}"
    );
}

/// The e-mail channel's delivery of `kind` in its log, once it has `status`.
async fn delivery_when(
    t: &TestStack,
    token: &str,
    channel: &Value,
    kind: &str,
    status: &str,
) -> Value {
    let path = format!("{CHANNELS}/{}/deliveries", channel["id"].as_str().unwrap());
    for _ in 0..900 {
        let log = t.get_ok_auth(&path, token).await;
        if let Some(d) = log
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["eventType"] == kind && d["status"] == status)
        {
            return d.clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "no {status} delivery of {kind}: {}",
        t.get_ok_auth(&path, token).await
    );
}

/// SNS answers every try of the notifier's Publish 500 (past the SDK's own retries): the
/// delivery is logged FAILED, and the event delivered again after its back-off is mailed once.
#[tokio::test]
async fn a_mail_sns_refuses_is_logged_failed_then_mailed_once_on_the_retry() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let channel = create(
        &t,
        &token,
        json!({"name": "checkout mail", "kind": "email", "address": "oncall@example.com",
               "services": ["checkout"], "severities": ["ERROR"]}),
    )
    .await;
    let topic = t
        .env("IncidentsNotifierFunction")
        .require("EMAIL_TOPIC_ARN")
        .unwrap()
        .to_string();
    let inbox = mailbox(&t, &topic, &channel).await;
    let faults = Faults::of(&t);
    faults
        .set(json!([{"service": "sns", "operation": "Publish", "fault": "error"}]))
        .await;

    t.ingest_ok(&checkout_burst()).await;
    let failed = delivery_when(&t, &token, &channel, "Incident Opened", "FAILED").await;
    assert_eq!(failed["attempts"], 1, "{failed}");
    assert!(
        failed["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{failed}"
    );
    assert!(faults.injected("Publish").await >= 1);
    faults.clear().await;

    // The notifier gave the event back with a 30 s back-off; its next delivery mails it.
    let delivered = delivery_when(&t, &token, &channel, "Incident Opened", "DELIVERED").await;
    assert_eq!(delivered["attempts"], 2, "{delivered}");
    assert!(delivered.get("error").is_none(), "{delivered}");
    let sqs = t.aws().await.sqs().client().clone();
    let mut opened = 0;
    let mut quiet = 0;
    while quiet < 3 {
        let out = sqs
            .receive_message()
            .queue_url(&inbox)
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await
            .unwrap();
        let messages = out.messages.unwrap_or_default();
        quiet = if messages.is_empty() { quiet + 1 } else { 0 };
        for m in messages {
            let mail: Value = serde_json::from_str(m.body.as_deref().unwrap()).unwrap();
            if mail["Subject"]
                .as_str()
                .is_some_and(|s| s.starts_with("Incident Opened"))
            {
                opened += 1;
            }
            sqs.delete_message()
                .queue_url(&inbox)
                .receipt_handle(m.receipt_handle.unwrap())
                .send()
                .await
                .unwrap();
        }
    }
    assert_eq!(opened, 1, "Incident Opened mailed {opened} times");
}
