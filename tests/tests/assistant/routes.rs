//! The GenAI router on its own, with no stack, AWS or model behind it (every request here
//! fails before reaching them): both path prefixes, errors in the news shape, and the docs.
//! Moved from the function crate's unit tests.

use axum::Router;
use platform::Env;
use serde_json::json;
use stack_tests::router::{self, Answer};

async fn call(app: &Router, method: &str, uri: &str, body: &str) -> Answer {
    router::json(app, method, uri, body).await
}

async fn app_with(pairs: &[(&str, &str)]) -> Router {
    let env: Env = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain([
            ("AWS_REGION".to_string(), "us-east-1".to_string()),
            ("AWS_ACCESS_KEY_ID".to_string(), "test".to_string()),
            ("AWS_SECRET_ACCESS_KEY".to_string(), "test".to_string()),
        ])
        .collect();
    assistant_function::router(env).await.expect("router")
}

#[tokio::test]
async fn an_invalid_provider_is_a_500_per_request_not_a_crash() {
    let app = app_with(&[("LLM_PROVIDER", "openai")]).await;
    assert_eq!(call(&app, "GET", "/health", "").await.status, 200);
    assert_eq!(call(&app, "GET", "/api/ai/health", "").await.status, 200);
    let answer = call(&app, "POST", "/api/ai/summarize", r#"{"text":"News."}"#).await;
    assert_eq!(answer.status, 500, "{}", answer.text());
    let body = answer.json();
    assert_eq!(body["path"], "/summarize");
    assert_eq!(body["code"], 500);
    assert!(
        !body.to_string().contains("openai"),
        "internals stay in the log"
    );
}

#[tokio::test]
async fn errors_use_the_news_shape_with_the_unprefixed_path() {
    let app = app_with(&[]).await;
    let answer = call(&app, "POST", "/api/ai/qa", r#"{"text":"t"}"#).await;
    assert_eq!(answer.status, 400);
    let body = answer.json();
    assert_eq!(body["path"], "/qa");
    assert_eq!(body["details"], json!(["question: is required"]));
    let answer = call(
        &app,
        "POST",
        "/explain",
        r#"{"text":"t","knowledgeLevel":"genius"}"#,
    )
    .await;
    let body = answer.text();
    assert_eq!(answer.status, 400);
    assert!(body.contains("knowledgeLevel: unknown variant"), "{body}");
    assert!(body.contains(r#""path":"/explain""#), "{body}");
    let answer = call(&app, "GET", "/api/ai/summarize", "").await;
    let body = answer.text();
    assert_eq!(answer.status, 405);
    assert!(body.contains(r#""path":"/summarize""#), "{body}");
    let answer = call(&app, "POST", "/api/ai/translate", "{}").await;
    let body = answer.text();
    assert_eq!(answer.status, 404);
    assert!(body.contains(r#""path":"/translate""#), "{body}");
}

#[tokio::test]
async fn the_cloud_provider_without_a_key_is_a_clean_502() {
    let app = app_with(&[]).await;
    let answer = call(&app, "POST", "/summarize", r#"{"text":"News."}"#).await;
    let body = answer.text();
    assert_eq!(answer.status, 502, "{body}");
    assert!(body.contains("LLM_API_KEY"), "{body}");
}

#[tokio::test]
async fn docs_are_served_under_both_prefixes() {
    let app = app_with(&[]).await;
    for base in ["/docs", "/api/ai/docs"] {
        let status = call(&app, "GET", base, "").await.status;
        assert!(status.is_redirection(), "{base}: {status}");
        let answer = call(&app, "GET", &format!("{base}/"), "").await;
        let html = answer.text();
        assert_eq!(answer.status, 200);
        assert!(html.contains("swagger"), "{html}");
        let init = call(&app, "GET", &format!("{base}/swagger-initializer.js"), "")
            .await
            .text();
        assert!(init.contains("openapi.json"), "{init}");
        let answer = call(&app, "GET", &format!("{base}/openapi.json"), "").await;
        assert_eq!(answer.status, 200);
        let doc = answer.json();
        assert!(doc["paths"]["/summarize"]["post"].is_object(), "{doc}");
        assert_eq!(doc["servers"][0]["url"], "..");
    }
}
