//! Deleting one's own post: soft (rows kept), out of lists, feeds, counts and search, once.

use std::time::Duration;

use platform::dynamo::{AttributeValue, Item};
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, page_ids, post_input, post_path};
use stack_tests::TestStack;

fn text<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

fn number(item: &Item, name: &str) -> i64 {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The community table's row at `pk`/`sk`.
async fn row(t: &TestStack, pk: &str, sk: &str) -> Option<Item> {
    t.scan("CommunityTable")
        .await
        .into_iter()
        .find(|i| text(i, "pk") == Some(pk) && text(i, "sk") == Some(sk))
}

/// The user's `publishedCount` and `draftCount`, from their community profile.
async fn author_counts(t: &TestStack, user_id: &str) -> (i64, i64) {
    let profile = row(t, &format!("USER#{user_id}"), "PROFILE").await.unwrap();
    (
        number(&profile, "publishedCount"),
        number(&profile, "draftCount"),
    )
}

/// The global published count: the sum of its shards.
async fn global_published(t: &TestStack) -> i64 {
    t.scan("CommunityTable")
        .await
        .iter()
        .filter(|i| text(i, "pk").is_some_and(|pk| pk.starts_with("STATS#")))
        .map(|i| number(i, "publishedCount"))
        .sum()
}

/// Waits until the search index holds the post's latest version (the indexer took the
/// delete from the queue), and answers the post's META.
async fn indexed(t: &TestStack, post_id: &str) -> Item {
    let pk = format!("POST#{post_id}");
    for _ in 0..150 {
        let meta = row(t, &pk, "META").await.unwrap();
        let pending = t.scan("CommunityTable").await.iter().any(|i| {
            text(i, "pk").is_some_and(|p| p.starts_with("IDXQ#")) && text(i, "sk") == Some(post_id)
        });
        if !pending && number(&meta, "indexedVersion") == number(&meta, "version") {
            return meta;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the index never caught up with {post_id}");
}

async fn search_ids(t: &TestStack, q: &str) -> Vec<String> {
    page_ids(&t.get_ok(&format!("/api/v1/posts/search?q={q}"), None).await)
}

#[tokio::test]
async fn deleting_my_post_takes_it_out_of_lists_counts_and_search_but_keeps_its_rows() {
    let t = TestStack::start().await;
    let (alice, alice_token) = t.member("alice").await;
    let (_, bob_token) = t.member("bob").await;
    let post = t
        .create_post(
            &alice_token,
            &post_input("Growing zucchini in pots", &["Gardening"]),
        )
        .await;
    let id = post["id"].as_str().unwrap().to_string();
    let kept = t
        .create_post(&bob_token, &post_input("Pruning roses", &["Gardening"]))
        .await;
    let kept = kept["id"].as_str().unwrap().to_string();
    indexed(&t, &id).await;
    assert_eq!(search_ids(&t, "zucchini").await, vec![id.clone()]);
    assert_eq!(author_counts(&t, &alice).await, (1, 0));
    assert_eq!(t.topic("gardening").await.unwrap()["totalPostCount"], 2);
    assert_eq!(global_published(&t).await, 2);

    // Only the author: anyone else is refused, and nothing moves.
    let r = t.delete_auth(&post_path(&id), &bob_token).await;
    assert_reason_error(r, 403).await;
    let r = t.http.delete(t.url(&post_path(&id))).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert_reason_error(
        t.delete_auth(&post_path("not-a-uuid"), &alice_token).await,
        400,
    )
    .await;
    assert_eq!(t.topic("gardening").await.unwrap()["totalPostCount"], 2);

    let r = t.delete_auth(&post_path(&id), &alice_token).await;
    assert_eq!(r.status(), 204);

    // 404 to everyone, its author included, and to a second delete.
    assert_reason_error(t.get_auth(&post_path(&id), &alice_token).await, 404).await;
    assert_reason_error(t.get_maybe_auth(&post_path(&id), None).await, 404).await;
    assert_reason_error(t.delete_auth(&post_path(&id), &alice_token).await, 404).await;

    // Out of the lists and feeds; the counts moved.
    assert_eq!(
        page_ids(&t.get_ok("/api/v1/posts", None).await),
        vec![kept.clone()]
    );
    let feed = t.get_ok("/api/v1/posts?topic=Gardening", None).await;
    assert_eq!(page_ids(&feed), vec![kept.clone()]);
    assert_eq!(feed["totalElements"], 1);
    let hers = t
        .get_ok(&format!("/api/v1/users/{alice}/posts"), Some(&alice_token))
        .await;
    assert_eq!(page_ids(&hers), Vec::<String>::new(), "{hers}");
    assert_eq!(t.topic("gardening").await.unwrap()["totalPostCount"], 1);
    assert_eq!(author_counts(&t, &alice).await, (0, 0));
    assert_eq!(global_published(&t).await, 1);

    // The index caught up through the queue, and the rows stay for audit.
    let meta = indexed(&t, &id).await;
    assert!(meta.contains_key("deletedAt"), "{meta:?}");
    assert_eq!(text(&meta, "title"), Some("Growing zucchini in pots"));
    assert!(row(&t, &format!("POST#{id}"), "BODY").await.is_some());
    assert_eq!(search_ids(&t, "zucchini").await, Vec::<String>::new());
}

#[tokio::test]
async fn deleting_a_draft_moves_the_draft_count_and_hides_it_from_others() {
    let t = TestStack::start().await;
    let (alice, alice_token) = t.member("alice").await;
    let (_, bob_token) = t.member("bob").await;
    let draft = t
        .create_post(
            &alice_token,
            &json!({"title": "Unfinished thoughts", "content": "Later.", "status": "DRAFT"}),
        )
        .await;
    let id = draft["id"].as_str().unwrap().to_string();
    assert_eq!(author_counts(&t, &alice).await, (0, 1));
    // Someone else's draft is not there for them at all.
    assert_reason_error(t.delete_auth(&post_path(&id), &bob_token).await, 404).await;
    assert_eq!(
        t.delete_auth(&post_path(&id), &alice_token).await.status(),
        204
    );
    assert_eq!(author_counts(&t, &alice).await, (0, 0));
    assert_reason_error(t.get_auth(&post_path(&id), &alice_token).await, 404).await;
    // An edit after the delete finds nothing either.
    let r = t
        .patch_json_auth(
            &post_path(&id),
            &alice_token,
            &json!({"status": "PUBLISHED"}),
        )
        .await;
    assert_reason_error(r, 404).await;
    assert_eq!(author_counts(&t, &alice).await, (0, 0));
}

#[tokio::test]
async fn concurrent_deletes_move_every_counter_once() {
    let t = TestStack::start().await;
    let (alice, alice_token) = t.member("alice").await;
    let post = t
        .create_post(
            &alice_token,
            &post_input("Winter sowing", &["Gardening", "Seeds"]),
        )
        .await;
    let id = post["id"].as_str().unwrap().to_string();
    let path = post_path(&id);
    let answers = futures::future::join_all(
        (0..6).map(|_| async { t.delete_auth(&path, &alice_token).await.status().as_u16() }),
    )
    .await;
    assert_eq!(
        answers.iter().filter(|s| **s == 204).count(),
        1,
        "{answers:?}"
    );
    assert!(
        answers.iter().all(|s| *s == 204 || *s == 404),
        "{answers:?}"
    );
    assert_eq!(author_counts(&t, &alice).await, (0, 0));
    assert_eq!(global_published(&t).await, 0);
    for slug in ["gardening", "seeds"] {
        assert_eq!(t.topic(slug).await.unwrap()["totalPostCount"], 0, "{slug}");
    }
    let meta = indexed(&t, &id).await;
    assert_eq!(number(&meta, "version"), 2, "one delete wrote");
    assert!(matches!(meta.get("deletedAt"), Some(AttributeValue::S(_))));
    let feed: Value = t.get_ok("/api/v1/posts", None).await;
    assert_eq!(feed["totalElements"], 0);
}
