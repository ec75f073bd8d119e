//! The logbook: notes and postmortems, optionally about an incident; only the author (or an
//! admin) changes an entry.

use serde_json::{json, Value};
use stack_tests::incidents::{log, LOGBOOK};
use stack_tests::{assert_news_error, TestStack};

#[tokio::test]
async fn notes_and_postmortems_are_kept_by_their_authors() {
    let t = TestStack::start().await;
    let (_, alice) = t.user("alice").await;
    let (_, bob) = t.user("bob").await;
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
    let edit = json!({"kind": "POSTMORTEM", "title": "Quorum loss", "body": "Root cause: disk"});
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
    assert_eq!(t.delete_auth(&path, &alice).await.status(), 204);
    assert_news_error(t.get_auth(&path, &alice).await, 404, &path).await;
    let missing = format!("{LOGBOOK}/not-an-id");
    assert_news_error(t.get_auth(&missing, &alice).await, 404, &missing).await;
}
