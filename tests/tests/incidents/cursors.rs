//! Cursor paging of the incident lists a client pages (incidents, alerts, the logbook): each
//! answers a bare array with the next page's cursor in `X-Next-Cursor`; a walk by it yields
//! every item exactly once in order, and an incident's logbook entries (a filter of the whole
//! logbook) read at most 500 entries a page. 101 resolved incidents, 101 resolved alerts and
//! an incident's 101 logbook entries are all reachable 100 at a time.

use platform::dynamo::{n, s, Item};
use serde_json::{json, Value};
use stack_tests::incidents::{eventually, log, ALERTS, INCIDENTS, LOGBOOK};
use stack_tests::{next_cursor, with_query, TestStack};

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("an array")
        .iter()
        .map(|v| v["id"].as_str().expect("id").to_string())
        .collect()
}

/// One page of `path`: its ids and its `X-Next-Cursor`.
async fn page(t: &TestStack, path: &str, token: &str) -> (Vec<String>, Option<String>) {
    let response = t.get_auth(path, token).await;
    assert_eq!(response.status(), 200, "GET {path}");
    let next = next_cursor(response.headers());
    let body: Value = response.json().await.expect("json");
    (ids(&body), next)
}

/// Every id of `path` walked by `X-Next-Cursor`, `limit` at a time; `full` says each page
/// before the last is full.
async fn walk(t: &TestStack, path: &str, token: &str, limit: usize, full: bool) -> Vec<String> {
    let mut all = Vec::new();
    let mut url = with_query(path, &format!("limit={limit}"));
    for _ in 0..100 {
        let (got, next) = page(t, &url, token).await;
        assert!(got.len() <= limit, "{url}");
        all.extend(got.iter().cloned());
        let Some(cursor) = next else {
            return all;
        };
        if full {
            assert_eq!(got.len(), limit, "a page before the last is full: {url}");
        }
        url = with_query(path, &format!("limit={limit}&cursor={cursor}"));
    }
    panic!("{path} did not end within 100 pages");
}

/// A row of string attributes.
fn row<const N: usize>(attributes: [(&str, String); N]) -> Item {
    attributes
        .into_iter()
        .map(|(k, v)| (k.to_string(), s(v)))
        .collect()
}

/// A logbook entry's row as the service writes it, about `incident` when given.
fn entry_row(id: &str, at: &str, title: &str, incident: Option<&str>) -> Item {
    let mut entry = row([
        ("pk", format!("LB#{id}")),
        ("sk", "META".to_string()),
        ("gsi1pk", "LOGBOOK".to_string()),
        ("gsi1sk", format!("{at}#{id}")),
        ("id", id.to_string()),
        ("kind", "NOTE".to_string()),
        ("title", title.to_string()),
        ("body", "Nothing".to_string()),
        ("author", "pager".to_string()),
        ("authorId", id.to_string()),
        ("createdAt", at.to_string()),
        ("updatedAt", at.to_string()),
    ]);
    entry.insert("version".to_string(), n(1));
    if let Some(incident) = incident {
        entry.insert("incidentId".to_string(), s(incident));
    }
    entry
}

#[tokio::test]
async fn a_hundred_and_one_resolved_incidents_alerts_and_entries_page_by_a_hundred() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("pager").await;
    // 101 of each, as the service writes them, the i-th at second i: newest first is 100..0.
    let at = |i: usize| format!("2026-11-01T00:{:02}:{:02}.000Z", i / 60, i % 60);
    let id = |i: usize| format!("{i:032x}");
    let incidents = (0..101)
        .map(|i| {
            let mut incident = row([
                ("pk", format!("INC#{}", id(i))),
                ("sk", "META".to_string()),
                ("gsi1pk", "INCIDENTS#RESOLVED".to_string()),
                ("gsi1sk", format!("{}#{}", at(i), id(i))),
                ("id", id(i)),
                ("status", "RESOLVED".to_string()),
                ("fingerprint", id(i)),
                ("serviceName", "db".to_string()),
                ("type", "app".to_string()),
                ("normalizedMessage", format!("Replica {i} lagging")),
                ("sampleMessage", format!("Replica {i} lagging")),
                ("firstSeen", at(i)),
                ("lastSeen", at(i)),
                ("openedAt", at(i)),
                ("resolvedAt", at(i)),
                ("updatedAt", at(i)),
            ]);
            incident.insert("occurrences".to_string(), n(1));
            incident
        })
        .collect();
    t.put_items("IncidentsTable", incidents).await;
    let alerts = (0..101)
        .map(|i| {
            let mut alert = row([
                ("pk", format!("ALERT#{}", id(i))),
                ("sk", "META".to_string()),
                ("gsi1pk", "ALERTS#RESOLVED".to_string()),
                ("gsi1sk", format!("{}#{}", at(i), id(i))),
                ("id", id(i)),
                ("ruleId", "default".to_string()),
                ("ruleName", "Errors".to_string()),
                ("incidentId", id(i)),
                ("serviceName", "db".to_string()),
                ("type", "app".to_string()),
                ("severity", "ERROR".to_string()),
                ("message", format!("Replica {i} lagging")),
                ("status", "RESOLVED".to_string()),
                ("raisedAt", at(i)),
                ("updatedAt", at(i)),
            ]);
            for (name, value) in [("count", 1), ("threshold", 1), ("windowSeconds", 60)] {
                alert.insert(name.to_string(), n(value));
            }
            alert
        })
        .collect();
    t.put_items("IncidentsTable", alerts).await;
    let about = id(100);
    let entries = (0..101)
        .map(|i| {
            let entry = format!("00000000-0000-4000-8000-{i:012}");
            entry_row(&entry, &at(i), &format!("Entry {i}"), Some(&about))
        })
        .collect();
    t.put_items("IncidentsTable", entries).await;

    let newest_first = |of: &dyn Fn(usize) -> String| (0..101).rev().map(of).collect::<Vec<_>>();
    for path in [
        format!("{INCIDENTS}?status=RESOLVED"),
        INCIDENTS.to_string(),
        format!("{ALERTS}?status=RESOLVED"),
        ALERTS.to_string(),
    ] {
        assert_eq!(
            walk(&t, &path, &token, 100, true).await,
            newest_first(&id),
            "{path}"
        );
    }
    let entry_ids = newest_first(&|i| format!("00000000-0000-4000-8000-{i:012}"));
    let of_incident = format!("{LOGBOOK}?incidentId={about}");
    assert_eq!(walk(&t, &of_incident, &token, 100, true).await, entry_ids);
    assert_eq!(walk(&t, LOGBOOK, &token, 100, true).await, entry_ids);
}

#[tokio::test]
async fn incidents_alerts_and_the_logbook_page_by_cursor_every_item_once() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("pager").await;
    for i in 0..5 {
        t.ingest_ok(&log(&format!("svc{i}"), "FATAL", "Primary lost quorum"))
            .await;
    }
    let incidents = t.incidents_when(&token, 5).await;
    let all_incidents = ids(&Value::Array(incidents));
    assert_eq!(walk(&t, INCIDENTS, &token, 2, true).await, all_incidents);
    assert_eq!(walk(&t, INCIDENTS, &token, 5, true).await, all_incidents);
    let active = format!("{INCIDENTS}?status=ACTIVE");
    assert_eq!(walk(&t, &active, &token, 3, true).await, all_incidents);

    let alerts = eventually("an alert of each incident", || async {
        let list = t
            .get_ok_auth(&with_query(ALERTS, "limit=100"), &token)
            .await;
        (list.as_array().map_or(0, Vec::len) >= 5).then_some(list)
    })
    .await;
    let all_alerts = ids(&alerts);
    assert_eq!(walk(&t, ALERTS, &token, 2, true).await, all_alerts);
    let open = format!("{ALERTS}?status=OPEN");
    assert_eq!(walk(&t, &open, &token, 4, true).await, all_alerts);

    // Seven entries, three about the first incident.
    let about = all_incidents[0].clone();
    let mut entries = Vec::new();
    let mut of_incident = Vec::new();
    for i in 0..7 {
        let mut body = json!({"title": format!("Entry {i}"), "body": "Notes"});
        if i % 3 == 0 {
            body["incidentId"] = json!(about);
        }
        let r = t.post_json_auth(LOGBOOK, &token, &body).await;
        assert_eq!(r.status(), 201);
        let entry: Value = r.json().await.unwrap();
        let id = entry["id"].as_str().unwrap().to_string();
        if i % 3 == 0 {
            of_incident.insert(0, id.clone());
        }
        entries.insert(0, id);
    }
    assert_eq!(walk(&t, LOGBOOK, &token, 3, true).await, entries);
    let filtered = format!("{LOGBOOK}?incidentId={about}");
    assert_eq!(walk(&t, &filtered, &token, 1, true).await, of_incident);
    assert_eq!(walk(&t, &filtered, &token, 3, true).await, of_incident);

    // A cursor that is not one is a 400 naming `cursor`.
    for path in [INCIDENTS, ALERTS, LOGBOOK] {
        for bad in ["", "zz", "3", "80", "3A"] {
            let url = with_query(path, &format!("cursor={bad}"));
            let r = t.get_auth(&url, &token).await;
            assert_eq!(r.status(), 400, "{url}");
            let body: Value = r.json().await.unwrap();
            assert!(body["details"].to_string().contains("cursor"), "{body}");
        }
    }
}

#[tokio::test]
async fn an_incidents_logbook_page_reads_at_most_500_entries() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("pager").await;
    t.ingest_ok(&log("db", "FATAL", "Primary lost quorum"))
        .await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let about = incident["id"].as_str().unwrap().to_string();
    let r = t
        .post_json_auth(
            LOGBOOK,
            &token,
            &json!({"title": "The one", "body": "About it", "incidentId": about}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let entry: Value = r.json().await.unwrap();
    // 600 newer entries about nothing, written as the service writes them.
    let noise = (0..600)
        .map(|i| {
            let id = format!("00000000-0000-4000-8000-{i:012}");
            let at = format!("2099-01-01T00:00:00.{i:03}Z");
            entry_row(&id, &at, "Noise", None)
        })
        .collect();
    t.put_items("IncidentsTable", noise).await;
    let filtered = format!("{LOGBOOK}?incidentId={about}&limit=5");
    let (first, next) = page(&t, &filtered, &token).await;
    assert_eq!(first, Vec::<String>::new(), "500 entries read, none of it");
    let cursor = next.expect("more may follow");
    let (second, next) = page(&t, &format!("{filtered}&cursor={cursor}"), &token).await;
    assert_eq!(second, [entry["id"].as_str().unwrap()]);
    assert_eq!(next, None);
    // The whole logbook pages as usual.
    assert_eq!(walk(&t, LOGBOOK, &token, 100, true).await.len(), 601);
}
