//! Incident state that holds: resolving an incident resolves the alerts it raised, in the
//! resolve's own transaction, so no alert stays OPEN on a RESOLVED incident; a merge does the
//! same for the merged incident's alerts; the rule cap holds under parallel creates.

use platform::dynamo::{n, s, AttributeValue};
use serde_json::{json, Value};
use stack_tests::incidents::{eventually, log, ALERTS, INCIDENTS, RULES};
use stack_tests::{assert_news_error, TestStack};

/// The alerts of incident `id` with `status`.
async fn alerts_of(t: &TestStack, token: &str, id: &str, status: &str) -> Vec<Value> {
    let alerts = t
        .get_ok_auth(&format!("{ALERTS}?status={status}"), token)
        .await;
    alerts
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["incidentId"] == id)
        .cloned()
        .collect()
}

/// Creates `rule`.
async fn add_rule(t: &TestStack, token: &str, rule: &Value) {
    let r = t.post_json_auth(RULES, token, rule).await;
    assert_eq!(r.status(), 201, "{rule}");
}

/// A rule raising on one `severity` log of `service`.
fn one_log_rule(service: &str, severity: &str) -> Value {
    json!({"name": format!("{service} down"), "severities": [severity], "serviceName": service,
           "threshold": 1, "windowSeconds": 60})
}

/// Acknowledges `alert` by hand.
async fn acknowledge(t: &TestStack, token: &str, alert: &Value) {
    let path = format!("{ALERTS}/{}", alert["id"].as_str().unwrap());
    let r = t
        .patch_json_auth(&path, token, &json!({"status": "ACKNOWLEDGED"}))
        .await;
    assert_eq!(r.status(), 200);
}

/// Replaces the default rule with `rule`, so only it opens and reopens incidents.
async fn only_rule(t: &TestStack, token: &str, rule: Value) {
    let admin = t.admin_token().await;
    let r = t.delete_auth(&format!("{RULES}/default"), &admin).await;
    assert_eq!(r.status(), 204);
    add_rule(t, token, &rule).await;
}

#[tokio::test]
async fn resolving_an_incident_resolves_its_open_and_acknowledged_alerts() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("resolver").await;
    add_rule(&t, &token, &one_log_rule("payments", "ERROR")).await;
    t.ingest_ok(&log("payments", "ERROR", "Gateway 502 from acquirer"))
        .await;
    let id = t.incidents_when(&token, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Two rules matched: two alerts, one of them acknowledged by hand.
    let raised = eventually("two alerts", || async {
        let open = alerts_of(&t, &token, &id, "OPEN").await;
        (open.len() == 2).then_some(open)
    })
    .await;
    acknowledge(&t, &token, &raised[0]).await;

    let r = t
        .patch_json_auth(
            &format!("{INCIDENTS}/{id}"),
            &token,
            &json!({"status": "RESOLVED", "note": "acquirer back"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(alerts_of(&t, &token, &id, "OPEN").await.is_empty());
    assert!(alerts_of(&t, &token, &id, "ACKNOWLEDGED").await.is_empty());
    let resolved = alerts_of(&t, &token, &id, "RESOLVED").await;
    assert_eq!(resolved.len(), 2, "{resolved:?}");
    assert!(resolved.iter().all(|a| a["status"] == "RESOLVED"));

    // A reopen raises new alerts; resolving again resolves those, and only once each.
    t.ingest_ok(&log("payments", "ERROR", "Gateway 502 from acquirer"))
        .await;
    t.incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    eventually("two new alerts", || async {
        let open = alerts_of(&t, &token, &id, "OPEN").await;
        (open.len() == 2).then_some(open)
    })
    .await;
    let r = t
        .patch_json_auth(
            &format!("{INCIDENTS}/{id}"),
            &token,
            &json!({"status": "RESOLVED"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(alerts_of(&t, &token, &id, "OPEN").await.is_empty());
    assert_eq!(alerts_of(&t, &token, &id, "RESOLVED").await.len(), 4);
}

#[tokio::test]
async fn a_reopen_needs_the_rules_threshold_after_the_resolve() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("reopener").await;
    only_rule(
        &t,
        &token,
        json!({"name": "disk pressure", "severities": ["WARN"], "serviceName": "store",
                    "threshold": 5, "windowSeconds": 600}),
    )
    .await;
    let warn = || log("store", "WARN", "Disk 91% full on volume 3");
    t.ingest_ok(&json!([warn(), warn(), warn(), warn(), warn()]))
        .await;
    let id = t.incidents_when(&token, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{INCIDENTS}/{id}");
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_eq!(r.status(), 200);

    // One log, and five stamped before the resolve: still RESOLVED, no new alert.
    let mut backdated = warn();
    backdated["timestamp"] = json!(chrono::Utc::now()
        .checked_sub_signed(chrono::Duration::minutes(2))
        .unwrap()
        .to_rfc3339());
    t.ingest_ok(&json!([
        warn(),
        backdated.clone(),
        backdated.clone(),
        backdated.clone(),
        backdated.clone(),
        backdated
    ]))
    .await;
    let counted = t
        .incident_when(&token, &id, |i| i["occurrences"] == 11)
        .await;
    assert_eq!(counted["status"], "RESOLVED", "{counted}");
    assert_eq!(counted["reopenCount"], 0);
    assert!(alerts_of(&t, &token, &id, "OPEN").await.is_empty());

    // Four more after the resolve meet the threshold of five: reopened and alerted.
    t.ingest_ok(&json!([warn(), warn(), warn(), warn()])).await;
    let reopened = t
        .incident_when(&token, &id, |i| i["status"] == "ACTIVE")
        .await;
    assert_eq!(reopened["reopenCount"], 1);
    eventually("the reopen's alert", || async {
        let open = alerts_of(&t, &token, &id, "OPEN").await;
        (open.len() == 1).then_some(open)
    })
    .await;
}

/// A processor message of one ERROR log of `service`, stamped now; the log as parsed.
fn one_log_message(service: &str, n: usize) -> (String, incidents::model::Log) {
    let now = chrono::Utc::now();
    let stamp = now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let log = json!({
        "id": format!("{:013}-{n:032x}", now.timestamp_millis()),
        "serviceName": service,
        "type": "APPLICATION_LOG",
        "severity": "ERROR",
        "logContent": "ledger 7 out of balance",
        "timestamp": stamp,
        "receivedAt": stamp,
    });
    let body = json!({"kind": "logs", "logs": [log.clone()]}).to_string();
    (body, serde_json::from_value(log).unwrap())
}

/// Hands one message to the processor; it must succeed.
async fn deliver(processor: &dyn platform::SqsHandler, id: &str, body: &str) {
    let response = processor
        .handle(stack_tests::content::sqs_event(&[(id, body.to_string())]))
        .await
        .expect("batch handled");
    assert!(response.batch_item_failures.is_empty());
}

#[tokio::test]
async fn a_redelivered_message_finishes_a_half_done_reopen() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("redelivery").await;
    only_rule(
        &t,
        &token,
        json!({"name": "ledger drift", "severities": ["ERROR"], "serviceName": "ledger",
                    "threshold": 1, "windowSeconds": 60}),
    )
    .await;
    let env = t.env("IncidentsProcessorFunction");
    let processor = incidents_processor_function::handler(env.clone())
        .await
        .unwrap();
    let (first, _) = one_log_message("ledger", 1);
    deliver(processor.as_ref(), "m1", &first).await;
    let id = t.incidents_when(&token, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{INCIDENTS}/{id}");
    let r = t
        .patch_json_auth(&path, &token, &json!({"status": "RESOLVED"}))
        .await;
    assert_eq!(r.status(), 200);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;

    // The half-done state: the log's message counted into the incident (its grouped-log
    // marker, count and window row, as the processor's first step writes them), the reopen
    // that follows never committed.
    let (second, log) = one_log_message("ledger", 2);
    let incidents = incidents::Incidents::from_env(&env, &t.aws().await).unwrap();
    let key = incidents_metrics::store::batch_key([log.id.as_str()]);
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let part = incidents::groups::Part {
        message: key,
        logs: vec![&log],
    };
    let counted = incidents
        .count_only(&id, &[part], true, &now)
        .await
        .unwrap();
    assert_eq!(counted.logs, 1);
    let half = t.get_ok_auth(&path, &token).await;
    assert_eq!(half["occurrences"], 2, "{half}");
    assert_eq!(half["status"], "RESOLVED");
    assert!(alerts_of(&t, &token, &id, "OPEN").await.is_empty());

    // SQS delivers the message again: counted already, it finishes the reopen, once.
    deliver(processor.as_ref(), "m2", &second).await;
    deliver(processor.as_ref(), "m2-again", &second).await;
    let reopened = t.get_ok_auth(&path, &token).await;
    assert_eq!(reopened["status"], "ACTIVE", "{reopened}");
    assert_eq!(reopened["reopenCount"], 1);
    assert_eq!(reopened["occurrences"], 2, "counted once");
    assert_eq!(alerts_of(&t, &token, &id, "OPEN").await.len(), 1);
}

/// A rule of its own name, matching WARN logs of service `svc{i}`.
fn numbered_rule(i: usize) -> Value {
    json!({"name": format!("rule {i}"), "severities": ["WARN"], "serviceName": format!("svc{i}"),
           "threshold": 5, "windowSeconds": 60})
}

/// How many of `statuses` are `status`.
fn answered(statuses: &[u16], status: u16) -> usize {
    statuses.iter().filter(|s| **s == status).count()
}

#[tokio::test]
async fn fifty_one_parallel_rule_creates_stop_at_the_cap_of_fifty() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("rulers").await;
    // The built-in rule is one of the 50: 49 of 51 parallel creates fit.
    let statuses = futures::future::join_all((0..51).map(|i| {
        let (t, token) = (&t, &token);
        async move {
            let r = t.post_json_auth(RULES, token, &numbered_rule(i)).await;
            let status = r.status().as_u16();
            if status == 400 {
                let answer = assert_news_error(r, 400, RULES).await;
                assert!(answer.to_string().contains("at most 50"), "{answer}");
            }
            status
        }
    }))
    .await;
    assert_eq!(answered(&statuses, 201), 49, "{statuses:?}");
    assert_eq!(answered(&statuses, 400), 2, "{statuses:?}");
    let rules = t.get_ok_auth(RULES, &token).await;
    assert_eq!(rules.as_array().unwrap().len(), 50);

    // A delete frees one place, once: of two parallel creates one fits.
    let admin = t.admin_token().await;
    let freed = format!("{RULES}/{}", rules[7]["id"].as_str().unwrap());
    assert_eq!(t.delete_auth(&freed, &admin).await.status(), 204);
    assert_news_error(t.delete_auth(&freed, &admin).await, 404, &freed).await;
    let statuses = futures::future::join_all((100..102).map(|i| {
        let (t, token) = (&t, &token);
        async move {
            let r = t.post_json_auth(RULES, token, &numbered_rule(i)).await;
            r.status().as_u16()
        }
    }))
    .await;
    assert_eq!(answered(&statuses, 201), 1, "{statuses:?}");
    assert_eq!(answered(&statuses, 400), 1, "{statuses:?}");
    let rules = t.get_ok_auth(RULES, &token).await;
    assert_eq!(rules.as_array().unwrap().len(), 50);

    // Deleting the built-in rule frees a place too; a replace keeps the count.
    let default = format!("{RULES}/default");
    assert_eq!(t.delete_auth(&default, &admin).await.status(), 204);
    let replaced = format!("{RULES}/{}", rules[3]["id"].as_str().unwrap());
    let r = t
        .put_json_auth(&replaced, &token, &numbered_rule(200))
        .await;
    assert_eq!(r.status(), 200);
    let r = t.post_json_auth(RULES, &token, &numbered_rule(201)).await;
    assert_eq!(r.status(), 201);
    let r = t.post_json_auth(RULES, &token, &numbered_rule(202)).await;
    assert_news_error(r, 400, RULES).await;
}

#[tokio::test]
async fn rules_stored_before_the_count_are_counted_once_it_is_seeded() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("migrator").await;
    // 49 rules as the code before the count stored them (no count row), and the built-in one.
    let legacy = (0..49)
        .map(|i| {
            [
                ("pk", s("RULES")),
                ("sk", s(format!("00000000-0000-4000-8000-{i:012}"))),
                ("name", s(format!("legacy {i}"))),
                ("severities", AttributeValue::L(vec![s("WARN")])),
                ("threshold", n(5)),
                ("windowSeconds", n(60)),
                ("enabled", AttributeValue::Bool(true)),
                ("createdAt", s(format!("2026-01-01T00:00:{i:02}.000Z"))),
                ("updatedAt", s("2026-01-01T00:00:00.000Z")),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
        })
        .collect();
    t.put_items("IncidentsTable", legacy).await;
    assert_eq!(
        t.get_ok_auth(RULES, &token).await.as_array().unwrap().len(),
        50
    );
    let r = t.post_json_auth(RULES, &token, &numbered_rule(0)).await;
    let answer = assert_news_error(r, 400, RULES).await;
    assert!(answer.to_string().contains("at most 50"), "{answer}");
    let count = t
        .scan("IncidentsTable")
        .await
        .into_iter()
        .find(|i| i.get("pk") == Some(&s("RULECOUNT")))
        .expect("the count, seeded");
    assert_eq!(count.get("rules"), Some(&n(50)));

    // A legacy rule's delete counts it out.
    let admin = t.admin_token().await;
    let legacy_rule = format!("{RULES}/00000000-0000-4000-8000-000000000004");
    assert_eq!(t.delete_auth(&legacy_rule, &admin).await.status(), 204);
    let r = t.post_json_auth(RULES, &token, &numbered_rule(1)).await;
    assert_eq!(r.status(), 201);
    let r = t.post_json_auth(RULES, &token, &numbered_rule(2)).await;
    assert_news_error(r, 400, RULES).await;
}

#[tokio::test]
async fn merging_an_incident_resolves_its_open_and_acknowledged_alerts() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("merger").await;
    // The api's FATALs match the built-in rule and this one: two alerts on its incident.
    add_rule(&t, &token, &one_log_rule("api", "FATAL")).await;
    t.ingest_ok(&json!([
        log("api", "FATAL", "Upstream refused every connection"),
        log("db", "FATAL", "Primary lost quorum"),
    ]))
    .await;
    let incidents = t.incidents_when(&token, 2).await;
    let id_of = |service: &str| {
        incidents
            .iter()
            .find(|i| i["serviceName"] == service)
            .and_then(|i| i["id"].as_str())
            .unwrap()
            .to_string()
    };
    let (source, target) = (id_of("api"), id_of("db"));
    let raised = eventually("two alerts on the api's incident", || async {
        let open = alerts_of(&t, &token, &source, "OPEN").await;
        (open.len() == 2).then_some(open)
    })
    .await;
    eventually("the db's alert", || async {
        (alerts_of(&t, &token, &target, "OPEN").await.len() == 1).then_some(())
    })
    .await;
    acknowledge(&t, &token, &raised[0]).await;

    let merge = format!("{INCIDENTS}/{source}/merge");
    for _ in 0..2 {
        let r = t
            .post_json_auth(&merge, &token, &json!({"into": target}))
            .await;
        assert_eq!(r.status(), 200);
        assert!(alerts_of(&t, &token, &source, "OPEN").await.is_empty());
        assert!(alerts_of(&t, &token, &source, "ACKNOWLEDGED")
            .await
            .is_empty());
        let resolved = alerts_of(&t, &token, &source, "RESOLVED").await;
        assert_eq!(resolved.len(), 2, "{resolved:?}");
        // The target's own alert is its own business.
        assert_eq!(alerts_of(&t, &token, &target, "OPEN").await.len(), 1);
    }
}
