//! Account-deletion cleanup: `DELETE /api/v1/internal/users/{id}` refuses the user's writes at
//! once and the community sweeper (the stack's real queue poller) soft-deletes their posts
//! and comments, removes their reactions, bookmarks and comment likes, and moves every counter
//! back, exactly once however often it runs. The users service's account deletion calls it.

use std::collections::BTreeMap;
use std::time::Duration;

use community::Community;
use platform::dynamo::Table;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, post_input, post_path};
use stack_tests::stack::{Call, INTERNAL_TOKEN};
use stack_tests::TestStack;

fn cleanup_path(user_id: &str) -> String {
    format!("/api/v1/internal/users/{user_id}")
}

fn comments_path(post_id: &str) -> String {
    format!("{}/comments", post_path(post_id))
}

async fn forget(t: &TestStack, user_id: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = t.http.delete(t.url(&cleanup_path(user_id)));
    if let Some(token) = token {
        request = request.header("x-internal-service-token", token);
    }
    request.call().await
}

async fn comment(
    t: &TestStack,
    post: &str,
    token: &str,
    text: &str,
    parent: Option<&str>,
) -> Value {
    let r = t
        .post_json_auth(
            &comments_path(post),
            token,
            &json!({"text": text, "parentId": parent}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json().await.unwrap()
}

async fn like_comment(t: &TestStack, comment_id: &str, token: &str) {
    let r = t
        .put_json_auth(
            &format!("/api/v1/comments/{comment_id}/reaction"),
            token,
            &json!({"type": "LIKE"}),
        )
        .await;
    assert_eq!(r.status(), 200);
}

/// Waits until the user's community profile says the cleanup finished (`cleanedAt` newer
/// than `after`); returns its `cleanedAt`.
async fn cleaned(t: &TestStack, user_id: &str, after: Option<&str>) -> String {
    for _ in 0..200 {
        let profile = t.scan("CommunityTable").await.into_iter().find(|i| {
            i.get("pk").and_then(|v| v.as_s().ok()) == Some(&format!("USER#{user_id}"))
                && i.get("sk").and_then(|v| v.as_s().ok()).map(String::as_str) == Some("PROFILE")
        });
        if let Some(at) = profile
            .as_ref()
            .and_then(|p| p.get("cleanedAt"))
            .and_then(|v| v.as_s().ok())
        {
            if after.is_none_or(|a| at.as_str() > a) {
                return at.clone();
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the cleanup of {user_id} never finished");
}

/// What the cleanup may change, read through the API: the posts' counters and visibility,
/// the thread, the topic's count.
async fn observable(t: &TestStack, posts: &[&str], reader: &str) -> Value {
    let mut out = BTreeMap::new();
    for id in posts {
        let r = t.get_auth(&post_path(id), reader).await;
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap();
        let counters = if status == 200 {
            json!([
                body["likeCount"],
                body["dislikeCount"],
                body["saveCount"],
                body["commentCount"]
            ])
        } else {
            Value::Null
        };
        let thread = t.get_maybe_auth(&comments_path(id), Some(reader)).await;
        let thread: Value = if thread.status() == 200 {
            thread.json().await.unwrap()
        } else {
            Value::Null
        };
        out.insert(
            id.to_string(),
            json!({"status": status, "counters": counters, "thread": thread}),
        );
    }
    out.insert(
        "topic".into(),
        t.topic("gardening")
            .await
            .map(|t| t["totalPostCount"].clone())
            .unwrap_or(Value::Null),
    );
    out.insert(
        "feed".into(),
        t.get_ok("/api/v1/posts", None).await["totalElements"].clone(),
    );
    json!(out)
}

#[tokio::test]
async fn cleanup_undoes_everything_the_user_left_and_refuses_their_writes() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (alice, alice_token) = t.member("alice").await;
    let (_, bob_token) = t.member("bob").await;
    let hers = t
        .create_post(
            &alice_token,
            &post_input("Growing tomatoes", &["Gardening"]),
        )
        .await;
    let hers = hers["id"].as_str().unwrap().to_string();
    let draft = t
        .create_post(
            &alice_token,
            &json!({"title": "Unfinished thoughts", "content": "Later.", "status": "DRAFT"}),
        )
        .await;
    let draft = draft["id"].as_str().unwrap().to_string();
    let his = t
        .create_post(&bob_token, &post_input("Pruning roses", &["Gardening"]))
        .await;
    let his = his["id"].as_str().unwrap().to_string();

    // Alice's marks on Bob's post, and Bob's on hers.
    t.react_ok(&his, &alice_token, "DISLIKE").await;
    assert_eq!(t.bookmark(&his, &alice_token, true).await.status(), 200);
    let her_comment = comment(&t, &his, &alice_token, "Too early for that", None).await;
    let her_comment = her_comment["id"].as_str().unwrap().to_string();
    let his_reply = comment(&t, &his, &bob_token, "It is not", Some(&her_comment)).await;
    let his_reply = his_reply["id"].as_str().unwrap().to_string();
    like_comment(&t, &his_reply, &alice_token).await;
    t.react_ok(&hers, &bob_token, "LIKE").await;
    comment(&t, &hers, &bob_token, "Lovely", None).await;
    let before = t.reactions_counted(&his, Some(&bob_token), 0, 1).await;
    t.reactions_counted(&hers, None, 1, 0).await;
    assert_eq!(
        (
            before["dislikeCount"].clone(),
            before["saveCount"].clone(),
            before["commentCount"].clone()
        ),
        (json!(1), json!(1), json!(2))
    );
    assert_eq!(t.topic("gardening").await.unwrap()["totalPostCount"], 2);

    assert_eq!(forget(&t, &alice, Some(INTERNAL_TOKEN)).await.status(), 204);
    // Her writes are refused from the answer on.
    let r = t
        .post_json_auth("/api/v1/posts", &alice_token, &post_input("Too late", &[]))
        .await;
    assert_reason_error(r, 401).await;
    let r = t.react(&his, &alice_token, "LIKE").await;
    assert_reason_error(r, 401).await;
    cleaned(&t, &alice, None).await;

    // Her posts are gone, drafts included; Bob's post has its counts back.
    for id in [&hers, &draft] {
        assert_reason_error(t.get_auth(&post_path(id), &alice_token).await, 404).await;
    }
    let after = t.get_ok(&post_path(&his), Some(&bob_token)).await;
    assert_eq!(after["dislikeCount"], 0);
    assert_eq!(after["saveCount"], 0);
    assert_eq!(after["commentCount"], 1, "Bob's reply stays");
    let thread = t.get_ok(&comments_path(&his), Some(&bob_token)).await;
    assert_eq!(thread[0]["text"], "[deleted]", "{thread}");
    assert_eq!(thread[0]["author"]["username"], "[deleted]");
    assert_eq!(thread[0]["replies"][0]["id"], his_reply.as_str());
    assert_eq!(thread[0]["replies"][0]["likeCount"], 0);
    assert_eq!(t.topic("gardening").await.unwrap()["totalPostCount"], 1);
    let feed = t.get_ok("/api/v1/posts?topic=Gardening", None).await;
    assert_eq!(feed["totalElements"], 1);
    assert_eq!(feed["content"][0]["id"], his.as_str());
    // Nothing of hers is left in the owner index.
    let owned = t
        .scan("CommunityTable")
        .await
        .into_iter()
        .filter(|i| i.get("gsi2pk").and_then(|v| v.as_s().ok()) == Some(&format!("OWNER#{alice}")))
        .count();
    assert_eq!(owned, 0);
}

#[tokio::test]
async fn cleanup_run_twice_leaves_the_same_state() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (alice, alice_token) = t.member("alice").await;
    let (_, bob_token) = t.member("bob").await;
    let (_, carol_token) = t.member("carol").await;
    let mut posts = Vec::new();
    for i in 0..3 {
        let p = t
            .create_post(
                &alice_token,
                &post_input(&format!("Her post {i}"), &["Gardening"]),
            )
            .await;
        posts.push(p["id"].as_str().unwrap().to_string());
    }
    let his = t
        .create_post(&bob_token, &post_input("His post", &["Gardening"]))
        .await;
    posts.push(his["id"].as_str().unwrap().to_string());
    for post in &posts {
        t.react_ok(post, &carol_token, "LIKE").await;
        if post != &posts[3] {
            continue;
        }
        t.react_ok(post, &alice_token, "LIKE").await;
        assert_eq!(t.bookmark(post, &alice_token, true).await.status(), 200);
        let c = comment(&t, post, &alice_token, "Mine", None).await;
        comment(&t, post, &carol_token, "Reply", c["id"].as_str()).await;
    }

    for (i, post) in posts.iter().enumerate() {
        t.reactions_counted(post, None, if i == 3 { 2 } else { 1 }, 0)
            .await;
    }

    // Steps of two items driven by hand, each repeated: the same result as one clean run.
    let aws = t.aws().await;
    let env = t.env("CommunitySweeperFunction");
    let community = Community::new(
        Table::from_env(&env, &aws, "COMMUNITY_TABLE").unwrap(),
        Clock::system(),
    );
    community.mark_account_deleted(&alice).await.unwrap();
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(steps < 50, "the cleanup never finished");
        let first = community.cleanup_step_of(&alice, 2).await.unwrap();
        let again = community.cleanup_step_of(&alice, 2).await.unwrap();
        if first.finished && again.finished {
            break;
        }
    }
    let refs: Vec<&str> = posts.iter().map(String::as_str).collect();
    let once = observable(&t, &refs, &carol_token).await;
    assert_eq!(once["topic"], 1, "{once}");
    assert_eq!(
        once[posts[3].as_str()]["counters"],
        json!([1, 0, 0, 1]),
        "{once}"
    );

    // The whole cleanup again through the route and the sweeper: nothing moves.
    let finished = cleaned(&t, &alice, None).await;
    assert_eq!(forget(&t, &alice, Some(INTERNAL_TOKEN)).await.status(), 204);
    cleaned(&t, &alice, Some(&finished)).await;
    assert_eq!(observable(&t, &refs, &carol_token).await, once);
}

#[tokio::test]
async fn cleanup_needs_the_internal_token_and_a_uuid() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (alice, _) = t.member("alice").await;
    assert_reason_error(forget(&t, &alice, None).await, 401).await;
    assert_reason_error(forget(&t, &alice, Some("wrong")).await, 401).await;
    let error =
        assert_reason_error(forget(&t, "not-a-uuid", Some(INTERNAL_TOKEN)).await, 400).await;
    assert!(error["message"].as_str().unwrap().contains("id"), "{error}");
    // An id nobody used is fine: nothing to undo.
    let unknown = "5b0f3c1e-0000-4000-8000-000000000009";
    assert_eq!(
        forget(&t, unknown, Some(INTERNAL_TOKEN)).await.status(),
        204
    );
    cleaned(&t, unknown, None).await;
}

#[tokio::test]
async fn deleting_the_account_cleans_up_the_community_and_unfollows_topics() {
    let t = TestStack::start().await;
    let (alice, token) = t.member("alice").await;
    let post = t
        .create_post(&token, &post_input("Composting 101", &["Gardening"]))
        .await;
    let post = post["id"].as_str().unwrap().to_string();
    let r = t
        .put_json_auth(
            "/api/users/users/me/settings",
            &token,
            &json!({"followedTopics": ["gardening"]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(t.topic("gardening").await.unwrap()["followerCount"], 1);

    assert_eq!(
        t.delete_auth("/api/users/users/me", &token).await.status(),
        204
    );
    cleaned(&t, &alice, None).await;
    assert_reason_error(t.get(&post_path(&post)).await, 404).await;
    let topic = t.topic("gardening").await.unwrap();
    assert_eq!(topic["followerCount"], 0);
    assert_eq!(topic["totalPostCount"], 0);
}

#[tokio::test]
async fn a_failed_cleanup_leaves_the_account_in_place() {
    // A stack whose community function cannot queue cleanups: the account deletion fails
    // with 502 before any record goes, and the account still works.
    let template = std::fs::read_to_string(stack_tests::repo_root().join("template.yaml")).unwrap();
    let broken = template.replacen(
        "          COMMUNITY_CLEANUP_QUEUE_URL: !Ref CommunityCleanupQueue\n          INTERNAL_SERVICE_TOKEN:",
        "          COMMUNITY_CLEANUP_QUEUE_URL: http://127.0.0.1:1/000000000000/missing\n          INTERNAL_SERVICE_TOKEN:",
        1,
    );
    assert_ne!(
        broken, template,
        "the community function's queue setting moved"
    );
    let dir = std::env::temp_dir().join(format!("cleanup-template-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("template.yaml"), broken).unwrap();
    let t = TestStack::start_from(dir.join("template.yaml"), BTreeMap::new()).await;
    let (_, token) = t.member("alice").await;
    let post = t.create_post(&token, &post_input("Still here", &[])).await;
    let r = t.delete_auth("/api/users/users/me", &token).await;
    assert_eq!(r.status(), 502);
    assert_eq!(
        t.get_auth("/api/users/users/me", &token).await.status(),
        200
    );
    t.get_ok(&post_path(post["id"].as_str().unwrap()), None)
        .await;
    // Nor are the user's community writes refused.
    t.create_post(&token, &post_input("And writing", &[])).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn deleting_an_account_takes_its_reactions_and_their_counts() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (alice, alice_token) = t.member("alice").await;
    let (bob, bob_token) = t.member("bob").await;
    let (_, carol_token) = t.member("carol").await;
    let mut posts = Vec::new();
    for i in 0..3 {
        let p = t
            .create_post(&carol_token, &post_input(&format!("Carol's {i}"), &[]))
            .await;
        posts.push(p["id"].as_str().unwrap().to_string());
    }
    // Counted before the deletion: a like, and a dislike switched from a like.
    t.react_ok(&posts[0], &alice_token, "LIKE").await;
    t.react_ok(&posts[0], &bob_token, "LIKE").await;
    t.react_ok(&posts[1], &alice_token, "LIKE").await;
    t.reactions_counted(&posts[0], None, 2, 0).await;
    t.reactions_counted(&posts[1], None, 1, 0).await;
    t.react_ok(&posts[1], &alice_token, "DISLIKE").await;
    t.reactions_counted(&posts[1], None, 0, 1).await;
    // And one the counter may not have reached when the account goes.
    t.react_ok(&posts[2], &alice_token, "LIKE").await;

    assert_eq!(forget(&t, &alice, Some(INTERNAL_TOKEN)).await.status(), 204);
    cleaned(&t, &alice, None).await;
    t.reactions_counted(&posts[0], None, 1, 0).await;
    t.reactions_counted(&posts[1], None, 0, 0).await;
    t.reactions_counted(&posts[2], None, 0, 0).await;
    // The counter's late batches change nothing now.
    tokio::time::sleep(std::time::Duration::from_millis(3000)).await;
    t.reactions_counted(&posts[2], None, 0, 0).await;
    let left = t
        .scan("CommunityTable")
        .await
        .into_iter()
        .filter(|i| {
            i.get("pk")
                .and_then(|v| v.as_s().ok())
                .is_some_and(|pk| pk.starts_with("REACT#") && pk.ends_with(&alice))
        })
        .count();
    assert_eq!(left, 0, "her reaction rows are gone");
    // Bob's like and his list stay.
    let likes = t
        .get_ok(&format!("/api/v1/users/{bob}/likes"), Some(&bob_token))
        .await;
    assert_eq!(likes["totalElements"], 1, "{likes}");
    assert_eq!(likes["content"][0]["id"], posts[0].as_str());
}
