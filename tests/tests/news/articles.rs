//! Reading articles: saved articles by id in the order asked, and the validation of
//! article queries.

use serde_json::{json, Value};
use stack_tests::content::{ids, submit, ARTICLES};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer};
use stack_tests::{assert_news_error, details, TestStack};

const SAVED: &str = "/api/content/articles/saved";

#[tokio::test]
async fn saved_articles_come_back_in_the_order_asked() {
    let t = TestStack::for_product(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let url = feeds.put(
        "/saved.xml",
        FeedDocument::rss(generated_rss("Saved", 0, 5)),
    );
    let (_, token) = t.user("saver").await;
    submit(&t, &token, &url).await;
    let mut ids = ids(&t.get_json(ARTICLES).await);
    ids.reverse();
    let mut asked = ids.clone();
    asked.insert(2, "no-such-article".into());

    let response = t
        .post_json_auth(SAVED, &token, &json!({ "ids": asked }))
        .await;
    assert_eq!(response.status(), 200);
    let articles: Value = response.json().await.expect("json");
    let got: Vec<&str> = articles
        .as_array()
        .expect("array")
        .iter()
        .map(|a| a["id"].as_str().expect("id"))
        .collect();
    assert_eq!(got, ids.iter().map(String::as_str).collect::<Vec<_>>());

    assert_news_error(
        t.post_json(SAVED, &json!({"ids": ids})).await,
        401,
        "/articles/saved",
    )
    .await;
    let too_many: Vec<String> = (0..101).map(|n| format!("a{n}")).collect();
    let error = assert_news_error(
        t.post_json_auth(SAVED, &token, &json!({ "ids": too_many }))
            .await,
        400,
        "/articles/saved",
    )
    .await;
    assert_eq!(details(&error), vec!["ids: must list at most 100 ids"]);
    let error = assert_news_error(
        t.post_json_auth(SAVED, &token, &json!({ "ids": "abc" }))
            .await,
        400,
        "/articles/saved",
    )
    .await;
    assert!(details(&error)[0].starts_with("ids: "), "{error}");
}

#[tokio::test]
async fn article_queries_are_validated() {
    let t = TestStack::for_product(stack_tests::Product::News).await;
    for (query, field) in [
        ("size=0", "size"),
        ("size=101", "size"),
        ("page=-1", "page"),
        ("page=abc", "page"),
    ] {
        let response = t.get(&format!("{ARTICLES}?{query}")).await;
        let error = assert_news_error(response, 400, "/articles").await;
        assert!(
            details(&error)[0].starts_with(&format!("{field}: ")),
            "{query}: {error}"
        );
    }
    let missing = t.get(&format!("{ARTICLES}/nope")).await;
    assert_news_error(missing, 404, "/articles/nope").await;
    assert_eq!(
        t.get_json("/api/content/actuator/health").await,
        json!({"status": "UP"})
    );
}

#[tokio::test]
async fn anonymous_pages_are_public_to_a_cdn_and_signed_in_ones_private() {
    let t = TestStack::for_product(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/cdn.xml", FeedDocument::rss(generated_rss("Cdn", 0, 2)));
    let (_, token) = t.user("cdnreader").await;
    submit(&t, &token, &url).await;
    let id = ids(&t.get_json(ARTICLES).await)[0].clone();
    let cache_control =
        |r: &reqwest::Response| stack_tests::header(r.headers(), "cache-control").to_string();
    for path in [
        format!("{ARTICLES}?page=0&size=20"),
        format!("{ARTICLES}/{id}"),
        "/api/content/topics".to_string(),
    ] {
        let anonymous = t.get(&path).await;
        assert_eq!(anonymous.status(), 200, "{path}");
        assert_eq!(
            cache_control(&anonymous),
            "public, max-age=0, s-maxage=10",
            "{path}"
        );
        let signed_in = t.get_auth(&path, &token).await;
        assert_eq!(signed_in.status(), 200, "{path}");
        assert_eq!(cache_control(&signed_in), "private, no-store", "{path}");
    }
    // Errors and writes are never kept.
    let missing = t.get(&format!("{ARTICLES}/no-such-article")).await;
    assert_eq!(cache_control(&missing), "private, no-store");
}
