//! Reports: any member reports a post or a comment once; admins see the open reports grouped
//! by target with counts, newest first, paged by cursor, and resolve each group by removing
//! the content (the admin removal, logged) or dismissing the reports; every reporter is told.

use std::time::Duration;

use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_input, post_path};
use stack_tests::TestStack;

const QUEUE: &str = "/api/v1/admin/reports";

async fn published(t: &TestStack, token: &str, title: &str) -> String {
    let post = t.create_post(token, &post_input(title, &[])).await;
    post["id"].as_str().unwrap().to_string()
}

async fn report(t: &TestStack, token: &str, body: Value) -> (u16, Value) {
    let r = t.post_json_auth("/api/v1/reports", token, &body).await;
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

fn resolve_path(kind: &str, id: &str) -> String {
    format!("{QUEUE}/{kind}/{id}/resolve")
}

/// The member's notifications of `kind` once there are `n` of them.
async fn told(t: &TestStack, token: &str, kind: &str, n: usize) -> Vec<Value> {
    for _ in 0..150 {
        let page = t
            .get_ok("/api/v1/users/me/notifications?limit=100", Some(token))
            .await;
        let found: Vec<Value> = page["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["kind"] == kind)
            .cloned()
            .collect();
        if found.len() >= n {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never {n} {kind} notifications");
}

#[tokio::test]
async fn reports_are_grouped_by_target_with_counts_newest_first_and_a_repeat_changes_nothing() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (alice, alice_token) = t.member("alice").await;
    let (bob, bob_token) = t.member("bob").await;
    let (_, carol_token) = t.member("carol").await;
    let (_, dave_token) = t.member("dave").await;
    let admin = t.admin_token().await;
    let post = published(&t, &alice_token, "Cheap watches here").await;
    let r = t
        .post_json_auth(
            &format!("{}/comments", post_path(&post)),
            &bob_token,
            &json!({"text": "Buy followers at example.com"}),
        )
        .await;
    let c: Value = r.json().await.unwrap();
    let comment = c["id"].as_str().unwrap().to_string();

    let (status, first) = report(
        &t,
        &carol_token,
        json!({"targetType": "post", "targetId": post, "reason": "spam"}),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(first["reason"], "spam");
    assert_eq!(first["targetType"], "post");
    assert!(first.get("outcome").is_none());
    // Carol again, with another reason: her first report stands.
    let (status, again) = report(
        &t,
        &carol_token,
        json!({"targetType": "post", "targetId": post.to_uppercase(), "reason": "abuse"}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(again, first);
    let (status, _) = report(
        &t,
        &dave_token,
        json!({"targetType": "post", "targetId": post, "reason": "abuse", "text": "Scam\nlinks"}),
    )
    .await;
    assert_eq!(status, 201);
    tokio::time::sleep(Duration::from_millis(5)).await;
    let (status, _) = report(
        &t,
        &carol_token,
        json!({"targetType": "comment", "targetId": comment, "reason": "off-topic"}),
    )
    .await;
    assert_eq!(status, 201);
    // One's own content is not reported.
    let (status, e) = report(
        &t,
        &bob_token,
        json!({"targetType": "comment", "targetId": comment, "reason": "other"}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(message(&e).contains("targetId"), "{e}");
    // Nothing to report: 404s.
    let (status, _) = report(
        &t,
        &carol_token,
        json!({"targetType": "comment", "targetId": post, "reason": "spam"}),
    )
    .await;
    assert_eq!(status, 404);

    let queue = t.get_ok(QUEUE, Some(&admin)).await;
    let groups = queue["content"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{queue}");
    assert_eq!(groups[0]["targetType"], "comment", "newest first");
    assert_eq!(groups[0]["targetId"], comment.as_str());
    assert_eq!(groups[0]["postId"], post.as_str());
    assert_eq!(groups[0]["authorId"], bob.as_str());
    assert_eq!(groups[0]["excerpt"], "Buy followers at example.com");
    assert_eq!(groups[0]["count"], 1);
    assert_eq!(groups[1]["targetId"], post.as_str());
    assert_eq!(groups[1]["authorId"], alice.as_str());
    assert_eq!(groups[1]["excerpt"], "Cheap watches here");
    assert_eq!(groups[1]["count"], 2);
    assert_eq!(
        groups[1]["reasons"],
        json!({"spam": 1, "abuse": 1, "offTopic": 0, "other": 0})
    );
    assert_eq!(groups[1]["latestText"], "Scam\nlinks");
    assert!(queue.get("nextCursor").is_none());

    // Pages of one, by cursor.
    let first_page = t.get_ok(&format!("{QUEUE}?limit=1"), Some(&admin)).await;
    assert_eq!(first_page["content"][0]["targetId"], comment.as_str());
    let cursor = first_page["nextCursor"].as_str().unwrap();
    let second = t
        .get_ok(&format!("{QUEUE}?limit=1&cursor={cursor}"), Some(&admin))
        .await;
    assert_eq!(second["content"][0]["targetId"], post.as_str());
    assert!(second.get("nextCursor").is_none());
}

#[tokio::test]
async fn removing_or_dismissing_resolves_a_group_and_tells_every_reporter() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, alice_token) = t.member("alice").await;
    let (_, bob_token) = t.member("bob").await;
    let (_, carol_token) = t.member("carol").await;
    let (_, dave_token) = t.member("dave").await;
    let admin = t.admin_token().await;
    let post = published(&t, &alice_token, "Totally legit giveaway").await;
    let r = t
        .post_json_auth(
            &format!("{}/comments", post_path(&post)),
            &bob_token,
            &json!({"text": "Off topic but: my band plays Friday"}),
        )
        .await;
    let comment = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    for token in [&carol_token, &dave_token] {
        let (status, _) = report(
            &t,
            token,
            json!({"targetType": "comment", "targetId": comment, "reason": "off-topic"}),
        )
        .await;
        assert_eq!(status, 201);
    }
    for (token, reason) in [
        (&carol_token, "spam"),
        (&dave_token, "spam"),
        (&bob_token, "abuse"),
    ] {
        let (status, _) = report(
            &t,
            token,
            json!({"targetType": "post", "targetId": post, "reason": reason}),
        )
        .await;
        assert_eq!(status, 201);
    }

    // Dismiss the comment's: it stays; Carol and Dave are told.
    let r = t
        .post_json_auth(
            &resolve_path("comment", &comment),
            &admin,
            &json!({"action": "dismiss", "note": "A mention is fine"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"targetType": "comment", "targetId": comment, "outcome": "dismissed", "reports": 2})
    );
    let comments = t
        .get_ok(&format!("{}/comments", post_path(&post)), None)
        .await;
    assert_eq!(comments[0]["id"], comment.as_str());
    for token in [&carol_token, &dave_token] {
        let n = &told(&t, token, "REPORT_RESOLVED", 1).await[0];
        assert_eq!(n["outcome"], "dismissed");
        assert_eq!(n["reason"], "A mention is fine");
        assert_eq!(n["commentId"], comment.as_str());
    }
    // Resolved: out of the queue, and again is a 404.
    let queue = t.get_ok(QUEUE, Some(&admin)).await;
    assert_eq!(queue["content"].as_array().unwrap().len(), 1);
    let r = t
        .post_json_auth(
            &resolve_path("comment", &comment),
            &admin,
            &json!({"action": "dismiss"}),
        )
        .await;
    assert_reason_error(r, 404).await;
    // A dismissed report's reporter reporting again changes nothing; the group stays closed.
    let (status, again) = report(
        &t,
        &carol_token,
        json!({"targetType": "comment", "targetId": comment, "reason": "spam"}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(again["outcome"], "dismissed");

    // Remove the post without a note: the admin removal, logged with the reports' reason.
    let r = t
        .post_json_auth(
            &resolve_path("post", &post),
            &admin,
            &json!({"action": "remove"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["reports"], 3);
    assert_reason_error(t.get_maybe_auth(&post_path(&post), None).await, 404).await;
    let log = t.get_ok("/api/v1/admin/moderation", Some(&admin)).await;
    assert_eq!(log["content"][0]["targetId"], post.as_str());
    assert_eq!(log["content"][0]["reason"], "Reported as spam");
    // Carol and Dave were told of the comment's dismissal before.
    for (token, n) in [(&carol_token, 2), (&dave_token, 2), (&bob_token, 1)] {
        let n = &told(&t, token, "REPORT_RESOLVED", n).await;
        assert!(n
            .iter()
            .any(|n| n["outcome"] == "removed" && n["postId"] == post.as_str()));
    }
    let removed = &told(&t, &alice_token, "REMOVED", 1).await[0];
    assert_eq!(removed["reason"], "Reported as spam");
    assert_eq!(removed["postId"], post.as_str());
    assert_eq!(t.get_ok(QUEUE, Some(&admin)).await["content"], json!([]));
}

#[tokio::test]
async fn reporting_needs_a_member_the_queue_an_admin_and_bad_fields_are_named() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, alice_token) = t.member("alice").await;
    let (_, bob_token) = t.member("bob").await;
    let post = published(&t, &alice_token, "Reported or not").await;
    let resolve = resolve_path("post", &post);
    let body = json!({"targetType": "post", "targetId": post, "reason": "spam"});

    // 401 without a token on every route, 403 for a member on the admin ones.
    assert_reason_error(t.post_json("/api/v1/reports", &body).await, 401).await;
    assert_reason_error(t.http.get(t.url(QUEUE)).send().await.unwrap(), 401).await;
    assert_reason_error(
        t.post_json(&resolve, &json!({"action": "dismiss"})).await,
        401,
    )
    .await;
    assert_reason_error(t.get_auth(QUEUE, &bob_token).await, 403).await;
    let r = t
        .post_json_auth(&resolve, &bob_token, &json!({"action": "dismiss"}))
        .await;
    assert_reason_error(r, 403).await;

    for (bad, field) in [
        (json!({"targetId": post, "reason": "spam"}), "targetType"),
        (
            json!({"targetType": "user", "targetId": post, "reason": "spam"}),
            "targetType",
        ),
        (
            json!({"targetType": "post", "targetId": "x", "reason": "spam"}),
            "targetId",
        ),
        (json!({"targetType": "post", "reason": "spam"}), "targetId"),
        (
            json!({"targetType": "post", "targetId": post, "reason": "rude"}),
            "reason",
        ),
        (json!({"targetType": "post", "targetId": post}), "reason"),
        (
            json!({"targetType": "post", "targetId": post, "reason": "other", "text": "x".repeat(501)}),
            "text",
        ),
        (
            json!({"targetType": "post", "targetId": post, "reason": "other", "text": "bell\u{7}"}),
            "text",
        ),
    ] {
        let r = t.post_json_auth("/api/v1/reports", &bob_token, &bad).await;
        let e = assert_reason_error(r, 400).await;
        assert!(message(&e).contains(field), "{bad}: {e}");
    }
    let admin = t.admin_token().await;
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=101", "limit"),
        ("?cursor=zz", "cursor"),
    ] {
        let r = t.get_auth(&format!("{QUEUE}{query}"), &admin).await;
        let e = assert_reason_error(r, 400).await;
        assert!(message(&e).contains(field), "{query}: {e}");
    }
    for (path, bad, field) in [
        (resolve.clone(), json!({}), "action"),
        (resolve.clone(), json!({"action": "ban"}), "action"),
        (
            resolve.clone(),
            json!({"action": "remove", "note": "two\nlines"}),
            "note",
        ),
        (
            resolve.clone(),
            json!({"action": "remove", "note": "x".repeat(501)}),
            "note",
        ),
        (
            resolve_path("user", &post),
            json!({"action": "dismiss"}),
            "targetType",
        ),
        (
            resolve_path("post", "x"),
            json!({"action": "dismiss"}),
            "targetId",
        ),
    ] {
        let r = t.post_json_auth(&path, &admin, &bad).await;
        let e = assert_reason_error(r, 400).await;
        assert!(message(&e).contains(field), "{path} {bad}: {e}");
    }
    // No open reports: 404.
    let r = t
        .post_json_auth(&resolve, &admin, &json!({"action": "dismiss"}))
        .await;
    assert_reason_error(r, 404).await;
}
