//! The logbook: notes and postmortems, optionally about an incident; only the author (or an
//! admin) changes an entry, and an edit made on an older version of it is refused.

use serde_json::{json, Value};
use stack_tests::incidents::{log, LOGBOOK};
use stack_tests::{assert_news_error, TestStack};

#[tokio::test]
async fn notes_and_postmortems_are_kept_by_their_authors() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, alice) = t.operator("alice").await;
    let (_, bob) = t.operator("bob").await;
    t.ingest_ok(&log("db", "FATAL", "Primary lost quorum"))
        .await;
    let incident = t.incidents_when(&alice, 1).await.remove(0);
    let incident_id = incident["id"].as_str().unwrap();

    let r = t
        .post_json_auth(
            LOGBOOK,
            &alice,
            &json!({"kind": "POSTMORTEM", "title": "Quorum loss", "body": "What happened", "incidentId": incident_id}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let postmortem: Value = r.json().await.unwrap();
    assert_eq!(postmortem["author"], "alice");
    assert_eq!(postmortem["incidentId"], incident_id);
    let r = t
        .post_json_auth(
            LOGBOOK,
            &bob,
            &json!({"title": "Shift notes", "body": "Quiet night"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let note: Value = r.json().await.unwrap();
    assert_eq!(note["kind"], "NOTE");

    let all = t.get_ok_auth(LOGBOOK, &alice).await;
    assert_eq!(all.as_array().unwrap().len(), 2);
    assert_eq!(all[0]["id"], note["id"], "newest first");
    let of_incident = t
        .get_ok_auth(&format!("{LOGBOOK}?incidentId={incident_id}"), &bob)
        .await;
    assert_eq!(of_incident, json!([postmortem.clone()]));

    let path = format!("{LOGBOOK}/{}", postmortem["id"].as_str().unwrap());
    assert_eq!(t.get_ok_auth(&path, &bob).await, postmortem);
    assert_eq!(postmortem["version"], 1);
    let edit = json!({"kind": "POSTMORTEM", "title": "Quorum loss", "body": "Root cause: disk", "version": 1});
    assert_news_error(t.put_json_auth(&path, &bob, &edit).await, 403, &path).await;
    assert_news_error(t.delete_auth(&path, &bob).await, 403, &path).await;
    let r = t.put_json_auth(&path, &alice, &edit).await;
    assert_eq!(r.status(), 200);
    let edited: Value = r.json().await.unwrap();
    assert_eq!(edited["body"], "Root cause: disk");
    assert!(
        edited.get("incidentId").is_none(),
        "a replace drops what it leaves out"
    );
    assert_eq!(edited["createdAt"], postmortem["createdAt"]);
    assert_eq!(edited["version"], 2);
    assert_eq!(t.get_ok_auth(&path, &bob).await, edited);
    assert_eq!(t.delete_auth(&path, &alice).await.status(), 204);
    assert_news_error(t.get_auth(&path, &alice).await, 404, &path).await;
    let missing = format!("{LOGBOOK}/not-an-id");
    assert_news_error(t.get_auth(&missing, &alice).await, 404, &missing).await;
}

#[tokio::test]
async fn an_edit_made_on_an_older_version_is_refused_and_changes_nothing() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, alice) = t.operator("alice").await;
    let admin = t.admin_token().await;
    let r = t
        .post_json_auth(
            LOGBOOK,
            &alice,
            &json!({"title": "Runbook gaps", "body": "First draft"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let entry: Value = r.json().await.unwrap();
    assert_eq!(entry["version"], 1);
    let path = format!("{LOGBOOK}/{}", entry["id"].as_str().unwrap());

    // Alice and an admin both read version 1; the admin saves first.
    let read = t.get_ok_auth(&path, &alice).await;
    assert_eq!(read["version"], 1);
    let r = t
        .put_json_auth(
            &path,
            &admin,
            &json!({"title": "Runbook gaps", "body": "Admin's wording", "version": 1}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let saved: Value = r.json().await.unwrap();
    assert_eq!(saved["version"], 2);
    assert_eq!(saved["author"], "alice", "an edit keeps the author");

    // Alice's edit of version 1 would silently undo the admin's: refused, nothing written.
    let body = assert_news_error(
        t.put_json_auth(
            &path,
            &alice,
            &json!({"title": "Runbook gaps", "body": "Alice's wording", "version": 1}),
        )
        .await,
        409,
        &path,
    )
    .await;
    assert!(
        body["message"].as_str().unwrap().contains("version 2"),
        "{body}"
    );
    assert_eq!(
        stack_tests::details(&body),
        ["version: the entry is at version 2 now"]
    );
    assert_eq!(t.get_ok_auth(&path, &alice).await, saved);

    // She reads again and edits version 2.
    let r = t
        .put_json_auth(
            &path,
            &alice,
            &json!({"title": "Runbook gaps", "body": "Alice's wording", "version": 2}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let mine: Value = r.json().await.unwrap();
    assert_eq!(
        (&mine["version"], &mine["body"]),
        (&json!(3), &json!("Alice's wording"))
    );

    // An edit must say which version it was made on.
    for (body, reason) in [
        (json!({"title": "t", "body": "b"}), "is required"),
        (
            json!({"title": "t", "body": "b", "version": "3"}),
            "integer",
        ),
        (json!({"title": "t", "body": "b", "version": 0}), "integer"),
    ] {
        let answer =
            assert_news_error(t.put_json_auth(&path, &alice, &body).await, 400, &path).await;
        let details = stack_tests::details(&answer);
        assert_eq!(details.len(), 1, "{body}: {answer}");
        assert!(
            details[0].starts_with("version: ") && details[0].contains(reason),
            "{body}: {answer}"
        );
    }
    // A version beyond the entry's is no less stale.
    assert_news_error(
        t.put_json_auth(
            &path,
            &alice,
            &json!({"title": "t", "body": "b", "version": 9}),
        )
        .await,
        409,
        &path,
    )
    .await;
    assert_eq!(t.get_ok_auth(&path, &alice).await, mine);
}
