//! Sessions and dead accounts: a session in use is renewed before its token expires, and a
//! token that outlives its account (deleted while the token is still valid) is refused on
//! every write, with nothing written under the dead user.

use serde_json::{json, Value};
use stack_tests::content::{source, submit, submit_id, SOURCES};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer};
use stack_tests::tokens::claims;
use stack_tests::users::{subscription, ME, SETTINGS};
use stack_tests::{assert_news_error, TestStack};

const REFRESH: &str = "/api/users/auth/refresh";
const SAVED: &str = "/api/users/users/me/saved";

#[tokio::test]
async fn a_session_in_use_is_renewed_with_a_fresh_token() {
    let t = TestStack::start().await;
    let (profile, token) = t.user("renewer").await;
    // A second apart, so the new token's iat is later.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let response = t.post_auth(REFRESH, &token).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    let renewed = body["token"].as_str().unwrap();
    let (old, new) = (claims(&token), claims(renewed));
    assert_eq!(new["sub"], profile["id"]);
    assert_eq!(new["username"], "renewer");
    assert_eq!(new["roles"], json!(["USER"]));
    assert!(new["exp"].as_i64().unwrap() > old["exp"].as_i64().unwrap());
    assert_eq!(t.get_auth(ME, renewed).await.status(), 200);

    // Without a token, or with a service token, there is no session to renew.
    assert_news_error(t.post_json(REFRESH, &json!({})).await, 401, "/auth/refresh").await;
    let service = t.service_token().await;
    assert_eq!(t.post_auth(REFRESH, &service).await.status(), 403);
}

#[tokio::test]
async fn a_deleted_accounts_still_valid_token_is_refused_on_every_write() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/kept.xml", FeedDocument::rss(generated_rss("Kept", 0, 3)));
    let other = feeds.put(
        "/other.xml",
        FeedDocument::rss(generated_rss("Other", 10, 2)),
    );
    let (_, owner) = t.user("owner").await;
    let source_id = submit_id(&t, &owner, &url).await;
    assert_eq!(t.subscribe(&owner, &source_id).await.status(), 200);

    let (ghost, token) = t.user("ghost").await;
    let ghost_id = ghost["id"].as_str().unwrap().to_string();
    let spare = t.login("ghost").await;
    assert_eq!(t.delete_auth(ME, &token).await.status(), 204);

    // The spare token is unexpired and correctly signed, but its account is gone.
    gone(
        t.put_json_auth(SETTINGS, &spare, &json!({"theme": "dark"}))
            .await,
        "/users/me/settings",
    )
    .await;
    gone(
        t.put_json_auth(ME, &spare, &json!({"name": "Ghost"})).await,
        "/users/me",
    )
    .await;
    let sub = subscription(&source_id);
    let sub = sub.trim_start_matches("/api/users");
    gone(t.subscribe(&spare, &source_id).await, sub).await;
    gone(t.unsubscribe(&spare, &source_id).await, sub).await;
    gone(
        t.put_json_auth(&format!("{SAVED}/article-1"), &spare, &json!({}))
            .await,
        "/users/me/saved/article-1",
    )
    .await;
    gone(
        t.post_json_auth(SAVED, &spare, &json!({"ids": ["article-1"]}))
            .await,
        "/users/me/saved",
    )
    .await;
    gone(t.post_auth(REFRESH, &spare).await, "/auth/refresh").await;
    gone(t.delete_auth(ME, &spare).await, "/users/me").await;
    gone(submit(&t, &spare, &other).await, "/sources").await;

    // Nothing was written under the dead user, and the source kept its one subscriber.
    let under_ghost = t
        .scan("UsersTable")
        .await
        .into_iter()
        .filter(|i| {
            i.get("pk")
                .and_then(|v| v.as_s().ok())
                .is_some_and(|pk| pk.contains(&ghost_id))
        })
        .count();
    assert_eq!(under_ghost, 0);
    let kept = t.get_json(&source(&source_id)).await;
    assert_eq!(kept["subscriberCount"], 1);
    let sources = t.get_json(SOURCES).await;
    assert_eq!(sources.as_array().unwrap().len(), 1, "{sources}");
    let memberships = t
        .scan("ContentTable")
        .await
        .into_iter()
        .filter(|i| {
            i.get("sk")
                .and_then(|v| v.as_s().ok())
                .is_some_and(|sk| sk.contains(&ghost_id))
        })
        .count();
    assert_eq!(memberships, 0);
}

/// A 401 for a token whose account is gone, in the seed's error body.
async fn gone(response: reqwest::Response, path: &str) {
    let body = assert_news_error(response, 401, path).await;
    assert_eq!(
        body["message"],
        "The account of this token no longer exists"
    );
}
