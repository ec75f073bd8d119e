//! The platform under AWS faults the emulator injects at the exact call (issue: reliability
//! under AWS faults): a throttled transaction is tried again, and one throttled past its
//! retries answers 503 with `Retry-After` and writes nothing; a reaction whose replies are all
//! lost is still counted; a subscription identity cannot record is taken back at the news
//! service, so the count and the users' lists agree.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::json;
use stack_tests::community::{post_input, post_path};
use stack_tests::content::{self, submitted_feed, SubmittedFeed};
use stack_tests::faults::{rule, Faults};
use stack_tests::feeds::{FeedDocument, FeedServer, RSS2};
use stack_tests::{Product, TestStack};

/// A community stack with an author's post and a reader: (stack, post id, reader's id and
/// token).
async fn a_post_and_its_reader() -> (TestStack, String, String, String) {
    let t = TestStack::for_product(Product::Community).await;
    let (_, author) = t.member("author").await;
    let post = t.create_post(&author, &post_input("Throttled", &[])).await;
    let id = post["id"].as_str().expect("id").to_string();
    let (reader_id, reader) = t.member("reader").await;
    (t, id, reader_id, reader)
}

/// The reader's transactions throttled `times` times.
async fn throttle_transactions(t: &TestStack, reader_id: &str, times: u32) -> Faults {
    let faults = Faults::of(t);
    faults
        .set(serde_json::json!([rule(
            "dynamodb",
            "TransactWriteItems",
            "throttle",
            reader_id,
            times
        )]))
        .await;
    faults
}

#[tokio::test]
async fn a_throttled_reaction_is_tried_again_and_counted_once() {
    let (t, id, reader_id, reader) = a_post_and_its_reader().await;
    let id = id.as_str();
    // DynamoDB cancels the reader's first two transactions with ThrottlingError reasons.
    let faults = throttle_transactions(&t, &reader_id, 2).await;
    let reaction = t.react_ok(id, &reader, "LIKE").await;
    assert_eq!(reaction["isLikedByMe"], true, "{reaction}");
    assert_eq!(faults.injected("TransactWriteItems").await, 2);
    faults.clear().await;
    t.reactions_counted(id, None, 1, 0).await;
}

#[tokio::test]
async fn a_reaction_throttled_past_its_retries_is_503_with_retry_after_and_writes_nothing() {
    let (t, id, reader_id, reader) = a_post_and_its_reader().await;
    let id = id.as_str();
    let faults = throttle_transactions(&t, &reader_id, 1000).await;
    let response = t.react(id, &reader, "LIKE").await;
    assert_eq!(response.status(), 503);
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u32>().ok());
    assert!(
        retry_after.is_some_and(|s| s >= 1),
        "Retry-After: {retry_after:?}"
    );
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["status"], 503, "{body}");
    assert!(faults.injected("TransactWriteItems").await >= 2);
    faults.clear().await;

    // Nothing was written: the reader has no reaction, and liking again counts once.
    let seen = t.get_ok(&post_path(id), Some(&reader)).await;
    assert_eq!(seen["isLikedByMe"], false, "{seen}");
    assert_eq!(seen["likeCount"], 0, "{seen}");
    t.react_ok(id, &reader, "LIKE").await;
    t.reactions_counted(id, None, 1, 0).await;
}

/// Finding: "likeCount 6 with 7 LIKE rows". Every reply to the reader's reaction transaction
/// is lost after it applied: the API answers 503, and the reaction the row holds is counted
/// all the same (the change is queued whatever the write's outcome).
#[tokio::test]
async fn a_reaction_whose_every_reply_is_lost_is_503_and_still_counted() {
    let (t, id, reader_id, reader) = a_post_and_its_reader().await;
    let id = id.as_str();
    let faults = Faults::of(&t);
    // The SDK's three attempts of the reader's one transaction (the counter's comes later).
    faults
        .set(json!([rule(
            "dynamodb",
            "TransactWriteItems",
            "lost-reply",
            &reader_id,
            3
        )]))
        .await;
    let response = t.react(id, &reader, "LIKE").await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    assert_eq!(faults.injected("TransactWriteItems").await, 3);
    faults.clear().await;
    let post = t.reactions_counted(id, Some(&reader), 1, 0).await;
    assert_eq!(post["isLikedByMe"], true, "{post}");
    // And the client's retry, which finds the like already there, counts nothing twice.
    t.react_ok(id, &reader, "LIKE").await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    t.reactions_counted(id, None, 1, 0).await;
}

/// A news stack with a submitted feed: (stack, feed server, source id, bob's id and token).
async fn a_source_and_bob() -> (TestStack, FeedServer, String, String, String) {
    let SubmittedFeed {
        t,
        feeds,
        source_id,
        ..
    } = submitted_feed("alice", "/faults.xml", FeedDocument::rss(RSS2)).await;
    let (bob, token) = t.user("bob").await;
    let bob_id = bob["id"].as_str().expect("id").to_string();
    (t, feeds, source_id, bob_id, token)
}

/// Identity's own writes of the subscription (the settings' `enabledSourceIds` move with
/// it) throttled past their retries.
async fn identity_throttled(t: &TestStack) -> Faults {
    let faults = Faults::of(t);
    faults
        .set(json!([rule(
            "dynamodb",
            "TransactWriteItems",
            "throttle",
            "enabledSourceIds",
            1000
        )]))
        .await;
    faults
}

async fn subscriber_count(t: &TestStack, source_id: &str) -> serde_json::Value {
    t.get_json(&content::source(source_id)).await["subscriberCount"].clone()
}

async fn subscribed_to(t: &TestStack, token: &str) -> serde_json::Value {
    t.get_auth("/api/users/users/me/subscriptions", token)
        .await
        .json::<serde_json::Value>()
        .await
        .expect("json")["sourceIds"]
        .clone()
}

/// Finding: "a source's subscriberCount 3 with 2 subscribers". The news service counts the
/// subscriber, then identity cannot record it: the answer is 503 and the news service's
/// count is taken back, so both sides still agree.
#[tokio::test]
async fn a_subscription_identity_cannot_record_is_taken_back_at_the_news_service() {
    let (t, _feeds, source, _bob_id, bob) = a_source_and_bob().await;
    let faults = identity_throttled(&t).await;
    let response = t.subscribe(&bob, &source).await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    assert!(faults.injected("TransactWriteItems").await >= 1);
    faults.clear().await;
    assert_eq!(subscriber_count(&t, &source).await, 0);
    assert_eq!(subscribed_to(&t, &bob).await, json!([]));
    // The client's retry subscribes once.
    assert_eq!(t.subscribe(&bob, &source).await.status(), 200);
    assert_eq!(subscriber_count(&t, &source).await, 1);
}

/// Finding: "a user keeps a retired, swept source in their subscriptions". The news service
/// lets the subscriber go, then identity cannot forget it: the answer is 503 and the news
/// service has the subscriber back, so the user's list and the count still agree.
#[tokio::test]
async fn an_unsubscription_identity_cannot_record_is_taken_back_at_the_news_service() {
    let (t, _feeds, source, _bob_id, bob) = a_source_and_bob().await;
    let (_, carol) = t.user("carol").await;
    for token in [&bob, &carol] {
        assert_eq!(t.subscribe(token, &source).await.status(), 200);
    }
    let faults = identity_throttled(&t).await;
    let response = t.unsubscribe(&bob, &source).await;
    assert_eq!(response.status(), 503);
    faults.clear().await;
    assert_eq!(subscriber_count(&t, &source).await, 2);
    assert_eq!(subscribed_to(&t, &bob).await, json!([source.as_str()]));
    // The client's retry leaves once.
    assert_eq!(t.unsubscribe(&bob, &source).await.status(), 200);
    assert_eq!(subscriber_count(&t, &source).await, 1);
    assert_eq!(subscribed_to(&t, &bob).await, json!([]));
}

/// The reply to a write is lost after the write applied, once; the SDK's retry must find it
/// done, not fail it nor apply it twice. `matching` names the write's request body.
async fn reply_lost_once(t: &TestStack, matching: &str) -> Faults {
    let faults = Faults::of(t);
    let rules: Vec<serde_json::Value> = ["PutItem", "UpdateItem", "TransactWriteItems"]
        .into_iter()
        .map(|operation| rule("dynamodb", operation, "lost-reply", matching, 1))
        .collect();
    faults.set(serde_json::Value::Array(rules)).await;
    faults
}

/// How many replies the emulator lost.
async fn lost(faults: &Faults) -> u64 {
    faults
        .injected_all()
        .await
        .iter()
        .filter(|row| row.2 == "lost-reply")
        .map(|row| row.3)
        .sum()
}

/// A comment, a bookmark and a registration whose replies are lost after they applied: each
/// answers as if nothing happened, and is there once.
#[tokio::test]
async fn community_and_identity_writes_whose_reply_is_lost_apply_once() {
    let (t, id, reader_id, reader) = a_post_and_its_reader().await;
    let id = id.as_str();
    let comments = format!("{}/comments", post_path(id));

    let faults = reply_lost_once(&t, "A comment whose reply is lost").await;
    let response = t
        .post_json_auth(
            &comments,
            &reader,
            &json!({"text": "A comment whose reply is lost"}),
        )
        .await;
    assert_eq!(response.status(), 201);
    assert!(lost(&faults).await >= 1);
    let listed = t.get_json(&comments).await;
    assert_eq!(listed.as_array().expect("comments").len(), 1, "{listed}");
    assert_eq!(t.get_json(&post_path(id)).await["commentCount"], 1);

    let faults = reply_lost_once(&t, &reader_id).await;
    assert_eq!(t.bookmark(id, &reader, true).await.status(), 200);
    assert!(lost(&faults).await >= 1);
    let seen = t.get_ok(&post_path(id), Some(&reader)).await;
    assert_eq!(seen["saveCount"], 1, "{seen}");
    assert_eq!(seen["isBookmarkedByMe"], true, "{seen}");

    let faults = reply_lost_once(&t, "lostreply-dora").await;
    let profile = t.register("lostreply-dora").await;
    assert!(lost(&faults).await >= 1);
    faults.clear().await;
    assert!(!t.login("lostreply-dora").await.is_empty());
    let again = t
        .post_json(
            stack_tests::users::REGISTER,
            &json!({
                "username": "lostreply-dora",
                "email": "other-dora@example.com",
                "password": stack_tests::users::password("lostreply-dora"),
                "name": "Dora again",
            }),
        )
        .await;
    assert_eq!(again.status(), 409, "{profile}");
}

/// A recipe whose reply is lost after it was stored: 201, and in the list once.
#[tokio::test]
async fn a_recipe_whose_reply_is_lost_is_created_once() {
    // The recipe service's functions refer to the assistant's: the whole template.
    let t = TestStack::start().await;
    let cook = t.cook("lostcook").await;
    let mut recipe = stack_tests::recipes::pancakes();
    recipe["title"] = json!("Pancakes whose reply is lost");
    let faults = reply_lost_once(&t, "Pancakes whose reply is lost").await;
    let response = t
        .post_json_auth(stack_tests::recipes::RECIPES, &cook, &recipe)
        .await;
    assert_eq!(response.status(), 201);
    assert!(lost(&faults).await >= 1);
    faults.clear().await;
    let listed = t.get_auth(stack_tests::recipes::RECIPES, &cook).await;
    let listed: serde_json::Value = listed.json().await.expect("json");
    let titles: Vec<&str> = listed
        .as_array()
        .expect("recipes")
        .iter()
        .filter_map(|r| r["title"].as_str())
        .collect();
    assert_eq!(titles, ["Pancakes whose reply is lost"]);
}

/// An incident transition whose reply is lost after it applied: 200, and one transition in
/// the incident's history.
#[tokio::test]
async fn an_incident_transition_whose_reply_is_lost_moves_once() {
    let t = TestStack::for_product(Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    t.ingest_ok(&stack_tests::incidents::log(
        "search",
        "ERROR",
        "Index shard 3 unavailable",
    ))
    .await;
    let incident = t.incidents_when(&token, 1).await.remove(0);
    let id = incident["id"].as_str().expect("id").to_string();
    let path = format!("{}/{id}", stack_tests::incidents::INCIDENTS);
    let faults = reply_lost_once(&t, "a transition whose reply is lost").await;
    let response = t
        .patch_json_auth(
            &path,
            &token,
            &json!({"status": "ACKNOWLEDGED", "note": "a transition whose reply is lost"}),
        )
        .await;
    let status = response.status();
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(status, 200, "{body}");
    assert!(lost(&faults).await >= 1);
    faults.clear().await;
    let detail = t.get_ok_auth(&path, &token).await;
    assert_eq!(detail["status"], "ACKNOWLEDGED", "{detail}");
    let acknowledged = detail["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter(|h| h.to_string().contains("ACKNOWLEDGED"))
        .count();
    assert_eq!(acknowledged, 1, "{detail}");
}
