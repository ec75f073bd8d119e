//! The four operations: what reaches the model, in what shape they answer, on both paths
//! in, with either provider; and the health and docs routes.

use serde_json::{json, Value};
use stack_tests::genai::{function_url, ok_json, post, stack, ARTICLE};
use stack_tests::llm::{FakeLlm, TEST_KEY, TEST_MODEL};
use stack_tests::Call;

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
            &format!("{}/explain", function_url(&t)),
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
    let get = |url: String| t.http.get(url).call();
    for base in [t.url("/api/ai"), function_url(&t)] {
        let health = get(format!("{base}/health")).await;
        assert_eq!(health.status(), 200);
        let docs = get(format!("{base}/docs/")).await;
        assert_eq!(docs.status(), 200);
        assert!(docs.text().await.expect("html").contains("swagger-ui"));
        let doc: Value = get(format!("{base}/docs/openapi.json"))
            .await
            .json()
            .await
            .expect("json");
        assert!(doc["paths"]["/qa"]["post"].is_object(), "{doc}");
    }
    let redirect = get(format!("{}/docs", function_url(&t))).await;
    assert!(redirect.status().is_redirection());
    assert_eq!(
        redirect.headers()["location"],
        "/lambda-url/assistant/docs/index.html",
        "the local function URL keeps its prefix on redirects"
    );
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
