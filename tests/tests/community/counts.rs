//! Counts that stay true: a reaction or a bookmark can always be taken back, whatever became
//! of the post since, and the post's counts go down once.

use std::time::Duration;

use serde_json::{json, Value};
use stack_tests::community::{post_input, post_path};
use stack_tests::TestStack;

fn reaction(r: &Value) -> (i64, i64, bool, bool) {
    (
        r["likeCount"].as_i64().unwrap(),
        r["dislikeCount"].as_i64().unwrap(),
        r["isLikedByMe"].as_bool().unwrap(),
        r["isDislikedByMe"].as_bool().unwrap(),
    )
}

async fn unpublish(t: &TestStack, id: &str, author: &str) {
    let response = t
        .patch_json_auth(&post_path(id), author, &json!({"status": "DRAFT"}))
        .await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_reaction_is_withdrawn_after_the_author_unpublishes() {
    let t = TestStack::start().await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let (_, carol) = t.member("carol").await;
    let post = t
        .create_post(&author, &post_input("Liked, then hidden", &[]))
        .await;
    let id = post["id"].as_str().unwrap();
    t.react_ok(id, &bob, "LIKE").await;
    t.react_ok(id, &carol, "DISLIKE").await;
    t.reactions_counted(id, Some(&author), 1, 1).await;
    unpublish(&t, id, &author).await;

    // Withdrawn on the draft: 200, the caller's own change shown at once, and again the same.
    assert_eq!(
        reaction(&t.react_ok(id, &bob, "NONE").await),
        (0, 1, false, false)
    );
    assert_eq!(
        reaction(&t.react_ok(id, &bob, "NONE").await),
        (0, 1, false, false)
    );
    t.react_ok(id, &carol, "NONE").await;
    t.reactions_counted(id, Some(&author), 0, 0).await;
    // Nothing more arrives: each withdrawal counted once.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let after = t.reactions_counted(id, Some(&author), 0, 0).await;
    assert_eq!(after["status"], "DRAFT");
    // A new reaction to the draft is still refused, and bob's withdrawal stays so.
    assert_eq!(t.react(id, &bob, "LIKE").await.status(), 404);
    assert_eq!(
        reaction(&t.react_ok(id, &bob, "NONE").await),
        (0, 0, false, false)
    );
    // The reader's liked list no longer holds it (the profile counter moved with the row).
    let liked = t
        .get_ok(&format!("/api/v1/users/{bob_id}/likes"), Some(&bob))
        .await;
    assert_eq!(liked["totalElements"], 0, "{liked}");
}

#[tokio::test]
async fn a_bookmark_is_removed_after_the_author_unpublishes() {
    let t = TestStack::start().await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let post = t
        .create_post(&author, &post_input("Saved, then hidden", &[]))
        .await;
    let id = post["id"].as_str().unwrap();
    assert_eq!(t.bookmark(id, &bob, true).await.status(), 200);
    unpublish(&t, id, &author).await;
    let removed = json!({"saveCount": 0, "isBookmarkedByMe": false});
    for _ in 0..2 {
        let response = t.bookmark(id, &bob, false).await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.json::<Value>().await.unwrap(), removed);
    }
    assert_eq!(
        t.get_ok(&post_path(id), Some(&author)).await["saveCount"],
        0
    );
    assert_eq!(t.bookmark(id, &bob, true).await.status(), 404);
}
