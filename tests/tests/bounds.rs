//! Every id, name and URL a client sends has a length limit: values that would break
//! DynamoDB's 2,048-byte partition key limit in AWS (the emulator does not enforce it) are a
//! 400 naming the field, or a 404, in Document A's error body, before any table is read.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{json, Value};
use stack_tests::errors::{assert_news_error, details};
use stack_tests::stack::TestStack;

/// 2,049 bytes of ASCII: one byte over DynamoDB's partition key limit.
fn ascii_over_key_limit() -> String {
    "a".repeat(2049)
}

/// 1,025 two-byte characters (2,050 bytes): over the key limit in bytes, not in characters.
fn utf8_over_key_limit() -> String {
    "é".repeat(1025)
}

/// `path` as the request line carries it (the error body's `path`): `é` percent-encoded.
fn sent(path: &str) -> String {
    path.replace('é', "%C3%A9")
}

/// Asserts a 400 in Document A's body whose details name `field`.
async fn assert_names(response: reqwest::Response, path: &str, field: &str) -> Value {
    let body = assert_news_error(response, 400, &sent(path)).await;
    assert!(
        details(&body)
            .iter()
            .any(|d| d.starts_with(&format!("{field}: "))),
        "{body}"
    );
    body
}

#[tokio::test]
async fn over_long_ids_names_and_urls_are_refused() {
    let t = TestStack::start().await;
    let (profile, token) = t.user("bounded").await;
    let user_id = profile["id"].as_str().expect("id").to_string();
    let service = t.service_token().await;

    for long in [ascii_over_key_limit(), utf8_over_key_limit()] {
        // Content: path ids.
        let source = format!("/sources/{long}");
        assert_names(t.get(&format!("/api/content{source}")).await, &source, "id").await;
        let article = format!("/articles/{long}");
        assert_names(
            t.get(&format!("/api/content{article}")).await,
            &article,
            "id",
        )
        .await;
        let subscriber = format!("/sources/{long}/subscribers/{user_id}");
        let uri = format!("/api/content{subscriber}");
        assert_names(t.post_auth(&uri, &service).await, &subscriber, "id").await;
        assert_names(t.delete_auth(&uri, &service).await, &subscriber, "id").await;
        let subscriber = format!("/sources/0123456789abcdef0123456789abcdef/subscribers/{long}");
        let uri = format!("/api/content{subscriber}");
        assert_names(t.post_auth(&uri, &service).await, &subscriber, "userId").await;

        // Content: query and body ids, the feed URL.
        for field in ["sourceId", "topicId"] {
            let response = t
                .get(&format!("/api/content/articles?{field}={long}"))
                .await;
            assert_names(response, "/articles", field).await;
        }
        let saved = t
            .post_json_auth(
                "/api/content/articles/saved",
                &token,
                &json!({"ids": [long]}),
            )
            .await;
        assert_names(saved, "/articles/saved", "ids").await;
        let url = format!("https://example.com/{}", long.repeat(2));
        let submitted = t
            .post_json_auth("/api/content/sources", &token, &json!({"url": url}))
            .await;
        assert_names(submitted, "/sources", "url").await;

        // Users: the login key, settings entries, a subscription's source (404: no source has
        // such an id, and the content service is not asked).
        let login = t.login_as(&long, "password").await;
        assert_names(login, "/auth/login", "username").await;
        let login = t.login_as("bounded", &long).await;
        assert_names(login, "/auth/login", "password").await;
        for field in ["enabledSourceIds", "followedTopics"] {
            let response = t
                .put_json_auth(
                    "/api/users/users/me/settings",
                    &token,
                    &json!({field: [long]}),
                )
                .await;
            assert_names(response, "/users/me/settings", field).await;
        }
        let subscription = format!("/users/me/subscriptions/{long}");
        let response = t
            .post_auth(&format!("/api/users{subscription}"), &token)
            .await;
        assert_news_error(response, 404, &sent(&subscription)).await;

        // GenAI: the article id (checked before the content service or the cache is asked).
        let response = t
            .post_json("/api/ai/summarize", &json!({"articleId": long}))
            .await;
        assert_names(response, "/summarize", "articleId").await;
    }

    // The limits are the contract's: 200 characters for ids, 2048 for feed URLs.
    let at_limit = "a".repeat(200);
    let response = t.get(&format!("/api/content/sources/{at_limit}")).await;
    assert_news_error(response, 404, &format!("/sources/{at_limit}")).await;
    let over = "a".repeat(201);
    let response = t.get(&format!("/api/content/sources/{over}")).await;
    assert_names(response, &format!("/sources/{over}"), "id").await;
}

#[tokio::test]
async fn bodies_are_json_objects() {
    let t = TestStack::start().await;
    let (_, token) = t.user("shaped").await;
    // serde reads a struct from an array too: `[null, null]` was a profile update.
    let response = t
        .put_json_auth("/api/users/users/me", &token, &json!([null, null]))
        .await;
    let body = assert_names(response, "/users/me", "body").await;
    assert_eq!(details(&body), vec!["body: must be a JSON object"]);
    let response = t
        .post_json(
            "/api/users/auth/login",
            &json!(["shaped", "password-shaped"]),
        )
        .await;
    assert_names(response, "/auth/login", "body").await;
}
