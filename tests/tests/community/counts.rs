//! Counts that stay true: a reaction or a bookmark can always be taken back, whatever became
//! of the post since, and the post's counts go down once; a user's liked and bookmarked lists
//! count only the posts they show.

use std::time::Duration;

use platform::dynamo::Attributes;
use serde_json::{json, Value};
use stack_tests::community::{index_schedule_event, page_ids, post_input, post_path};
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
    let t = TestStack::for_product(stack_tests::Product::Community).await;
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
    let t = TestStack::for_product(stack_tests::Product::Community).await;
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

/// Reads `path` until its `totalElements` is `total` (the indexer moves marks a moment after
/// the post's write), and answers the page.
async fn list_settles(t: &TestStack, path: &str, token: &str, total: usize) -> Value {
    let mut page = Value::Null;
    for _ in 0..100 {
        page = t.get_ok(path, Some(token)).await;
        // Settled when the count and the page agree: the marks' re-index lands a moment after
        // the count (a full run once saw a total of 1 over an empty page).
        if page["totalElements"] == total && page_ids(&page).len() == total {
            return page;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{path} never counted {total}: {page}");
}

#[tokio::test]
async fn liked_and_bookmarked_lists_count_only_the_posts_they_show() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let (_, carol) = t.member("carol").await;
    let mut ids = Vec::new();
    for title in ["Stays", "Unpublished, then back", "Deleted"] {
        let post = t.create_post(&author, &post_input(title, &[])).await;
        ids.push(post["id"].as_str().unwrap().to_string());
    }
    for id in &ids {
        t.react_ok(id, &bob, "LIKE").await;
        assert_eq!(t.bookmark(id, &bob, true).await.status(), 200);
    }
    t.react_ok(&ids[1], &carol, "DISLIKE").await;
    let likes = format!("/api/v1/users/{bob_id}/likes");
    let bookmarks = format!("/api/v1/users/{bob_id}/bookmarks");
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(
        page_ids(&list_settles(&t, &likes, &bob, 3).await),
        newest_first
    );

    // One post unpublished and one deleted: both lists count and show the one left.
    unpublish(&t, &ids[1], &author).await;
    assert_eq!(
        t.delete_auth(&post_path(&ids[2]), &author).await.status(),
        204
    );
    for list in [&likes, &bookmarks] {
        let page = list_settles(&t, list, &bob, 1).await;
        assert_eq!(page_ids(&page), vec![ids[0].clone()], "{list}: {page}");
        assert_eq!(page["totalPages"], 1, "{page}");
    }

    // Published again: its like and bookmark come back, in their old places.
    let response = t
        .patch_json_auth(
            &post_path(&ids[1]),
            &author,
            &json!({"status": "PUBLISHED"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    for list in [&likes, &bookmarks] {
        let page = list_settles(&t, list, &bob, 2).await;
        assert_eq!(
            page_ids(&page),
            vec![ids[1].clone(), ids[0].clone()],
            "{page}"
        );
    }

    // Taking back a like and a bookmark of the deleted post, already out of the lists,
    // counts nothing down a second time.
    t.react_ok(&ids[2], &bob, "NONE").await;
    assert_eq!(t.bookmark(&ids[2], &bob, false).await.status(), 200);
    // And a like changed on a post that is back moves its count once.
    t.react_ok(&ids[1], &bob, "DISLIKE").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        list_settles(&t, &likes, &bob, 1).await["content"][0]["id"],
        ids[0].as_str()
    );
    assert_eq!(
        list_settles(&t, &bookmarks, &bob, 2).await["content"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn marks_from_before_the_mark_index_are_backfilled_and_leave_a_hidden_posts_lists() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let post = t
        .create_post(&author, &post_input("Written long ago", &[]))
        .await;
    let id = post["id"].as_str().unwrap().to_string();
    t.react_ok(&id, &bob, "LIKE").await;
    assert_eq!(t.bookmark(&id, &bob, true).await.status(), 200);
    // The marks as they were stored before the index: no gsi3 keys.
    let old: Vec<platform::dynamo::Item> = t
        .scan("CommunityTable")
        .await
        .into_iter()
        .filter(|i| i.contains_key("gsi3pk"))
        .map(|mut i| {
            i.remove("gsi3pk");
            i.remove("gsi3sk");
            i
        })
        .collect();
    assert_eq!(old.len(), 2, "a like and a bookmark: {old:?}");
    t.put_items("CommunityTable", old).await;
    unpublish(&t, &id, &author).await;
    let likes = format!("/api/v1/users/{bob_id}/likes");
    // Unindexed, the marks cannot follow the post: the list still counts it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(t.get_ok(&likes, Some(&bob)).await["totalElements"], 1);

    let scheduler = t.index_scheduler().await;
    scheduler.handle(index_schedule_event()).await.unwrap();
    let bookmarks = format!("/api/v1/users/{bob_id}/bookmarks");
    for list in [&likes, &bookmarks] {
        let page = list_settles(&t, list, &bob, 0).await;
        assert_eq!(page_ids(&page), Vec::<String>::new(), "{page}");
    }
    // The table was read to its end: the backfill is marked over, and a later run is a no-op.
    let marker = t
        .scan("CommunityTable")
        .await
        .into_iter()
        .find(|i| i.opt_string("pk").as_deref() == Some("MIGRATION#mark-index"))
        .expect("the backfill's marker");
    assert!(marker.contains_key("finishedAt"), "{marker:?}");
    scheduler.handle(index_schedule_event()).await.unwrap();
    // Back in public, the marks the backfill indexed return to the lists.
    let response = t
        .patch_json_auth(&post_path(&id), &author, &json!({"status": "PUBLISHED"}))
        .await;
    assert_eq!(response.status(), 200);
    for list in [&likes, &bookmarks] {
        assert_eq!(
            page_ids(&list_settles(&t, list, &bob, 1).await),
            vec![id.clone()]
        );
    }
}
