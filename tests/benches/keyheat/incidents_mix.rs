//! Incidents: logs from many services and from one noisy service (and what they store in
//! S3), escalations due, and incident changes through the events outbox.

use std::cell::RefCell;
use std::time::Duration;

use futures::StreamExt;
use incidents::escalation::Outcome;
use incidents_sweeper_function::IncidentsSweeper;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::incidents::{log, INCIDENTS};
use stack_tests::keyheat;
use stack_tests::TestStack;

use super::{name, Bench};

fn batch(services: &[String], size: usize, severity_of: &impl Fn(usize) -> &'static str) -> Value {
    Value::Array(
        (0..size)
            .map(|i| {
                let service = &services[i % services.len()];
                log(
                    service,
                    severity_of(i),
                    &format!("request {i} served in 12 ms"),
                )
            })
            .collect(),
    )
}

/// What the logs bucket holds: objects and their bytes (the logs and their indexes).
async fn log_objects(t: &TestStack, bucket: &str) -> (usize, i64) {
    let s3 = t.aws().await.s3();
    let (mut objects, mut bytes) = (0, 0);
    for prefix in [incidents::objects::PREFIX, incidents::objects::INDEX_PREFIX] {
        let mut token: Option<String> = None;
        loop {
            let out = s3
                .client()
                .list_objects_v2()
                .bucket(bucket)
                .prefix(prefix)
                .set_continuation_token(token.clone())
                .send()
                .await
                .unwrap();
            objects += out.contents().len();
            bytes += out.contents().iter().filter_map(|o| o.size()).sum::<i64>();
            token = out.next_continuation_token().map(str::to_string);
            if token.is_none() {
                break;
            }
        }
    }
    (objects, bytes)
}

/// Logs a processor batch carries at target (the SQS batch of the template's event source):
/// the bench's own batches are smaller (the few ingest calls of a scenario).
const TARGET_LOGS_PER_BATCH: f64 = 12_500.0;

/// The S3 side of an incidents scenario: the objects `logs` logs took (every one a PUT, and
/// the processor makes no other S3 request), scaled per log to `target` logs a second (an
/// upper bound: the bench's batches are smaller than at target), and as batches of 12,500
/// at target write them (one object per bucket touched and minute, per type present and
/// minute, and per indexed severity present: WARN, ERROR, FATAL); the month's cost of
/// the latter, with 30 days of the measured bytes a log stored.
async fn s3_figures(
    t: &TestStack,
    bucket: &str,
    before: (usize, i64),
    logs: f64,
    target: f64,
    per_batch: f64,
) -> f64 {
    let after = log_objects(t, bucket).await;
    let (objects, bytes) = ((after.0 - before.0) as f64, (after.1 - before.1) as f64);
    let per_log = objects / logs * target;
    let at_target = target / TARGET_LOGS_PER_BATCH * per_batch;
    let stored_gb = bytes / logs * target * keyheat::SECONDS_PER_MONTH / 1e9;
    let cost = keyheat::s3_monthly_cost(at_target, 0.0, stored_gb);
    println!(
        "  S3: {objects} objects ({bytes} B) for {logs} logs; at target {per_log:.0} PUT/s scaled \
         per log, {at_target:.0} PUT/s in batches of {TARGET_LOGS_PER_BATCH} logs of {per_batch} \
         objects each; {stored_gb:.0} GB kept (30 days); ${cost:.0} a month"
    );
    cost
}

/// Logs in one processor batch at target (`IncidentsProcessorFunction`: 50 messages).
const TARGET_BATCH_LOGS: usize = 12_500;

/// [`TARGET_BATCH_LOGS`] logs from `services`, sent 500 a request, all at once.
async fn full_batch(t: &TestStack, services: &[String], severity: impl Fn(usize) -> &'static str) {
    let requests: Vec<Value> = (0..TARGET_BATCH_LOGS / 500)
        .map(|_| batch(services, 500, &severity))
        .collect();
    futures::stream::iter(&requests)
        .map(|logs| t.ingest_ok(logs))
        .buffer_unordered(25)
        .collect::<Vec<_>>()
        .await;
}

pub(super) async fn incidents(b: &mut Bench, t: &TestStack) {
    let bucket = t
        .env("IncidentsProcessorFunction")
        .get("LOGS_BUCKET")
        .unwrap()
        .to_string();
    let many: Vec<String> = (0..20).map(|n| name("svc", n)).collect();
    let severity = |i: usize| {
        if i.is_multiple_of(50) {
            "ERROR"
        } else {
            "INFO"
        }
    };
    // The target is a steady state: its 10,000 services known and their incidents open. A
    // service's first log and a fingerprint's first ERROR are one-offs, not a rate, so each
    // scenario's services send a batch before it is measured.
    b.warm_up(t.ingest_ok(&batch(&many, 500, &severity))).await;
    let start = log_objects(t, &bucket).await;
    // A processor batch at target holds 50 messages of 250 logs, 12,500 logs; the run sends
    // that many at once so its per-batch writes (metrics, counts) scale as they would.
    let spread_out = full_batch(t, &many, severity);
    // 1M logs a second from 10,000 services (1 in 50 an ERROR).
    b.measure(
        "incidents",
        "logs from many services",
        1e6,
        1e4,
        TARGET_BATCH_LOGS,
        spread_out,
    )
    .await;
    // Objects a batch writes: its 16 buckets, the ERROR index and its one type's index.
    let mut s3 = s3_figures(t, &bucket, start, TARGET_BATCH_LOGS as f64, 1e6, 18.0).await;
    let one = vec![name("noisy", 0)];
    b.warm_up(t.ingest_ok(&batch(&one, 500, &severity))).await;
    let start = log_objects(t, &bucket).await;
    let noisy = full_batch(t, &one, severity);
    // One service sending 100,000 a second.
    b.measure(
        "incidents",
        "logs from one noisy service",
        1e5,
        1.0,
        TARGET_BATCH_LOGS,
        noisy,
    )
    .await;
    s3 += s3_figures(t, &bucket, start, TARGET_BATCH_LOGS as f64, 1e5, 3.0).await;
    println!("\nincidents: S3 (log objects) a month at target: ${s3:.0}");
    incident_changes(b, t).await;
    escalations(b, t).await;
    // Last: the summary lists a system's scenarios together only when they are adjacent.
    super::shippers_mix::shippers(b, t).await;
}

/// Escalations due a second at target: as many as incident changes, far above what
/// unacknowledged incidents come to.
const TARGET_ESCALATIONS: f64 = 100.0;
/// Incidents the escalation scenario escalates.
const ESCALATED_INCIDENTS: usize = 20;
const CHANNELS: &str = "/api/v1/notifications/channels";

/// A step of an escalation chain, nobody acknowledging: the sweeper queries the due rows of
/// gsi1 `ESCALATIONS` (one partition for every incident, by due time), deletes each with its
/// `Incident Escalated` outbox row, the event is published and sent to the next channel, and
/// the notifier schedules that channel's own escalation (a new `ESCALATIONS` row).
async fn escalations(b: &mut Bench, t: &TestStack) {
    let token = t.operator("keyheat-escalation").await.1;
    let channel = |body: Value| {
        let token = token.clone();
        async move {
            let answer = t.post_json_auth(CHANNELS, &token, &body).await;
            assert_eq!(answer.status(), 201, "channel {body}");
            answer.json::<Value>().await.unwrap()
        }
    };
    // On call escalates after a minute to the secondary, which escalates after 5 to the
    // manager. One FATAL from each of 20 services opens 20 incidents (the default rule's
    // threshold is 1), each notified to on call and due to escalate a minute later: the
    // steady state the measured step starts from.
    let fatals = Value::Array(
        (0..ESCALATED_INCIDENTS)
            .map(|n| {
                log(
                    &name("escalating", n),
                    "FATAL",
                    "primary database unreachable",
                )
            })
            .collect(),
    );
    b.warm_up(async {
        let manager = channel(json!({"name": "bench manager", "kind": "email",
            "address": "manager@example.com", "escalationOnly": true}))
        .await;
        let secondary = channel(json!({"name": "bench secondary", "kind": "email",
            "address": "secondary@example.com", "escalationOnly": true,
            "escalateAfterMinutes": 5, "escalateTo": manager["id"]}))
        .await;
        channel(json!({"name": "bench on call", "kind": "email",
            "address": "oncall@example.com", "severities": ["FATAL"],
            "escalateAfterMinutes": 1, "escalateTo": secondary["id"]}))
        .await;
        t.ingest_ok(&fatals).await;
        // The processor gathers a batch for a second, then each event crosses the bus and the
        // notification queue before its escalation is scheduled.
        tokio::time::sleep(Duration::from_secs(5)).await;
    })
    .await;
    let escalated = RefCell::new(0);
    let sweep = async {
        let later = Clock::fixed(chrono::Utc::now() + chrono::Duration::minutes(2));
        let sweeper = IncidentsSweeper::from_env(&t.env("IncidentsSweeperFunction"), later)
            .await
            .unwrap();
        let outcomes = sweeper.escalate().await.unwrap();
        *escalated.borrow_mut() = outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::Escalated { .. }))
            .count();
    };
    b.measure(
        "incidents",
        "escalations due (ESCALATIONS)",
        TARGET_ESCALATIONS,
        1e4,
        ESCALATED_INCIDENTS,
        sweep,
    )
    .await;
    assert_eq!(
        *escalated.borrow(),
        ESCALATED_INCIDENTS,
        "every incident escalated once"
    );
}

/// Incident changes a second at target: every one of 10,000 services' incidents acknowledged
/// or resolved once every 100 s, far above what on-call people do.
const TARGET_INCIDENT_CHANGES: f64 = 100.0;

/// The incidents the bursts opened, acknowledged then resolved through the API: each change
/// writes an outbox row (gsi1 `OUTBOX`) the publisher deletes once its event is on the bus.
async fn incident_changes(b: &mut Bench, t: &TestStack) {
    let token = t.operator("keyheat-oncall").await.1;
    let listed = t
        .get_ok_auth(&format!("{INCIDENTS}?status=ACTIVE&limit=100"), &token)
        .await;
    let ids: Vec<String> = listed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["id"].as_str().map(str::to_string))
        .collect();
    assert!(!ids.is_empty(), "the bursts opened incidents");
    let changes = async {
        for status in ["ACKNOWLEDGED", "RESOLVED"] {
            for id in &ids {
                let path = format!("{INCIDENTS}/{id}");
                let answer = t
                    .patch_json_auth(&path, &token, &json!({ "status": status }))
                    .await;
                assert_eq!(answer.status(), 200, "PATCH {path} {status}");
            }
        }
    };
    b.measure(
        "incidents",
        "incident changes (events outbox)",
        TARGET_INCIDENT_CHANGES,
        1e4,
        ids.len() * 2,
        changes,
    )
    .await;
}
