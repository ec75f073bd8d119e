//! Following topics in the users service's settings moves the community's follower counts,
//! through the settings outbox.

use serde_json::{json, Value};
use stack_tests::router::{request, send};
use stack_tests::TestStack;

const SETTINGS: &str = "/api/users/users/me/settings";

async fn followers(t: &TestStack, slug: &str) -> Value {
    t.topic(slug)
        .await
        .map_or(Value::Null, |topic| topic["followerCount"].clone())
}

#[tokio::test]
async fn following_in_settings_sends_delta() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let follow = |token: String, topics: Value| {
        let t = &t;
        async move {
            let response = t
                .put_json_auth(SETTINGS, &token, &json!({ "followedTopics": topics }))
                .await;
            assert_eq!(response.status(), 200);
        }
    };
    follow(alice.clone(), json!(["space", "public-transport"])).await;
    assert_eq!(followers(&t, "space").await, 1);
    assert_eq!(followers(&t, "public-transport").await, 1);
    follow(bob.clone(), json!(["space"])).await;
    assert_eq!(followers(&t, "space").await, 2);
    // The same list again changes nothing; unfollowing gives it back.
    follow(bob.clone(), json!(["space"])).await;
    assert_eq!(followers(&t, "space").await, 2);
    follow(alice.clone(), json!(["space"])).await;
    assert_eq!(followers(&t, "public-transport").await, 0);
    follow(alice, json!([])).await;
    follow(bob, json!([])).await;
    assert_eq!(followers(&t, "space").await, 0);
    // Nothing is left in the outbox once delivered.
    let outbox = t
        .scan("UsersTable")
        .await
        .into_iter()
        .filter(|item| {
            item["sk"]
                .as_s()
                .is_ok_and(|sk| sk.starts_with("FOLLOWDELTA#"))
        })
        .count();
    assert_eq!(outbox, 0);
}

#[tokio::test]
async fn undelivered_follow_is_sent_by_the_next_settings_save() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    // A users function that cannot reach the community service.
    let env = t
        .env("IdentityFunction")
        .with("INTERNAL_API_URL", "http://127.0.0.1:9");
    let cut_off = identity_function::router(env).await.unwrap();
    let body = json!({"followedTopics": ["climate"]}).to_string();
    let answer = send(
        &cut_off,
        request(
            "PUT",
            SETTINGS,
            &[
                ("authorization", &format!("Bearer {token}")),
                ("content-type", "application/json"),
            ],
            body,
        ),
    )
    .await;
    assert_eq!(
        answer.status.as_u16(),
        200,
        "the settings are saved: {}",
        answer.text()
    );
    assert_eq!(
        followers(&t, "climate").await,
        Value::Null,
        "not delivered yet"
    );

    // The next save through the stack delivers the queued change (once), then its own.
    let response = t
        .put_json_auth(SETTINGS, &token, &json!({"language": "fr"}))
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(followers(&t, "climate").await, 1);
    let response = t
        .put_json_auth(SETTINGS, &token, &json!({"language": "de"}))
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(followers(&t, "climate").await, 1, "sent once");
}

/// Settings hold slugs; the largest change identity allows (100 followed topics swapped for
/// 100 others: 200 deltas) reaches the community service whole.
#[tokio::test]
async fn followed_topics_are_slugs_and_a_full_swap_is_delivered() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    let save = |topics: Vec<String>| {
        let t = &t;
        let alice = &alice;
        async move {
            let response = t
                .put_json_auth(SETTINGS, alice, &json!({ "followedTopics": topics }))
                .await;
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap();
            assert_eq!(status, 200, "{body}");
            body
        }
    };
    let saved = save(vec!["Public  Transport!".into(), "public-transport".into()]).await;
    assert_eq!(saved["followedTopics"], json!(["public-transport"]));
    assert_eq!(followers(&t, "public-transport").await, 1);

    let old: Vec<String> = (0..100).map(|i| format!("old-{i}")).collect();
    let new: Vec<String> = (0..100).map(|i| format!("new-{i}")).collect();
    save(old).await;
    assert_eq!(followers(&t, "old-7").await, 1);
    assert_eq!(followers(&t, "public-transport").await, 0);
    save(new).await;
    for slug in ["old-0", "old-99"] {
        assert_eq!(followers(&t, slug).await, 0, "{slug}");
    }
    for slug in ["new-0", "new-99"] {
        assert_eq!(followers(&t, slug).await, 1, "{slug}");
    }

    let refused = t
        .put_json_auth(SETTINGS, &alice, &json!({ "followedTopics": ["--"] }))
        .await;
    assert_eq!(refused.status(), 400);
}
