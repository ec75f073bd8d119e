//! The per-user brake on community writes (`CommunityRateLimit*`): past a limit a 429 with
//! `Retry-After` in the Reason body; counted per user and per kind of write; a refused
//! input (400) costs nothing.

use reqwest::Response;
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_input, post_path, POSTS};
use stack_tests::{header, TestStack};

/// Asserts the brake's 429: `Retry-After` within the day's window, named in the message.
async fn assert_limited(response: Response) {
    let retry_after: u64 = header(response.headers(), "retry-after")
        .parse()
        .expect("Retry-After seconds");
    assert!((1..=86_400).contains(&retry_after), "{retry_after}");
    let body: Value = assert_reason_error(response, 429).await;
    assert!(message(&body).contains(&retry_after.to_string()), "{body}");
}

fn status(response: &Response) -> u16 {
    response.status().as_u16()
}

#[tokio::test]
async fn community_writes_are_limited_per_user_and_kind() {
    let parameters = [
        ("CommunityRateLimitPosts", "3/86400"),
        ("CommunityRateLimitComments", "2/86400"),
        ("CommunityRateLimitReactions", "3/86400"),
    ];
    let t = TestStack::start_with(
        parameters
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
    .await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;

    // Posts: a refused input does not count; create, replace and patch do.
    let bad = t
        .post_json_auth(POSTS, &alice, &json!({"title": "x", "content": "y"}))
        .await;
    assert_reason_error(bad, 400).await;
    let post = t
        .create_post(&alice, &post_input("Limits apply", &[]))
        .await;
    let id = post["id"].as_str().unwrap();
    let replaced = t
        .put_json_auth(&post_path(id), &alice, &post_input("Limits replaced", &[]))
        .await;
    assert_eq!(status(&replaced), 200);
    let patched = t
        .patch_json_auth(&post_path(id), &alice, &json!({"title": "Limits patched"}))
        .await;
    assert_eq!(status(&patched), 200);
    let refused = t
        .post_json_auth(POSTS, &alice, &post_input("One too many", &[]))
        .await;
    assert_limited(refused).await;
    let refused_patch = t
        .patch_json_auth(&post_path(id), &alice, &json!({"title": "Patched again"}))
        .await;
    assert_limited(refused_patch).await;
    // Another user writes on.
    t.create_post(&bob, &post_input("Bob is not limited", &[]))
        .await;

    // Comments, counted apart from posts.
    let comments = format!("{}/comments", post_path(id));
    for text in ["first", "second"] {
        let added = t
            .post_json_auth(&comments, &alice, &json!({ "text": text }))
            .await;
        assert_eq!(status(&added), 201, "{text}");
    }
    let refused = t
        .post_json_auth(&comments, &alice, &json!({"text": "third"}))
        .await;
    assert_limited(refused).await;
    let by_bob = t
        .post_json_auth(&comments, &bob, &json!({"text": "bob's"}))
        .await;
    assert_eq!(status(&by_bob), 201);
    let comment: Value = by_bob.json().await.unwrap();
    let comment_id = comment["id"].as_str().unwrap();

    // Reactions, comment likes and bookmarks share one limit.
    assert_eq!(status(&t.react(id, &bob, "LIKE").await), 200);
    assert_eq!(status(&t.bookmark(id, &bob, true).await), 200);
    let liked = t
        .put_json_auth(
            &format!("/api/v1/comments/{comment_id}/reaction"),
            &bob,
            &json!({"type": "LIKE"}),
        )
        .await;
    assert_eq!(status(&liked), 200);
    assert_limited(t.react(id, &bob, "DISLIKE").await).await;
    assert_limited(t.bookmark(id, &bob, false).await).await;
    // The refused switch changed nothing.
    let shown = t.reactions_counted(id, Some(&bob), 1, 0).await;
    assert_eq!(shown["isLikedByMe"], true, "{shown}");
    assert_eq!(status(&t.react(id, &alice, "LIKE").await), 200);
}

#[tokio::test]
async fn view_beacons_are_limited_per_reader() {
    let t = TestStack::start_with(
        [("CommunityRateLimitViews".to_string(), "2/86400".to_string())]
            .into_iter()
            .collect(),
    )
    .await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let post = t.create_post(&alice, &post_input("Viewed", &[])).await;
    let views = format!("{}/views", post_path(post["id"].as_str().unwrap()));
    let anonymous =
        |ip: &'static str| stack_tests::limits::from(t.http.post(t.url(&views)), ip).send();
    // Anonymous readers by address, members by user.
    for _ in 0..2 {
        assert_eq!(status(&anonymous("203.0.113.7").await.unwrap()), 202);
        assert_eq!(status(&t.post_auth(&views, &bob).await), 202);
    }
    assert_limited(anonymous("203.0.113.7").await.unwrap()).await;
    assert_limited(t.post_auth(&views, &bob).await).await;
    assert_eq!(status(&anonymous("198.51.100.2").await.unwrap()), 202);
    assert_eq!(status(&t.post_auth(&views, &alice).await), 202);
}
