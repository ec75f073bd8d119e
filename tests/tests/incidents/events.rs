//! Incident events on the stack's bus (`IncidentEventBus`): what each change publishes, and
//! the sweep that publishes what a writer left in the outbox. A test rule of its own on the
//! bus delivers every `incident-platform` event to a test queue, read here.

use std::time::Duration;

use incidents::events::{outbox_row, Change, EventKind};
use incidents_sweeper_function::IncidentsSweeper;
use platform::{Clock, Env};
use serde_json::{json, Value};
use stack_tests::faults::Faults;
use stack_tests::incidents::{log, INCIDENTS};
use stack_tests::stack::TestStack;

/// A queue receiving every incident event of `t`'s bus, through a rule of its own.
struct EventTap {
    sqs: aws_sdk_sqs::Client,
    url: String,
}

impl EventTap {
    async fn start(t: &TestStack) -> Self {
        let config = platform::aws::sdk_config(&Env::from_process());
        let sqs = aws_sdk_sqs::Client::new(&config);
        let events = aws_sdk_eventbridge::Client::new(&config);
        let name = format!("{}-tap", t.stack_name);
        let (url, arn) = stack_tests::incidents::test_queue(&sqs, &name).await;
        let bus = t.table("IncidentEventBus");
        events
            .put_rule()
            .name(&name)
            .event_bus_name(&bus)
            .event_pattern(json!({"source": ["incident-platform"]}).to_string())
            .send()
            .await
            .unwrap();
        events
            .put_targets()
            .rule(&name)
            .event_bus_name(&bus)
            .targets(
                aws_sdk_eventbridge::types::Target::builder()
                    .id("tap")
                    .arn(arn)
                    .build()
                    .unwrap(),
            )
            .send()
            .await
            .unwrap();
        Self { sqs, url }
    }

    /// The events delivered so far (each one once: received messages are deleted).
    async fn drain(&self) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            let out = self
                .sqs
                .receive_message()
                .queue_url(&self.url)
                .max_number_of_messages(10)
                .send()
                .await
                .unwrap();
            let messages = out.messages.unwrap_or_default();
            if messages.is_empty() {
                return events;
            }
            for m in messages {
                events.push(serde_json::from_str(m.body.as_deref().unwrap()).unwrap());
                self.sqs
                    .delete_message()
                    .queue_url(&self.url)
                    .receipt_handle(m.receipt_handle.unwrap())
                    .send()
                    .await
                    .unwrap();
            }
        }
    }

    /// Waits (up to 20 s) until events of every detail-type in `kinds` arrived; all events
    /// seen meanwhile.
    async fn until(&self, kinds: &[&str]) -> Vec<Value> {
        let mut seen = Vec::new();
        for _ in 0..200 {
            seen.extend(self.drain().await);
            if kinds
                .iter()
                .all(|k| seen.iter().any(|e| e["detail-type"] == *k))
            {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("timed out waiting for events {kinds:?}; saw {seen:?}");
    }
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["detail-type"] == kind).collect()
}

async fn outbox_rows(t: &TestStack) -> usize {
    t.scan("IncidentsTable")
        .await
        .iter()
        .filter(|i| {
            i.get("sk")
                .and_then(|v| v.as_s().ok())
                .is_some_and(|sk| sk.starts_with("OUTBOX#"))
        })
        .count()
}

#[tokio::test]
async fn each_incident_change_is_published_once_on_the_bus() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let tap = EventTap::start(&t).await;
    let (_, token) = t.operator("oncall").await;
    t.ingest_ok(&log(
        "payments",
        "ERROR",
        "Ledger write failed for account 42",
    ))
    .await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let id = incident["id"].as_str().unwrap().to_string();

    let events = tap.until(&["Incident Opened", "Alert Raised"]).await;
    let opened = of_type(&events, "Incident Opened");
    assert_eq!(opened.len(), 1, "{events:?}");
    let opened = opened[0];
    assert_eq!(opened["source"], "incident-platform");
    let detail = &opened["detail"];
    assert_eq!(detail["incidentId"], id.as_str());
    assert_eq!(detail["serviceName"], "payments");
    assert_eq!(detail["by"], "system");
    assert_eq!(detail["title"], incident["normalizedMessage"]);
    assert!(detail["note"]
        .as_str()
        .unwrap()
        .starts_with("opened by rule"));
    let raised = of_type(&events, "Alert Raised");
    assert_eq!(raised.len(), 1, "{events:?}");
    assert_eq!(raised[0]["detail"]["severity"], "ERROR");
    assert_eq!(raised[0]["detail"]["incidentId"], id.as_str());
    assert!(raised[0]["detail"]["alertId"].is_string());
    assert_ne!(raised[0]["detail"]["eventId"], detail["eventId"]);

    let path = format!("{INCIDENTS}/{id}");
    let r = t
        .patch_json_auth(
            &path,
            &token,
            &json!({"status": "ACKNOWLEDGED", "note": "on it"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let events = tap.until(&["Incident Acknowledged"]).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["detail"]["by"], "oncall");
    assert_eq!(events[0]["detail"]["note"], "on it");
    assert_eq!(events[0]["detail"]["status"], "ACKNOWLEDGED");

    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_eq!(r.status(), 200);
    let events = tap.until(&["Incident Resolved"]).await;
    assert_eq!(events.len(), 1, "{events:?}");

    // A new occurrence reopens it.
    t.ingest_ok(&log(
        "payments",
        "ERROR",
        "Ledger write failed for account 43",
    ))
    .await;
    let events = tap.until(&["Incident Reopened"]).await;
    assert_eq!(events[0]["detail"]["incidentId"], id.as_str());
    // Published rows leave the outbox.
    assert_eq!(outbox_rows(&t).await, 0);
}

#[tokio::test]
async fn the_sweep_publishes_what_a_writer_left_in_the_outbox_once() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let tap = EventTap::start(&t).await;
    let (_, token) = t.operator("oncall").await;
    t.ingest_ok(&log("search", "ERROR", "Index shard 3 unavailable"))
        .await;
    let id = t.incidents_when(&token, 1).await.remove(0)["id"]
        .as_str()
        .unwrap()
        .to_string();
    tap.until(&["Incident Opened", "Alert Raised"]).await;

    // Rows a writer committed but never published (it stopped after its transaction): one
    // older than the sweep's wait, one fresh (its writer may still publish it).
    let old_at = incidents::input::format_time(chrono::Utc::now() - chrono::Duration::minutes(5));
    let now_at = incidents::input::format_time(chrono::Utc::now());
    let old = outbox_row(&Change {
        note: Some("left behind"),
        ..Change::system(EventKind::Escalated, &id, &old_at)
    });
    let fresh = outbox_row(&Change::system(EventKind::Escalated, &id, &now_at));
    let old_id = old.get("eventId").unwrap().as_s().unwrap().clone();
    t.put_items("IncidentsTable", vec![old, fresh]).await;

    t.stack
        .fire_schedule("IncidentsSweeperFunction")
        .await
        .unwrap();
    let events = tap.until(&["Incident Escalated"]).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["detail"]["eventId"], old_id.as_str());
    assert_eq!(events[0]["detail"]["note"], "left behind");
    assert_eq!(events[0]["detail"]["serviceName"], "search");
    assert_eq!(
        outbox_rows(&t).await,
        1,
        "the fresh row waits for its writer"
    );

    // Run again: the published row is gone, so nothing is published twice.
    t.stack
        .fire_schedule("IncidentsSweeperFunction")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(tap.drain().await.is_empty());
}

/// EventBridge answers the writer's PutEvents 200 with every entry failed: the events stay in
/// the outbox (the change itself stands), and the sweep publishes each of them once.
#[tokio::test]
async fn events_the_bus_refuses_wait_in_the_outbox_and_the_sweep_publishes_them_once() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let tap = EventTap::start(&t).await;
    let (_, token) = t.operator("oncall").await;
    let faults = Faults::of(&t);
    faults
        .set(json!([{"service": "events", "operation": "PutEvents", "fault": "failed-entries"}]))
        .await;
    t.ingest_ok(&log("ledger", "ERROR", "Ledger write failed for account 7"))
        .await;
    t.incidents_when(&token, 1).await;
    // The opening and its alert: both refused, both kept.
    let mut waited = 0;
    while outbox_rows(&t).await != 2 || faults.injected("PutEvents").await == 0 {
        assert!(waited < 100, "the writer's publish was never refused");
        waited += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        tap.drain().await.is_empty(),
        "a refused entry was delivered"
    );
    assert_eq!(outbox_rows(&t).await, 2);

    faults.clear().await;
    let later = Clock::fixed(chrono::Utc::now() + chrono::Duration::minutes(5));
    let sweeper = IncidentsSweeper::from_env(&t.env("IncidentsSweeperFunction"), later)
        .await
        .unwrap();
    assert_eq!(sweeper.run().await.unwrap(), 2);
    let events = tap.until(&["Incident Opened", "Alert Raised"]).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(outbox_rows(&t).await, 0);
    assert_eq!(sweeper.run().await.unwrap(), 0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(tap.drain().await.is_empty(), "published twice");
}
