//! Comments: threads as a tree, bounds, the count on the post, the cap, comment likes.

use std::sync::Arc;

use community::input::{CommentText, PostId, UserId};
use community::{Community, CommunityError, Identity, IdentityError, Profile};
use platform::dynamo::Table;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_input, post_path};
use stack_tests::TestStack;

fn comments_path(post: &str) -> String {
    format!("{}/comments", post_path(post))
}

async fn published(t: &TestStack, token: &str) -> String {
    let post = t
        .create_post(token, &post_input("Talk about it", &[]))
        .await;
    post["id"].as_str().unwrap().to_string()
}

async fn comment(
    t: &TestStack,
    post: &str,
    token: &str,
    text: &str,
    parent: Option<&str>,
) -> Value {
    let response = t
        .post_json_auth(
            &comments_path(post),
            token,
            &json!({"text": text, "parentId": parent}),
        )
        .await;
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    body
}

#[tokio::test]
async fn comments_returned_as_tree() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let post = published(&t, &author).await;
    let first = comment(&t, &post, &bob, "  First!  ", None).await;
    assert_eq!(first["text"], "First!");
    assert_eq!(first["author"]["id"], bob_id.as_str());
    assert_eq!(first["replies"], json!([]));
    let first_id = first["id"].as_str().unwrap();
    let second = comment(&t, &post, &author, "Second", None).await;
    let reply = comment(&t, &post, &author, "A reply", Some(first_id)).await;
    let nested = comment(
        &t,
        &post,
        &bob,
        "A reply to the reply",
        reply["id"].as_str(),
    )
    .await;

    let thread = t.get_ok(&comments_path(&post), None).await;
    let top: Vec<&str> = thread
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(top, [first_id, second["id"].as_str().unwrap()]);
    assert_eq!(thread[0]["replies"][0]["id"], reply["id"]);
    assert_eq!(thread[0]["replies"][0]["replies"][0]["id"], nested["id"]);
    assert_eq!(
        thread[0]["replies"][0]["replies"][0]["text"],
        "A reply to the reply"
    );
    assert_eq!(thread[1]["replies"], json!([]));

    // Comment likes: LIKE and NONE, idempotent, flags for the caller only; DISLIKE is 400.
    let like_path = format!("/api/v1/comments/{first_id}/reaction");
    for _ in 0..2 {
        let r = t
            .put_json_auth(&like_path, &author, &json!({"type": "LIKE"}))
            .await;
        assert_eq!(r.status(), 200);
        assert_eq!(
            r.json::<Value>().await.unwrap(),
            json!({"likeCount": 1, "isLikedByMe": true})
        );
    }
    let as_author = t.get_ok(&comments_path(&post), Some(&author)).await;
    assert_eq!(
        (
            as_author[0]["likeCount"].clone(),
            as_author[0]["isLikedByMe"].clone()
        ),
        (json!(1), json!(true))
    );
    let as_bob = t.get_ok(&comments_path(&post), Some(&bob)).await;
    assert_eq!(as_bob[0]["isLikedByMe"], false);
    let r = t
        .put_json_auth(&like_path, &author, &json!({"type": "NONE"}))
        .await;
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"likeCount": 0, "isLikedByMe": false})
    );
    let error = assert_reason_error(
        t.put_json_auth(&like_path, &author, &json!({"type": "DISLIKE"}))
            .await,
        400,
    )
    .await;
    assert!(message(&error).contains("type"), "{error}");
    let unknown = "/api/v1/comments/5b0f3c1e-0000-4000-8000-000000000001/reaction";
    assert_reason_error(
        t.put_json_auth(unknown, &bob, &json!({"type": "LIKE"}))
            .await,
        404,
    )
    .await;
}

#[tokio::test]
async fn comment_like_and_none_dislike_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let post = published(&t, &author).await;
    let c = comment(&t, &post, &author, "Like me", None).await;
    let path = format!("/api/v1/comments/{}/reaction", c["id"].as_str().unwrap());
    let mut tokens = Vec::new();
    for i in 0..10 {
        tokens.push(t.member(&format!("liker{i}")).await.1);
    }
    let like = json!({"type": "LIKE"});
    let likes = tokens.iter().map(|tk| t.put_json_auth(&path, tk, &like));
    for r in futures::future::join_all(likes).await {
        assert_eq!(r.status(), 200);
    }
    let thread = t.get_ok(&comments_path(&post), None).await;
    assert_eq!(thread[0]["likeCount"], 10);
    let error = assert_reason_error(
        t.put_json_auth(&path, &author, &json!({"type": "DISLIKE"}))
            .await,
        400,
    )
    .await;
    assert!(message(&error).contains("type"), "{error}");
}

#[tokio::test]
async fn comment_text_edges_0_1_500_501() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let post = published(&t, &author).await;
    comment(&t, &post, &author, "x", None).await;
    comment(&t, &post, &author, &"x".repeat(500), None).await;
    for body in [
        json!({"text": ""}),
        json!({"text": "   "}),
        json!({"text": "x".repeat(501)}),
        json!({}),
    ] {
        let r = t
            .post_json_auth(&comments_path(&post), &author, &body)
            .await;
        let error = assert_reason_error(r, 400).await;
        assert!(message(&error).contains("text"), "{error}");
    }
    let r = t
        .post_json_auth(
            &comments_path(&post),
            &author,
            &json!({"text": "ok", "parentId": "nope"}),
        )
        .await;
    let error = assert_reason_error(r, 400).await;
    assert!(message(&error).contains("parentId"), "{error}");
    let r = t
        .post_json(&comments_path(&post), &json!({"text": "anonymous"}))
        .await;
    assert_reason_error(r, 401).await;
    assert_eq!(t.get_ok(&post_path(&post), None).await["commentCount"], 2);
}

#[tokio::test]
async fn reply_parent_must_be_on_same_post() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let one = published(&t, &author).await;
    let other = published(&t, &author).await;
    let on_other = comment(&t, &other, &author, "Elsewhere", None).await;
    for parent in [
        on_other["id"].as_str().unwrap(),
        "5b0f3c1e-0000-4000-8000-000000000001",
    ] {
        let r = t
            .post_json_auth(
                &comments_path(&one),
                &author,
                &json!({"text": "reply", "parentId": parent}),
            )
            .await;
        let error = assert_reason_error(r, 400).await;
        assert!(message(&error).contains("parentId"), "{error}");
    }
    assert_eq!(t.get_ok(&comments_path(&one), None).await, json!([]));
    assert_eq!(t.get_ok(&post_path(&one), None).await["commentCount"], 0);
}

#[tokio::test]
async fn comment_count_on_post() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let post = published(&t, &author).await;
    let mut tokens = Vec::new();
    for i in 0..8 {
        tokens.push(t.member(&format!("talker{i}")).await.1);
    }
    let (path, body) = (comments_path(&post), json!({"text": "at once"}));
    let adds = tokens.iter().map(|tk| t.post_json_auth(&path, tk, &body));
    for r in futures::future::join_all(adds).await {
        assert_eq!(r.status(), 201);
    }
    assert_eq!(t.get_ok(&post_path(&post), None).await["commentCount"], 8);
    assert_eq!(
        t.get_ok(&comments_path(&post), None)
            .await
            .as_array()
            .unwrap()
            .len(),
        8
    );
}

#[tokio::test]
async fn comment_on_draft_404_or_409_for_its_author() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let mut input = post_input("Not yet out", &[]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&author, &input).await;
    let id = draft["id"].as_str().unwrap();
    // Others cannot see the draft; its author can, and learns why it takes no comment.
    let by_bob = t
        .post_json_auth(&comments_path(id), &bob, &json!({"text": "early"}))
        .await;
    assert_reason_error(by_bob, 404).await;
    let by_author = t
        .post_json_auth(&comments_path(id), &author, &json!({"text": "early"}))
        .await;
    let body = assert_reason_error(by_author, 409).await;
    assert!(message(&body).contains("draft"), "{body}");
    assert_eq!(
        t.get_ok(&post_path(id), Some(&author)).await["commentCount"],
        0
    );
    assert_reason_error(t.get_maybe_auth(&comments_path(id), Some(&bob)).await, 404).await;
    // The author sees the (empty) thread of their draft.
    assert_eq!(t.get_ok(&comments_path(id), Some(&author)).await, json!([]));
    let unknown = "5b0f3c1e-0000-4000-8000-000000000001";
    assert_reason_error(t.get(&comments_path(unknown)).await, 404).await;
}

#[tokio::test]
async fn nesting_past_16_is_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let post = published(&t, &author).await;
    let mut parent: Option<String> = None;
    for depth in 1..=16 {
        let c = comment(
            &t,
            &post,
            &author,
            &format!("depth {depth}"),
            parent.as_deref(),
        )
        .await;
        parent = c["id"].as_str().map(str::to_string);
    }
    let r = t
        .post_json_auth(
            &comments_path(&post),
            &author,
            &json!({"text": "too deep", "parentId": parent}),
        )
        .await;
    let error = assert_reason_error(r, 400).await;
    assert!(message(&error).contains("parentId"), "{error}");
    let mut level = &t.get_ok(&comments_path(&post), None).await[0];
    for _ in 1..16 {
        level = &level["replies"][0];
    }
    assert_eq!(level["text"], "depth 16");
    assert_eq!(level["replies"], json!([]));
}

/// Anyone is a user named after their id.
struct EveryoneExists;

impl Identity for EveryoneExists {
    async fn profile(&self, user: &UserId) -> Result<Option<Profile>, IdentityError> {
        Ok(Some(Profile {
            id: user.to_string(),
            username: "talker".into(),
            display_name: "Talker".into(),
            roles: vec!["USER".into()],
            show_bookmarks: true,
            show_likes: true,
        }))
    }
}

#[tokio::test]
async fn comment_cap_409() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let post = published(&t, &author).await;
    let aws = t.aws().await;
    let table = Table::new(aws.dynamodb.clone(), t.table("CommunityTable"));
    let community = Arc::new(Community::new(table, Clock::system()));
    let post = PostId::parse("id", &post).unwrap();
    let text = CommentText::parse(Some("one more")).unwrap();
    let talker = UserId::generate();
    for _ in 0..3 {
        community
            .add_comment_capped(&EveryoneExists, &talker, &post, &text, None, 3)
            .await
            .unwrap();
    }
    let full = community
        .add_comment_capped(&EveryoneExists, &talker, &post, &text, None, 3)
        .await;
    assert!(matches!(full, Err(CommunityError::Conflict(_))), "{full:?}");
    assert_eq!(
        t.get_ok(&post_path(post.as_str()), None).await["commentCount"],
        3
    );
    assert_eq!(
        t.get_ok(&comments_path(post.as_str()), None)
            .await
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

fn comment_path(comment: &Value) -> String {
    format!("/api/v1/comments/{}", comment["id"].as_str().unwrap())
}

#[tokio::test]
async fn the_author_edits_their_comment_and_no_one_else_may() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let post = published(&t, &author).await;
    let c = comment(&t, &post, &bob, "Frist", None).await;
    assert_eq!(c["editedAt"], Value::Null);
    let path = comment_path(&c);

    let response = t
        .patch_json_auth(&path, &bob, &json!({"text": "  First!  "}))
        .await;
    assert_eq!(response.status(), 200);
    let edited: Value = response.json().await.unwrap();
    assert_eq!(edited["text"], "First!");
    assert!(edited["editedAt"].is_string(), "{edited}");
    let thread = t.get_ok(&comments_path(&post), None).await;
    assert_eq!(thread[0]["text"], "First!");
    assert_eq!(thread[0]["editedAt"], edited["editedAt"]);

    // The post's author is not the comment's: 403, and the text stays.
    let error = assert_reason_error(
        t.patch_json_auth(&path, &author, &json!({"text": "Mine now"}))
            .await,
        403,
    )
    .await;
    assert!(message(&error).contains("author"), "{error}");
    let error = assert_reason_error(
        t.patch_json_auth(&path, &bob, &json!({"text": "   "}))
            .await,
        400,
    )
    .await;
    assert!(message(&error).contains("text"), "{error}");
    let long = "x".repeat(501);
    assert_reason_error(
        t.patch_json_auth(&path, &bob, &json!({"text": long})).await,
        400,
    )
    .await;
    let error = assert_reason_error(
        t.patch_json_auth("/api/v1/comments/not-a-uuid", &bob, &json!({"text": "x"}))
            .await,
        400,
    )
    .await;
    assert!(message(&error).contains("id"), "{error}");
    let missing = format!("/api/v1/comments/{}", uuid::Uuid::new_v4());
    assert_reason_error(
        t.patch_json_auth(&missing, &bob, &json!({"text": "x"}))
            .await,
        404,
    )
    .await;
    let thread = t.get_ok(&comments_path(&post), None).await;
    assert_eq!(thread[0]["text"], "First!");
}

#[tokio::test]
async fn a_deleted_comment_keeps_its_place_only_while_it_has_replies() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let post = published(&t, &author).await;
    let parent = comment(&t, &post, &bob, "Has a reply", None).await;
    let parent_id = parent["id"].as_str().unwrap();
    comment(&t, &post, &author, "The reply", Some(parent_id)).await;
    let lonely = comment(&t, &post, &bob, "Alone", None).await;
    assert_eq!(t.get_ok(&post_path(&post), None).await["commentCount"], 3);

    // Only the author deletes.
    assert_reason_error(t.delete_auth(&comment_path(&parent), &author).await, 403).await;
    for c in [&parent, &lonely] {
        let response = t.delete_auth(&comment_path(c), &bob).await;
        assert_eq!(response.status(), 204);
    }
    let thread = t.get_ok(&comments_path(&post), None).await;
    let thread = thread.as_array().unwrap();
    assert_eq!(thread.len(), 1, "{thread:?}");
    assert_eq!(thread[0]["id"], parent["id"]);
    assert_eq!(thread[0]["deleted"], true);
    assert_eq!(thread[0]["text"], "[deleted]");
    assert_eq!(thread[0]["author"]["username"], "[deleted]");
    assert_eq!(thread[0]["replies"][0]["text"], "The reply");
    assert_eq!(t.get_ok(&post_path(&post), None).await["commentCount"], 1);

    // Deleting again, editing or liking what is deleted: 404, and the count stays.
    assert_reason_error(t.delete_auth(&comment_path(&parent), &bob).await, 404).await;
    assert_reason_error(
        t.patch_json_auth(&comment_path(&lonely), &bob, &json!({"text": "back"}))
            .await,
        404,
    )
    .await;
    assert_eq!(t.get_ok(&post_path(&post), None).await["commentCount"], 1);
}

#[tokio::test]
async fn concurrent_deletes_of_one_comment_move_the_count_once() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let post = published(&t, &author).await;
    let c = comment(&t, &post, &author, "Gone soon", None).await;
    comment(&t, &post, &author, "Stays", None).await;
    let path = comment_path(&c);
    let deletes = (0..4).map(|_| t.delete_auth(&path, &author));
    let statuses: Vec<u16> = futures::future::join_all(deletes)
        .await
        .iter()
        .map(|r| r.status().as_u16())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 204).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 204 || *s == 404),
        "{statuses:?}"
    );
    assert_eq!(t.get_ok(&post_path(&post), None).await["commentCount"], 1);
}

#[tokio::test]
async fn a_cursor_pages_whole_threads_and_a_bad_one_is_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let post = published(&t, &author).await;
    let mut roots = Vec::new();
    for i in 0..5 {
        let root = comment(&t, &post, &bob, &format!("Thread {i}"), None).await;
        roots.push(root["id"].as_str().unwrap().to_string());
    }
    // A late reply to the first thread still comes with it, not on a later page.
    let late = comment(&t, &post, &author, "Late reply", Some(&roots[0])).await;
    comment(
        &t,
        &post,
        &bob,
        "Deeper",
        Some(late["id"].as_str().unwrap()),
    )
    .await;

    // Without paging, every thread at once, as before.
    let all = t.get_ok(&comments_path(&post), None).await;
    assert_eq!(all.as_array().unwrap().len(), 5);

    let mut seen = Vec::new();
    let mut path = format!("{}?limit=2", comments_path(&post));
    let mut pages = 0;
    loop {
        let response = t.get_maybe_auth(&path, None).await;
        assert_eq!(response.status(), 200);
        let next = response
            .headers()
            .get("x-next-cursor")
            .map(|v| v.to_str().unwrap().to_string());
        let page: Value = response.json().await.unwrap();
        let page = page.as_array().unwrap().clone();
        assert!(page.len() <= 2, "{page:?}");
        if seen.is_empty() {
            assert_eq!(page[0]["replies"][0]["text"], "Late reply");
            assert_eq!(page[0]["replies"][0]["replies"][0]["text"], "Deeper");
        }
        seen.extend(page.iter().map(|c| c["id"].as_str().unwrap().to_string()));
        pages += 1;
        match next {
            Some(cursor) => path = format!("{}?limit=2&cursor={cursor}", comments_path(&post)),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, roots, "every thread once, oldest first");

    for bad in [
        "limit=0",
        "limit=101",
        "limit=x",
        "cursor=zz",
        "cursor=3230",
    ] {
        let r = t
            .get_maybe_auth(&format!("{}?{bad}", comments_path(&post)), None)
            .await;
        assert_reason_error(r, 400).await;
    }
}
