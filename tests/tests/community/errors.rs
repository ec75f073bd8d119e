//! The Reason error body on every route and every framework error of the community
//! function, and on unknown paths under `/api/v1`.

use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, post_input, post_path, POSTS};
use stack_tests::{assert_news_error, Call, TestStack};

#[tokio::test]
async fn reason_body_on_404_405_413_415_401_403_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let post = t.create_post(&alice, &post_input("Errors", &[])).await;
    let path = post_path(post["id"].as_str().unwrap());

    // 400, 401, 403, 404 from the handlers.
    assert_reason_error(t.get(&format!("{POSTS}?size=0")).await, 400).await;
    assert_reason_error(t.post_json(POSTS, &post_input("No token", &[])).await, 401).await;
    let forbidden = t
        .patch_json_auth(&path, &bob, &json!({"title": "Not yours"}))
        .await;
    assert_reason_error(forbidden, 403).await;
    assert_reason_error(
        t.get(&post_path("00000000-0000-4000-8000-000000000000"))
            .await,
        404,
    )
    .await;
    // 404 from the router (a path it does not have), 405 (a method a path does not take).
    assert_reason_error(t.get(&format!("{path}/nothing/here")).await, 404).await;
    let delete = t.delete_auth(POSTS, &alice).await;
    assert_reason_error(delete, 405).await;
    // 413: over the 1 MiB JSON limit; 415: not JSON.
    let huge = format!(
        "{{\"title\": \"Too big\", \"content\": \"{}\"}}",
        "a".repeat(1_100_000)
    );
    let too_large = t
        .http
        .post(t.url(POSTS))
        .bearer_auth(&alice)
        .header("content-type", "application/json")
        .body(huge)
        .call()
        .await;
    assert_reason_error(too_large, 413).await;
    let xml = t
        .http
        .post(t.url(POSTS))
        .bearer_auth(&alice)
        .header("content-type", "application/xml")
        .body("<post/>")
        .call()
        .await;
    assert_reason_error(xml, 415).await;
    let malformed = t
        .http
        .post(t.url(POSTS))
        .bearer_auth(&alice)
        .header("content-type", "application/json")
        .body("{\"title\":")
        .call()
        .await;
    assert_reason_error(malformed, 400).await;
}

#[tokio::test]
async fn unknown_api_v1_family_404_reason_body() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    for path in ["/api/v1/nope", "/api/v1/nope/nothing", "/api/v1"] {
        let body: Value = assert_reason_error(t.get(path).await, 404).await;
        assert!(body["message"].as_str().unwrap().contains(path), "{body}");
    }
}

#[tokio::test]
async fn incident_prefix_keeps_detailed_body() {
    // The incident platform's routes answer in the detailed error body, not the community's.
    let t = TestStack::start().await;
    assert_news_error(t.get("/api/v1/logs").await, 401, "/api/v1/logs").await;
    assert_news_error(
        t.get("/api/v1/incidents/1").await,
        401,
        "/api/v1/incidents/1",
    )
    .await;
}
