//! The timeline's filters at scale: a page of a rare severity (WARN, ERROR, FATAL) lists and
//! reads that severity's index objects only, however many objects its range holds, where an
//! unindexed filter walks every bucket page after page; a redelivered batch indexes each log
//! once; a deleted or purged log leaves the index with its bucket. A `contains` text filter
//! matches in any case, ends a page at its bound with a cursor when matches are rare, and
//! refuses an empty, overlong or control-character text with a 400 naming it.

use incidents::input::{LogFilter, LogPageRequest};
use incidents::model::{Log, Severity};
use incidents::objects::{
    severity_prefix, PageReads, BUCKETS, INDEXED_SEVERITIES, INDEX_PREFIX, MAX_OBJECTS_PER_PAGE,
    PREFIX,
};
use incidents::Incidents;
use serde_json::{json, Value};
use stack_tests::content::sqs_event;
use stack_tests::incidents::LOGS;
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
    let (lo, hi) = incidents::store::page_bounds(&page).unwrap();
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

#[tokio::test]
async fn a_rare_severity_page_reads_its_index_not_every_object() {
    let t = TestStack::start().await;
    let incidents = domain(&t).await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let (_, token) = t.operator("sifter").await;
    let admin = t.admin_token().await;
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
    let index = objects_under(&t, &incidents, INDEX_PREFIX).await;
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
    let mut again = sqs_event(&[("f9", message(std::slice::from_ref(&fatal)))]);
    again.records[0]
        .attributes
        .insert("ApproximateReceiveCount".into(), "2".into());
    assert!(processor
        .handle(again)
        .await
        .unwrap()
        .batch_item_failures
        .is_empty());
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

#[tokio::test]
async fn a_text_filter_matches_any_case_and_pages_past_its_bound() {
    let t = TestStack::start().await;
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
