//! A DynamoDB outage: each HTTP function's own code, built with its stack environment but
//! AWS at a closed port, answers 503 in the detailed error body on every route that needs its
//! table (never 500), and the GenAI function does not ask the paid model without its cache.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use axum::body::Body;
use axum::Router;
use serde_json::json;
use stack_tests::genai::{llm_parameters, ARTICLE};
use stack_tests::llm::FakeLlm;
use stack_tests::router::{self, Answer};
use stack_tests::server::closed_port;
use stack_tests::stack::TestStack;

/// Asserts a 503 in the detailed error body for `path` (as the function sees it).
fn assert_unavailable(answer: &Answer, what: &str, path: &str) {
    assert_eq!(answer.status, 503, "{what}: {}", answer.text());
    let body = answer.json();
    assert_eq!(body["code"], 503, "{what}: {body}");
    assert_eq!(body["path"], path, "{what}: {body}");
    assert!(body["details"].is_array(), "{what}: {body}");
    assert!(body["timestamp"].is_string(), "{what}: {body}");
}

/// `method uri` with an optional bearer token and JSON body.
async fn call(
    router: &Router,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> Answer {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("content-type", "application/json")];
    if let Some(bearer) = &bearer {
        headers.push(("authorization", bearer.as_str()));
    }
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    router::send(router, router::request(method, uri, &headers, body)).await
}

#[tokio::test]
async fn every_function_answers_503_when_dynamodb_is_down() {
    let llm = FakeLlm::start().await;
    let t = TestStack::start_with(llm_parameters(&llm)).await;
    let (profile, token) = t.user("reader").await;
    let user_id = profile["id"].as_str().expect("id").to_string();
    let service = t.service_token().await;
    let dead = format!("http://127.0.0.1:{}", closed_port());

    let users = identity_function::router(
        t.env("IdentityFunction")
            .with("AWS_ENDPOINT_URL", dead.clone()),
    )
    .await
    .expect("users router");
    let register =
        r#"{"username":"newcomer","email":"newcomer@example.com","password":"password-newcomer"}"#;
    let login = r#"{"username":"reader","password":"password-reader"}"#;
    for (method, uri, auth, body, path) in [
        (
            "POST",
            "/api/users/auth/register",
            None,
            Some(register),
            "/auth/register",
        ),
        (
            "POST",
            "/api/users/auth/login",
            None,
            Some(login),
            "/auth/login",
        ),
        (
            "GET",
            "/api/users/users/me",
            Some(&token),
            None,
            "/users/me",
        ),
        (
            "PUT",
            "/api/users/users/me",
            Some(&token),
            Some(r#"{"name":"R"}"#),
            "/users/me",
        ),
        (
            "GET",
            "/api/users/users/me/settings",
            Some(&token),
            None,
            "/users/me/settings",
        ),
        (
            "PUT",
            "/api/users/users/me/settings",
            Some(&token),
            Some(r#"{"theme":"dark"}"#),
            "/users/me/settings",
        ),
        (
            "DELETE",
            "/api/users/users/me",
            Some(&token),
            None,
            "/users/me",
        ),
    ] {
        let answer = call(&users, method, uri, auth.map(String::as_str), body).await;
        assert_unavailable(&answer, &format!("{method} {uri}"), path);
    }

    let content =
        news_function::router(t.env("NewsFunction").with("AWS_ENDPOINT_URL", dead.clone()))
            .await
            .expect("content router");
    let source = "0123456789abcdef0123456789abcdef";
    let subscriber = format!("/api/content/sources/{source}/subscribers/{user_id}");
    let subscriber_path = format!("/sources/{source}/subscribers/{user_id}");
    for (method, uri, auth, body, path) in [
        (
            "GET",
            "/api/content/sources".to_string(),
            None,
            None,
            "/sources".to_string(),
        ),
        (
            "GET",
            format!("/api/content/sources/{source}"),
            None,
            None,
            format!("/sources/{source}"),
        ),
        (
            "GET",
            "/api/content/topics".into(),
            None,
            None,
            "/topics".into(),
        ),
        (
            "GET",
            "/api/content/articles".into(),
            None,
            None,
            "/articles".into(),
        ),
        (
            "GET",
            format!("/api/content/articles/{source}"),
            None,
            None,
            format!("/articles/{source}"),
        ),
        (
            "POST",
            "/api/content/articles/saved".into(),
            Some(&token),
            Some(r#"{"ids":["0123456789abcdef0123456789abcdef"]}"#),
            "/articles/saved".into(),
        ),
        (
            "POST",
            subscriber.clone(),
            Some(&service),
            None,
            subscriber_path.clone(),
        ),
        (
            "DELETE",
            subscriber.clone(),
            Some(&service),
            None,
            subscriber_path.clone(),
        ),
    ] {
        let answer = call(&content, method, &uri, auth.map(String::as_str), body).await;
        assert_unavailable(&answer, &format!("{method} {uri}"), &path);
    }

    // The feed intake: a submission is counted, then reads the table before any fetch; a
    // hub's delivery reads the source's subscription first.
    let intake = news_intake_function::router(
        t.env("NewsIntakeFunction")
            .with("AWS_ENDPOINT_URL", dead.clone()),
    )
    .await
    .expect("intake router");
    let delivery = format!("/api/content/websub/{source}");
    let delivery_path = format!("/websub/{source}");
    for (method, uri, auth, body, path) in [
        (
            "POST",
            "/api/content/sources",
            Some(&token),
            Some(r#"{"url":"http://127.0.0.1:9/feed.xml"}"#),
            "/sources",
        ),
        (
            "POST",
            delivery.as_str(),
            None,
            Some("<feed/>"),
            delivery_path.as_str(),
        ),
    ] {
        let answer = call(&intake, method, uri, auth.map(String::as_str), body).await;
        assert_unavailable(&answer, &format!("{method} {uri}"), path);
    }

    // The GenAI function's only table is its answer cache: without it the model is not asked
    // (every request would otherwise go to the paid model).
    let genai =
        assistant_function::router(t.env("AssistantFunction").with("AWS_ENDPOINT_URL", dead))
            .await
            .expect("genai router");
    let text = json!({"text": ARTICLE, "question": "Who worries?"}).to_string();
    for operation in ["summarize", "explain", "sentiment", "qa"] {
        let uri = format!("/api/ai/{operation}");
        let answer = call(&genai, "POST", &uri, None, Some(&text)).await;
        assert_unavailable(&answer, &uri, &format!("/{operation}"));
    }
    assert_eq!(llm.call_count(), 0, "the model was asked without the cache");

    // The same functions with the emulator up answer normally (the outage made the 503s).
    let genai = assistant_function::router(t.env("AssistantFunction"))
        .await
        .expect("genai router");
    let answer = call(&genai, "POST", "/api/ai/summarize", None, Some(&text)).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(llm.call_count(), 1);
}
