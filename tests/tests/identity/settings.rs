//! A user's settings: defaults, full and partial updates, validation, and privacy.

use serde_json::{json, Value};
use stack_tests::users::SETTINGS;
use stack_tests::{assert_news_error, details, TestStack};

#[tokio::test]
async fn settings_round_trip() {
    let t = TestStack::start().await;
    let (_, token) = t.user("frank").await;
    let defaults = t.settings(&token).await;
    assert_eq!(
        defaults,
        json!({"enabledSourceIds": [], "followedTopics": [], "language": "en", "theme": "system",
               "summaryLength": "medium", "showBookmarks": false, "showLikes": false})
    );

    let put = t
        .put_json_auth(
            SETTINGS,
            &token,
            &json!({"followedTopics": ["science", "tech"], "language": "pt-BR", "theme": "dark",
                      "summaryLength": "short", "showLikes": true, "enabledSourceIds": []}),
        )
        .await;
    assert_eq!(put.status(), 200);
    let saved: Value = put.json().await.expect("json");
    let read = t.settings(&token).await;
    assert_eq!(saved, read);
    assert_eq!(
        read,
        json!({"enabledSourceIds": [], "followedTopics": ["science", "tech"], "language": "pt-BR",
               "theme": "dark", "summaryLength": "short", "showBookmarks": false, "showLikes": true})
    );

    // A partial update keeps the rest.
    let partial = t
        .put_json_auth(SETTINGS, &token, &json!({"showBookmarks": true}))
        .await;
    let partial: Value = partial.json().await.expect("json");
    assert_eq!(partial["showBookmarks"], true);
    assert_eq!(partial["followedTopics"], json!(["science", "tech"]));

    let invalid = t
        .put_json_auth(SETTINGS, &token, &json!({"theme": "neon"}))
        .await;
    let body = assert_news_error(invalid, 400, "/users/me/settings").await;
    assert!(details(&body)[0].starts_with("theme: "), "{body}");

    let unknown_field = t
        .put_json_auth(SETTINGS, &token, &json!({"colour": "red"}))
        .await;
    assert_news_error(unknown_field, 400, "/users/me/settings").await;

    // Settings are per user.
    let (_, other) = t.user("grace").await;
    assert_eq!(t.settings(&other).await, defaults);

    let anonymous = t.get(SETTINGS).await;
    assert_news_error(anonymous, 401, "/users/me/settings").await;
}
