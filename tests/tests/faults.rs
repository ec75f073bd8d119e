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
