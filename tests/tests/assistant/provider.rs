//! The community's provider configuration on the GenAI function (`GET`/`PUT
//! /api/v1/admin/ai/provider`), through the local stack against the emulator: admin only, the
//! environment's defaults, validation naming the field, the override obeyed by the GenAI
//! operations on every instance of the deployment and reset by a new deployment, and the
//! Reason error body under the admin prefix while the rest of GenAI keeps the detailed body.

use axum::Router;
use reqwest::Response;
use serde_json::{json, Value};
use stack_tests::genai::{post, stack, ARTICLE};
use stack_tests::llm::{FakeLlm, TEST_KEY, TEST_MODEL};
use stack_tests::router::{self, Answer};
use stack_tests::{assert_news_error, Call, TestStack};

const PROVIDER: &str = "/api/v1/admin/ai/provider";

/// The Reason error body, asserted; its `message` returned.
fn assert_reason(status: u16, actual: u16, body: &Value) -> String {
    assert_eq!(actual, status, "{body}");
    assert_eq!(body["status"], status, "{body}");
    let reason = http::StatusCode::from_u16(status)
        .expect("status")
        .canonical_reason()
        .expect("reason");
    assert_eq!(body["error"], reason, "{body}");
    let ts = body["timestamp"].as_str().expect("timestamp");
    assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok(), "{ts}");
    assert!(
        body.get("code").is_none() && body.get("details").is_none() && body.get("path").is_none(),
        "not the detailed error body: {body}"
    );
    body["message"].as_str().expect("message").to_string()
}

async fn reason_error(response: Response, status: u16) -> String {
    let actual = response.status().as_u16();
    let body: Value = response.json().await.expect("json body");
    assert_reason(status, actual, &body)
}

fn reason_answer(answer: &Answer, status: u16) -> String {
    assert_reason(status, answer.status.as_u16(), &answer.json_or_null())
}

/// A stack whose cloud provider is `cloud` and local provider `local`, plus an admin's and a
/// reader's tokens.
async fn stack_with_admin(cloud: &FakeLlm, local: &FakeLlm) -> (TestStack, String, String) {
    let t = stack(
        cloud,
        &[
            ("LocalLlmBaseUrl", &local.base_url()),
            ("LlmTemperature", "0.7"),
        ],
    )
    .await;
    let admin = t.admin_token().await;
    let (_, reader) = t.user("reader").await;
    (t, admin, reader)
}

async fn get_config(t: &TestStack, token: &str) -> Value {
    let response = t.get_auth(PROVIDER, token).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("config")
}

async fn put_config(t: &TestStack, token: &str, body: &Value) -> Response {
    t.put_json_auth(PROVIDER, token, body).await
}

/// `method uri` on a router built outside the stack (another instance), with a token.
async fn on_instance(app: &Router, method: &str, token: &str, body: &str) -> Answer {
    let bearer = format!("Bearer {token}");
    let headers = [
        ("authorization", bearer.as_str()),
        ("content-type", "application/json"),
    ];
    router::send(
        app,
        router::request(method, PROVIDER, &headers, body.to_string()),
    )
    .await
}

async fn summarize(t: &TestStack, text: &str) -> Value {
    let response = post(t, &t.url("/api/ai/summarize"), &json!({"text": text})).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("summary")
}

#[tokio::test]
async fn provider_admin_only_401_403() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let (t, admin, reader) = stack_with_admin(&cloud, &local).await;
    let url = t.url(PROVIDER);
    let change = json!({"provider": "local", "model": "llama3.2"});

    let message = reason_error(t.http.get(&url).call().await, 401).await;
    assert!(message.contains("Authentication"), "{message}");
    reason_error(t.http.put(&url).json(&change).call().await, 401).await;
    reason_error(t.get_auth(PROVIDER, "not-a-token").await, 401).await;
    let forged = t.sign(&json!({
        "sub": "someone", "roles": ["USER", "ADMIN"], "iss": "elsewhere",
        "aud": "news-platform-api", "exp": chrono::Utc::now().timestamp() + 600,
    }));
    reason_error(t.get_auth(PROVIDER, &forged).await, 401).await;

    let message = reason_error(t.get_auth(PROVIDER, &reader).await, 403).await;
    assert!(message.contains("ADMIN"), "{message}");
    reason_error(put_config(&t, &reader, &change).await, 403).await;
    assert_eq!(
        get_config(&t, &admin).await["provider"],
        "cloud",
        "the reader changed nothing"
    );
    assert_eq!(put_config(&t, &admin, &change).await.status(), 200);
}

#[tokio::test]
async fn defaults_shown() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let (t, admin, _) = stack_with_admin(&cloud, &local).await;
    assert_eq!(
        get_config(&t, &admin).await,
        json!({
            "provider": "cloud",
            "model": TEST_MODEL,
            "temperature": 0.7,
            "availableProviders": [
                {"name": "cloud", "configured": true},
                {"name": "local", "configured": true},
            ],
        })
    );
    // Another deployment's environment: local by default, no cloud key.
    let keyless = assistant_function::router(
        t.env("AssistantFunction")
            .with("LLM_API_KEY", "")
            .with("LLM_PROVIDER", "local")
            .with("LLM_MODEL", "qwen2.5"),
    )
    .await
    .expect("router");
    let answer = on_instance(&keyless, "GET", &admin, "").await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(
        answer.json(),
        json!({
            "provider": "local",
            "model": "qwen2.5",
            "temperature": 0.7,
            "availableProviders": [
                {"name": "cloud", "configured": false},
                {"name": "local", "configured": true},
            ],
        })
    );
}

#[tokio::test]
async fn provider_without_key_400() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let (t, admin, _) = stack_with_admin(&cloud, &local).await;
    let keyless = assistant_function::router(
        t.env("AssistantFunction")
            .with("LLM_API_KEY", "")
            .with("LLM_PROVIDER", "local"),
    )
    .await
    .expect("router");
    let answer = on_instance(
        &keyless,
        "PUT",
        &admin,
        r#"{"provider": "cloud", "model": "gpt-4o"}"#,
    )
    .await;
    let message = reason_answer(&answer, 400);
    assert_eq!(
        message,
        "Validation failed: provider: cloud has no API key configured (LLM_API_KEY)"
    );
    let answer = on_instance(&keyless, "GET", &admin, "").await;
    assert_eq!(answer.json()["provider"], "local", "nothing was stored");
    // With the key the same choice is accepted.
    let response = put_config(&t, &admin, &json!({"provider": "cloud", "model": "gpt-4o"})).await;
    assert_eq!(response.status(), 200);

    for (body, message) in [
        (
            json!({"provider": "openai", "model": "m"}),
            "Validation failed: provider: must be cloud or local",
        ),
        (
            json!({"model": "m"}),
            "Validation failed: provider: must not be blank",
        ),
        (
            json!({"provider": "  ", "model": "m"}),
            "Validation failed: provider: must not be blank",
        ),
    ] {
        let got = reason_error(put_config(&t, &admin, &body).await, 400).await;
        assert_eq!(got, message, "{body}");
    }
}

#[tokio::test]
async fn blank_model_400() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let (t, admin, _) = stack_with_admin(&cloud, &local).await;
    for (body, message) in [
        (
            json!({"provider": "local"}),
            "Validation failed: model: must not be blank",
        ),
        (
            json!({"provider": "local", "model": " \t "}),
            "Validation failed: model: must not be blank",
        ),
        (
            json!({"provider": "local", "model": "m".repeat(201)}),
            "Validation failed: model: must be at most 200 characters",
        ),
        (
            json!({"provider": "nope", "model": ""}),
            "Validation failed: provider: must be cloud or local; model: must not be blank",
        ),
    ] {
        let got = reason_error(put_config(&t, &admin, &body).await, 400).await;
        assert_eq!(got, message, "{body}");
    }
    let got = reason_error(
        put_config(&t, &admin, &json!({"provider": "local", "model": 5})).await,
        400,
    )
    .await;
    assert!(got.contains("model: invalid type"), "{got}");
    let got = reason_error(put_config(&t, &admin, &json!(["local", "m"])).await, 400).await;
    assert!(got.contains("body: must be a JSON object"), "{got}");
    // The edges: 200 characters and a trimmed name are fine.
    let longest = "m".repeat(200);
    let response = put_config(&t, &admin, &json!({"provider": "local", "model": longest})).await;
    assert_eq!(response.status(), 200);
    let response = put_config(
        &t,
        &admin,
        &json!({"provider": "local", "model": "  llama3.2 "}),
    )
    .await;
    let body: Value = response.json().await.expect("config");
    assert_eq!(body["model"], "llama3.2");
    assert_eq!(get_config(&t, &admin).await["model"], "llama3.2");
}

#[tokio::test]
async fn override_applies_to_genai_calls() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let (t, admin, _) = stack_with_admin(&cloud, &local).await;
    let before = summarize(&t, ARTICLE).await;
    assert_eq!(
        (before["provider"].as_str(), before["model"].as_str()),
        (Some("cloud"), Some(TEST_MODEL))
    );
    assert_eq!(cloud.call_count(), 1);

    let response = put_config(
        &t,
        &admin,
        &json!({"provider": "local", "model": "llama-test"}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("config");
    assert_eq!(
        (body["provider"].as_str(), body["model"].as_str()),
        (Some("local"), Some("llama-test"))
    );
    assert_eq!(body["temperature"], 0.7);

    // The next request of the same instance obeys it (the answer cache key names the model,
    // so the same text is asked again).
    let after = summarize(&t, ARTICLE).await;
    assert_eq!(
        (after["provider"].as_str(), after["model"].as_str()),
        (Some("local"), Some("llama-test"))
    );
    assert_eq!(cloud.call_count(), 1, "the cloud provider is not asked");
    assert_eq!(local.call_count(), 1);
    let call = local.last_call();
    assert_eq!(call.path, "/v1/chat/completions");
    assert_eq!(call.model(), Some("llama-test"));
    assert_eq!(
        call.bearer(),
        None,
        "the cloud key is not sent to the local server"
    );
    assert_eq!(call.temperature(), Some(0.7));

    // Another instance of the same deployment sees it on its first request.
    let other = assistant_function::router(t.env("AssistantFunction"))
        .await
        .expect("router");
    let answer = on_instance(&other, "GET", &admin, "").await;
    assert_eq!(answer.json()["model"], "llama-test");
    let answer = router::post_json(&other, "/api/ai/explain", &json!({"text": ARTICLE})).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json()["provider"], "local");
    assert_eq!(local.call_count(), 2);

    // Back to the cloud with another model: the key goes with it again.
    let response = put_config(
        &t,
        &admin,
        &json!({"provider": "cloud", "model": "cloud-2"}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let again = summarize(&t, ARTICLE).await;
    assert_eq!(again["model"], "cloud-2");
    let call = cloud.last_call();
    assert_eq!(
        (call.model(), call.bearer()),
        (Some("cloud-2"), Some(TEST_KEY))
    );
    assert_eq!(local.call_count(), 2);
}

#[tokio::test]
async fn override_resets_on_new_deployment() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let (t, admin, _) = stack_with_admin(&cloud, &local).await;
    let env = t.env("AssistantFunction");
    let version = env
        .get("AWS_LAMBDA_FUNCTION_VERSION")
        .expect("the local stack sets the version")
        .to_string();
    assert!(version.starts_with("local-"), "{version}");
    let response = put_config(
        &t,
        &admin,
        &json!({"provider": "local", "model": "llama-test"}),
    )
    .await;
    assert_eq!(response.status(), 200);

    // The stack restarted: same tables, a new version of the function.
    let redeployed = assistant_function::router(
        env.with("AWS_LAMBDA_FUNCTION_VERSION", format!("{version}-next")),
    )
    .await
    .expect("router");
    let answer = on_instance(&redeployed, "GET", &admin, "").await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(
        (
            answer.json()["provider"].clone(),
            answer.json()["model"].clone()
        ),
        (json!("cloud"), json!(TEST_MODEL))
    );
    let answer =
        router::post_json(&redeployed, "/api/ai/summarize", &json!({"text": ARTICLE})).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json()["provider"], "cloud");
    assert_eq!((cloud.call_count(), local.call_count()), (1, 0));

    // The old deployment keeps its own choice.
    assert_eq!(get_config(&t, &admin).await["provider"], "local");
    let items = t.scan("GenAiCacheTable").await;
    let overrides: Vec<_> = items
        .iter()
        .filter_map(|item| item.get("pk")?.as_s().ok())
        .filter(|pk| pk.starts_with("CONFIG#llm-provider#"))
        .collect();
    assert_eq!(
        overrides,
        [&format!("CONFIG#llm-provider#AssistantFunction#{version}")]
    );
}

#[tokio::test]
async fn reason_body_under_admin_prefix_other_genai_routes_keep_theirs() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let (t, admin, _) = stack_with_admin(&cloud, &local).await;

    let message = reason_error(t.get_auth("/api/v1/admin/ai/nothing", &admin).await, 404).await;
    assert!(message.contains("No route"), "{message}");
    reason_error(t.delete_auth(PROVIDER, &admin).await, 405).await;
    reason_error(
        t.http
            .put(t.url(PROVIDER))
            .bearer_auth(&admin)
            .header("content-type", "application/xml")
            .body("<provider>local</provider>")
            .call()
            .await,
        415,
    )
    .await;
    reason_error(
        t.http
            .put(t.url(PROVIDER))
            .bearer_auth(&admin)
            .header("content-type", "application/json")
            .body("{\"provider\": ")
            .call()
            .await,
        400,
    )
    .await;

    // The rest of GenAI answers in the detailed error body, with its unprefixed path.
    assert_news_error(t.get("/api/ai/nothing").await, 404, "/nothing").await;
    assert_news_error(t.get("/api/ai/summarize").await, 405, "/summarize").await;
    assert_news_error(
        t.http
            .post(t.url("/api/ai/summarize"))
            .header("content-type", "application/xml")
            .body("<text/>")
            .call()
            .await,
        415,
        "/summarize",
    )
    .await;
}
