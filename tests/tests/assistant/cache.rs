//! The shared answer cache: one model call per distinct ask, across both paths in, and
//! items that expire after a week.

use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::json;
use stack_tests::genai::{function_url, ok_json, post, stack, ARTICLE};
use stack_tests::llm::FakeLlm;

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
            &format!("{}/summarize", function_url(&t)),
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
    let items = t.scan("GenAiCacheTable").await;
    assert_eq!(items.len(), 3);
    let db = t.dynamodb().await;
    let now = chrono::Utc::now().timestamp();
    for item in &items {
        let expires: i64 = item["expiresAt"]
            .as_n()
            .expect("number")
            .parse()
            .expect("integer");
        assert!((expires - now - 604_800).abs() < 120, "{expires}");
        db.update_item()
            .table_name(t.table("GenAiCacheTable"))
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
