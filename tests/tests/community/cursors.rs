//! Cursor paging of every community list a client pages: posts (all and per topic), a user's
//! posts, drafts, bookmarks and likes, and failed summaries. Each walk by `nextCursor` yields
//! every item exactly once in order, a cursor wins over a `page` beside it, a bad cursor is a
//! 400 naming `cursor`, and the failed-summary count stops at 1,000.

use platform::dynamo::s;
use stack_tests::community::{assert_reason_error, message, page_ids, post_input, POSTS};
use stack_tests::{with_query, TestStack};

const FAILED: &str = "/api/v1/admin/summaries/failed";

/// Every id of the list at `path`, walked by `nextCursor` `size` at a time from the first
/// page; each page full but the last, and the last without a cursor.
async fn walk(t: &TestStack, path: &str, token: Option<&str>, size: usize) -> Vec<String> {
    let mut all = Vec::new();
    let mut page = t
        .get_ok(&with_query(path, &format!("size={size}")), token)
        .await;
    for _ in 0..100 {
        let got = page_ids(&page);
        all.extend(got.iter().cloned());
        let Some(cursor) = page["nextCursor"].as_str() else {
            assert!(page.get("nextCursor").is_none(), "absent, not null: {page}");
            return all;
        };
        assert_eq!(got.len(), size, "a page before the last is full: {page}");
        let next = with_query(path, &format!("size={size}&cursor={cursor}"));
        page = t.get_ok(&next, token).await;
    }
    panic!("{path} did not end within 100 pages");
}

/// A cursor that is not one (empty, not hex, odd, not printable ASCII, too long) is a 400
/// naming `cursor`.
async fn refuses_bad_cursors(t: &TestStack, path: &str, token: Option<&str>) {
    let long = "7a".repeat(201);
    for bad in ["", "zz", "3", "80", "1f", "3A", long.as_str()] {
        let url = with_query(path, &format!("cursor={bad}"));
        let response = t.get_maybe_auth(&url, token).await;
        let body = assert_reason_error(response, 400).await;
        assert!(message(&body).contains("cursor: "), "{url}: {body}");
    }
}

#[tokio::test]
async fn posts_page_by_cursor_every_post_once_newest_first() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let mut created = Vec::new();
    for i in 0..7 {
        let topics: &[&str] = if i % 3 == 0 { &["Other"] } else { &["Rust"] };
        let post = t
            .create_post(&token, &post_input(&format!("Post number {i}"), topics))
            .await;
        created.push(post["id"].as_str().unwrap().to_string());
    }
    let newest_first: Vec<String> = created.iter().rev().cloned().collect();
    let rust: Vec<String> = newest_first
        .iter()
        .filter(|id| {
            let i = created.iter().position(|c| c == *id).unwrap();
            i % 3 != 0
        })
        .cloned()
        .collect();
    assert_eq!(walk(&t, POSTS, None, 2).await, newest_first);
    assert_eq!(
        walk(&t, POSTS, None, 7).await,
        newest_first,
        "one full page"
    );
    assert_eq!(walk(&t, POSTS, None, 3).await, newest_first);
    let topic = format!("{POSTS}?topic=Rust");
    assert_eq!(walk(&t, &topic, None, 2).await, rust);
    assert_eq!(
        walk(&t, &topic, None, 4).await,
        rust,
        "exactly one full page"
    );

    // A page by number gives the cursor of the page after it.
    let second = t.get_ok(&format!("{POSTS}?size=2&page=1"), None).await;
    assert_eq!(page_ids(&second), newest_first[2..4]);
    let cursor = second["nextCursor"]
        .as_str()
        .expect("more pages")
        .to_string();
    let third = t
        .get_ok(&format!("{POSTS}?size=2&cursor={cursor}"), None)
        .await;
    assert_eq!(page_ids(&third), newest_first[4..6]);
    // A cursor wins over a page number beside it.
    let both = t
        .get_ok(&format!("{POSTS}?size=2&page=3&cursor={cursor}"), None)
        .await;
    assert_eq!(page_ids(&both), newest_first[4..6]);
    assert_eq!(both["page"], 0);
    // Any text the pattern allows is a place in the list: "~" sorts after every post.
    let from_top = t.get_ok(&format!("{POSTS}?size=2&cursor=7e"), None).await;
    assert_eq!(page_ids(&from_top), newest_first[..2]);
    // " " sorts before every post: nothing older.
    let past_end = t.get_ok(&format!("{POSTS}?cursor=20"), None).await;
    assert_eq!(page_ids(&past_end), Vec::<String>::new());
    assert!(past_end.get("nextCursor").is_none(), "{past_end}");

    refuses_bad_cursors(&t, POSTS, None).await;
    refuses_bad_cursors(&t, &topic, None).await;
}

#[tokio::test]
async fn user_lists_page_by_cursor_every_post_once_newest_first() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (author_id, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let mut published = Vec::new();
    let mut drafts = Vec::new();
    for i in 0..5 {
        let post = t
            .create_post(&author, &post_input(&format!("Published {i}"), &[]))
            .await;
        published.push(post["id"].as_str().unwrap().to_string());
        let mut input = post_input(&format!("Drafted {i}"), &[]);
        input["status"] = serde_json::json!("DRAFT");
        let draft = t.create_post(&author, &input).await;
        drafts.push(draft["id"].as_str().unwrap().to_string());
    }
    // Bob bookmarks and likes in an order of his own: the lists are newest mark first.
    let marked: Vec<String> = [3, 0, 4, 1, 2]
        .iter()
        .map(|i| published[*i].clone())
        .collect();
    for id in &marked {
        assert_eq!(t.bookmark(id, &bob, true).await.status(), 200);
        t.react_ok(id, &bob, "LIKE").await;
    }
    let newest = |ids: &[String]| ids.iter().rev().cloned().collect::<Vec<_>>();

    let posts = format!("/api/v1/users/{author_id}/posts");
    assert_eq!(walk(&t, &posts, None, 2).await, newest(&published));
    let own_drafts = format!("{posts}?status=DRAFT");
    assert_eq!(
        walk(&t, &own_drafts, Some(&author), 2).await,
        newest(&drafts)
    );
    let bookmarks = format!("/api/v1/users/{bob_id}/bookmarks");
    assert_eq!(walk(&t, &bookmarks, Some(&bob), 2).await, newest(&marked));
    let likes = format!("/api/v1/users/{bob_id}/likes");
    assert_eq!(walk(&t, &likes, Some(&bob), 3).await, newest(&marked));

    for (path, token) in [
        (&posts, None),
        (&own_drafts, Some(author.as_str())),
        (&bookmarks, Some(bob.as_str())),
        (&likes, Some(bob.as_str())),
    ] {
        refuses_bad_cursors(&t, path, token).await;
    }
}

/// Writes failed-summary rows (`at`, post id) as the dead-letter consumer does.
async fn failed_rows(t: &TestStack, rows: &[(String, String)]) {
    let items = rows
        .iter()
        .map(|(at, id)| {
            [
                ("pk", "SUMFAILED".to_string()),
                ("sk", format!("{at}#{id}")),
                ("postId", id.clone()),
                ("at", at.clone()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), s(v)))
            .collect()
        })
        .collect();
    t.put_items("CommunityTable", items).await;
}

#[tokio::test]
async fn failed_summaries_page_by_cursor_and_the_count_stops_at_1000() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let admin = t.admin_token().await;
    let mut rows = Vec::new();
    for i in 0..5 {
        let post = t
            .create_post(&token, &post_input(&format!("Failing {i}"), &[]))
            .await;
        let id = post["id"].as_str().unwrap().to_string();
        rows.push((format!("2030-01-0{}T00:00:00Z", i + 1), id));
    }
    failed_rows(&t, &rows).await;
    let newest: Vec<String> = rows.iter().rev().map(|(_, id)| id.clone()).collect();
    assert_eq!(walk(&t, FAILED, Some(&admin), 2).await, newest);
    let all = t.get_ok(FAILED, Some(&admin)).await;
    assert_eq!(all["totalElements"], 5);
    assert!(all.get("nextCursor").is_none(), "{all}");
    refuses_bad_cursors(&t, FAILED, Some(&admin)).await;

    // 1,000 older rows (of posts deleted since): the count stops at 1,000, the list goes on.
    let older: Vec<(String, String)> = (0..1000)
        .map(|i| {
            (
                format!("2029-01-01T00:00:00.{i:04}Z"),
                format!("00000000-0000-4000-8000-{i:012}"),
            )
        })
        .collect();
    failed_rows(&t, &older).await;
    let capped = t.get_ok(&format!("{FAILED}?size=5"), Some(&admin)).await;
    assert_eq!(capped["totalElements"], 1000, "1,005 rows counted to 1,000");
    assert_eq!(capped["totalPages"], 200);
    assert_eq!(page_ids(&capped), newest);
    let cursor = capped["nextCursor"].as_str().expect("older rows follow");
    let next = t
        .get_ok(&format!("{FAILED}?size=5&cursor={cursor}"), Some(&admin))
        .await;
    assert_eq!(
        page_ids(&next),
        Vec::<String>::new(),
        "rows of deleted posts are not shown"
    );
    assert!(next["nextCursor"].is_string(), "{next}");
}
