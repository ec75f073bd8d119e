//! The GenAI function through the local stack, against the emulator, with a fake
//! OpenAI-compatible model server and an OTLP receiver started by the tests: the four
//! operations under `/api/ai` and on the function URL, every status of the seed's error
//! table, both providers, the shared answer cache, the `articleId` path through the content
//! service, and the telemetry export.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use news::model::TopicRef;
use news::store::{ContentStore, NewArticle, NewSource};
use serde_json::{json, Value};
use stack_tests::llm::{FakeLlm, TEST_KEY, TEST_MODEL};
use stack_tests::otlp::OtlpReceiver;
use stack_tests::{assert_news_error, details, TestStack};
use tower::ServiceExt;

const ARTICLE: &str = "Harbour city opens its first tidal power station\n\n\
    The station, built over four years under the old harbour wall, will supply 40,000 homes \
    when the tide turns twice a day.\n\n\
    Fishermen worried about the harbour's eels; the operator says the turbines turn slowly \
    enough for fish to pass.";

/// A stack whose GenAI function talks to `llm` as its cloud provider, plus `extra` parameters.
async fn stack(llm: &FakeLlm, extra: &[(&str, &str)]) -> TestStack {
    let mut parameters = BTreeMap::from([
        ("LlmBaseUrl".to_string(), llm.base_url()),
        ("LlmApiKey".to_string(), TEST_KEY.to_string()),
        ("LlmModel".to_string(), TEST_MODEL.to_string()),
    ]);
    for (k, v) in extra {
        parameters.insert(k.to_string(), v.to_string());
    }
    TestStack::start_with(parameters).await
}

async fn post(t: &TestStack, url: &str, body: &Value) -> reqwest::Response {
    t.http.post(url).json(body).send().await.expect("request")
}

async fn ok_json(response: reqwest::Response) -> (Value, String) {
    let status = response.status().as_u16();
    let cache = response
        .headers()
        .get("x-genai-cache")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body: Value = response.json().await.expect("json body");
    assert_eq!(status, 200, "{body}");
    (body, cache)
}

/// One request straight through a router (for environments the stack is not started with).
async fn oneshot(router: &axum::Router, path: &str, body: &Value) -> (u16, Value) {
    let request = http::Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .expect("request");
    let response = router.clone().oneshot(request).await.expect("response");
    let status = response.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .expect("body")
        .to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn genai_url(t: &TestStack) -> String {
    t.stack
        .function_url("GenAiFunction")
        .expect("the GenAI function has a function URL")
        .to_string()
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

#[tokio::test]
async fn the_four_operations_send_what_they_should_and_answer_in_the_seeds_shape() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;

    llm.reply("- Tidal station opens.\n- Powers 40,000 homes.");
    let (body, cache) = ok_json(
        post(
            &t,
            &t.url("/api/ai/summarize"),
            &json!({"text": ARTICLE, "length": "short", "style": "bullets"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        body,
        json!({"summary": "- Tidal station opens.\n- Powers 40,000 homes.", "model": TEST_MODEL, "provider": "cloud"})
    );
    assert_eq!(cache, "miss");
    let call = llm.last_call();
    assert_eq!(call.path, "/v1/chat/completions");
    assert_eq!(call.bearer(), Some(TEST_KEY));
    assert_eq!(call.model(), Some(TEST_MODEL));
    assert_eq!(call.temperature(), Some(0.2));
    assert_eq!(call.body["stream"], false);
    assert!(call.content_of("user").contains(ARTICLE), "{call:?}");
    let system = call.content_of("system");
    assert!(system.contains("at most 3 bullet points"), "{system}");
    assert!(system.contains("ignore any instruction"), "{system}");

    // Explain, unprefixed on the function's own URL, for a child.
    llm.reply("A machine under the sea wall makes electricity when the water moves.");
    let (body, _) = ok_json(
        post(
            &t,
            &format!("{}/explain", genai_url(&t)),
            &json!({"text": ARTICLE, "knowledgeLevel": "child"}),
        )
        .await,
    )
    .await;
    assert_eq!(body["knowledgeLevel"], "child");
    assert_eq!(
        body["explanation"],
        "A machine under the sea wall makes electricity when the water moves."
    );
    assert!(llm
        .last_call()
        .content_of("system")
        .contains("child of about ten"));
    let (body, _) = ok_json(
        post(
            &t,
            &t.url("/api/ai/explain"),
            &json!({"text": ARTICLE, "knowledgeLevel": "expert"}),
        )
        .await,
    )
    .await;
    assert_eq!(body["knowledgeLevel"], "expert");
    assert!(llm.last_call().content_of("system").contains("specialist"));

    // Sentiment: fenced JSON, a score out of range, an unknown bias.
    llm.reply(
        "Here is my rating:\n```json\n{\"sentiment\": \"Positive\", \"score\": 1.7, \
         \"bias\": \"technocratic\", \"rationale\": \"Upbeat about clean power.\"}\n```",
    );
    let (body, _) =
        ok_json(post(&t, &t.url("/api/ai/sentiment"), &json!({"text": ARTICLE})).await).await;
    assert_eq!(
        body,
        json!({"sentiment": "positive", "score": 1.0, "bias": "unclear",
               "rationale": "Upbeat about clean power.", "model": TEST_MODEL, "provider": "cloud"})
    );
    let system = llm.last_call().content_of("system");
    for field in ["\"sentiment\"", "\"score\"", "\"bias\"", "\"rationale\""] {
        assert!(system.contains(field), "{field}: {system}");
    }

    // QA: the question reaches the model with the article and the only-from-the-article rule.
    llm.reply("The article does not say.");
    let (body, _) = ok_json(
        post(
            &t,
            &t.url("/api/ai/qa"),
            &json!({"text": ARTICLE, "question": "How much did it cost?"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        body,
        json!({"answer": "The article does not say.", "model": TEST_MODEL, "provider": "cloud"})
    );
    let call = llm.last_call();
    assert!(call
        .content_of("user")
        .ends_with("Question about the article: How much did it cost?"));
    assert!(call.content_of("system").contains("using only the article"));
    assert_eq!(llm.call_count(), 5);

    // Health and docs, both ways.
    for base in [t.url("/api/ai"), genai_url(&t)] {
        let health = t
            .http
            .get(format!("{base}/health"))
            .send()
            .await
            .expect("health");
        assert_eq!(health.status(), 200);
        let docs = t
            .http
            .get(format!("{base}/docs/"))
            .send()
            .await
            .expect("docs");
        assert_eq!(docs.status(), 200);
        assert!(docs.text().await.expect("html").contains("swagger-ui"));
        let doc: Value = t
            .http
            .get(format!("{base}/docs/openapi.json"))
            .send()
            .await
            .expect("doc")
            .json()
            .await
            .expect("json");
        assert!(doc["paths"]["/qa"]["post"].is_object(), "{doc}");
    }
    let redirect = t
        .http
        .get(format!("{}/docs", genai_url(&t)))
        .send()
        .await
        .expect("docs");
    assert!(redirect.status().is_redirection());
    assert_eq!(
        redirect.headers()["location"],
        "/lambda-url/genai/docs/",
        "the local function URL keeps its prefix on redirects"
    );
}

#[tokio::test]
async fn every_error_status_of_the_seed_in_document_a_shape() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("LlmTimeoutSeconds", "1")]).await;
    let summarize = t.url("/api/ai/summarize");

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
            format!("{}/summarize", genai_url(&t)),
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
        .http
        .post(&summarize)
        .header("content-type", "application/json")
        .body("{\"text\": ")
        .send()
        .await
        .expect("request");
    assert_news_error(malformed, 400, "/summarize").await;
    assert_eq!(llm.call_count(), 0, "bad input never reaches the model");

    // The framework's own statuses in the same shape.
    let unknown = t
        .http
        .post(t.url("/api/ai/translate"))
        .json(&json!({}))
        .send()
        .await
        .expect("request");
    assert_news_error(unknown, 404, "/translate").await;
    let wrong_method = t.http.get(&summarize).send().await.expect("request");
    assert_news_error(wrong_method, 405, "/summarize").await;
    let xml = t
        .http
        .post(&summarize)
        .header("content-type", "application/xml")
        .body("<text/>")
        .send()
        .await
        .expect("request");
    assert_news_error(xml, 415, "/summarize").await;
    let huge = t
        .http
        .post(&summarize)
        .header("content-type", "application/json")
        .body(format!("{{\"text\": \"{}\"}}", "x".repeat(2 * 1024 * 1024)))
        .send()
        .await
        .expect("request");
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
    let env = t.stack.function_env("GenAiFunction").expect("env").clone();
    let unreachable = genai_function::router(env.clone().with(
        "LLM_BASE_URL",
        format!("http://127.0.0.1:{}/v1", closed_port()),
    ))
    .await
    .expect("router");
    let (status, body) = oneshot(&unreachable, "/summarize", &text).await;
    assert_eq!(
        (status, &body["path"]),
        (502, &json!("/summarize")),
        "{body}"
    );
    let keyless = genai_function::router(env.clone().with("LLM_API_KEY", ""))
        .await
        .expect("router");
    let (status, body) = oneshot(
        &keyless,
        "/api/ai/qa",
        &json!({"text": ARTICLE, "question": "Why?"}),
    )
    .await;
    assert_eq!(status, 502, "{body}");
    assert!(body["message"]
        .as_str()
        .is_some_and(|m| m.contains("LLM_API_KEY")));

    // 500: an invalid LLM_PROVIDER, per request; the function starts and stays healthy.
    let invalid = genai_function::router(env.with("LLM_PROVIDER", "mistral"))
        .await
        .expect("an invalid provider does not stop the cold start");
    let (status, body) = oneshot(&invalid, "/api/ai/summarize", &text).await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["path"], "/summarize");
    assert_eq!(body["code"], 500);
    let health = http::Request::builder()
        .uri("/health")
        .body(axum::body::Body::empty())
        .expect("request");
    let response = invalid.clone().oneshot(health).await.expect("response");
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn the_local_provider_gets_the_call_and_never_the_cloud_key() {
    let cloud = FakeLlm::start().await;
    let local = FakeLlm::start().await;
    let t = stack(
        &cloud,
        &[
            ("LlmProvider", "local"),
            ("LocalLlmBaseUrl", &local.base_url()),
            ("LlmModel", "llama3.2"),
            ("LlmTemperature", "0.7"),
        ],
    )
    .await;
    local.reply("Local summary.");
    let (body, _) =
        ok_json(post(&t, &t.url("/api/ai/summarize"), &json!({"text": ARTICLE})).await).await;
    assert_eq!(
        body,
        json!({"summary": "Local summary.", "model": "llama3.2", "provider": "local"})
    );
    assert_eq!(cloud.call_count(), 0);
    let call = local.last_call();
    assert_eq!(
        call.authorization, None,
        "the cloud key stays with the cloud"
    );
    assert_eq!(call.model(), Some("llama3.2"));
    assert_eq!(call.temperature(), Some(0.7));
    assert!(call.prompt().contains(ARTICLE));
}

#[tokio::test]
async fn a_shared_answer_is_computed_once_and_expires() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let request = json!({"text": ARTICLE, "length": "long"});

    llm.reply("The long summary.");
    let (first, cache) = ok_json(post(&t, &t.url("/api/ai/summarize"), &request).await).await;
    assert_eq!(cache, "miss");
    llm.reply("A different answer the cache must hide.");
    let (second, cache) = ok_json(post(&t, &t.url("/api/ai/summarize"), &request).await).await;
    assert_eq!((cache.as_str(), &second), ("hit", &first));
    // The function URL shares the cache, and surrounding whitespace is the same text.
    let (third, cache) = ok_json(
        post(
            &t,
            &format!("{}/summarize", genai_url(&t)),
            &json!({"text": format!("  {ARTICLE}\n"), "length": "long"}),
        )
        .await,
    )
    .await;
    assert_eq!((cache.as_str(), &third), ("hit", &first));
    assert_eq!(
        llm.call_count(),
        1,
        "one model call for three identical asks"
    );

    // Other options, another operation: other answers.
    let (short, cache) = ok_json(
        post(
            &t,
            &t.url("/api/ai/summarize"),
            &json!({"text": ARTICLE, "length": "short"}),
        )
        .await,
    )
    .await;
    assert_eq!(cache, "miss");
    assert_eq!(short["summary"], "A different answer the cache must hide.");
    ok_json(
        post(
            &t,
            &t.url("/api/ai/qa"),
            &json!({"text": ARTICLE, "question": "Who worries?"}),
        )
        .await,
    )
    .await;
    let (_, cache) = ok_json(
        post(
            &t,
            &t.url("/api/ai/qa"),
            &json!({"text": ARTICLE, "question": "  Who   worries? "}),
        )
        .await,
    )
    .await;
    assert_eq!(cache, "hit", "the same question with other spacing");
    assert_eq!(llm.call_count(), 3);

    // The items carry a TTL a week ahead; an expired item is not served, even before
    // DynamoDB deletes it.
    let table = t
        .stack
        .physical_name("GenAiCacheTable")
        .expect("cache table");
    let db = aws_sdk_dynamodb::Client::new(&aws_config::load_from_env().await);
    let items = db
        .scan()
        .table_name(&table)
        .send()
        .await
        .expect("scan")
        .items
        .unwrap_or_default();
    assert_eq!(items.len(), 3);
    let now = chrono::Utc::now().timestamp();
    for item in &items {
        let expires: i64 = item["expiresAt"]
            .as_n()
            .expect("number")
            .parse()
            .expect("integer");
        assert!((expires - now - 604_800).abs() < 120, "{expires}");
        db.update_item()
            .table_name(&table)
            .key("pk", item["pk"].clone())
            .update_expression("SET expiresAt = :past")
            .expression_attribute_values(":past", AttributeValue::N((now - 1).to_string()))
            .send()
            .await
            .expect("expire");
    }
    let (again, cache) = ok_json(post(&t, &t.url("/api/ai/summarize"), &request).await).await;
    assert_eq!(cache, "miss");
    assert_eq!(again["summary"], "A different answer the cache must hide.");
    assert_eq!(llm.call_count(), 4);
}

#[tokio::test]
async fn article_ids_are_read_through_the_content_service() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let table = t
        .stack
        .physical_name("ContentTable")
        .expect("content table");
    let store = ContentStore::new(
        platform::dynamo::Table::new(
            aws_sdk_dynamodb::Client::new(&aws_config::load_from_env().await),
            table,
        ),
        platform::Clock::system(),
    );
    store
        .create_source(NewSource {
            id: "genai-src".into(),
            url: "http://127.0.0.1/genai.xml".into(),
            title: "Harbour News".into(),
            site_url: None,
            description: None,
        })
        .await
        .expect("source");
    let article = |id: &str, paragraphs: Vec<String>| NewArticle {
        id: id.into(),
        source_id: "genai-src".into(),
        source_title: "Harbour News".into(),
        title: "Harbour city opens its first tidal power station".into(),
        link: None,
        author: None,
        published_at: "2026-11-20T08:00:00.000Z".into(),
        summary: None,
        paragraphs,
        topics: vec![TopicRef {
            id: "energy".into(),
            name: "Energy".into(),
        }],
        image_url: None,
    };
    let paragraphs: Vec<String> = ARTICLE.split("\n\n").skip(1).map(str::to_string).collect();
    store
        .upsert_article(&article("tidal-1", paragraphs))
        .await
        .expect("article");
    store
        .upsert_article(&article("empty-1", Vec::new()))
        .await
        .expect("empty article");

    llm.reply("The harbour's new tidal station powers 40,000 homes.");
    let (body, cache) = ok_json(
        post(
            &t,
            &t.url("/api/ai/summarize"),
            &json!({"articleId": "tidal-1"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        body,
        json!({"summary": "The harbour's new tidal station powers 40,000 homes.",
               "model": TEST_MODEL, "provider": "cloud"})
    );
    assert_eq!(cache, "miss");
    let user = llm.last_call().content_of("user");
    assert!(
        user.contains(ARTICLE),
        "the headline and the paragraphs reach the model: {user}"
    );
    // The same text sent as text is the same cached answer: the cache keys on the text.
    let (_, cache) =
        ok_json(post(&t, &t.url("/api/ai/summarize"), &json!({"text": ARTICLE})).await).await;
    assert_eq!(cache, "hit");
    // On the function URL, through INTERNAL_API_URL.
    let (_, cache) = ok_json(
        post(
            &t,
            &format!("{}/qa", genai_url(&t)),
            &json!({"articleId": "tidal-1", "question": "How many homes?"}),
        )
        .await,
    )
    .await;
    assert_eq!(cache, "miss");

    let missing = post(
        &t,
        &t.url("/api/ai/explain"),
        &json!({"articleId": "nope-404"}),
    )
    .await;
    assert_news_error(missing, 404, "/explain").await;
    let empty = post(
        &t,
        &t.url("/api/ai/sentiment"),
        &json!({"articleId": "empty-1"}),
    )
    .await;
    let body = assert_news_error(empty, 400, "/sentiment").await;
    assert!(details(&body)[0].starts_with("articleId: "), "{body}");
    assert_eq!(llm.call_count(), 2, "no model call without an article");

    // The content service unreachable: 502.
    let env = t
        .stack
        .function_env("GenAiFunction")
        .expect("env")
        .clone()
        .with(
            "INTERNAL_API_URL",
            format!("http://127.0.0.1:{}", closed_port()),
        );
    let router = genai_function::router(env).await.expect("router");
    let (status, body) = oneshot(
        &router,
        "/api/ai/summarize",
        &json!({"articleId": "tidal-1"}),
    )
    .await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["path"], "/summarize");
}

#[tokio::test]
async fn metrics_and_traces_reach_the_collector_before_the_response() {
    let llm = FakeLlm::start().await;
    let otlp = OtlpReceiver::start().await;
    let t = stack(
        &llm,
        &[
            ("OtelExporterOtlpEndpoint", &otlp.endpoint()),
            (
                "OtelResourceAttributes",
                "deployment.environment=test,team=news%20desk",
            ),
        ],
    )
    .await;

    // A call with token usage; a caller's trace context.
    llm.reply_with_usage("Summary.", Some((42, 7)));
    let response = t
        .http
        .post(t.url("/api/ai/summarize"))
        .header(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        )
        .json(&json!({"text": ARTICLE}))
        .send()
        .await
        .expect("request");
    ok_json(response).await;
    // No waiting: the export happened before the response.
    let labels = [("endpoint", "summarize"), ("provider", "cloud")];
    let requests = otlp
        .point("gen_ai.llm.requests", &labels)
        .expect("requests exported");
    assert_eq!(requests.value, 1.0);
    assert_eq!(requests.labels.len(), 2, "{requests:?}");
    let latency = otlp
        .point("gen_ai.llm.latency", &labels)
        .expect("latency exported");
    assert_eq!((latency.kind.as_str(), latency.value), ("histogram", 1.0));
    assert!(
        latency.sum.is_some_and(|s| s > 0.0 && s < 5.0),
        "{latency:?}"
    );
    assert_eq!(
        otlp.point("gen_ai.llm.prompt_tokens", &labels)
            .map(|p| p.value),
        Some(42.0)
    );
    assert_eq!(
        otlp.point("gen_ai.llm.completion_tokens", &labels)
            .map(|p| p.value),
        Some(7.0)
    );
    let resource = otlp.resource_attributes();
    assert_eq!(
        resource.get("service.name").map(String::as_str),
        Some("gen-ai")
    );
    assert_eq!(
        resource.get("deployment.environment").map(String::as_str),
        Some("test")
    );
    assert_eq!(resource.get("team").map(String::as_str), Some("news desk"));

    let spans = otlp.spans();
    let server = spans
        .iter()
        .find(|s| s.name == "POST /api/ai/summarize")
        .expect("server span");
    assert_eq!(server.kind, 2);
    assert_eq!(server.trace_id, "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(server.parent_span_id, "b7ad6b7169203331");
    assert_eq!(
        server
            .attributes
            .get("http.response.status_code")
            .map(String::as_str),
        Some("200")
    );
    let chat = spans
        .iter()
        .find(|s| s.name == format!("chat {TEST_MODEL}"))
        .expect("client span");
    assert_eq!((chat.kind, &chat.trace_id), (3, &server.trace_id));
    assert_eq!(chat.parent_span_id, server.span_id);
    assert_eq!(
        chat.attributes
            .get("gen_ai.usage.input_tokens")
            .map(String::as_str),
        Some("42")
    );
    let sent = llm
        .last_call()
        .traceparent
        .expect("traceparent to the model");
    assert!(
        sent.starts_with("00-0af7651916cd43dd8448eb211c80319c-"),
        "{sent}"
    );

    // Without usage, no token counts; a cache hit calls no model and counts nothing.
    llm.reply_with_usage("Explained.", None);
    ok_json(post(&t, &t.url("/api/ai/explain"), &json!({"text": ARTICLE})).await).await;
    let explain = [("endpoint", "explain"), ("provider", "cloud")];
    assert_eq!(
        otlp.point("gen_ai.llm.requests", &explain).map(|p| p.value),
        Some(1.0)
    );
    assert_eq!(otlp.point("gen_ai.llm.prompt_tokens", &explain), None);
    assert_eq!(otlp.point("gen_ai.llm.completion_tokens", &explain), None);
    let (_, cache) =
        ok_json(post(&t, &t.url("/api/ai/summarize"), &json!({"text": ARTICLE})).await).await;
    assert_eq!(cache, "hit");
    assert_eq!(
        otlp.point("gen_ai.llm.requests", &labels).map(|p| p.value),
        Some(1.0)
    );

    // Failures count as errors with their kind, and fail the server span.
    llm.fail(503);
    let failed = post(&t, &t.url("/api/ai/sentiment"), &json!({"text": ARTICLE})).await;
    assert_eq!(failed.status(), 502);
    let errors = otlp
        .point(
            "gen_ai.llm.errors",
            &[
                ("endpoint", "sentiment"),
                ("provider", "cloud"),
                ("error.type", "http_status"),
            ],
        )
        .expect("errors exported");
    assert_eq!(errors.value, 1.0);
    llm.reply("not json at all");
    let unusable = post(&t, &t.url("/api/ai/sentiment"), &json!({"text": ARTICLE})).await;
    assert_eq!(unusable.status(), 502);
    assert_eq!(
        otlp.point(
            "gen_ai.llm.errors",
            &[("endpoint", "sentiment"), ("error.type", "unusable_output")],
        )
        .map(|p| p.value),
        Some(1.0)
    );
    assert!(otlp
        .spans()
        .iter()
        .any(|s| s.name == "POST /api/ai/sentiment" && s.status_code == 2));
    assert_eq!(
        otlp.metric_names(),
        [
            "gen_ai.llm.completion_tokens",
            "gen_ai.llm.errors",
            "gen_ai.llm.latency",
            "gen_ai.llm.prompt_tokens",
            "gen_ai.llm.requests",
        ]
    );
}
