//! Every id, name and URL a client sends has a length limit: values that would break
//! DynamoDB's 2,048-byte partition key limit in AWS (the emulator does not enforce it) are a
//! 400 naming the field, or a 404, in the detailed error body, before any table is read.
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

/// Asserts a 400 in the detailed error body whose details name `field`.
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

/// The community: every id in a path or a list is a UUID (any case), every page 0 to 49 and size
/// 1 to 20, every id list within its count; anything else is a 400 in the reason body naming
/// the field, before any table is read.
#[tokio::test]
async fn community_ids_pages_and_sizes_at_every_edge() {
    use stack_tests::community::{assert_reason_error, message, post_path, POSTS, TOPICS};

    async fn refused(t: &TestStack, path: &str, field: &str) {
        let body = assert_reason_error(t.get(path).await, 400).await;
        assert!(
            message(&body).contains(&format!("{field}: ")),
            "{path}: {body}"
        );
    }

    let t = TestStack::start().await;
    let (_, token) = t.member("bounds").await;
    for id in [
        ascii_over_key_limit(),
        utf8_over_key_limit(),
        "not-a-uuid".to_string(),
        "00000000-0000-4000-8000-0000000000000".to_string(),
    ] {
        refused(&t, &post_path(&id), "id").await;
        let patch = t
            .patch_json_auth(&post_path(&id), &token, &json!({"title": "Valid title"}))
            .await;
        assert_reason_error(patch, 400).await;
        refused(&t, &format!("{POSTS}/cards?ids={id}"), "ids").await;
        refused(&t, &format!("{TOPICS}/names?ids={id}"), "ids").await;
    }
    let missing = "0000000A-0000-4000-8000-000000000000";
    assert_reason_error(t.get(&post_path(missing)).await, 404).await;

    for (query, field) in [
        ("page=-1", "page"),
        ("page=50", "page"),
        ("page=1.5", "page"),
        ("size=0", "size"),
        ("size=21", "size"),
        ("size=99999999999999999999", "size"),
    ] {
        refused(&t, &format!("{POSTS}?{query}"), field).await;
    }
    for query in ["page=0&size=1", "page=49&size=20"] {
        assert_eq!(
            t.get(&format!("{POSTS}?{query}")).await.status(),
            200,
            "{query}"
        );
    }

    let id = |i: usize| format!("00000000-0000-4000-8000-{i:012}");
    let list = |n: usize| (0..n).map(id).collect::<Vec<_>>().join(",");
    for (path, max) in [
        (format!("{POSTS}/cards"), 50),
        (format!("{TOPICS}/names"), 100),
    ] {
        refused(&t, &format!("{path}?ids="), "ids").await;
        refused(&t, &format!("{path}?ids={}", list(max + 1)), "ids").await;
        for n in [1, max] {
            let response = t.get(&format!("{path}?ids={}", list(n))).await;
            assert_eq!(response.status(), 200, "{path} with {n} ids");
        }
    }
}
