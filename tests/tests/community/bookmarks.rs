//! Bookmarks: idempotent PUT and DELETE with an exact `saveCount`.

use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, page_ids, post_input, post_path};
use stack_tests::TestStack;

async fn answer(response: reqwest::Response) -> Value {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn bookmark_put_delete_idempotent_save_count() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let post = t
        .create_post(&author, &post_input("Worth keeping", &[]))
        .await;
    let id = post["id"].as_str().unwrap();
    let saved = json!({"saveCount": 1, "isBookmarkedByMe": true});
    assert_eq!(answer(t.bookmark(id, &bob, true).await).await, saved);
    assert_eq!(answer(t.bookmark(id, &bob, true).await).await, saved);
    let read = t.get_ok(&post_path(id), Some(&bob)).await;
    assert_eq!(
        (read["saveCount"].clone(), read["isBookmarkedByMe"].clone()),
        (json!(1), json!(true))
    );
    let read = t.get_ok(&post_path(id), Some(&author)).await;
    assert_eq!(read["isBookmarkedByMe"], false);

    let removed = json!({"saveCount": 0, "isBookmarkedByMe": false});
    assert_eq!(answer(t.bookmark(id, &bob, false).await).await, removed);
    assert_eq!(answer(t.bookmark(id, &bob, false).await).await, removed);
    let read = t.get_ok(&post_path(id), Some(&bob)).await;
    assert_eq!(
        (read["saveCount"].clone(), read["isBookmarkedByMe"].clone()),
        (json!(0), json!(false))
    );

    // Others' drafts and unknown posts are 404; the author's own draft 409; bad ids 400.
    let mut input = post_input("A draft to keep", &[]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&author, &input).await;
    let draft = draft["id"].as_str().unwrap();
    assert_reason_error(t.bookmark(draft, &bob, true).await, 404).await;
    assert_reason_error(t.bookmark(draft, &author, true).await, 409).await;
    assert_reason_error(
        t.bookmark("5b0f3c1e-0000-4000-8000-000000000001", &bob, true)
            .await,
        404,
    )
    .await;
    assert_reason_error(t.bookmark("nope", &bob, true).await, 400).await;
    let response = t
        .http
        .put(t.url(&format!("{}/bookmark", post_path(id))))
        .send()
        .await
        .unwrap();
    assert_reason_error(response, 401).await;
}

#[tokio::test]
async fn concurrent_bookmarks_exact() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let post = t
        .create_post(&author, &post_input("Everyone keeps it", &[]))
        .await;
    let id = post["id"].as_str().unwrap();
    let mut tokens = Vec::new();
    for i in 0..15 {
        tokens.push(t.member(&format!("reader{i}")).await.1);
    }
    // Each reader bookmarks twice at once: 15 bookmarks, not 30.
    let puts = tokens
        .iter()
        .chain(tokens.iter())
        .map(|token| t.bookmark(id, token, true));
    for response in futures::future::join_all(puts).await {
        assert_eq!(response.status(), 200);
    }
    assert_eq!(t.get_ok(&post_path(id), None).await["saveCount"], 15);
    let deletes = tokens
        .iter()
        .take(10)
        .chain(tokens.iter().take(10))
        .map(|token| t.bookmark(id, token, false));
    for response in futures::future::join_all(deletes).await {
        assert_eq!(response.status(), 200);
    }
    assert_eq!(t.get_ok(&post_path(id), None).await["saveCount"], 5);
}

const SETTINGS: &str = "/api/users/users/me/settings";

async fn show(t: &TestStack, token: &str, bookmarks: bool, likes: bool) {
    let response = t
        .put_json_auth(
            SETTINGS,
            token,
            &json!({"showBookmarks": bookmarks, "showLikes": likes}),
        )
        .await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn bookmarked_and_liked_lists_paged_newest_first() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    show(&t, &bob, true, true).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let post = t
            .create_post(&author, &post_input(&format!("Listed post {i}"), &[]))
            .await;
        ids.push(post["id"].as_str().unwrap().to_string());
    }
    for id in &ids {
        assert_eq!(t.bookmark(id, &bob, true).await.status(), 200);
        t.react_ok(id, &bob, "LIKE").await;
    }
    // A dislike is in neither list.
    t.react_ok(&ids[0], &bob, "DISLIKE").await;
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    for (list, expected, total) in [
        ("bookmarks", newest_first.clone(), 5),
        ("likes", newest_first[..4].to_vec(), 4),
    ] {
        let path = format!("/api/v1/users/{bob_id}/{list}");
        let first = t.get_ok(&format!("{path}?size=2"), None).await;
        assert_eq!(page_ids(&first), expected[..2], "{list}");
        assert_eq!(first["totalElements"], total, "{list}");
        assert_eq!(first["size"], 2);
        let second = t.get_ok(&format!("{path}?size=2&page=1"), Some(&bob)).await;
        assert_eq!(page_ids(&second), expected[2..4], "{list}");
        assert_eq!(second["content"][0]["isBookmarkedByMe"], true);
        let bad = t.get(&format!("{path}?size=21")).await;
        assert_reason_error(bad, 400).await;
    }
    assert_reason_error(t.get("/api/v1/users/nope/bookmarks").await, 400).await;
    // Taking a bookmark back takes it off the list.
    t.bookmark(&ids[4], &bob, false).await;
    let page = t
        .get_ok(&format!("/api/v1/users/{bob_id}/bookmarks"), None)
        .await;
    assert_eq!(page_ids(&page), newest_first[1..]);
}

/// `owner`'s bookmarks and likes (each holding `post`): 403 for `other` and anonymous
/// readers, shown to the owner.
async fn hidden_from_others(t: &TestStack, owner_id: &str, owner: &str, other: &str, post: &str) {
    for list in ["bookmarks", "likes"] {
        let path = format!("/api/v1/users/{owner_id}/{list}");
        assert_reason_error(t.get(&path).await, 403).await;
        assert_reason_error(t.get_auth(&path, other).await, 403).await;
        let own = t.get_ok(&path, Some(owner)).await;
        assert_eq!(page_ids(&own), [post], "{list}: the owner sees it");
    }
}

#[tokio::test]
async fn a_fresh_accounts_bookmarks_and_likes_are_private_until_shown() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let post = t
        .create_post(&author, &post_input("Kept and liked", &[]))
        .await;
    let id = post["id"].as_str().unwrap();
    assert_eq!(t.bookmark(id, &bob, true).await.status(), 200);
    t.react_ok(id, &bob, "LIKE").await;
    hidden_from_others(&t, &bob_id, &bob, &author, id).await;
    // Saving other settings (stored with the flags) keeps the lists private.
    let response = t
        .put_json_auth(SETTINGS, &bob, &json!({"theme": "dark"}))
        .await;
    assert_eq!(response.status(), 200);
    hidden_from_others(&t, &bob_id, &bob, &author, id).await;
    show(&t, &bob, true, true).await;
    for list in ["bookmarks", "likes"] {
        let path = format!("/api/v1/users/{bob_id}/{list}");
        assert_eq!(page_ids(&t.get_ok(&path, None).await), [id], "{list}");
        assert_eq!(
            page_ids(&t.get_ok(&path, Some(&author)).await),
            [id],
            "{list}"
        );
    }
}

#[tokio::test]
async fn private_bookmarks_403_for_others_owner_sees() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let post = t
        .create_post(&author, &post_input("Quietly kept", &[]))
        .await;
    let id = post["id"].as_str().unwrap();
    t.bookmark(id, &bob, true).await;
    show(&t, &bob, false, true).await;
    let path = format!("/api/v1/users/{bob_id}/bookmarks");
    assert_reason_error(t.get(&path).await, 403).await;
    assert_reason_error(t.get_auth(&path, &author).await, 403).await;
    assert_eq!(page_ids(&t.get_ok(&path, Some(&bob)).await), [id]);
    show(&t, &bob, true, true).await;
    assert_eq!(page_ids(&t.get_ok(&path, Some(&author)).await), [id]);
    let unknown = "/api/v1/users/5b0f3c1e-0000-4000-8000-000000000001/bookmarks";
    assert_reason_error(t.get(unknown).await, 404).await;
}

#[tokio::test]
async fn private_likes_403_for_others_owner_sees() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let post = t
        .create_post(&author, &post_input("Quietly liked", &[]))
        .await;
    let id = post["id"].as_str().unwrap();
    t.react_ok(id, &bob, "LIKE").await;
    show(&t, &bob, true, false).await;
    let path = format!("/api/v1/users/{bob_id}/likes");
    assert_reason_error(t.get(&path).await, 403).await;
    assert_eq!(page_ids(&t.get_ok(&path, Some(&bob)).await), [id]);
    // Bookmarks are shown, likes not: the choices are separate.
    let bookmarks = format!("/api/v1/users/{bob_id}/bookmarks");
    assert_eq!(
        page_ids(&t.get_ok(&bookmarks, None).await),
        Vec::<String>::new()
    );
    show(&t, &bob, true, true).await;
    assert_eq!(page_ids(&t.get_ok(&path, None).await), [id]);
}

#[tokio::test]
async fn user_posts_published_for_all_drafts_owner_only() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (author_id, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let first = t.create_post(&author, &post_input("Out first", &[])).await;
    let second = t.create_post(&author, &post_input("Out second", &[])).await;
    let mut input = post_input("Still a draft", &[]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&author, &input).await;
    let path = format!("/api/v1/users/{author_id}/posts");
    let page = t.get_ok(&path, Some(&bob)).await;
    assert_eq!(
        page_ids(&page),
        [
            second["id"].as_str().unwrap(),
            first["id"].as_str().unwrap()
        ]
    );
    assert_eq!(page["totalElements"], 2);
    let drafts = format!("{path}?status=DRAFT");
    assert_reason_error(t.get_auth(&drafts, &bob).await, 403).await;
    assert_reason_error(t.get(&drafts).await, 403).await;
    let own = t.get_ok(&drafts, Some(&author)).await;
    assert_eq!(page_ids(&own), [draft["id"].as_str().unwrap()]);
    assert_eq!(own["totalElements"], 1);
    let bad = t.get(&format!("{path}?status=GONE")).await;
    assert_reason_error(bad, 400).await;
}
