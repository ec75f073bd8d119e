//! `articleId` instead of text: the article is read through the content service (its
//! internal route), on both paths in; a missing, empty or unreachable article.

use news::model::TopicRef;
use news::store::{ContentStore, NewArticle, NewSource};
use serde_json::json;
use stack_tests::genai::{function_url, ok_json, post, stack, ARTICLE};
use stack_tests::llm::{FakeLlm, TEST_MODEL};
use stack_tests::server::closed_port;
use stack_tests::{assert_news_error, details, router};

#[tokio::test]
async fn article_ids_are_read_through_the_content_service() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let store = ContentStore::new(
        platform::dynamo::Table::new(t.aws().await.dynamodb, t.table("ContentTable")),
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
            &format!("{}/qa", function_url(&t)),
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
    let env = t.env("AssistantFunction").with(
        "INTERNAL_API_URL",
        format!("http://127.0.0.1:{}", closed_port()),
    );
    let genai = assistant_function::router(env).await.expect("router");
    let answer = router::post_json(
        &genai,
        "/api/ai/summarize",
        &json!({"articleId": "tidal-1"}),
    )
    .await;
    let body = answer.json_or_null();
    assert_eq!(answer.status, 502, "{body}");
    assert_eq!(body["path"], "/summarize");
}
