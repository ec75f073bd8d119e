//! The platform under AWS faults the emulator injects at the exact call (issue: reliability
//! under AWS faults): a throttled transaction is tried again, and one throttled past its
//! retries answers 503 with `Retry-After` and writes nothing.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stack_tests::community::{post_input, post_path};
use stack_tests::faults::{rule, Faults};
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
