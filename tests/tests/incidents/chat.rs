//! Chat channels: Slack (incoming webhook), Microsoft Teams (Workflows, an Adaptive Card)
//! and ntfy (JSON publishing with a bearer token) get an incident's events in their own
//! formats, each with the title, service, severity, status and the incident's link; their
//! answers go to the delivery log (Slack's `invalid_payload` named); their fields validated.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use stack_tests::incidents::log;
use stack_tests::server::{lock, FakeServer};
use stack_tests::stack::TestStack;

const CHANNELS: &str = "/api/v1/notifications/channels";
const NTFY_TOKEN: &str = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2";

/// One call a chat double got.
#[derive(Clone, Debug)]
struct Call {
    path: String,
    content_type: String,
    authorization: String,
    body: Value,
}

/// Slack answers `ok` (or `invalid_payload` with a 400), Teams' workflow 202, ntfy its
/// message as JSON: as the services do.
async fn chat(
    State(seen): State<Arc<Mutex<Vec<Call>>>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    lock(&seen).push(Call {
        path: uri.path().to_string(),
        content_type: header("content-type"),
        authorization: header("authorization"),
        body: parsed.clone(),
    });
    match uri.path() {
        "/services/T0001/B0001/slack" => (StatusCode::OK, "ok").into_response(),
        "/services/T0001/B0002/broken" => {
            (StatusCode::BAD_REQUEST, "invalid_payload").into_response()
        }
        "/workflows/w1/triggers/manual/paths/invoke" => StatusCode::ACCEPTED.into_response(),
        "/" => axum::Json(
            json!({"id": "sPs3Ya0hC6tV", "time": 1764799200, "expires": 1764842400,
            "event": "message", "topic": parsed["topic"], "title": parsed["title"],
            "message": parsed["message"], "priority": parsed["priority"]}),
        )
        .into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

fn calls(double: &FakeServer<Vec<Call>>, path: &str) -> Vec<Call> {
    double
        .lock()
        .iter()
        .filter(|c| c.path == path)
        .cloned()
        .collect()
}

/// Waits (up to 20 s) until `path` got `count` calls.
async fn calls_when(double: &FakeServer<Vec<Call>>, path: &str, count: usize) -> Vec<Call> {
    for _ in 0..200 {
        let got = calls(double, path);
        if got.len() >= count {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{count} calls on {path}: {:?}", double.lock());
}

async fn created(t: &TestStack, token: &str, body: Value) -> Value {
    let r = t.post_json_auth(CHANNELS, token, &body).await;
    let status = r.status();
    let answer: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{body} -> {answer}");
    answer
}

/// The first of `calls` whose text (read by `text`) tells of an opening.
fn opened(calls: &[Call], text: impl Fn(&Value) -> String) -> &Call {
    calls
        .iter()
        .find(|c| text(&c.body).contains("Incident Opened"))
        .unwrap_or_else(|| panic!("no opening in {calls:?}"))
}

#[tokio::test]
async fn slack_teams_and_ntfy_get_each_event_in_their_format() {
    let t = TestStack::start_with(BTreeMap::from([(
        "WebhookAllowPrivateNetworks".to_string(),
        "true".to_string(),
    )]))
    .await;
    let double = FakeServer::start(Vec::<Call>::new(), chat).await;
    let (_, token) = t.operator("oncall").await;
    let slack = created(
        &t,
        &token,
        json!({"name": "ops-slack", "kind": "slack", "services": ["checkout"],
               "url": double.url("/services/T0001/B0001/slack")}),
    )
    .await;
    assert_eq!(slack["kind"], "slack");
    assert_eq!(slack["url"], double.url("/services/T0001/B0001/****"));
    let broken = created(
        &t,
        &token,
        json!({"name": "old-slack", "kind": "slack", "services": ["checkout"],
               "url": double.url("/services/T0001/B0002/broken")}),
    )
    .await;
    let teams = created(
        &t,
        &token,
        json!({"name": "ops-teams", "kind": "teams",
               "url": double.url("/workflows/w1/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=s3cr3t")}),
    )
    .await;
    assert_eq!(
        teams["url"],
        double.url("/workflows/w1/triggers/manual/paths/****")
    );
    let ntfy = created(
        &t,
        &token,
        json!({"name": "phones", "kind": "ntfy", "server": double.url(""),
               "topic": "checkout-oncall", "token": NTFY_TOKEN, "severities": ["ERROR", "FATAL"]}),
    )
    .await;
    assert_eq!(ntfy["topic"], "checkout-oncall");
    assert_eq!(ntfy["hasToken"], true);
    assert!(ntfy.get("token").is_none() && ntfy.get("secret").is_none());

    let burst: Vec<Value> = (0..5)
        .map(|i| {
            log(
                "checkout",
                "ERROR",
                &format!("Payment <gateway> timeout after {i}00 ms"),
            )
        })
        .collect();
    t.ingest_ok(&json!(burst)).await;
    let id = t.incidents_when(&token, 1).await.remove(0)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let link_tail = format!("/incidents/{id}");

    // Slack: JSON with a fallback text and Block Kit blocks; mrkdwn escaped.
    let got = calls_when(&double, "/services/T0001/B0001/slack", 2).await;
    let call = opened(&got, |b| b["text"].as_str().unwrap_or_default().to_string());
    assert!(
        call.content_type.starts_with("application/json"),
        "{call:?}"
    );
    assert!(call.authorization.is_empty());
    let body = &call.body;
    assert_eq!(
        body["text"],
        "🔴 Incident Opened: checkout [ERROR]: Payment &lt;gateway&gt; timeout after # ms"
    );
    let blocks = body["blocks"].as_array().unwrap();
    assert_eq!(blocks[0]["type"], "header");
    assert_eq!(blocks[0]["text"]["type"], "plain_text");
    assert_eq!(blocks[0]["text"]["text"], "🔴 Incident Opened");
    let title = blocks[1]["text"]["text"].as_str().unwrap();
    assert!(
        title.starts_with("*<") && title.contains(&link_tail),
        "{title}"
    );
    assert!(
        title.ends_with("|Payment &lt;gateway&gt; timeout after # ms>*"),
        "{title}"
    );
    let fields: Vec<&str> = blocks[2]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        vec![
            "*Service*\ncheckout",
            "*Severity*\nERROR",
            "*Status*\nACTIVE",
            "*Type*\nAPPLICATION_LOG"
        ]
    );
    assert_eq!(blocks[4]["elements"][0]["type"], "button");
    assert!(blocks[4]["elements"][0]["url"]
        .as_str()
        .unwrap()
        .ends_with(&link_tail));

    // Teams: a message whose attachment is an Adaptive Card 1.4.
    let got = calls_when(&double, "/workflows/w1/triggers/manual/paths/invoke", 2).await;
    let call = opened(&got, |b| {
        b["attachments"][0]["content"]["body"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    });
    assert!(call.content_type.starts_with("application/json"));
    assert_eq!(call.body["type"], "message");
    let attachments = call.body["attachments"].as_array().unwrap();
    assert_eq!(attachments.len(), 1);
    assert_eq!(
        attachments[0]["contentType"],
        "application/vnd.microsoft.card.adaptive"
    );
    let card = &attachments[0]["content"];
    assert_eq!(card["type"], "AdaptiveCard");
    assert_eq!(card["version"], "1.4");
    assert_eq!(
        card["$schema"],
        "http://adaptivecards.io/schemas/adaptive-card.json"
    );
    assert_eq!(card["body"][0]["type"], "TextBlock");
    assert_eq!(card["body"][0]["color"], "Attention");
    assert_eq!(
        card["body"][1]["text"],
        "Payment <gateway> timeout after # ms"
    );
    assert_eq!(card["body"][2]["type"], "FactSet");
    assert_eq!(
        card["body"][2]["facts"][0],
        json!({"title": "Service", "value": "checkout"})
    );
    assert_eq!(
        card["body"][2]["facts"][1],
        json!({"title": "Severity", "value": "ERROR"})
    );
    assert_eq!(
        card["body"][2]["facts"][2],
        json!({"title": "Status", "value": "ACTIVE"})
    );
    assert_eq!(card["actions"][0]["type"], "Action.OpenUrl");
    assert!(card["actions"][0]["url"]
        .as_str()
        .unwrap()
        .ends_with(&link_tail));

    // ntfy: JSON to the server's root, the token as a bearer, priority by severity.
    let got = calls_when(&double, "/", 2).await;
    let call = opened(&got, |b| {
        b["title"].as_str().unwrap_or_default().to_string()
    });
    assert_eq!(call.authorization, format!("Bearer {NTFY_TOKEN}"));
    assert!(call.content_type.starts_with("application/json"));
    let body = &call.body;
    assert_eq!(body["topic"], "checkout-oncall");
    assert_eq!(body["title"], "Incident Opened: checkout");
    assert_eq!(body["priority"], 4);
    assert_eq!(body["tags"], json!(["red_circle", "checkout", "error"]));
    assert!(body["click"].as_str().unwrap().ends_with(&link_tail));
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with("Payment <gateway> timeout after # ms\n\nService: checkout\nSeverity: ERROR\nStatus: ACTIVE"),
        "{message}"
    );
    assert_eq!(body["actions"][0]["action"], "view");

    // The delivery logs: delivered with each service's status; Slack's refusal named.
    for (channel, status) in [(&slack, 200), (&teams, 202), (&ntfy, 200)] {
        let path = format!("{CHANNELS}/{}/deliveries", channel["id"].as_str().unwrap());
        let log = t.get_ok_auth(&path, &token).await;
        let log = log.as_array().unwrap();
        assert!(!log.is_empty(), "{path}");
        for d in log {
            assert_eq!(d["status"], "DELIVERED", "{d}");
            assert_eq!(d["httpStatus"], status, "{d}");
        }
    }
    let path = format!("{CHANNELS}/{}/deliveries", broken["id"].as_str().unwrap());
    let log = t.get_ok_auth(&path, &token).await;
    let failed = &log.as_array().unwrap()[0];
    assert_eq!(failed["status"], "FAILED");
    assert_eq!(failed["httpStatus"], 400);
    assert_eq!(failed["error"], "answered 400: invalid_payload");
}

#[tokio::test]
async fn chat_channels_are_validated() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    for (body, fields) in [
        (
            json!({"name": "s", "kind": "slack", "url": "http://hooks.slack.com/services/T/B/x"}),
            vec!["url"],
        ),
        (
            json!({"name": "s", "kind": "slack", "url": "https://hooks.slack.com/services/T/B/x",
                   "secret": "0123456789abcdef"}),
            vec!["secret"],
        ),
        (json!({"name": "t", "kind": "teams"}), vec!["url"]),
        (
            json!({"name": "n", "kind": "ntfy", "server": "https://ntfy.sh", "topic": "a/b",
                   "token": "has space"}),
            vec!["topic", "token"],
        ),
        (
            json!({"name": "n", "kind": "ntfy", "url": "https://ntfy.sh/a"}),
            vec!["url", "server", "topic"],
        ),
    ] {
        let r = t.post_json_auth(CHANNELS, &token, &body).await;
        assert_eq!(r.status(), 400, "{body}");
        let answer: Value = r.json().await.unwrap();
        for field in fields {
            assert!(
                answer["details"]
                    .to_string()
                    .contains(&format!("\"{field}\"")),
                "{field} in {answer}"
            );
        }
    }
    let ok = t
        .post_json_auth(
            CHANNELS,
            &token,
            &json!({"name": "n", "kind": "ntfy", "server": "https://ntfy.sh", "topic": "ops"}),
        )
        .await;
    assert_eq!(ok.status(), 201);
    let ok: Value = ok.json().await.unwrap();
    assert_eq!(ok["hasToken"], false);
    assert_eq!(ok["server"], "https://ntfy.sh");
}
