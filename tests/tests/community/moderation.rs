//! Deleting one's own post, and an admin's removal of any post or comment with a reason kept
//! in the moderation log: soft (rows kept), out of lists, feeds, counts and search, once.

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
    let t = TestStack::for_product(stack_tests::Product::Community).await;
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
    let t = TestStack::for_product(stack_tests::Product::Community).await;
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
    let t = TestStack::for_product(stack_tests::Product::Community).await;
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

/// The delete of `kind` (`posts` or `comments`) `id` with an admin's `reason`, encoded.
fn removal_path(kind: &str, id: &str, reason: &str) -> String {
    let encoded: String = reason
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("/api/v1/{kind}/{id}?reason={encoded}")
}

const MODERATION_LOG: &str = "/api/v1/admin/moderation";

#[tokio::test]
async fn an_admin_removes_a_post_and_a_comment_with_reasons_kept_in_the_log() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let admin = t.admin_token().await;
    let admin_id = t.get_ok(stack_tests::users::ME, Some(&admin)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (alice, alice_token) = t.member("alice").await;
    let (bob, bob_token) = t.member("bob").await;
    let abusive = t
        .create_post(&alice_token, &post_input("Buy cheap pills", &["Gardening"]))
        .await;
    let abusive = abusive["id"].as_str().unwrap().to_string();
    let kept = t
        .create_post(&alice_token, &post_input("Pruning roses", &["Gardening"]))
        .await;
    let kept = kept["id"].as_str().unwrap().to_string();
    let comment = t
        .post_json_auth(
            &format!("{}/comments", post_path(&kept)),
            &bob_token,
            &json!({"text": "You are all idiots"}),
        )
        .await;
    assert_eq!(comment.status(), 201);
    let comment: Value = comment.json().await.unwrap();
    let comment = comment["id"].as_str().unwrap().to_string();
    assert_eq!(author_counts(&t, &alice).await, (2, 0));

    // A reason is for admins only (even on one's own post); it is one line of 1 to 500
    // characters.
    for (kind, id) in [("posts", &abusive), ("comments", &comment)] {
        assert_reason_error(
            t.delete_auth(&removal_path(kind, id, "Spam"), &bob_token)
                .await,
            403,
        )
        .await;
        for bad in ["", "   ", &"x".repeat(501), "two\nlines"] {
            let r = t.delete_auth(&removal_path(kind, id, bad), &admin).await;
            let body = assert_reason_error(r, 400).await;
            assert!(body.to_string().contains("reason"), "{bad:?} → {body}");
        }
        // Without a reason, an admin is only an author: someone else's is 403.
        let plain = format!("/api/v1/{kind}/{id}");
        assert_reason_error(t.delete_auth(&plain, &admin).await, 403).await;
    }
    assert_reason_error(
        t.delete_auth(&removal_path("posts", &kept, "Spam"), &alice_token)
            .await,
        403,
    )
    .await;
    assert_reason_error(t.get_auth(MODERATION_LOG, &bob_token).await, 403).await;
    assert_reason_error(
        t.delete_auth(&removal_path("posts", "not-a-uuid", "Spam"), &admin)
            .await,
        400,
    )
    .await;
    let nothing = removal_path("posts", &uuid::Uuid::new_v4().to_string(), "Spam");
    assert_reason_error(t.delete_auth(&nothing, &admin).await, 404).await;
    // Nothing moved by the refusals.
    assert_eq!(author_counts(&t, &alice).await, (2, 0));
    assert_eq!(t.get_ok(&post_path(&kept), None).await["commentCount"], 1);

    let r = t
        .delete_auth(
            &removal_path("posts", &abusive, "  Spam: links to a pill shop  "),
            &admin,
        )
        .await;
    assert_eq!(r.status(), 204);
    let r = t
        .delete_auth(
            &removal_path("comments", &comment, "Insults other members"),
            &admin,
        )
        .await;
    assert_eq!(r.status(), 204);

    // Gone for readers, the counts moved once; a second removal finds nothing.
    assert_reason_error(t.get_maybe_auth(&post_path(&abusive), None).await, 404).await;
    for (kind, id) in [("posts", &abusive), ("comments", &comment)] {
        assert_reason_error(
            t.delete_auth(&removal_path(kind, id, "Again"), &admin)
                .await,
            404,
        )
        .await;
    }
    assert_eq!(author_counts(&t, &alice).await, (1, 0));
    assert_eq!(t.topic("gardening").await.unwrap()["totalPostCount"], 1);
    assert_eq!(global_published(&t).await, 1);
    assert_eq!(t.get_ok(&post_path(&kept), None).await["commentCount"], 0);
    let thread = t
        .get_ok(&format!("{}/comments", post_path(&kept)), None)
        .await;
    assert_eq!(thread.as_array().unwrap().len(), 0, "{thread}");
    assert_eq!(
        page_ids(&t.get_ok("/api/v1/posts", None).await),
        vec![kept.clone()]
    );

    // The log: newest first, with who, what, whose and why; a cursor pages it.
    let log = t.get_ok(MODERATION_LOG, Some(&admin)).await;
    assert_eq!(log["totalElements"], 2, "{log}");
    let entries = log["content"].as_array().unwrap();
    assert_eq!(entries[0]["targetKind"], "COMMENT");
    assert_eq!(entries[0]["targetId"], comment.as_str());
    assert_eq!(entries[0]["postId"], kept.as_str());
    assert_eq!(entries[0]["authorId"], bob.as_str());
    assert_eq!(entries[0]["reason"], "Insults other members");
    assert_eq!(entries[1]["targetKind"], "POST");
    assert_eq!(entries[1]["targetId"], abusive.as_str());
    assert_eq!(entries[1]["authorId"], alice.as_str());
    assert_eq!(entries[1]["moderatorId"], admin_id.as_str());
    assert_eq!(entries[1]["reason"], "Spam: links to a pill shop");
    let first = t
        .get_ok(&format!("{MODERATION_LOG}?size=1"), Some(&admin))
        .await;
    assert_eq!(first["content"][0]["id"], entries[0]["id"]);
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = t
        .get_ok(
            &format!("{MODERATION_LOG}?size=1&cursor={cursor}"),
            Some(&admin),
        )
        .await;
    assert_eq!(second["content"][0]["id"], entries[1]["id"]);
    assert!(second.get("nextCursor").is_none(), "{second}");

    // The post's rows stay for audit, and the index drops it.
    let meta = indexed(&t, &abusive).await;
    assert!(meta.contains_key("deletedAt"), "{meta:?}");
    assert_eq!(search_ids(&t, "pills").await, Vec::<String>::new());
}
