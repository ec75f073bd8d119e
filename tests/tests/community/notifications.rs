//! Notifications: a comment on my post, a reply to my comment, an `@mention`, and the
//! moderation of my content land in my inbox through the notification queue, once each;
//! the inbox pages newest first by cursor, with its unread count, read and read-all.

use std::time::Duration;

use community::{Community, NotificationEvent};
use platform::dynamo::Table;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_input, post_path};
use stack_tests::TestStack;

const INBOX: &str = "/api/v1/users/me/notifications";

async fn published(t: &TestStack, token: &str, title: &str) -> String {
    let post = t.create_post(token, &post_input(title, &[])).await;
    post["id"].as_str().unwrap().to_string()
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
            &format!("{}/comments", post_path(post)),
            token,
            &json!({"text": text, "parentId": parent}),
        )
        .await;
    assert_eq!(r.status(), 201);
    r.json().await.unwrap()
}

async fn inbox(t: &TestStack, token: &str, query: &str) -> Value {
    t.get_ok(&format!("{INBOX}{query}"), Some(token)).await
}

/// The inbox once it holds at least `n` notifications (the fan-out is asynchronous).
async fn inbox_of(t: &TestStack, token: &str, n: usize) -> Value {
    for _ in 0..150 {
        let page = inbox(t, token, "?limit=100").await;
        if page["content"].as_array().unwrap().len() >= n {
            return page;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the inbox never held {n} notifications");
}

fn kinds(page: &Value) -> Vec<String> {
    page["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn comments_replies_mentions_and_removals_notify_their_people_once() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (alice, alice_token) = t.member("alice").await;
    let (bob, bob_token) = t.member("bob").await;
    let (_, carol_token) = t.member("carol").await;
    let post = published(&t, &alice_token, "Sourdough starters").await;

    // Bob comments on Alice's post: Alice is told, with who and where.
    let c1 = comment(&t, &post, &bob_token, "Mine is rye-based", None).await;
    let page = inbox_of(&t, &alice_token, 1).await;
    assert_eq!(kinds(&page), ["COMMENT"]);
    let n = &page["content"][0];
    assert_eq!(n["actor"], json!({"id": bob, "username": "bob"}));
    assert_eq!(n["postId"], post.as_str());
    assert_eq!(n["commentId"], c1["id"]);
    assert_eq!(n["excerpt"], "Mine is rye-based");
    assert_eq!(n["read"], false);
    assert_eq!(page["unreadCount"], 1);

    // Alice replies to Bob, mentioning Carol, herself, a name nobody holds and Carol again:
    // Bob gets a reply, Carol one mention, Alice nothing (her own post, her own name).
    let reply = comment(
        &t,
        &post,
        &alice_token,
        "@bob thanks! cc @Carol @alice @nobody-here @carol",
        c1["id"].as_str(),
    )
    .await;
    let bob_page = inbox_of(&t, &bob_token, 1).await;
    assert_eq!(kinds(&bob_page), ["REPLY"]);
    assert_eq!(bob_page["content"][0]["commentId"], reply["id"]);
    assert_eq!(bob_page["content"][0]["actor"]["id"], alice.as_str());
    let carol_page = inbox_of(&t, &carol_token, 1).await;
    assert_eq!(kinds(&carol_page), ["MENTION"]);
    // A post mentioning Carol tells her too.
    let t2 = t
        .create_post(
            &bob_token,
            &json!({"title": "Starter feeding schedule", "content": "Ask @carol about it"}),
        )
        .await;
    let carol_page = inbox_of(&t, &carol_token, 2).await;
    assert_eq!(kinds(&carol_page), ["MENTION", "MENTION"]);
    assert_eq!(carol_page["content"][0]["postId"], t2["id"]);
    assert!(carol_page["content"][0].get("commentId").is_none());

    // Bob replies to Alice's reply on her own post: one REPLY, not a COMMENT besides.
    comment(
        &t,
        &post,
        &bob_token,
        "You're welcome",
        reply["id"].as_str(),
    )
    .await;
    let page = inbox_of(&t, &alice_token, 2).await;
    assert_eq!(kinds(&page), ["REPLY", "COMMENT"], "newest first");

    // An admin removes Bob's comment with a reason: Bob is told why.
    let admin = t.admin_token().await;
    let r = t
        .delete_auth(
            &format!(
                "/api/v1/comments/{}?reason=Off-topic%20advertising",
                c1["id"].as_str().unwrap()
            ),
            &admin,
        )
        .await;
    assert_eq!(r.status(), 204);
    let bob_page = inbox_of(&t, &bob_token, 2).await;
    assert_eq!(kinds(&bob_page), ["REMOVED", "REPLY"]);
    let removed = &bob_page["content"][0];
    assert_eq!(removed["reason"], "Off-topic advertising");
    assert_eq!(removed["commentId"], c1["id"]);
    assert!(removed.get("actor").is_none(), "{removed}");

    // Nothing arrives twice: the counts stay after the queue is drained.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        inbox(&t, &alice_token, "").await["content"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(inbox(&t, &carol_token, "").await["unreadCount"], 2);
    // Nobody is notified of a post they did not write nor were named in.
    let (_, dave_token) = t.member("dave").await;
    assert_eq!(
        inbox(&t, &dave_token, "").await,
        json!({"content": [], "unreadCount": 0})
    );
}

#[tokio::test]
async fn a_redelivered_event_notifies_nobody_twice() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (alice, alice_token) = t.member("alice").await;
    let (bob, bob_token) = t.member("bob").await;
    let post = published(&t, &alice_token, "Redelivery and you").await;
    let c = comment(&t, &post, &bob_token, "first", None).await;
    inbox_of(&t, &alice_token, 1).await;
    let aws = t.aws().await;
    let table = Table::new(aws.dynamodb.clone(), t.table("CommunityTable"));
    let community = Community::new(table, Clock::system());
    let event = NotificationEvent::Comment {
        comment_id: c["id"].as_str().unwrap().to_string(),
        post_id: post.clone(),
        parent_id: None,
        actor_id: bob.clone(),
        actor_username: "bob".into(),
        excerpt: "first".into(),
        at: c["createdAt"].as_str().unwrap().to_string(),
        mentions: vec![alice.clone()],
    };
    // The queue delivered it once; again, twice, writes nothing (the mention of the post's
    // author is the same person: one notification).
    assert_eq!(community.deliver(&event).await.unwrap(), 0);
    assert_eq!(community.deliver(&event).await.unwrap(), 0);
    let page = inbox(&t, &alice_token, "").await;
    assert_eq!(kinds(&page), ["COMMENT"]);
    assert_eq!(page["unreadCount"], 1);
    // The same body through the real queue once more: still one.
    let queue = t
        .env("CommunityFunction")
        .get("COMMUNITY_NOTIFICATION_QUEUE_URL")
        .expect("the notification queue")
        .to_string();
    aws.sqs()
        .send_message(&queue, &serde_json::to_string(&event).unwrap())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(kinds(&inbox(&t, &alice_token, "").await), ["COMMENT"]);
}

#[tokio::test]
async fn the_inbox_pages_by_cursor_and_read_and_read_all_move_the_unread_count() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, alice_token) = t.member("alice").await;
    let (_, bob_token) = t.member("bob").await;
    let post = published(&t, &alice_token, "Five comments coming").await;
    for i in 0..5 {
        comment(&t, &post, &bob_token, &format!("comment {i}"), None).await;
    }
    let all = inbox_of(&t, &alice_token, 5).await;
    assert_eq!(all["unreadCount"], 5);
    let excerpts: Vec<&str> = all["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["excerpt"].as_str().unwrap())
        .collect();
    assert_eq!(
        excerpts,
        [
            "comment 4",
            "comment 3",
            "comment 2",
            "comment 1",
            "comment 0"
        ]
    );

    // Pages of two: 2, 2, 1, each newest first, the last without a cursor.
    let mut seen = Vec::new();
    let mut query = "?limit=2".to_string();
    loop {
        let page = inbox(&t, &alice_token, &query).await;
        let ids: Vec<String> = page["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_string())
            .collect();
        seen.extend(ids);
        match page["nextCursor"].as_str() {
            Some(c) => query = format!("?limit=2&cursor={c}"),
            None => break,
        }
    }
    let all_ids: Vec<String> = all["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(seen, all_ids);

    // Two read: 3 unread, and the unread filter lists those three.
    let r = t
        .post_json_auth(
            &format!("{INBOX}/read"),
            &alice_token,
            &json!({"ids": [all_ids[0], all_ids[1], all_ids[1], "0000000000000-0000000000000000"]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"unreadCount": 3}));
    let unread = inbox(&t, &alice_token, "?unread=true").await;
    assert_eq!(unread["content"].as_array().unwrap().len(), 3);
    assert_eq!(unread["content"][0]["id"], all_ids[2].as_str());
    let page = inbox(&t, &alice_token, "?limit=1").await;
    assert_eq!(page["content"][0]["read"], true);
    // Unread pages by cursor too.
    let first = inbox(&t, &alice_token, "?unread=true&limit=2").await;
    let cursor = first["nextCursor"].as_str().unwrap();
    let rest = inbox(
        &t,
        &alice_token,
        &format!("?unread=true&limit=2&cursor={cursor}"),
    )
    .await;
    assert_eq!(rest["content"][0]["id"], all_ids[4].as_str());
    assert!(rest.get("nextCursor").is_none());

    // Bob's marks are his: Alice's notifications stay as they are.
    let r = t
        .post_json_auth(
            &format!("{INBOX}/read"),
            &bob_token,
            &json!({"ids": [all_ids[2]]}),
        )
        .await;
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"unreadCount": 0}));
    assert_eq!(inbox(&t, &alice_token, "").await["unreadCount"], 3);

    // Read all: one watermark; everything shows read; a newer notification is unread.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let r = t
        .post_auth(&format!("{INBOX}/read-all"), &alice_token)
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"unreadCount": 0}));
    let page = inbox(&t, &alice_token, "").await;
    assert!(page["content"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["read"] == true));
    assert_eq!(
        inbox(&t, &alice_token, "?unread=true").await["content"],
        json!([])
    );
    tokio::time::sleep(Duration::from_millis(5)).await;
    comment(&t, &post, &bob_token, "one more", None).await;
    let page = inbox_of(&t, &alice_token, 6).await;
    assert_eq!(page["unreadCount"], 1);
    assert_eq!(page["content"][0]["read"], false);
}

#[tokio::test]
async fn the_inbox_needs_a_member_and_names_bad_fields() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let r = t.http.get(t.url(INBOX)).send().await.unwrap();
    assert_reason_error(r, 401).await;
    let r = t
        .post_json(&format!("{INBOX}/read"), &json!({"ids": []}))
        .await;
    assert_reason_error(r, 401).await;
    let r = t
        .http
        .post(t.url(&format!("{INBOX}/read-all")))
        .send()
        .await
        .unwrap();
    assert_reason_error(r, 401).await;
    let r = t.get_auth(INBOX, "not-a-token").await;
    assert_reason_error(r, 401).await;
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=101", "limit"),
        ("?limit=x", "limit"),
        ("?cursor=zz", "cursor"),
        ("?cursor=4323", "cursor"),
        ("?unread=yes", "unread"),
    ] {
        let r = t.get_auth(&format!("{INBOX}{query}"), &token).await;
        let e = assert_reason_error(r, 400).await;
        assert!(message(&e).contains(field), "{query}: {e}");
    }
    let too_many: Vec<String> = (0..101)
        .map(|i| format!("{i:013}-0000000000000000"))
        .collect();
    for body in [
        json!({}),
        json!({"ids": []}),
        json!({"ids": ["x"]}),
        json!({"ids": too_many}),
    ] {
        let r = t
            .post_json_auth(&format!("{INBOX}/read"), &token, &body)
            .await;
        let e = assert_reason_error(r, 400).await;
        assert!(message(&e).contains("ids"), "{body}: {e}");
    }
}
