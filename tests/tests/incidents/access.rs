//! Who may do what on the incident platform: every `/api/v1` incident route is refused to a
//! plain USER (403) and to no token (401), and answers an OPERATOR; purging every log or
//! every analysis, deleting an alert rule and managing ingest keys are an ADMIN's alone. The
//! notification channels and merging incidents, each a family of its own, are refused to a
//! plain USER and leave nothing changed.

use reqwest::Method;
use serde_json::{json, Value};
use stack_tests::incidents::{log, ALERTS, INCIDENTS, LOGBOOK, LOGS, RULES};
use stack_tests::intelligence::{stack, ANALYSES, ANALYZE, DOCUMENTS, QUERY, SEARCH};
use stack_tests::llm::FakeLlm;
use stack_tests::stack::Call;
use stack_tests::{assert_news_error, TestStack};

const KEYS: &str = "/api/v1/ingest/keys";
const CHANNELS: &str = "/api/v1/notifications/channels";

/// `method path` with `token` (none: anonymous) and `body`, whatever it answers.
async fn send(
    t: &TestStack,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &Option<Value>,
) -> reqwest::Response {
    let mut request = t
        .http
        .request(Method::from_bytes(method.as_bytes()).unwrap(), t.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    request.call().await
}

/// Every operator route: method, path, a body an operator's request may carry, and what an
/// operator gets (the route's own answer: the role let it through).
fn operator_routes() -> Vec<(&'static str, String, Option<Value>, u16)> {
    let hex = "a".repeat(32);
    let log_id = format!("1732486400000-{hex}");
    let entry = "5b0f3c1e-0000-4000-8000-00000000000a";
    let rule =
        json!({"name": "Warnings", "severities": ["WARN"], "threshold": 5, "windowSeconds": 60});
    vec![
        ("POST", LOGS.into(), Some(log("web", "INFO", "hello")), 202),
        ("GET", LOGS.into(), None, 200),
        ("DELETE", format!("{LOGS}/{log_id}"), None, 404),
        ("GET", RULES.into(), None, 200),
        ("POST", RULES.into(), Some(rule.clone()), 201),
        ("GET", format!("{RULES}/default"), None, 200),
        ("PUT", format!("{RULES}/default"), Some(rule), 200),
        ("GET", ALERTS.into(), None, 200),
        (
            "PATCH",
            format!("{ALERTS}/{hex}"),
            Some(json!({"status": "RESOLVED"})),
            404,
        ),
        ("GET", INCIDENTS.into(), None, 200),
        ("GET", format!("{INCIDENTS}/counts"), None, 200),
        ("GET", "/api/v1/operators".into(), None, 200),
        ("GET", format!("{INCIDENTS}/{hex}"), None, 404),
        (
            "PATCH",
            format!("{INCIDENTS}/{hex}"),
            Some(json!({"status": "RESOLVED"})),
            404,
        ),
        ("GET", LOGBOOK.into(), None, 200),
        (
            "POST",
            LOGBOOK.into(),
            Some(json!({"title": "Shift", "body": "Quiet"})),
            201,
        ),
        ("GET", format!("{LOGBOOK}/{entry}"), None, 404),
        (
            "PUT",
            format!("{LOGBOOK}/{entry}"),
            Some(json!({"title": "Shift", "body": "Busy", "version": 1})),
            404,
        ),
        ("DELETE", format!("{LOGBOOK}/{entry}"), None, 404),
        (
            "POST",
            ANALYZE.into(),
            Some(json!({"content": "ERROR disk full on db-3"})),
            200,
        ),
        ("POST", QUERY.into(), Some(json!({})), 200),
        ("DELETE", format!("{ANALYSES}/{log_id}"), None, 404),
        (
            "POST",
            DOCUMENTS.into(),
            Some(json!({"title": "Disk full", "content": "Grow the volume."})),
            201,
        ),
        ("GET", DOCUMENTS.into(), None, 200),
        (
            "DELETE",
            format!("{DOCUMENTS}/5b0f3c1e-0000-4000-8000-00000000000b"),
            None,
            404,
        ),
        ("POST", SEARCH.into(), Some(json!({"query": "disk"})), 200),
    ]
}

/// Every ADMIN route: method, path, body, and what an admin gets.
fn admin_routes() -> Vec<(&'static str, String, Option<Value>, u16)> {
    vec![
        ("DELETE", LOGS.into(), None, 204),
        ("DELETE", ANALYSES.into(), None, 204),
        ("DELETE", format!("{RULES}/default"), None, 204),
        ("GET", KEYS.into(), None, 200),
        ("POST", KEYS.into(), Some(json!({"name": "ci"})), 201),
        ("DELETE", format!("{KEYS}/{}", "b".repeat(32)), None, 404),
    ]
}

#[tokio::test]
async fn a_plain_user_is_refused_every_incident_route_and_an_operator_gets_through() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, reader) = t.user("reader").await;
    let (_, oncall) = t.operator("oncall").await;

    for (method, path, body, _) in operator_routes().into_iter().chain(admin_routes()) {
        assert_news_error(send(&t, method, &path, None, &body).await, 401, &path).await;
        let refused = send(&t, method, &path, Some(&reader), &body).await;
        assert_operator_required(refused, method, &path).await;
    }
    assert_eq!(cloud.call_count(), 0, "a refused analysis asks no model");

    for (method, path, body, answers) in operator_routes() {
        let r = send(&t, method, &path, Some(&oncall), &body).await;
        let status = r.status().as_u16();
        let text = r.text().await.unwrap_or_default();
        assert_eq!(status, answers, "an OPERATOR's {method} {path}: {text}");
    }
    assert_eq!(
        cloud.call_count(),
        1,
        "the operator's analysis reached the model"
    );
}

#[tokio::test]
async fn only_an_admin_purges_logs_and_analyses_deletes_a_rule_and_manages_ingest_keys() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, oncall) = t.operator("oncall").await;
    let admin = t.admin_token().await;
    t.ingest_ok(&log("web", "INFO", "kept until an admin purges"))
        .await;
    t.timeline_with(&oncall, "serviceName=web", 1).await;
    t.analyze_ok(&oncall, &json!({"content": "ERROR disk full on db-3"}))
        .await;

    for (method, path, body, _) in admin_routes() {
        let refused = assert_news_error(
            send(&t, method, &path, Some(&oncall), &body).await,
            403,
            &path,
        )
        .await;
        assert!(
            refused["message"]
                .as_str()
                .unwrap()
                .contains("ADMIN role is required"),
            "{method} {path}: {refused}"
        );
    }
    // Nothing an operator tried happened.
    assert_eq!(
        t.timeline_with(&oncall, "serviceName=web", 1).await.len(),
        1
    );
    assert_eq!(t.query_analyses(&oncall, &json!({})).await.len(), 1);
    let rules = t.get_ok_auth(RULES, &oncall).await;
    assert_eq!(rules[0]["id"], "default");

    for (method, path, body, answers) in admin_routes() {
        let r = send(&t, method, &path, Some(&admin), &body).await;
        let status = r.status().as_u16();
        let text = r.text().await.unwrap_or_default();
        assert_eq!(status, answers, "an ADMIN's {method} {path}: {text}");
    }
    t.timeline_with(&oncall, "serviceName=web", 0).await;
    assert!(t.query_analyses(&oncall, &json!({})).await.is_empty());
    let rules = t.get_ok_auth(RULES, &oncall).await;
    assert!(rules
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["id"] != "default"));
    // An admin is an operator too.
    assert_eq!(t.get_auth(INCIDENTS, &admin).await.status(), 200);
}

/// `refused` is a 403 for want of the OPERATOR role.
async fn assert_operator_required(refused: reqwest::Response, method: &str, path: &str) {
    let answer = assert_news_error(refused, 403, path).await;
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("role is required"),
        "{method} {path}: {answer}"
    );
}

#[tokio::test]
async fn a_plain_user_is_refused_every_notification_channel_route() {
    let t = TestStack::start_with(std::collections::BTreeMap::from([(
        "WebhookAllowPrivateNetworks".to_string(),
        "true".to_string(),
    )]))
    .await;
    let (_, reader) = t.user("reader").await;
    let (_, oncall) = t.operator("oncall").await;
    let body = json!({"name": "on-call", "kind": "webhook", "url": "http://127.0.0.1:9/hook",
                      "secret": "0123456789abcdef"});
    let r = t.post_json_auth(CHANNELS, &oncall, &body).await;
    assert_eq!(r.status(), 201);
    let channel: Value = r.json().await.unwrap();
    let one = format!("{CHANNELS}/{}", channel["id"].as_str().unwrap());
    let routes = [
        ("GET", CHANNELS.to_string(), None),
        ("POST", CHANNELS.to_string(), Some(body)),
        ("GET", one.clone(), None),
        ("DELETE", one.clone(), None),
        ("GET", format!("{one}/deliveries"), None),
    ];
    for (method, path, body) in &routes {
        let r = send(&t, method, path, Some(&reader), body).await;
        assert_operator_required(r, method, path).await;
    }
    // Nothing the user tried happened: still the one channel, which an operator reads.
    let channels = t.get_ok_auth(CHANNELS, &oncall).await;
    assert_eq!(channels.as_array().unwrap().len(), 1, "{channels}");
    for (method, path, _) in routes.iter().filter(|(method, _, _)| *method == "GET") {
        let r = send(&t, method, path, Some(&oncall), &None).await;
        assert_eq!(r.status(), 200, "an OPERATOR's {method} {path}");
    }
}

#[tokio::test]
async fn a_plain_user_cannot_merge_incidents() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, reader) = t.user("reader").await;
    let (_, oncall) = t.operator("oncall").await;
    t.ingest_ok(&json!([
        log("api", "FATAL", "Upstream refused every connection"),
        log("db", "FATAL", "Primary lost quorum"),
    ]))
    .await;
    let incidents = t.incidents_when(&oncall, 2).await;
    let (source, target) = (
        incidents[0]["id"].as_str().unwrap(),
        incidents[1]["id"].as_str().unwrap(),
    );
    let merge = format!("{INCIDENTS}/{source}/merge");
    let body = Some(json!({"into": target}));
    assert_news_error(send(&t, "POST", &merge, None, &body).await, 401, &merge).await;
    let r = send(&t, "POST", &merge, Some(&reader), &body).await;
    assert_operator_required(r, "POST", &merge).await;
    let kept = t
        .get_ok_auth(&format!("{INCIDENTS}/{source}"), &oncall)
        .await;
    assert_eq!(kept["status"], "ACTIVE");
    assert!(kept.get("mergedInto").is_none_or(Value::is_null), "{kept}");
    // The same request is an operator's to make.
    let r = send(&t, "POST", &merge, Some(&oncall), &body).await;
    assert_eq!(r.status(), 200);
}
