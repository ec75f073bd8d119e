//! The writing view's topic suggestions (`GET /api/v1/topics/suggest`): public topics by what
//! has been typed, folded as slugs are, best first, bounded.

use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message};
use stack_tests::{header, TestStack};

const SUGGEST: &str = "/api/v1/topics/suggest";

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn suggestions_by_prefix_popular_first() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let post =
        |title: &str, topics: &[&str]| json!({"title": title, "content": "c", "topics": topics});
    t.create_post(&token, &post("Rust one", &["Rust", "Public Transport"]))
        .await;
    t.create_post(&token, &post("Rust two", &["Rust", "Rustic Cooking"]))
        .await;
    t.create_post(&token, &post("Rusty three", &["Rust"])).await;
    // A topic only a draft names is not suggested.
    t.create_post(
        &token,
        &json!({"title": "A draft", "content": "c", "topics": ["Rusted"], "status": "DRAFT"}),
    )
    .await;
    let response = t.get(&format!("{SUGGEST}?q=ru")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(response.headers(), "cache-control"),
        "public, max-age=30"
    );
    let found: Value = response.json().await.unwrap();
    assert_eq!(
        names(&found),
        ["Rust", "Rustic Cooking"],
        "most posts first"
    );
    assert_eq!(found[0]["postCount"], 3);
    assert_eq!(found[0]["slug"], "rust");
    assert!(found[0]["id"].as_str().is_some());
    // Case, spacing and a later word of the name.
    let upper = t.get_ok(&format!("{SUGGEST}?q=PUBLIC%20tr"), None).await;
    assert_eq!(names(&upper), ["Public Transport"]);
    let word = t.get_ok(&format!("{SUGGEST}?q=trans"), None).await;
    assert_eq!(names(&word), ["Public Transport"]);
    let cooking = t.get_ok(&format!("{SUGGEST}?q=cook"), None).await;
    assert_eq!(names(&cooking), ["Rustic Cooking"]);
    // Names starting with it come before later words.
    let r = t.get_ok(&format!("{SUGGEST}?q=r&limit=1"), None).await;
    assert_eq!(names(&r), ["Rust"]);
    let none = t.get_ok(&format!("{SUGGEST}?q=zzz"), None).await;
    assert_eq!(none, json!([]));
    // With a member's token too.
    let mine = t.get_ok(&format!("{SUGGEST}?q=rust"), Some(&token)).await;
    assert_eq!(names(&mine), ["Rust", "Rustic Cooking"]);
}

#[tokio::test]
async fn suggestions_bad_input_400_bad_token_401() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    for (query, field) in [
        ("", "q"),
        ("?q=", "q"),
        ("?q=%20%21", "q"),
        ("?q=rust&limit=0", "limit"),
        ("?q=rust&limit=21", "limit"),
        ("?q=rust&limit=x", "limit"),
    ] {
        let error = assert_reason_error(t.get(&format!("{SUGGEST}{query}")).await, 400).await;
        assert!(message(&error).contains(field), "{query}: {error}");
    }
    let long = format!("{SUGGEST}?q={}", "a".repeat(51));
    assert_reason_error(t.get(&long).await, 400).await;
    let fifty = format!("{SUGGEST}?q={}", "a".repeat(50));
    assert_eq!(t.get(&fifty).await.status(), 200);
    assert_reason_error(t.get_auth(&format!("{SUGGEST}?q=a"), "bad").await, 401).await;
}
