//! Alert rules: CRUD, the built-in rule on ERROR and FATAL, and thresholds: N matching logs
//! of one fingerprint within the window raise an alert and open the incident; fewer do not.

use serde_json::{json, Value};
use stack_tests::incidents::{eventually, log, ALERTS, INCIDENTS, RULES};
use stack_tests::{assert_news_error, TestStack};

#[tokio::test]
async fn rules_are_kept_replaced_and_deleted() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("ruler").await;
    let rules = t.get_ok_auth(RULES, &token).await;
    assert_eq!(rules.as_array().unwrap().len(), 1);
    assert_eq!(rules[0]["id"], "default");
    assert_eq!(rules[0]["severities"], json!(["ERROR", "FATAL"]));

    let r = t
        .post_json_auth(
            RULES,
            &token,
            &json!({"name": "slow cache", "severities": ["WARN"], "serviceName": "cache",
                    "threshold": 3, "windowSeconds": 300}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let rule: Value = r.json().await.unwrap();
    let path = format!("{RULES}/{}", rule["id"].as_str().unwrap());
    assert_eq!(t.get_ok_auth(&path, &token).await, rule);
    let r = t
        .put_json_auth(
            &path,
            &token,
            &json!({"name": "slow cache", "severities": ["WARN", "ERROR"], "threshold": 4,
                    "windowSeconds": 60, "enabled": false}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let replaced: Value = r.json().await.unwrap();
    assert_eq!(replaced["threshold"], 4);
    assert_eq!(replaced["enabled"], false);
    assert_eq!(replaced["createdAt"], rule["createdAt"]);
    assert_eq!(
        t.get_ok_auth(RULES, &token).await.as_array().unwrap().len(),
        2
    );

    // Deleting a rule is an admin's.
    assert_news_error(t.delete_auth(&path, &token).await, 403, &path).await;
    let admin = t.admin_token().await;
    assert_eq!(t.delete_auth(&path, &admin).await.status(), 204);
    assert_news_error(t.get_auth(&path, &token).await, 404, &path).await;
    assert_news_error(t.delete_auth(&path, &admin).await, 404, &path).await;

    // The built-in rule can be switched off for good: ERRORs then open nothing.
    let default = format!("{RULES}/default");
    assert_eq!(t.delete_auth(&default, &admin).await.status(), 204);
    assert_eq!(t.get_ok_auth(RULES, &token).await, json!([]));
    assert_news_error(t.delete_auth(&default, &admin).await, 404, &default).await;
}

#[tokio::test]
async fn a_threshold_raises_only_once_reached_within_the_window() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("thresholds").await;
    let r = t
        .post_json_auth(
            RULES,
            &token,
            &json!({"name": "cache misses", "severities": ["WARN"], "serviceName": "cache",
                    "threshold": 3, "windowSeconds": 600}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let rule: Value = r.json().await.unwrap();

    // Two within the window, and one of another service: nothing.
    t.ingest_ok(&json!([
        log("cache", "WARN", "Miss rate 41% on node 3"),
        log("cache", "WARN", "Miss rate 57% on node 1"),
        log("api", "WARN", "Miss rate 99% on node 1"),
    ]))
    .await;
    t.timeline_with(&token, "severity=WARN", 3).await;
    // The processor stores a message's logs, then evaluates them: give it the moment.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    assert_eq!(t.get_ok_auth(INCIDENTS, &token).await, json!([]));
    assert_eq!(t.get_ok_auth(ALERTS, &token).await, json!([]));

    // An old one, outside the window, does not count either.
    let mut old = log("cache", "WARN", "Miss rate 12% on node 2");
    old["timestamp"] = json!((chrono::Utc::now() - chrono::Duration::hours(2)).to_rfc3339());
    t.ingest_ok(&json!([old])).await;
    t.timeline_with(&token, "severity=WARN", 4).await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    assert_eq!(t.get_ok_auth(ALERTS, &token).await, json!([]));

    // The third within the window: the alert, and the incident.
    t.ingest_ok(&json!([log("cache", "WARN", "Miss rate 63% on node 2")]))
        .await;
    let alerts = eventually("the threshold's alert", || async {
        let alerts = t.get_ok_auth(ALERTS, &token).await;
        (alerts.as_array().unwrap().len() == 1).then_some(alerts)
    })
    .await;
    assert_eq!(alerts[0]["ruleId"], rule["id"]);
    assert_eq!(alerts[0]["count"], 3);
    assert_eq!(alerts[0]["threshold"], 3);
    let incidents = t.incidents_when(&token, 1).await;
    assert_eq!(incidents[0]["id"], alerts[0]["incidentId"]);
    assert_eq!(incidents[0]["serviceName"], "cache");
    assert_eq!(incidents[0]["occurrences"], 4);
}
