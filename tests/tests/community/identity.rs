//! The identity port: the users service's internal profile route, and what the community
//! service does when identity says the account is gone or cannot be reached.

use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, post_input, POSTS};
use stack_tests::router::{request, send};
use stack_tests::{assert_news_error, Call, TestStack, INTERNAL_TOKEN};

fn internal_user(id: &str) -> String {
    format!("/api/users/internal/users/{id}")
}

#[tokio::test]
async fn internal_profile_needs_the_token_and_shows_privacy_settings() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (id, token) = t.member("alice").await;
    let path = internal_user(&id);
    assert_news_error(t.get(&path).await, 401, &format!("/internal/users/{id}")).await;
    assert_news_error(
        t.get_auth(&path, &token).await,
        401,
        &format!("/internal/users/{id}"),
    )
    .await;

    let internal = || async {
        let response = t
            .http
            .get(t.url(&path))
            .header("x-internal-service-token", INTERNAL_TOKEN)
            .call()
            .await;
        assert_eq!(response.status(), 200);
        response.json::<Value>().await.unwrap()
    };
    // Private by default: a fresh account shows neither list.
    let fresh = internal().await;
    assert_eq!(
        (fresh["showBookmarks"].clone(), fresh["showLikes"].clone()),
        (json!(false), json!(false))
    );
    let settings = t
        .put_json_auth(
            "/api/users/users/me/settings",
            &token,
            &json!({"showBookmarks": true}),
        )
        .await;
    assert_eq!(settings.status(), 200);
    assert_eq!(
        internal().await,
        json!({"id": id, "username": "alice", "displayName": "alice tester", "roles": ["USER"],
               "showBookmarks": true, "showLikes": false, "followedTopics": []})
    );
    let unknown = t
        .http
        .get(t.url(&internal_user("00000000-0000-4000-8000-000000000000")))
        .header("x-internal-service-token", INTERNAL_TOKEN)
        .call()
        .await;
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn deleted_account_token_cannot_write_401() {
    let t = TestStack::start().await;
    let (_, token) = t.member("alice").await;
    let gone = t.delete_auth("/api/users/users/me", &token).await;
    assert_eq!(gone.status(), 204);
    let response = t
        .post_json_auth(POSTS, &token, &post_input("Ghost post", &[]))
        .await;
    assert_reason_error(response, 401).await;
    assert_eq!(t.get_ok(POSTS, None).await["totalElements"], 0);
}

#[tokio::test]
async fn identity_unreachable_is_502_and_writes_nothing() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let env = t
        .env("CommunityFunction")
        .with("INTERNAL_API_URL", "http://127.0.0.1:9");
    let router = community_function::router(env).await.unwrap();
    let body = serde_json::to_string(&post_input("Nobody home", &["Lonely"])).unwrap();
    let answer = send(
        &router,
        request(
            "POST",
            POSTS,
            &[
                ("authorization", &format!("Bearer {token}")),
                ("content-type", "application/json"),
            ],
            body,
        ),
    )
    .await;
    assert_eq!(answer.status.as_u16(), 502, "{}", answer.text());
    let json = answer.json();
    assert_eq!(json["error"], "Bad Gateway");
    assert!(t.topic("lonely").await.is_none(), "no topic was created");
}
