//! Raw logs as S3 objects (`incidents::objects`): a batch's logs land in objects, not table
//! rows; a redelivered or regrouped batch shows each log once; a service's page reads its own
//! bucket only; deletions rewrite the objects and a redelivery stores no deleted log again;
//! pages by cursor across objects, minutes and hours are exact, also when a page ends early
//! at its object bound; the bucket's lifecycle rule expires them after the retention.

use std::collections::BTreeSet;

use incidents::input::{LogFilter, LogPageRequest};
use incidents::model::Log;
use incidents::objects::{service_bucket, BUCKETS, MAX_OBJECTS_PER_PAGE, PREFIX};
use incidents::Incidents;
use serde_json::{json, Value};
use stack_tests::content::sqs_event;
use stack_tests::incidents::{deliver_repeatedly, LOGS};
use stack_tests::TestStack;

/// A log of `service` at `millis`, its id ending in `n`.
pub(crate) fn log_at(service: &str, millis: i64, n: u32) -> Value {
    let at = chrono::DateTime::from_timestamp_millis(millis).unwrap();
    let stamp = at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    json!({
        "id": format!("{millis:013}-{n:032x}"),
        "serviceName": service,
        "type": "APPLICATION_LOG",
        "severity": "INFO",
        "logContent": format!("request {n} served"),
        "timestamp": stamp,
        "receivedAt": stamp,
    })
}

pub(crate) fn message(logs: &[Value]) -> String {
    json!({"kind": "logs", "logs": logs}).to_string()
}

fn ids(logs: &[Value]) -> Vec<String> {
    logs.iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect()
}

fn newest_first(logs: &[Value]) -> Vec<String> {
    let mut all = ids(logs);
    all.sort();
    all.reverse();
    all
}

/// Every object under `logs/`, with its logs.
async fn stored(t: &TestStack, incidents: &Incidents) -> Vec<(String, Vec<Log>)> {
    stored_under(t, incidents, PREFIX).await
}

/// Every object under `prefix`, with its logs.
pub(crate) async fn stored_under(
    t: &TestStack,
    incidents: &Incidents,
    prefix: &str,
) -> Vec<(String, Vec<Log>)> {
    let s3 = t.aws().await.s3();
    let mut keys = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let out = s3
            .client()
            .list_objects_v2()
            .bucket(incidents.objects().bucket())
            .prefix(prefix)
            .set_continuation_token(token.clone())
            .send()
            .await
            .unwrap();
        keys.extend(
            out.contents()
                .iter()
                .filter_map(|o| o.key())
                .map(str::to_string),
        );
        token = out.next_continuation_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    let mut out = Vec::new();
    for key in keys {
        let (logs, _) = incidents.objects().read(&key).await.unwrap();
        out.push((key, logs));
    }
    out
}

pub(crate) async fn domain(t: &TestStack) -> Incidents {
    Incidents::from_env(&t.env("IncidentsFunction"), &t.aws().await).unwrap()
}

/// Every page of the timeline at `query` by cursor, with `limit`.
pub(crate) async fn paged(t: &TestStack, token: &str, query: &str, limit: usize) -> Vec<String> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1_000 {
        let path = match &cursor {
            Some(c) => format!("{LOGS}?{query}&limit={limit}&cursor={c}"),
            None => format!("{LOGS}?{query}&limit={limit}"),
        };
        let response = t.get_auth(&path, token).await;
        assert_eq!(response.status(), 200, "{path}");
        cursor = response
            .headers()
            .get("x-next-cursor")
            .map(|v| v.to_str().unwrap().to_string());
        let page: Vec<Value> = response.json().await.unwrap();
        assert!(page.len() <= limit);
        all.extend(ids(&page));
        if cursor.is_none() {
            return all;
        }
    }
    panic!("the timeline never ended");
}

#[tokio::test]
async fn a_batch_lands_in_objects_once_however_often_it_is_delivered() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let incidents = domain(&t).await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let minute = 1_795_521_600_000;
    // Two services in different buckets, two minutes: four objects.
    let (a, b) = ("orders", "billing");
    assert_ne!(service_bucket(a), service_bucket(b));
    let logs: Vec<Value> = (0..40)
        .map(|i| {
            let service = if i % 2 == 0 { a } else { b };
            log_at(service, minute + i64::from(i) * 3_000, i)
        })
        .collect();
    deliver_repeatedly(processor.as_ref(), &message(&logs)).await;

    let objects = stored(&t, &incidents).await;
    assert_eq!(
        objects.len(),
        4,
        "{:?}",
        objects.iter().map(|o| &o.0).collect::<Vec<_>>()
    );
    let mut seen: Vec<String> = objects
        .iter()
        .flat_map(|(_, logs)| logs.iter().map(|l| l.id.clone()))
        .collect();
    seen.sort();
    let mut sent = ids(&logs);
    sent.sort();
    assert_eq!(seen, sent, "every log in one object, once");
    for (key, logs) in &objects {
        let bucket = service_bucket(&logs[0].service_name);
        assert!(key.starts_with(&format!("{PREFIX}{bucket:02}/")), "{key}");
        assert!(logs.windows(2).all(|w| w[0].id > w[1].id), "newest first");
        let minutes: BTreeSet<String> = logs.iter().map(|l| l.id[..8].to_string()).collect();
        assert!(logs.iter().all(|l| l.service_name == logs[0].service_name));
        assert!(minutes.len() <= 2, "one minute's logs");
    }
    // No log row, and no hour registered, in the table.
    let rows = t.scan("IncidentsTable").await;
    assert!(rows.iter().all(|r| {
        let pk = r["pk"].as_s().unwrap();
        !pk.starts_with("LOG#") && pk != "LOGHOURS"
    }));

    // SQS regroups a failed message with another: its logs land in a second object of the
    // same bucket and minute, and still show once.
    let regrouped = processor
        .handle(sqs_event(&[
            ("m3", message(&logs[..10])),
            ("m4", message(&[log_at(a, minute + 1, 99)])),
        ]))
        .await
        .unwrap();
    assert!(regrouped.batch_item_failures.is_empty());
    let (_, token) = t.operator("objects").await;
    let page = t.timeline_with(&token, "limit=500", 41).await;
    let shown = ids(&page);
    assert_eq!(
        shown.iter().collect::<BTreeSet<_>>().len(),
        41,
        "no log twice"
    );
}

#[tokio::test]
async fn a_service_page_reads_only_its_bucket_and_pages_are_exact_across_objects_and_hours() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let incidents = domain(&t).await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let (_, token) = t.operator("pager").await;
    let start = 1_795_500_000_000;
    // 12 services over 3 hours: one log every 37 s, so objects of one or two logs in ~290
    // minutes, more than a page reads.
    let services: Vec<String> = (0..12).map(|n| format!("svc-{n}")).collect();
    let logs: Vec<Value> = (0..300u32)
        .map(|i| {
            let service = &services[usize::try_from(i % 12).unwrap()];
            log_at(service, start + i64::from(i) * 37_000, i)
        })
        .collect();
    // Three messages per batch, as the ingest queue delivers them.
    processor
        .handle(sqs_event(&[
            ("p1", message(&logs[..100])),
            ("p2", message(&logs[100..200])),
            ("p3", message(&logs[200..])),
        ]))
        .await
        .unwrap();
    let objects = stored(&t, &incidents).await;
    assert!(objects.len() > MAX_OBJECTS_PER_PAGE, "{}", objects.len());

    let everything = newest_first(&logs);
    // A page of 500 ends early at its object bound, with a cursor; the next goes on.
    let first = t.get_auth(&format!("{LOGS}?limit=500"), &token).await;
    assert!(
        first.headers().get("x-next-cursor").is_some(),
        "ended early"
    );
    assert_eq!(paged(&t, &token, "", 500).await, everything);
    assert_eq!(paged(&t, &token, "", 7).await, everything);

    // One service: its bucket only, and exact pages.
    let service = &services[5];
    let mine: Vec<Value> = logs
        .iter()
        .filter(|l| l["serviceName"] == service.as_str())
        .cloned()
        .collect();
    assert_eq!(
        paged(&t, &token, &format!("serviceName={service}"), 4).await,
        newest_first(&mine)
    );
    let page = LogPageRequest {
        filter: LogFilter {
            service_name: Some(service.clone()),
            ..LogFilter::default()
        },
        limit: 500,
        cursor: None,
    };
    let (lo, hi) = incidents::timeline::page_bounds(&page).unwrap();
    let (found, next, reads) = incidents
        .objects()
        .page(&page.filter, &lo, &hi, page.limit)
        .await
        .unwrap();
    assert_eq!(ids_of_logs(&found), newest_first(&mine));
    assert_eq!(next, None);
    let in_bucket = objects
        .iter()
        .filter(|(key, _)| key.starts_with(&format!("{PREFIX}{:02}/", service_bucket(service))))
        .count();
    assert_eq!(reads.lists, 1, "one bucket listed");
    assert_eq!(reads.gets, in_bucket, "only its bucket's objects read");
    assert!(in_bucket < objects.len());
    // Every bucket's listing without the filter.
    let unfiltered = LogPageRequest {
        filter: LogFilter::default(),
        ..page
    };
    let (_, _, reads) = incidents
        .objects()
        .page(&unfiltered.filter, &lo, &hi, 10)
        .await
        .unwrap();
    assert_eq!(reads.lists, BUCKETS as usize);

    // A time range across the hours.
    let from = start + 100 * 37_000;
    let to = start + 199 * 37_000;
    let stamp = |m: i64| {
        chrono::DateTime::from_timestamp_millis(m)
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    };
    let query = format!("from={}&to={}", stamp(from), stamp(to));
    let ranged = paged(&t, &token, &query, 30).await;
    assert_eq!(ranged, newest_first(&logs[100..200]));
}

fn ids_of_logs(logs: &[Log]) -> Vec<String> {
    logs.iter().map(|l| l.id.clone()).collect()
}

#[tokio::test]
async fn deleted_and_purged_logs_are_gone_from_the_objects() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let incidents = domain(&t).await;
    let (_, token) = t.operator("remover").await;
    let admin = t.admin_token().await;
    let mut batch: Vec<Value> = (0..20)
        .map(|i| stack_tests::incidents::log("noisy", "DEBUG", &format!("tick {i}")))
        .collect();
    batch.extend((0..5).map(|i| stack_tests::incidents::log("quiet", "INFO", &format!("n {i}"))));
    let sent = t.ingest_ok(&Value::Array(batch)).await;
    t.timeline_with(&token, "limit=500", 25).await;

    let one = &sent[22];
    assert_eq!(
        t.delete_auth(&format!("{LOGS}/{one}"), &token)
            .await
            .status(),
        204
    );
    let held: Vec<String> = stored(&t, &incidents)
        .await
        .into_iter()
        .flat_map(|(_, logs)| logs.into_iter().map(|l| l.id))
        .collect();
    assert!(!held.contains(one), "deleted from its object");
    assert_eq!(held.len(), 24);

    let response = t
        .delete_auth(&format!("{LOGS}?serviceName=noisy"), &admin)
        .await;
    assert_eq!(response.status(), 204);
    t.timeline_with(&token, "serviceName=noisy", 0).await;
    let left: Vec<Log> = stored(&t, &incidents)
        .await
        .into_iter()
        .flat_map(|(_, logs)| logs)
        .collect();
    assert_eq!(left.len(), 4);
    assert!(left.iter().all(|l| l.service_name == "quiet"));
}

#[tokio::test]
async fn a_deleted_log_is_not_stored_again_by_a_regrouped_redelivery() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let incidents = domain(&t).await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let (_, token) = t.operator("undeleter").await;
    let minute = 1_795_521_600_000;
    let logs: Vec<Value> = (0..6)
        .map(|i| log_at("orders", minute + i64::from(i), i))
        .collect();
    let first = processor
        .handle(sqs_event(&[("r1", message(&logs))]))
        .await
        .unwrap();
    assert!(first.batch_item_failures.is_empty());
    let gone = ids(&logs)[2].clone();
    let path = format!("{LOGS}/{gone}");
    assert_eq!(t.delete_auth(&path, &token).await.status(), 204);

    // SQS delivers the message again (its grouping failed, say), in a batch with another:
    // a new object, which must not hold the deleted log.
    let mut again = sqs_event(&[
        ("r1", message(&logs)),
        ("r2", message(&[log_at("orders", minute + 9, 9)])),
    ]);
    again.records[0]
        .attributes
        .insert("ApproximateReceiveCount".into(), "2".into());
    let again = processor.handle(again).await.unwrap();
    assert!(again.batch_item_failures.is_empty());
    let objects = stored(&t, &incidents).await;
    assert_eq!(objects.len(), 2, "the regrouped batch wrote its own object");
    assert!(objects.iter().all(|(_, l)| l.iter().all(|l| l.id != gone)));
    let shown = t.timeline_with(&token, "limit=50", 6).await;
    assert!(!ids(&shown).contains(&gone));
}

#[test]
fn the_logs_bucket_expires_logs_after_the_retention() {
    let template =
        local_stack::template::Template::load(&stack_tests::contract::path("template.yaml"))
            .unwrap();
    let bucket = &template.resources["IncidentLogsBucket"];
    assert_eq!(bucket.kind, "AWS::S3::Bucket");
    let rules = serde_yaml::to_string(&bucket.properties["LifecycleConfiguration"]).unwrap();
    let expire = rules
        .split("- Id:")
        .find(|r| r.contains("ExpireIncidentLogs"))
        .unwrap_or_else(|| panic!("{rules}"));
    assert!(expire.contains("Prefix: logs/"), "{expire}");
    assert!(
        expire.contains("ExpirationInDays") && expire.contains("IncidentLogRetentionDays"),
        "{expire}"
    );
    let env = |f: &str| {
        template
            .functions()
            .unwrap()
            .into_iter()
            .find(|d| d.logical_id == f)
            .and_then(|d| d.variables.get("LOGS_BUCKET").cloned())
            .map(|v| serde_yaml::to_string(&v).unwrap())
            .unwrap_or_default()
    };
    for function in ["IncidentsFunction", "IncidentsProcessorFunction"] {
        assert!(env(function).contains("IncidentLogsBucket"), "{function}");
    }
}
