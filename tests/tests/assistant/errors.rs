//! Every status of the error table in the detailed shape: validation, the
//! framework's own statuses, a failing, unusable, stalled or unreachable model, a missing
//! key, and an invalid provider.

use std::time::{Duration, Instant};

use serde_json::json;
use stack_tests::genai::{function_url, post, stack, ARTICLE};
use stack_tests::llm::FakeLlm;
use stack_tests::server::closed_port;
use stack_tests::{assert_news_error, details, router, Call};

#[tokio::test]
async fn every_error_status_of_the_seed_in_document_a_shape() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("LlmTimeoutSeconds", "1")]).await;
    const SUMMARIZE: &str = "/api/ai/summarize";
    let summarize = t.url(SUMMARIZE);

    // 400: validation, both ways in.
    for (url, body, path, detail) in [
        (
            summarize.clone(),
            json!({"articleId": "a1", "text": ARTICLE}),
            "/summarize",
            "articleId: give either articleId or text, not both",
        ),
        (
            summarize.clone(),
            json!({"length": "short"}),
            "/summarize",
            "articleId: exactly one of articleId or text is required",
        ),
        (
            format!("{}/summarize", function_url(&t)),
            json!({"text": "  \n "}),
            "/summarize",
            "text: must not be blank",
        ),
        (
            t.url("/api/ai/qa"),
            json!({"text": ARTICLE}),
            "/qa",
            "question: is required",
        ),
        (
            t.url("/api/ai/qa"),
            json!({"text": ARTICLE, "question": " "}),
            "/qa",
            "question: must not be blank",
        ),
        (
            summarize.clone(),
            json!({"text": "x".repeat(100_001)}),
            "/summarize",
            "text: must be at most 100000 characters",
        ),
    ] {
        let body = assert_news_error(post(&t, &url, &body).await, 400, path).await;
        assert_eq!(details(&body), [detail]);
    }
    for (url, body, field, path) in [
        (
            summarize.clone(),
            json!({"text": ARTICLE, "length": "huge"}),
            "length",
            "/summarize",
        ),
        (
            summarize.clone(),
            json!({"text": ARTICLE, "style": "haiku"}),
            "style",
            "/summarize",
        ),
        (
            t.url("/api/ai/explain"),
            json!({"text": ARTICLE, "knowledgeLevel": "genius"}),
            "knowledgeLevel",
            "/explain",
        ),
        (
            t.url("/api/ai/sentiment"),
            json!({"text": 42}),
            "text",
            "/sentiment",
        ),
    ] {
        let body = assert_news_error(post(&t, &url, &body).await, 400, path).await;
        assert!(
            details(&body)[0].starts_with(&format!("{field}: ")),
            "{body}"
        );
    }
    let malformed = t
        .post_raw(SUMMARIZE, "application/json", "{\"text\": ")
        .await;
    assert_news_error(malformed, 400, "/summarize").await;
    assert_eq!(llm.call_count(), 0, "bad input never reaches the model");

    // The framework's own statuses in the same shape.
    let unknown = post(&t, &t.url("/api/ai/translate"), &json!({})).await;
    assert_news_error(unknown, 404, "/translate").await;
    let wrong_method = t.http.get(&summarize).call().await;
    assert_news_error(wrong_method, 405, "/summarize").await;
    let xml = t.post_raw(SUMMARIZE, "application/xml", "<text/>").await;
    assert_news_error(xml, 415, "/summarize").await;
    let huge = t
        .post_raw(
            SUMMARIZE,
            "application/json",
            format!("{{\"text\": \"{}\"}}", "x".repeat(2 * 1024 * 1024)),
        )
        .await;
    assert_news_error(huge, 413, "/summarize").await;

    // 502: the provider fails, answers nonsense, or stalls past LLM_TIMEOUT_SECONDS.
    let text = json!({"text": ARTICLE});
    for status in [500, 429, 401] {
        llm.fail(status);
        let body = assert_news_error(post(&t, &summarize, &text).await, 502, "/summarize").await;
        assert!(
            body["message"]
                .as_str()
                .is_some_and(|m| m.contains(&status.to_string())),
            "{body}"
        );
    }
    llm.garbage();
    assert_news_error(post(&t, &summarize, &text).await, 502, "/summarize").await;
    llm.reply("I would say it is rather positive overall.");
    assert_news_error(
        post(&t, &t.url("/api/ai/sentiment"), &text).await,
        502,
        "/sentiment",
    )
    .await;
    llm.reply(r#"{"sentiment": "ecstatic", "score": 0.9}"#);
    assert_news_error(
        post(&t, &t.url("/api/ai/sentiment"), &text).await,
        502,
        "/sentiment",
    )
    .await;
    llm.stall();
    let started = Instant::now();
    let body = assert_news_error(post(&t, &summarize, &text).await, 502, "/summarize").await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    assert!(
        body["message"].as_str().is_some_and(|m| m.contains("1 s")),
        "{body}"
    );

    // 502: nothing listens at the provider's URL; and without a key for the cloud provider.
    let env = t.env("AssistantFunction");
    let unreachable = assistant_function::router(env.clone().with(
        "LLM_BASE_URL",
        format!("http://127.0.0.1:{}/v1", closed_port()),
    ))
    .await
    .expect("router");
    let answer = router::post_json(&unreachable, "/summarize", &text).await;
    let body = answer.json_or_null();
    assert_eq!(
        (answer.status.as_u16(), &body["path"]),
        (502, &json!("/summarize")),
        "{body}"
    );
    let keyless = assistant_function::router(env.clone().with("LLM_API_KEY", ""))
        .await
        .expect("router");
    let answer = router::post_json(
        &keyless,
        "/api/ai/qa",
        &json!({"text": ARTICLE, "question": "Why?"}),
    )
    .await;
    let body = answer.json_or_null();
    assert_eq!(answer.status, 502, "{body}");
    assert!(body["message"]
        .as_str()
        .is_some_and(|m| m.contains("LLM_API_KEY")));

    // 500: an invalid LLM_PROVIDER, per request; the function starts and stays healthy.
    let invalid = assistant_function::router(env.with("LLM_PROVIDER", "mistral"))
        .await
        .expect("an invalid provider does not stop the cold start");
    let answer = router::post_json(&invalid, "/api/ai/summarize", &text).await;
    let body = answer.json_or_null();
    assert_eq!(answer.status, 500, "{body}");
    assert_eq!(body["path"], "/summarize");
    assert_eq!(body["code"], 500);
    assert_eq!(router::get(&invalid, "/health").await.status, 200);
}
