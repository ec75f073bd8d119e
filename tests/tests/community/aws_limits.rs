//! DynamoDB's and Lambda's limits against the largest posts the bounds allow: every item
//! under 400 KB, a post transaction with the most topics within 100 items and 4 MB, a page of
//! the 20 largest posts within Lambda's 6 MB response.

use platform::dynamo::{item_size, MAX_ITEM_BYTES};
use serde_json::{json, Value};
use stack_tests::community::{post_path, POSTS};
use stack_tests::TestStack;

/// Lambda's synchronous response limit, which a function's answer must fit.
const LAMBDA_RESPONSE_BYTES: usize = 6_291_556;

/// The largest post the bounds allow: every text at its longest in 4-byte characters,
/// 10 sources of 2,048 characters, 10 topics of 50 characters.
fn largest_post(tag: &str, topics_prefix: &str) -> Value {
    let url = |i: usize| {
        let prefix = format!("https://example.com/{i}/");
        format!("{prefix}{}", "u".repeat(2_048 - prefix.len()))
    };
    json!({
        "title": format!("{tag}{}", "😀".repeat(100 - tag.chars().count())),
        "content": "😀".repeat(50_000),
        "excerpt": "😀".repeat(500),
        "coverImageUrl": url(99),
        "sourceUrl": (0..10).map(url).collect::<Vec<_>>(),
        "topics": (0..10).map(|i| format!("{topics_prefix} {i:02} {}", "t".repeat(40))).collect::<Vec<_>>(),
    })
}

#[tokio::test]
async fn largest_post_items_under_400kb() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let post = t.create_post(&token, &largest_post("Big", "first")).await;
    let id = post["id"].as_str().unwrap();
    let items = t.scan("CommunityTable").await;
    let mut largest = 0;
    for item in items
        .iter()
        .filter(|i| i["pk"].as_s().is_ok_and(|pk| pk.contains(id)))
    {
        largest = largest.max(item_size(item));
    }
    assert!(largest > 200_000, "the body is the big item: {largest}");
    assert!(largest < MAX_ITEM_BYTES, "{largest} bytes");
    println!("largest post item: {largest} bytes");
}

#[tokio::test]
async fn post_transaction_max_topics_within_100_items_4mb() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    // The most items one write takes: a published post with 10 topics moved to 10 new ones
    // (10 list rows out, 10 in, 10 counts down, 10 new topics with their slugs, the body).
    let post = t.create_post(&token, &largest_post("Big", "first")).await;
    let path = post_path(post["id"].as_str().unwrap());
    let replaced = t
        .put_json_auth(&path, &token, &largest_post("Bigger", "second"))
        .await;
    assert_eq!(replaced.status(), 200);
    let replaced: Value = replaced.json().await.unwrap();
    assert_eq!(replaced["topics"].as_array().unwrap().len(), 10);
    for i in 0..10 {
        let old = t
            .topic(&format!("first-{i:02}-{}", "t".repeat(40)))
            .await
            .unwrap();
        assert_eq!(old["totalPostCount"], 0);
        let new = t
            .topic(&format!("second-{i:02}-{}", "t".repeat(40)))
            .await
            .unwrap();
        assert_eq!(new["totalPostCount"], 1);
    }
}

#[tokio::test]
async fn page_of_20_largest_posts_fits_6mb_response() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    for i in 0..20 {
        let mut input = largest_post(&format!("Big {i:02}"), "page");
        input["topics"] = json!(["Largest"]);
        t.create_post(&token, &input).await;
    }
    let response = t.get(&format!("{POSTS}?topic=Largest&size=20")).await;
    assert_eq!(response.status(), 200);
    let bytes = response.bytes().await.unwrap();
    let page: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(page["content"].as_array().unwrap().len(), 20);
    assert!(bytes.len() > 4_000_000, "{} bytes", bytes.len());
    assert!(bytes.len() < LAMBDA_RESPONSE_BYTES, "{} bytes", bytes.len());
    println!("page of 20 largest posts: {} bytes", bytes.len());
}
