//! Saved articles follow the account: saved on one device (one token), read on another (a
//! second login), bounded, idempotent, merged from a browser's list, and gone with the
//! account.

use serde_json::{json, Value};
use stack_tests::users::ME;
use stack_tests::{assert_news_error, details, TestStack};

const SAVED: &str = "/api/users/users/me/saved";

fn saved(id: &str) -> String {
    format!("{SAVED}/{id}")
}

async fn ids(response: reqwest::Response) -> Vec<String> {
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    serde_json::from_value(body["ids"].clone()).unwrap()
}

#[tokio::test]
async fn saved_articles_follow_the_account_across_devices() {
    let t = TestStack::start().await;
    let (_, phone) = t.user("reader").await;
    let laptop = t.login("reader").await;
    assert_eq!(
        ids(t.get_auth(SAVED, &laptop).await).await,
        Vec::<String>::new()
    );

    assert_eq!(
        ids(t.put_json_auth(&saved("a1"), &phone, &json!({})).await).await,
        ["a1"]
    );
    assert_eq!(
        ids(t.put_json_auth(&saved("a2"), &phone, &json!({})).await).await,
        ["a2", "a1"]
    );
    // Saving again changes nothing; the other device sees the same list.
    assert_eq!(
        ids(t.put_json_auth(&saved("a1"), &laptop, &json!({})).await).await,
        ["a2", "a1"]
    );
    assert_eq!(ids(t.get_auth(SAVED, &laptop).await).await, ["a2", "a1"]);
    assert_eq!(
        ids(t.delete_auth(&saved("a2"), &laptop).await).await,
        ["a1"]
    );
    assert_eq!(
        ids(t.delete_auth(&saved("a2"), &laptop).await).await,
        ["a1"]
    );
    // A browser's own list joins at login: new ids after the saved ones, repeats skipped.
    assert_eq!(
        ids(t
            .post_json_auth(SAVED, &phone, &json!({"ids": ["b1", "a1", "b2"]}))
            .await)
        .await,
        ["a1", "b1", "b2"]
    );

    // Another user's list is their own.
    let (_, other) = t.user("other").await;
    assert_eq!(
        ids(t.get_auth(SAVED, &other).await).await,
        Vec::<String>::new()
    );

    // Invalid ids and missing bodies name the field.
    let long = "x".repeat(65);
    let bad = assert_news_error(
        t.put_json_auth(&saved(&long), &phone, &json!({})).await,
        400,
        &format!("/users/me/saved/{long}"),
    )
    .await;
    assert!(details(&bad)[0].starts_with("articleId: "), "{bad}");
    let bad = assert_news_error(
        t.post_json_auth(SAVED, &phone, &json!({})).await,
        400,
        "/users/me/saved",
    )
    .await;
    assert_eq!(details(&bad), ["ids: is required"]);
    assert_news_error(t.get(SAVED).await, 401, "/users/me/saved").await;

    // Deleting the account deletes its saved list.
    assert_eq!(t.delete_auth(ME, &phone).await.status(), 204);
    let left = t
        .scan("UsersTable")
        .await
        .into_iter()
        .filter(|i| {
            i.get("sk")
                .and_then(|v| v.as_s().ok())
                .is_some_and(|sk| sk == "SAVED")
        })
        .count();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn an_account_keeps_at_most_a_hundred_saved_articles() {
    let t = TestStack::start().await;
    let (_, token) = t.user("hoarder").await;
    let hundred: Vec<String> = (0..100).map(|n| format!("a{n}")).collect();
    assert_eq!(
        ids(t
            .post_json_auth(SAVED, &token, &json!({ "ids": hundred }))
            .await)
        .await
        .len(),
        100
    );
    let full = assert_news_error(
        t.put_json_auth(&saved("one-more"), &token, &json!({}))
            .await,
        400,
        "/users/me/saved/one-more",
    )
    .await;
    assert!(
        details(&full)[0].starts_with("articleId: at most 100"),
        "{full}"
    );
    let full = assert_news_error(
        t.post_json_auth(SAVED, &token, &json!({"ids": ["b1"]}))
            .await,
        400,
        "/users/me/saved",
    )
    .await;
    assert!(details(&full)[0].starts_with("ids: at most 100"), "{full}");
    // Saving one already saved, and removing one, still work when full.
    assert_eq!(
        ids(t.put_json_auth(&saved("a5"), &token, &json!({})).await)
            .await
            .len(),
        100
    );
    assert_eq!(
        ids(t.delete_auth(&saved("a5"), &token).await).await.len(),
        99
    );
    let too_many: Vec<String> = (0..101).map(|n| format!("c{n}")).collect();
    let bad = assert_news_error(
        t.post_json_auth(SAVED, &token, &json!({ "ids": too_many }))
            .await,
        400,
        "/users/me/saved",
    )
    .await;
    assert_eq!(details(&bad), ["ids: must list at most 100 ids"]);
}
