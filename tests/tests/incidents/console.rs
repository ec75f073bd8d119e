//! What the operator's console asks of the API: incidents counted by status as they move
//! (`GET /api/v1/incidents/counts`), the operators an incident may be assigned to
//! (`GET /api/v1/operators`), and an assignee who is not one refused by name.

use serde_json::{json, Value};
use stack_tests::incidents::{eventually, log, INCIDENTS};
use stack_tests::{assert_news_error, details, TestStack};

const COUNTS: &str = "/api/v1/incidents/counts";
const OPERATORS: &str = "/api/v1/operators";

#[tokio::test]
async fn counts_follow_openings_moves_and_reopenings() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("counter").await;
    // Two incidents before the counts are first read: the first read seeds them.
    t.ingest_ok(&json!([
        log("search", "ERROR", "Index shard 3 unavailable"),
        log("billing", "ERROR", "Ledger write refused"),
    ]))
    .await;
    let incidents = t.incidents_when(&token, 2).await;
    assert_eq!(
        t.get_ok_auth(COUNTS, &token).await,
        json!({"ACTIVE": 2, "ACKNOWLEDGED": 0, "RESOLVED": 0})
    );
    let first = format!("{INCIDENTS}/{}", incidents[0]["id"].as_str().unwrap());
    let second = format!("{INCIDENTS}/{}", incidents[1]["id"].as_str().unwrap());
    let r = t
        .patch_json_auth(&first, &token, &json!({"status": "ACKNOWLEDGED"}))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        t.get_ok_auth(COUNTS, &token).await,
        json!({"ACTIVE": 1, "ACKNOWLEDGED": 1, "RESOLVED": 0})
    );
    for path in [&first, &second] {
        let r = t
            .patch_json_auth(path, &token, &json!({"status": "RESOLVED"}))
            .await;
        assert_eq!(r.status(), 200);
    }
    assert_eq!(
        t.get_ok_auth(COUNTS, &token).await,
        json!({"ACTIVE": 0, "ACKNOWLEDGED": 0, "RESOLVED": 2})
    );
    // A third incident opens, and a new occurrence reopens a resolved one.
    t.ingest_ok(&json!([
        log("search", "ERROR", "Index shard 4 unavailable"),
        log("gateway", "FATAL", "Upstream pool exhausted"),
    ]))
    .await;
    eventually("the reopening and the opening counted", || async {
        let counts = t.get_ok_auth(COUNTS, &token).await;
        (counts == json!({"ACTIVE": 2, "ACKNOWLEDGED": 0, "RESOLVED": 1})).then_some(())
    })
    .await;
}

#[tokio::test]
async fn assignees_are_operators_the_platform_knows() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("alice-oncall").await;
    let (_, bob) = t.operator("Bob-SRE").await;
    t.ingest_ok(&log("search", "ERROR", "Index shard 3 unavailable"))
        .await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let path = format!("{INCIDENTS}/{}", incident["id"].as_str().unwrap());

    // Nobody by that name: a 400 naming the field, and nothing changed.
    let r = t
        .patch_json_auth(
            &path,
            &token,
            &json!({"status": "ACKNOWLEDGED", "assignee": "ghost-user-404"}),
        )
        .await;
    let body = assert_news_error(r, 400, &path).await;
    assert!(details(&body)[0].starts_with("assignee:"), "{body}");
    assert_eq!(t.get_ok_auth(&path, &token).await["status"], "ACTIVE");

    // Bob becomes known once he opens the list of operators; both are listed by username.
    let listed = t.get_ok_auth(OPERATORS, &bob).await;
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice-oncall", "Bob-SRE"], "{listed}");
    assert_eq!(listed[1]["roles"], json!(["OPERATOR"]));

    // Named in any case, stored as the operator spells it.
    let r = t
        .patch_json_auth(
            &path,
            &token,
            &json!({"status": "ACKNOWLEDGED", "assignee": "bob-sre"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let changed: Value = r.json().await.unwrap();
    assert_eq!(changed["assignee"], "Bob-SRE");

    // Without a status, only assigned: the status stays, the history says who and by whom.
    let r = t
        .patch_json_auth(
            &path,
            &token,
            &json!({"assignee": "alice-oncall", "note": "taking it\nover"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let assigned: Value = r.json().await.unwrap();
    assert_eq!(assigned["status"], "ACKNOWLEDGED");
    assert_eq!(assigned["assignee"], "alice-oncall");
    assert_eq!(assigned["severity"], "ERROR");
    let last = assigned["history"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["from"], "ACKNOWLEDGED");
    assert_eq!(last["to"], "ACKNOWLEDGED");
    assert_eq!(last["note"], "taking it\nover");
    assert_eq!(last["by"], "alice-oncall");
    let r = t
        .patch_json_auth(&path, &token, &json!({"assignee": "ghost-user-404"}))
        .await;
    let body = assert_news_error(r, 400, &path).await;
    assert!(details(&body)[0].starts_with("assignee:"), "{body}");

    // Paged by cursor.
    let r = t.get_auth(&format!("{OPERATORS}?limit=1"), &token).await;
    assert_eq!(r.status(), 200);
    let cursor = r.headers()["x-next-cursor"].to_str().unwrap().to_string();
    let page: Value = r.json().await.unwrap();
    assert_eq!(page[0]["username"], "alice-oncall");
    let rest = t
        .get_ok_auth(&format!("{OPERATORS}?limit=1&cursor={cursor}"), &token)
        .await;
    assert_eq!(rest[0]["username"], "Bob-SRE");
    let r = t.get_auth(&format!("{OPERATORS}?limit=0"), &token).await;
    let body = assert_news_error(r, 400, OPERATORS).await;
    assert!(details(&body)[0].starts_with("limit:"), "{body}");

    // A plain reader is not listed, nor can they list.
    let (_, reader) = t.user("reader").await;
    let r = t.get_auth(OPERATORS, &reader).await;
    assert_eq!(r.status(), 403);
}
