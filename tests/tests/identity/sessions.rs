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

/// A 401 for a token whose account is gone, in the detailed error body: the deletion ended
/// every session of the account.
async fn gone(response: reqwest::Response, path: &str) {
    let body = assert_news_error(response, 401, path).await;
    assert_eq!(body["message"], "The session has ended: sign in again");
}

/// Routes of every system that a signed-in user may read: an ended session is 401 on each.
const EVERY_SYSTEM: [&str; 4] = [
    ME,
    "/api/recipes/users/me",
    "/api/recipes/recipes",
    "/api/v1/digests/me",
];

#[tokio::test]
async fn a_password_change_needs_the_current_password_and_ends_every_other_session() {
    let t = TestStack::start().await;
    let (_, laptop) = t.user("changer").await;
    let phone = t.login("changer").await;
    let path = stack_tests::users::PASSWORD;

    // A stolen token alone cannot change the password.
    let wrong = t
        .put_json_auth(
            path,
            &phone,
            &json!({"currentPassword": "guess-guess", "password": "stolen-password"}),
        )
        .await;
    let body = assert_news_error(wrong, 403, "/users/me/password").await;
    assert_eq!(body["details"], json!(["currentPassword: is wrong"]));
    let missing = t
        .put_json_auth(path, &phone, &json!({"password": "stolen-password"}))
        .await;
    let body = assert_news_error(missing, 400, "/users/me/password").await;
    assert_eq!(body["details"], json!(["currentPassword: is required"]));
    let short = t
        .put_json_auth(
            path,
            &phone,
            &json!({"currentPassword": "password-changer", "password": "short"}),
        )
        .await;
    assert_news_error(short, 400, "/users/me/password").await;
    // Nothing changed so far.
    for path in EVERY_SYSTEM {
        assert_eq!(t.get_auth(path, &laptop).await.status(), 200, "{path}");
    }

    let changed = t
        .put_json_auth(
            path,
            &phone,
            &json!({"currentPassword": "password-changer", "password": "a-new-password"}),
        )
        .await;
    assert_eq!(changed.status(), 200);
    assert_eq!(changed.headers()["cache-control"], "no-store");
    let body: Value = changed.json().await.unwrap();
    let renewed = body["token"].as_str().unwrap();
    for path in EVERY_SYSTEM {
        let old = t.get_auth(path, &laptop).await;
        assert_eq!(old.status(), 401, "{path}: the laptop's session ended");
        assert_eq!(t.get_auth(path, &phone).await.status(), 401, "{path}");
        assert_eq!(t.get_auth(path, renewed).await.status(), 200, "{path}");
    }
    let ended = assert_news_error(t.get_auth(ME, &laptop).await, 401, "/users/me").await;
    assert_eq!(ended["message"], "The session has ended: sign in again");
    assert_eq!(
        t.login_as("changer", "password-changer").await.status(),
        401
    );
    assert_eq!(t.login_as("changer", "a-new-password").await.status(), 200);
}

#[tokio::test]
async fn signing_out_everywhere_ends_every_session_of_the_account_only() {
    let t = TestStack::start().await;
    let (_, first) = t.user("leaver").await;
    let second = t.login("leaver").await;
    let (_, other) = t.user("stayer").await;
    let response = t.delete_auth(stack_tests::users::SESSIONS, &first).await;
    assert_eq!(response.status(), 204);
    for path in EVERY_SYSTEM {
        assert_eq!(t.get_auth(path, &first).await.status(), 401, "{path}");
        assert_eq!(t.get_auth(path, &second).await.status(), 401, "{path}");
        assert_eq!(t.get_auth(path, &other).await.status(), 200, "{path}");
    }
    // Refresh cannot bring an ended session back; signing in starts a new one.
    assert_eq!(t.post_auth(REFRESH, &second).await.status(), 401);
    let fresh = t.login("leaver").await;
    assert_eq!(t.get_auth(ME, &fresh).await.status(), 200);
}

#[tokio::test]
async fn a_deleted_accounts_tokens_are_refused_on_reads_too() {
    let t = TestStack::start().await;
    let (_, token) = t.user("goner").await;
    let other_session = t.login("goner").await;
    assert_eq!(t.delete_auth(ME, &token).await.status(), 204);
    for path in EVERY_SYSTEM {
        assert_eq!(
            t.get_auth(path, &other_session).await.status(),
            401,
            "{path}"
        );
    }
}

#[tokio::test]
async fn an_ended_session_is_refused_by_every_function_that_checks_tokens() {
    let t = TestStack::start().await;
    let (profile, ended) = t.user("everywhere").await;
    let id = profile["id"].as_str().unwrap();
    let live = t.login("everywhere").await;
    // One route of each function that verifies user tokens, with the body it takes.
    let bookmarks = format!("/api/v1/users/{id}/bookmarks");
    let routes: Vec<(&str, &str, Option<Value>)> = vec![
        ("GET", ME, None),
        (
            "POST",
            "/api/content/sources",
            Some(json!({"url": "not a url"})),
        ),
        ("GET", &bookmarks, None),
        ("POST", "/api/v1/uploads/images", None),
        ("GET", "/api/v1/digests/me", None),
        ("GET", "/api/recipes/recipes", None),
        ("GET", "/api/v1/incidents", None),
        ("POST", "/api/v1/logs", Some(json!({"serviceName": "x"}))),
        ("POST", "/api/v1/rag/search", Some(json!({"query": "x"}))),
        ("GET", "/api/v1/admin/ai/provider", None),
    ];
    // Signing out everywhere from a third session ends both.
    let third = t.login("everywhere").await;
    assert_eq!(
        t.delete_auth(stack_tests::users::SESSIONS, &third)
            .await
            .status(),
        204
    );
    let fresh = t.login("everywhere").await;
    for (method, path, body) in &routes {
        let send = |token: &str| {
            let mut request = t
                .http
                .request(method.parse().unwrap(), t.url(path))
                .bearer_auth(token);
            if let Some(body) = body {
                request = request.json(body);
            }
            request.send()
        };
        for old in [&ended, &live] {
            let response = send(old).await.unwrap();
            assert_eq!(
                response.status(),
                401,
                "{method} {path} with an ended session"
            );
        }
        let response = send(&fresh).await.unwrap();
        assert_ne!(
            response.status(),
            401,
            "{method} {path} with a live session"
        );
    }
}

#[tokio::test]
async fn a_stolen_recipe_token_cannot_change_the_password() {
    let t = TestStack::start().await;
    let token = t.cook("victim").await;
    let path = "/api/recipes/users/me";
    let only_token = t
        .patch_json_auth(path, &token, &json!({"password": "stolen99"}))
        .await;
    let body = assert_news_error(only_token, 400, "/users/me").await;
    assert_eq!(
        body["details"],
        json!(["currentPassword: is required to change the password"])
    );
    let guessed = t
        .patch_json_auth(
            path,
            &token,
            &json!({"password": "stolen99", "currentPassword": "a-guess"}),
        )
        .await;
    let body = assert_news_error(guessed, 403, "/users/me").await;
    assert_eq!(body["details"], json!(["currentPassword: is wrong"]));
    // The owner's password and session are untouched.
    assert_eq!(t.recipe_login("victim", "cook-victim").await.status(), 200);
    assert_eq!(t.recipe_login("victim", "stolen99").await.status(), 401);
    assert_eq!(t.get_auth(path, &token).await.status(), 200);
}
