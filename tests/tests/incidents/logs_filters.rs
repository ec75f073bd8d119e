//! The timeline's filters at scale: a page of a rare severity (WARN, ERROR, FATAL) lists and
//! reads that severity's index objects only, however many objects its range holds, where an
//! unindexed filter walks every bucket page after page; a redelivered batch indexes each log
//! once; a deleted or purged log leaves the index with its bucket. A page of one type reads
//! that type's index (any type, hex-encoded in the key), alone or with other filters, and a
//! type over 100 characters is a 400 naming it. A `contains` text filter
//! matches in any case, ends a page at its bound with a cursor when matches are rare, and
//! refuses an empty, overlong or control-character text with a 400 naming it.

use incidents::input::{LogFilter, LogPageRequest};
use incidents::model::{Log, Severity};
use incidents::objects::{
    severity_prefix, type_prefix, PageReads, BUCKETS, INDEXED_SEVERITIES, MAX_OBJECTS_PER_PAGE,
    PREFIX, SEVERITY_INDEX_PREFIX, TYPE_INDEX_PREFIX,
};
use incidents::Incidents;
use serde_json::{json, Value};
use stack_tests::content::sqs_event;
use stack_tests::incidents::{eventually, LOGS};
use stack_tests::TestStack;
use stack_tests::{assert_news_error, details};

use super::objects::{domain, log_at, message, paged, stored_under};

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;

/// A log of `service` and `severity` at `millis`, its id ending in `n`.
fn log_of(service: &str, millis: i64, n: u32, severity: &str) -> Value {
    let mut log = log_at(service, millis, n);
    log["severity"] = json!(severity);
    log
}

fn id(log: &Value) -> String {
    log["id"].as_str().unwrap().to_string()
}

/// The logs of every object under `prefix`, one list per object.
async fn objects_under(t: &TestStack, incidents: &Incidents, prefix: &str) -> Vec<Vec<Log>> {
    stored_under(t, incidents, prefix)
        .await
        .into_iter()
        .map(|(_, logs)| logs)
        .collect()
}

/// `count` INFO logs 6 minutes apart from 12 services from `start`: each in its own object.
fn busy(start: i64, count: u32) -> Vec<Value> {
    (0..count)
        .map(|i| {
            let service = format!("svc-{}", i % 12);
            log_of(&service, start + i64::from(i) * 6 * MINUTE, i, "INFO")
        })
        .collect()
}

/// Hands `logs` to the processor in one batch of messages of 100, as the queue delivers them.
async fn process(processor: &dyn platform::SqsHandler, logs: &[Value]) {
    let bodies: Vec<(String, String)> = logs
        .chunks(100)
        .enumerate()
        .map(|(n, chunk)| (format!("m{n}"), message(chunk)))
        .collect();
    let batch: Vec<(&str, String)> = bodies
        .iter()
        .map(|(k, m)| (k.as_str(), m.clone()))
        .collect();
    let handled = processor.handle(sqs_event(&batch)).await.unwrap();
    assert!(handled.batch_item_failures.is_empty());
}

/// One page of the logs bucket at `filter` from the top, with what it read.
async fn first_page(
    incidents: &Incidents,
    filter: LogFilter,
    limit: usize,
) -> (Vec<String>, Option<String>, PageReads) {
    let page = LogPageRequest {
        filter,
        limit,
        cursor: None,
    };
    let (lo, hi) = incidents::timeline::page_bounds(&page).unwrap();
    let (logs, next, reads) = incidents
        .objects()
        .page(&page.filter, &lo, &hi, limit)
        .await
        .unwrap();
    (logs.into_iter().map(|l| l.id).collect(), next, reads)
}

fn severity(severity: Severity) -> LogFilter {
    LogFilter {
        severity: Some(severity),
        ..LogFilter::default()
    }
}

async fn page_ids(t: &TestStack, token: &str, query: &str) -> (Vec<String>, Option<String>) {
    let response = t.get_auth(&format!("{LOGS}?{query}"), token).await;
    assert_eq!(response.status(), 200, "{query}");
    let cursor = response
        .headers()
        .get("x-next-cursor")
        .map(|v| v.to_str().unwrap().to_string());
    let page: Vec<Value> = response.json().await.unwrap();
    (page.iter().map(id).collect(), cursor)
}

/// Hands the processor `log`'s message again, as SQS redelivers it (`key` its message id).
async fn redeliver(processor: &dyn platform::SqsHandler, key: &str, log: &Value) {
    let mut again = sqs_event(&[(key, message(std::slice::from_ref(log)))]);
    again.records[0]
        .attributes
        .insert("ApproximateReceiveCount".into(), "2".into());
    let handled = processor.handle(again).await.unwrap();
    assert!(handled.batch_item_failures.is_empty());
}

/// A stack, its incidents domain and processor, an operator's token (`operator` the name)
/// and an admin's.
async fn filtering_stack(
    operator: &str,
) -> (
    TestStack,
    Incidents,
    std::sync::Arc<dyn platform::SqsHandler>,
    String,
    String,
) {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let incidents = domain(&t).await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let (_, token) = t.operator(operator).await;
    let admin = t.admin_token().await;
    (t, incidents, processor, token, admin)
}

#[tokio::test]
async fn a_rare_severity_page_reads_its_index_not_every_object() {
    let (t, incidents, processor, token, admin) = filtering_stack("sifter").await;
    let start = 1_795_400_000_000;
    // 48 busy hours: an INFO log every 6 minutes from 12 services, each in its own object.
    let mut logs = busy(start, 480);
    // Below all of them, the range's one FATAL and one DEBUG; two ERRORs among them.
    let fatal = log_of("payments", start - MINUTE, 1_000, "FATAL");
    let debug = log_of("payments", start - 2 * MINUTE, 1_001, "DEBUG");
    let errors = [
        log_of("svc-3", start + 30 * HOUR + 7, 1_002, "ERROR"),
        log_of("payments", start + 10 * HOUR + 7, 1_003, "ERROR"),
    ];
    logs.extend([fatal.clone(), debug.clone()]);
    logs.extend(errors.iter().cloned());
    process(processor.as_ref(), &logs).await;

    // Before: a filter without an index (DEBUG, as rare here as FATAL) walks every bucket and
    // reads a page's worth of objects to find nothing, then hands back a cursor.
    let (found, next, scan) = first_page(&incidents, severity(Severity::Debug), 1).await;
    assert!(found.is_empty(), "{found:?}");
    assert!(next.is_some(), "ended early at its bound");
    assert!(scan.gets >= MAX_OBJECTS_PER_PAGE, "{scan:?}");
    assert!(scan.lists >= BUCKETS as usize, "{scan:?}");
    // After: FATAL is indexed: one listing and the one object that holds it.
    let (found, _, indexed) = first_page(&incidents, severity(Severity::Fatal), 1).await;
    assert_eq!(found, vec![id(&fatal)]);
    assert_eq!((indexed.lists, indexed.gets), (1, 1));
    let (found, next, indexed) = first_page(&incidents, severity(Severity::Error), 500).await;
    assert_eq!(found, vec![id(&errors[0]), id(&errors[1])]);
    assert_eq!(next, None);
    assert_eq!((indexed.lists, indexed.gets), (1, 2));
    println!(
        "severity page over 48 h, {} logs: unindexed DEBUG {} lists + {} gets for 0 logs; \
         FATAL limit=1: 1 list + 1 get; ERROR: 1 list + 2 gets",
        logs.len(),
        scan.lists,
        scan.gets
    );

    // The index holds the rare severities only, each object one severity's.
    let index = objects_under(&t, &incidents, SEVERITY_INDEX_PREFIX).await;
    assert_eq!(index.len(), 3, "one object per severity and minute");
    let indexed_ids: Vec<&str> = index.iter().flatten().map(|l| l.id.as_str()).collect();
    assert_eq!(indexed_ids.len(), 3);
    for logs in &index {
        assert!(logs
            .iter()
            .all(|l| INDEXED_SEVERITIES.contains(&l.severity)));
    }

    // Through the API: the query answers the FATAL at once; filters combine; cursors
    // page the index exactly.
    let (page, _) = page_ids(&t, &token, "severity=FATAL&limit=1").await;
    assert_eq!(page, vec![id(&fatal)]);
    let (page, cursor) = page_ids(&t, &token, "severity=ERROR&limit=1").await;
    assert_eq!(page, vec![id(&errors[0])]);
    let cursor = cursor.expect("a cursor after a full page");
    let (page, _) = page_ids(
        &t,
        &token,
        &format!("severity=ERROR&limit=1&cursor={cursor}"),
    )
    .await;
    assert_eq!(page, vec![id(&errors[1])]);
    let (page, _) = page_ids(&t, &token, "severity=ERROR&serviceName=payments").await;
    assert_eq!(page, vec![id(&errors[1])]);
    let (page, _) = page_ids(&t, &token, "severity=ERROR&type=AUDIT_LOG").await;
    assert!(page.is_empty());

    // A redelivered message indexes nothing twice.
    redeliver(processor.as_ref(), "f9", &fatal).await;
    let fatal_prefix = severity_prefix(Severity::Fatal).unwrap();
    assert_eq!(objects_under(&t, &incidents, &fatal_prefix).await.len(), 1);
    let (found, _, _) = first_page(&incidents, severity(Severity::Fatal), 10).await;
    assert_eq!(found, vec![id(&fatal)]);

    // A deleted log leaves the index.
    assert_eq!(
        t.delete_auth(&format!("{LOGS}/{}", id(&fatal)), &token)
            .await
            .status(),
        204
    );
    let left: Vec<Log> = objects_under(&t, &incidents, &fatal_prefix)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let (page, _) = page_ids(&t, &token, "severity=FATAL").await;
    assert!(page.is_empty());

    // A purge of ERROR logs empties their index and their buckets.
    let purge = t
        .delete_auth(&format!("{LOGS}?severity=ERROR"), &admin)
        .await;
    assert_eq!(purge.status(), 204);
    t.timeline_with(&token, "severity=ERROR", 0).await;
    let error_prefix = severity_prefix(Severity::Error).unwrap();
    let left: Vec<Log> = objects_under(&t, &incidents, &error_prefix)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let stored: Vec<Log> = objects_under(&t, &incidents, PREFIX)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(stored.len(), 481, "the INFO logs and the DEBUG stay");
    assert!(stored.iter().all(|l| l.severity != Severity::Error));
}

fn of_type(log_type: &str) -> LogFilter {
    LogFilter {
        log_type: Some(log_type.to_string()),
        ..LogFilter::default()
    }
}

#[tokio::test]
async fn a_rare_type_page_reads_its_index_not_every_object() {
    let (t, incidents, processor, token, admin) = filtering_stack("typist").await;
    let start = 1_795_600_000_000;
    // 48 busy hours of APPLICATION_LOG INFO logs, each in its own object; among them three
    // deployments (one an ERROR, from payments) and one log of a type a key could not hold.
    let mut logs = busy(start, 480);
    let deploy = |service: &str, millis: i64, n: u32, severity: &str| {
        let mut log = log_of(service, millis, n, severity);
        log["type"] = json!("DEPLOYMENT_LOG");
        log
    };
    let deploys = [
        deploy("svc-3", start + 40 * HOUR + 7, 2_000, "INFO"),
        deploy("payments", start + 20 * HOUR + 7, 2_001, "ERROR"),
        deploy("svc-5", start - MINUTE, 2_002, "INFO"),
    ];
    let odd_type = "db/migrate ../50% é?&";
    let mut odd = log_of("svc-1", start + 5 * HOUR + 7, 2_003, "WARN");
    odd["type"] = json!(odd_type);
    logs.extend(deploys.iter().cloned());
    logs.push(odd.clone());
    process(processor.as_ref(), &logs).await;

    // The type's page: one listing and one wave of reads (up to 16 objects at once), which is
    // the type's three objects, where the buckets hold over 480; all three the same.
    let (found, _, newest) = first_page(&incidents, of_type("DEPLOYMENT_LOG"), 1).await;
    assert_eq!(found, vec![id(&deploys[0])]);
    assert_eq!((newest.lists, newest.gets), (1, 3));
    let (found, next, indexed) = first_page(&incidents, of_type("DEPLOYMENT_LOG"), 500).await;
    assert_eq!(found, deploys.iter().map(id).collect::<Vec<_>>());
    assert_eq!(next, None);
    assert_eq!((indexed.lists, indexed.gets), (1, 3));
    // With a service it reads the type's index and compares the service; with an unindexed
    // severity too; with an indexed severity, that severity's index, comparing the type.
    let with_service = LogFilter {
        service_name: Some("payments".into()),
        ..of_type("DEPLOYMENT_LOG")
    };
    let (found, _, reads) = first_page(&incidents, with_service, 500).await;
    assert_eq!(found, vec![id(&deploys[1])]);
    assert_eq!((reads.lists, reads.gets), (1, 3));
    let info = LogFilter {
        severity: Some(Severity::Info),
        ..of_type("DEPLOYMENT_LOG")
    };
    let (found, _, reads) = first_page(&incidents, info, 500).await;
    assert_eq!(found, vec![id(&deploys[0]), id(&deploys[2])]);
    assert_eq!((reads.lists, reads.gets), (1, 3));
    let error = LogFilter {
        severity: Some(Severity::Error),
        ..of_type("DEPLOYMENT_LOG")
    };
    let (found, _, reads) = first_page(&incidents, error, 500).await;
    assert_eq!(found, vec![id(&deploys[1])]);
    assert_eq!(
        (reads.lists, reads.gets),
        (1, 1),
        "the ERROR index's one object"
    );
    println!(
        "type page over 48 h, {} logs: DEPLOYMENT_LOG limit=1: {} list + {} get; \
         all 3: {} list + {} gets",
        logs.len(),
        newest.lists,
        newest.gets,
        indexed.lists,
        indexed.gets
    );

    // The index: one object per (type, minute), each of one type; keys hex, whatever the type.
    let index = stored_under(&t, &incidents, TYPE_INDEX_PREFIX).await;
    assert_eq!(index.len(), logs.len(), "every log in its own minute here");
    for (key, held) in &index {
        let hex = key
            .strip_prefix(TYPE_INDEX_PREFIX)
            .and_then(|k| k.split('/').next())
            .unwrap();
        assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()), "{key}");
        assert!(key.starts_with(&type_prefix(&held[0].log_type)), "{key}");
        assert!(held.iter().all(|l| l.log_type == held[0].log_type));
    }
    let odd_prefix = type_prefix(odd_type);
    assert_eq!(objects_under(&t, &incidents, &odd_prefix).await.len(), 1);

    // Through the API: the odd type, encoded in the query; cursors page the index exactly.
    let encoded: String = odd_type.bytes().map(|b| format!("%{b:02X}")).collect();
    let (page, _) = page_ids(&t, &token, &format!("type={encoded}")).await;
    assert_eq!(page, vec![id(&odd)]);
    assert_eq!(
        paged(&t, &token, "type=DEPLOYMENT_LOG", 1).await,
        deploys.iter().map(id).collect::<Vec<_>>()
    );
    let (page, _) = page_ids(&t, &token, "type=DEPLOYMENT_LOG&severity=ERROR").await;
    assert_eq!(page, vec![id(&deploys[1])]);
    let (page, _) = page_ids(&t, &token, "type=deployment_log").await;
    assert!(page.is_empty(), "a type is exact");

    // A type is at most 100 characters, the same as a log's: else a 400 naming it.
    let long = "T".repeat(101);
    for path in [
        format!("{LOGS}?type={long}"),
        format!("{LOGS}?type={long}&severity=ERROR"),
    ] {
        let body = assert_news_error(t.get_auth(&path, &token).await, 400, LOGS).await;
        assert!(
            details(&body).iter().any(|d| d.starts_with("type")),
            "{body}"
        );
    }
    let response = t.delete_auth(&format!("{LOGS}?type={long}"), &admin).await;
    let body = assert_news_error(response, 400, LOGS).await;
    assert!(
        details(&body).iter().any(|d| d.starts_with("type")),
        "{body}"
    );
    let (page, _) = page_ids(&t, &token, &format!("type={}", "T".repeat(100))).await;
    assert!(page.is_empty());

    // A redelivered message indexes nothing twice.
    redeliver(processor.as_ref(), "d9", &deploys[0]).await;
    let deploy_prefix = type_prefix("DEPLOYMENT_LOG");
    assert_eq!(objects_under(&t, &incidents, &deploy_prefix).await.len(), 3);

    // A deleted log leaves its type's index, its severity's and its bucket.
    assert_eq!(
        t.delete_auth(&format!("{LOGS}/{}", id(&odd)), &token)
            .await
            .status(),
        204
    );
    let held = |prefix: String| {
        let (t, incidents) = (&t, &incidents);
        async move {
            objects_under(t, incidents, &prefix)
                .await
                .into_iter()
                .flatten()
                .map(|l| l.id)
                .collect::<Vec<String>>()
        }
    };
    assert!(held(odd_prefix.clone()).await.is_empty());
    assert!(!held(severity_prefix(Severity::Warn).unwrap())
        .await
        .contains(&id(&odd)));
    assert!(!held(PREFIX.to_string()).await.contains(&id(&odd)));
    assert_eq!(
        t.delete_auth(&format!("{LOGS}/{}", id(&odd)), &token)
            .await
            .status(),
        404
    );

    // A purge of the type empties its index and takes its logs from the buckets and the
    // ERROR index; the other type's logs stay.
    let purge = t
        .delete_auth(&format!("{LOGS}?type=DEPLOYMENT_LOG"), &admin)
        .await;
    assert_eq!(purge.status(), 204);
    t.timeline_with(&token, "type=DEPLOYMENT_LOG", 0).await;
    // The step rewrites the buckets after the indexes: waited for.
    let stored: Vec<Log> = eventually("the type purged from the buckets", || async {
        let stored: Vec<Log> = objects_under(&t, &incidents, PREFIX)
            .await
            .into_iter()
            .flatten()
            .collect();
        (stored.len() == 480).then_some(stored)
    })
    .await;
    assert!(stored.iter().all(|l| l.log_type == "APPLICATION_LOG"));
    assert!(held(deploy_prefix).await.is_empty());
    assert!(held(severity_prefix(Severity::Error).unwrap())
        .await
        .is_empty());
}

#[tokio::test]
async fn a_text_filter_matches_any_case_and_pages_past_its_bound() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let incidents = domain(&t).await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let (_, token) = t.operator("grepper").await;
    let start = 1_795_300_000_000;
    // 300 logs 6 minutes apart from 12 services, each in its own object: more than a page
    // reads. Three hold "timeout" in some case, the oldest at the very end; one only looks
    // like it.
    let mut logs = busy(start, 300);
    logs[299]["logContent"] = json!("upstream Timeout after 30s");
    logs[150]["logContent"] = json!("TIMEOUT waiting for lock");
    logs[150]["severity"] = json!("ERROR");
    logs[0]["logContent"] = json!("read timeout");
    logs[10]["logContent"] = json!("time out");
    process(processor.as_ref(), &logs).await;

    // A page reads its bound of objects and answers the matches it found, fewer than its
    // limit, with a cursor: by cursor, every match, newest first, once.
    let (first, cursor) = page_ids(&t, &token, "contains=timeout&limit=10").await;
    assert!(first.len() < 3, "{first:?}");
    assert_eq!(first.first(), Some(&id(&logs[299])));
    assert!(cursor.is_some(), "a cursor to go on from");
    let found = paged(&t, &token, "contains=timeout", 10).await;
    assert_eq!(found, vec![id(&logs[299]), id(&logs[150]), id(&logs[0])]);
    // Any case of the text; with other filters; spaces are part of the text.
    let found = paged(&t, &token, "contains=TimeOut", 500).await;
    assert_eq!(found.len(), 3);
    let found = paged(&t, &token, "contains=timeout&severity=ERROR", 100).await;
    assert_eq!(found, vec![id(&logs[150])]);
    let found = paged(&t, &token, "contains=time%20out", 500).await;
    assert_eq!(found, vec![id(&logs[10])]);

    // What a page costs: its object bound (a wave over at most), every log compared once.
    let filter = LogFilter {
        contains: Some("timeout".into()),
        ..LogFilter::default()
    };
    let (_, next, reads) = first_page(&incidents, filter, 10).await;
    assert!(next.is_some());
    assert!(
        reads.gets >= MAX_OBJECTS_PER_PAGE && reads.gets <= MAX_OBJECTS_PER_PAGE + BUCKETS as usize,
        "{reads:?}"
    );
    assert_eq!(reads.examined, reads.gets, "one log an object here");
    println!("contains=timeout&limit=10 over 300 objects: first page {reads:?}");

    // The text is 1 to 100 characters without control characters: else a 400 naming it.
    let long = "x".repeat(101);
    for bad in ["", long.as_str(), "a%01b", "%7F", "tab%09"] {
        let path = format!("{LOGS}?contains={bad}");
        let body = assert_news_error(t.get_auth(&path, &token).await, 400, LOGS).await;
        assert!(
            details(&body).iter().any(|d| d.starts_with("contains")),
            "{body}"
        );
    }
    let fine = "x".repeat(100);
    let (page, _) = page_ids(&t, &token, &format!("contains={fine}")).await;
    assert!(page.is_empty());
}
