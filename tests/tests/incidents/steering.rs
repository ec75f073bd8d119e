//! Grouping people can steer: a client's own grouping key (`fingerprint`, alias
//! `dedup_key`) used as given; the default fingerprint keeping HTTP statuses apart and
//! folding user names; operators merging two incidents into one.

use serde_json::{json, Value};
use stack_tests::incidents::{log, INCIDENTS, LOGS};
use stack_tests::{assert_news_error, details, TestStack};

fn keyed(service: &str, message: &str, field: &str, key: &str) -> Value {
    let mut body = log(service, "ERROR", message);
    body[field] = json!(key);
    body
}

fn find<'a>(incidents: &'a [Value], service: &str, message: &str) -> &'a Value {
    incidents
        .iter()
        .find(|i| i["serviceName"] == service && i["normalizedMessage"] == message)
        .unwrap_or_else(|| panic!("no {service} incident {message:?} in {incidents:?}"))
}

#[tokio::test]
async fn a_client_grouping_key_groups_logs_as_given_and_a_bad_one_is_refused() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("keyed").await;
    let r = t
        .ingest(&json!([
            log("cart", "ERROR", "fine"),
            keyed("cart", "x", "fingerprint", "has space")
        ]))
        .await;
    let body = assert_news_error(r, 400, LOGS).await;
    assert!(details(&body)[0].starts_with("[1].fingerprint:"), "{body}");
    let r = t
        .ingest(&json!({
            "serviceName": "cart", "type": "APP", "severity": "ERROR", "logContent": "x",
            "fingerprint": "a", "dedup_key": "a"
        }))
        .await;
    let body = assert_news_error(r, 400, LOGS).await;
    assert!(details(&body)[0].starts_with("dedup_key:"), "{body}");

    t.ingest_ok(&json!([
        keyed(
            "cart",
            "Card declined for order 1",
            "fingerprint",
            "cart:declined"
        ),
        keyed("cart", "Issuer said no", "dedup_key", "cart:declined"),
        keyed(
            "cart",
            "Card declined for order 2",
            "fingerprint",
            "cart:fraud"
        ),
    ]))
    .await;
    let incidents = t.incidents_when(&token, 2).await;
    let declined = incidents
        .iter()
        .find(|i| i["occurrences"] == 2)
        .unwrap_or_else(|| {
            panic!("the two cart:declined logs are not one incident: {incidents:?}")
        });
    assert!(
        declined["groupedBy"]
            .as_str()
            .unwrap()
            .contains("fingerprint"),
        "{declined}"
    );
    assert!(
        incidents.iter().any(|i| i["occurrences"] == 1),
        "cart:fraud is an incident of its own: {incidents:?}"
    );
}

#[tokio::test]
async fn status_codes_stay_apart_and_user_names_fold() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("sre").await;
    t.ingest_ok(&json!([
        log(
            "api",
            "ERROR",
            "GET /api/v1/orders/81723 returned 500 in 32 ms"
        ),
        log("api", "ERROR", "GET /api/v1/orders/5 returned 500 in 7 ms"),
        log(
            "api",
            "ERROR",
            "GET /api/v1/orders/81723 returned 404 in 3 ms"
        ),
        log(
            "auth",
            "ERROR",
            "Login failed for user 'alice': invalid password"
        ),
        log(
            "auth",
            "ERROR",
            "Login failed for user 'wei.zhang': invalid password"
        ),
        log(
            "auth",
            "ERROR",
            "Mail to ops+x@acme.io from host web-blue bounced"
        ),
        log(
            "auth",
            "ERROR",
            "Mail to bob@example.com from host web-green bounced"
        ),
    ]))
    .await;
    let incidents = t.incidents_when(&token, 4).await;
    let e500 = find(
        &incidents,
        "api",
        "GET /api/v1/orders/# returned 500 in # ms",
    );
    assert_eq!(e500["occurrences"], 2);
    let e404 = find(
        &incidents,
        "api",
        "GET /api/v1/orders/# returned 404 in # ms",
    );
    assert_eq!(e404["occurrences"], 1);
    let login = find(
        &incidents,
        "auth",
        "Login failed for user '#': invalid password",
    );
    assert_eq!(login["occurrences"], 2);
    let mail = find(&incidents, "auth", "Mail to # from host # bounced");
    assert_eq!(mail["occurrences"], 2);
}

#[tokio::test]
async fn an_operator_merges_an_incident_into_another_once() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("merger").await;
    t.ingest_ok(&json!([
        log("shop", "ERROR", "Payment gateway timed out after 3000 ms"),
        log("shop", "ERROR", "Payment gateway timed out after 2500 ms"),
        log("shop", "ERROR", "Payment provider unreachable"),
    ]))
    .await;
    let incidents = t.incidents_when(&token, 2).await;
    let timeout = find(&incidents, "shop", "Payment gateway timed out after # ms");
    let unreachable = find(&incidents, "shop", "Payment provider unreachable");
    let (source, target) = (
        timeout["id"].as_str().unwrap().to_string(),
        unreachable["id"].as_str().unwrap().to_string(),
    );
    let merge = format!("{INCIDENTS}/{source}/merge");

    // Bad targets: each a 400 naming `into`.
    for body in [
        json!({}),
        json!({"into": "nope"}),
        json!({"into": source}),
        json!({"into": "0".repeat(32)}),
        json!({"into": target, "note": "n".repeat(2001)}),
    ] {
        let r = t.post_json_auth(&merge, &token, &body).await;
        let answer = assert_news_error(r, 400, &merge).await;
        let field = if body.get("note").is_some() {
            "note:"
        } else {
            "into:"
        };
        assert!(details(&answer)[0].starts_with(field), "{body} → {answer}");
    }
    let missing = format!("{INCIDENTS}/{}/merge", "f".repeat(32));
    let r = t
        .post_json_auth(&missing, &token, &json!({"into": target}))
        .await;
    assert_news_error(r, 404, &missing).await;

    let body = json!({"into": target, "note": "same outage"});
    let r = t.post_json_auth(&merge, &token, &body).await;
    assert_eq!(r.status(), 200);
    let merged: Value = r.json().await.unwrap();
    assert_eq!(merged["status"], "RESOLVED");
    assert_eq!(merged["mergedInto"], target.as_str());
    assert_eq!(merged["occurrences"], 0, "its count moved");
    let last = merged["history"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(last["note"].as_str().unwrap().contains(&target), "{last}");
    assert_eq!(last["by"], "merger");
    let kept = t
        .get_ok_auth(&format!("{INCIDENTS}/{target}"), &token)
        .await;
    assert_eq!(kept["occurrences"], 3);
    assert_eq!(kept["status"], "ACTIVE");

    // Again: the same answer, nothing moved twice.
    let r = t.post_json_auth(&merge, &token, &body).await;
    assert_eq!(r.status(), 200);
    let again: Value = r.json().await.unwrap();
    assert_eq!(again["history"], merged["history"]);
    let kept = t
        .get_ok_auth(&format!("{INCIDENTS}/{target}"), &token)
        .await;
    assert_eq!(kept["occurrences"], 3);
    // The target into the merged one: refused.
    let back = format!("{INCIDENTS}/{target}/merge");
    let r = t
        .post_json_auth(&back, &token, &json!({"into": source}))
        .await;
    let answer = assert_news_error(r, 400, &back).await;
    assert!(details(&answer)[0].starts_with("into:"), "{answer}");

    // A new log of the merged fingerprint counts into the target, never reopening the source.
    t.ingest_ok(&json!([log(
        "shop",
        "ERROR",
        "Payment gateway timed out after 999 ms"
    )]))
    .await;
    t.incident_when(&token, &target, |i| i["occurrences"] == 4)
        .await;
    let source_now = t
        .get_ok_auth(&format!("{INCIDENTS}/{source}"), &token)
        .await;
    assert_eq!(source_now["status"], "RESOLVED");
    assert_eq!(source_now["occurrences"], 0);
}
