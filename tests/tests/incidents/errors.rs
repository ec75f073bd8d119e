//! Every 400 of the incident platform names its field, in the detailed error body; every
//! route needs a token (ingestion: or an ingest key); a dead table or queue is a 503.

use serde_json::{json, Value};
use stack_tests::incidents::{log, ALERTS, INCIDENTS, LOGBOOK, LOGS, RULES};
use stack_tests::stack::Call;
use stack_tests::{assert_news_error, details, TestStack};

async fn fields_of(response: reqwest::Response, path: &str) -> Vec<String> {
    let body = assert_news_error(response, 400, path).await;
    details(&body)
        .into_iter()
        .map(|d| d.split(':').next().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test]
async fn every_bad_input_is_a_400_naming_its_field() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("validator").await;

    // Ingestion.
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"serviceName": "a", "type": "T", "severity": "LOUD", "logContent": "x"}),
            vec!["severity"],
        ),
        (
            json!({"type": "T", "severity": "INFO", "logContent": "x"}),
            vec!["serviceName"],
        ),
        (
            json!({"serviceName": "a", "severity": "INFO", "logContent": "x"}),
            vec!["type"],
        ),
        (
            json!({"serviceName": "a", "type": "T", "severity": "INFO"}),
            vec!["logContent"],
        ),
        (
            json!({"serviceName": "a", "type": "T", "severity": "INFO", "logContent": " "}),
            vec!["logContent"],
        ),
        (
            json!({"serviceName": "s".repeat(101), "type": "T", "severity": "INFO", "logContent": "x"}),
            vec!["serviceName"],
        ),
        (
            json!({"serviceName": "a", "type": "T", "severity": "INFO", "logContent": "x".repeat(16_385)}),
            vec!["logContent"],
        ),
        (
            json!({"serviceName": "a", "type": "T", "severity": "INFO", "logContent": "x", "timestamp": "yesterday"}),
            vec!["timestamp"],
        ),
        (
            json!({"serviceName": "a", "type": "T", "severity": "INFO", "logContent": "x", "timestamp": "2999-01-01T00:00:00Z"}),
            vec!["timestamp"],
        ),
        (
            json!({"serviceName": "a", "type": "T", "severity": "INFO", "logContent": "x", "timestamp": "1999-01-01T00:00:00Z"}),
            vec!["timestamp"],
        ),
        (
            json!({"serviceName": 5, "type": "T", "severity": "INFO", "logContent": "x"}),
            vec!["serviceName"],
        ),
        (
            json!([log("a", "INFO", "ok"), {"serviceName": "a", "type": "T", "severity": 3, "logContent": "x"}]),
            vec!["[1].severity"],
        ),
        (json!([log("a", "INFO", "ok"), 7]), vec!["[1]"]),
        (json!([]), vec!["body"]),
        (
            Value::Array((0..501).map(|_| log("a", "INFO", "x")).collect()),
            vec!["body"],
        ),
        (json!(42), vec!["body"]),
    ];
    for (body, fields) in cases {
        let r = t.ingest(&body).await;
        assert_eq!(fields_of(r, LOGS).await, fields, "{body}");
    }
    let r = t
        .http
        .post(t.url(LOGS))
        .header("x-api-key", stack_tests::stack::INGEST_KEY)
        .header("content-type", "application/json")
        .body("{not json")
        .call()
        .await;
    assert_news_error(r, 400, LOGS).await;

    // The timeline's query.
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("limit=ten", "limit"),
        ("limit=", "limit"),
        ("to=", "to"),
        ("severity=", "severity"),
        ("cursor=abc", "cursor"),
        ("from=yesterday", "from"),
        ("to=2026-13-01T00:00:00Z", "to"),
        ("from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z", "from"),
        ("severity=LOUD", "severity"),
        (&format!("serviceName={}", "s".repeat(101)), "serviceName"),
    ] {
        let r = t.get_auth(&format!("{LOGS}?{query}"), &token).await;
        assert_eq!(fields_of(r, LOGS).await, vec![field], "{query}");
    }
    let admin = t.admin_token().await;
    let r = t
        .delete_auth(&format!("{LOGS}?severity=LOUD"), &admin)
        .await;
    assert_eq!(fields_of(r, LOGS).await, vec!["severity"]);

    // Rules.
    for (body, fields) in [
        (
            json!({"severities": ["WARN"], "threshold": 1, "windowSeconds": 1}),
            vec!["name"],
        ),
        (
            json!({"name": "x", "severities": [], "threshold": 1, "windowSeconds": 1}),
            vec!["severities"],
        ),
        (
            json!({"name": "x", "severities": ["LOUD"], "threshold": 1, "windowSeconds": 1}),
            vec!["severities"],
        ),
        (
            json!({"name": "x", "severities": ["WARN"], "threshold": 0, "windowSeconds": 1}),
            vec!["threshold"],
        ),
        (
            json!({"name": "x", "severities": ["WARN"], "threshold": 1001, "windowSeconds": 1}),
            vec!["threshold"],
        ),
        (
            json!({"name": "x", "severities": ["WARN"], "threshold": 1, "windowSeconds": 86401}),
            vec!["windowSeconds"],
        ),
        (
            json!({"name": "x", "severities": ["WARN"], "threshold": 1.5, "windowSeconds": 1}),
            vec!["threshold"],
        ),
        (
            json!({"name": "x", "severities": ["WARN"], "threshold": 1, "windowSeconds": 1, "enabled": "yes"}),
            vec!["enabled"],
        ),
        (json!([1]), vec!["body"]),
    ] {
        let r = t.post_json_auth(RULES, &token, &body).await;
        assert_eq!(fields_of(r, RULES).await, fields, "{body}");
    }
    let default = format!("{RULES}/default");
    let r = t
        .put_json_auth(&default, &token, &json!({"name": "x"}))
        .await;
    assert_eq!(
        fields_of(r, &default).await,
        vec!["severities", "threshold", "windowSeconds"]
    );

    // Incident and alert updates, and list filters.
    let incident = format!("{INCIDENTS}/{}", "a".repeat(32));
    for body in [json!({"status": "DONE"}), json!({}), json!({"status": 1})] {
        let r = t.patch_json_auth(&incident, &token, &body).await;
        assert_eq!(fields_of(r, &incident).await, vec!["status"], "{body}");
    }
    let r = t
        .patch_json_auth(
            &incident,
            &token,
            &json!({"status": "RESOLVED", "note": "n".repeat(2001)}),
        )
        .await;
    assert_eq!(fields_of(r, &incident).await, vec!["note"]);
    let alert = format!("{ALERTS}/{}", "a".repeat(32));
    let r = t
        .patch_json_auth(&alert, &token, &json!({"status": "CLOSED"}))
        .await;
    assert_eq!(fields_of(r, &alert).await, vec!["status"]);
    for (path, field) in [
        (format!("{INCIDENTS}?status=OPEN"), "status"),
        (format!("{INCIDENTS}?status="), "status"),
        (format!("{INCIDENTS}?limit=101"), "limit"),
        (format!("{ALERTS}?status=ACTIVE"), "status"),
        (format!("{ALERTS}?limit=0"), "limit"),
        (format!("{LOGBOOK}?incidentId=nope"), "incidentId"),
        (format!("{LOGBOOK}?limit=x"), "limit"),
        (format!("{INCIDENTS}?cursor="), "cursor"),
        (format!("{ALERTS}?cursor=zz"), "cursor"),
        (format!("{LOGBOOK}?cursor=80"), "cursor"),
    ] {
        let r = t.get_auth(&path, &token).await;
        let route = path.split('?').next().unwrap();
        assert_eq!(fields_of(r, route).await, vec![field], "{path}");
    }

    // Logbook entries.
    for (body, fields) in [
        (json!({"body": "b"}), vec!["title"]),
        (json!({"title": "t"}), vec!["body"]),
        (
            json!({"title": "t", "body": "b", "kind": "DIARY"}),
            vec!["kind"],
        ),
        (
            json!({"title": "t".repeat(201), "body": "b"}),
            vec!["title"],
        ),
        (
            json!({"title": "t", "body": "b", "incidentId": "nope"}),
            vec!["incidentId"],
        ),
        (
            json!({"title": "t", "body": "b", "incidentId": "a".repeat(32)}),
            vec!["incidentId"],
        ),
    ] {
        let r = t.post_json_auth(LOGBOOK, &token, &body).await;
        assert_eq!(fields_of(r, LOGBOOK).await, fields, "{body}");
    }
    let entry = format!("{LOGBOOK}/5b0f3c1e-0000-4000-8000-00000000000a");
    for (body, fields) in [
        (json!({"title": "t", "body": "b"}), vec!["version"]),
        (
            json!({"title": "t", "body": "b", "version": 1.5}),
            vec!["version"],
        ),
        (
            json!({"body": "b", "version": -1}),
            vec!["title", "version"],
        ),
    ] {
        let r = t.put_json_auth(&entry, &token, &body).await;
        assert_eq!(fields_of(r, &entry).await, fields, "{body}");
    }
}

#[tokio::test]
async fn every_route_needs_a_token_and_ingestion_takes_the_key() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let id = "a".repeat(32);
    let log_id = format!("1732486400000-{id}");
    let routes = [
        ("GET", LOGS.to_string()),
        ("DELETE", LOGS.to_string()),
        ("DELETE", format!("{LOGS}/{log_id}")),
        ("GET", RULES.to_string()),
        ("POST", RULES.to_string()),
        ("GET", format!("{RULES}/default")),
        ("PUT", format!("{RULES}/default")),
        ("DELETE", format!("{RULES}/default")),
        ("GET", ALERTS.to_string()),
        ("PATCH", format!("{ALERTS}/{id}")),
        ("GET", INCIDENTS.to_string()),
        ("GET", format!("{INCIDENTS}/{id}")),
        ("PATCH", format!("{INCIDENTS}/{id}")),
        ("GET", LOGBOOK.to_string()),
        ("POST", LOGBOOK.to_string()),
        (
            "GET",
            format!("{LOGBOOK}/5b0f3c1e-0000-4000-8000-00000000000a"),
        ),
        (
            "PUT",
            format!("{LOGBOOK}/5b0f3c1e-0000-4000-8000-00000000000a"),
        ),
        (
            "DELETE",
            format!("{LOGBOOK}/5b0f3c1e-0000-4000-8000-00000000000a"),
        ),
        ("POST", LOGS.to_string()),
    ];
    for (method, path) in routes {
        let r = t
            .http
            .request(method.parse().unwrap(), t.url(&path))
            .json(&json!({}))
            .call()
            .await;
        assert_news_error(r, 401, &path).await;
    }
    // A wrong key is no key; the right key or an operator's token ingests.
    let r = t
        .http
        .post(t.url(LOGS))
        .header("x-api-key", "wrong")
        .json(&log("a", "INFO", "x"))
        .call()
        .await;
    assert_news_error(r, 401, LOGS).await;
    assert_eq!(t.ingest(&log("a", "INFO", "x")).await.status(), 202);
    let (_, token) = t.operator("tokened").await;
    let r = t.post_json_auth(LOGS, &token, &log("a", "INFO", "x")).await;
    assert_eq!(r.status(), 202);
}

#[tokio::test]
async fn an_unreachable_table_or_queue_is_a_503_on_every_route() {
    use stack_tests::router::{request, send};
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("outage").await;
    let dead = format!("http://127.0.0.1:{}", stack_tests::server::closed_port());
    let router = incidents_function::router(
        t.env("IncidentsFunction")
            .with("AWS_ENDPOINT_URL", dead.clone()),
    )
    .await
    .unwrap();
    let bearer = format!("Bearer {token}");
    let id = "a".repeat(32);
    let entry = "5b0f3c1e-0000-4000-8000-00000000000a";
    let rule = json!({"name": "r", "severities": ["WARN"], "threshold": 1, "windowSeconds": 1});
    let cases: Vec<(&str, String, Option<Value>)> = vec![
        ("GET", LOGS.into(), None),
        ("DELETE", LOGS.into(), None),
        ("DELETE", format!("{LOGS}/1732486400000-{id}"), None),
        ("GET", RULES.into(), None),
        ("POST", RULES.into(), Some(rule.clone())),
        ("GET", format!("{RULES}/default"), None),
        ("PUT", format!("{RULES}/default"), Some(rule)),
        ("DELETE", format!("{RULES}/default"), None),
        ("GET", ALERTS.into(), None),
        (
            "PATCH",
            format!("{ALERTS}/{id}"),
            Some(json!({"status": "RESOLVED"})),
        ),
        ("GET", INCIDENTS.into(), None),
        ("GET", format!("{INCIDENTS}/{id}"), None),
        (
            "PATCH",
            format!("{INCIDENTS}/{id}"),
            Some(json!({"status": "RESOLVED"})),
        ),
        ("GET", LOGBOOK.into(), None),
        (
            "POST",
            LOGBOOK.into(),
            Some(json!({"title": "t", "body": "b"})),
        ),
        ("GET", format!("{LOGBOOK}/{entry}"), None),
        (
            "PUT",
            format!("{LOGBOOK}/{entry}"),
            Some(json!({"title": "t", "body": "b", "version": 1})),
        ),
        ("DELETE", format!("{LOGBOOK}/{entry}"), None),
    ];
    for (method, uri, body) in cases {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let answer = send(
            &router,
            request(
                method,
                &uri,
                &[
                    ("authorization", &bearer),
                    ("content-type", "application/json"),
                ],
                body,
            ),
        )
        .await;
        assert_eq!(
            answer.status.as_u16(),
            503,
            "{method} {uri}: {}",
            answer.text()
        );
        assert_eq!(answer.json()["code"], 503, "{method} {uri}");
    }
    let ingest = incidents_ingest_function::router(
        t.env("IncidentsIngestFunction")
            .with("AWS_ENDPOINT_URL", dead),
    )
    .await
    .unwrap();
    // A token, a configured key (the queue is down) and an issued key (its record cannot be
    // read): never a 202, never a 500.
    let issued = format!("ik_{}_{}", "a".repeat(32), "b".repeat(64));
    for credential in [
        ("authorization", bearer.as_str()),
        ("x-api-key", stack_tests::stack::INGEST_KEY),
        ("x-api-key", issued.as_str()),
    ] {
        let answer = send(
            &ingest,
            request(
                "POST",
                LOGS,
                &[credential, ("content-type", "application/json")],
                log("a", "ERROR", "x").to_string(),
            ),
        )
        .await;
        assert_eq!(
            answer.status.as_u16(),
            503,
            "{}: {}",
            credential.0,
            answer.text()
        );
    }
}
