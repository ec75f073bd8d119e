//! The client's wire types against the committed contract (`functions/web/openapi.json`): a
//! sample of each, serialized, is what the route's schema describes, and each route the
//! client calls is in the contract with that schema. A field renamed in these types (which
//! the community function's handlers serialize and read, and the callers use) fails here
//! until the contract is regenerated, and the stack's contract test fails then.

// Test code: a failed read or check is the test failing.
#![allow(clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use community_client::{FollowerDeltasRequest, Topic};
use platform::contract::{check_sample, committed};
use serde_json::Value;

/// The `$ref` at `pointer` under the operation `method path` of `doc`.
fn reference<'a>(doc: &'a Value, method: &str, path: &str, pointer: &str) -> &'a str {
    let at = format!(
        "/paths/{}/{method}{pointer}/$ref",
        path.replace('~', "~0").replace('/', "~1")
    );
    doc.pointer(&at)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{method} {path}: no $ref at {at}"))
}

#[test]
fn topic_stats_are_what_the_digests_read() {
    let doc = committed().expect("the committed contract");
    assert_eq!(
        reference(
            &doc,
            "get",
            "/api/v1/topics/stats",
            "/responses/200/content/application~1json/schema/items"
        ),
        "#/components/schemas/CommunityTopic"
    );
    for is_hot in [true, false] {
        check_sample(
            &doc,
            "CommunityTopic",
            &Topic {
                id: "0b6f3a52-0000-4000-8000-000000000001".into(),
                name: "Public Transport".into(),
                display_name: "Public Transport".into(),
                slug: "public-transport".into(),
                category_id: "society".into(),
                sort_order: 3,
                total_post_count: 12,
                posts_this_week: 4,
                posts_prev_week: 2,
                activity_score: 3.25,
                is_hot,
                follower_count: 7,
            },
        )
        .expect("CommunityTopic as the contract says");
    }
}

#[test]
fn follower_deltas_are_what_identity_sends() {
    let doc = committed().expect("the committed contract");
    let path = "/api/v1/internal/topics/follower-deltas";
    assert_eq!(
        reference(
            &doc,
            "post",
            path,
            "/requestBody/content/application~1json/schema"
        ),
        "#/components/schemas/FollowerDeltasRequest"
    );
    let deltas = BTreeMap::from([
        ("Space".to_string(), 1),
        ("public-transport".to_string(), -1),
    ]);
    check_sample(
        &doc,
        "FollowerDeltasRequest",
        &FollowerDeltasRequest::new(deltas),
    )
    .expect("FollowerDeltasRequest as the contract says");
}

#[test]
fn the_account_cleanup_is_the_route_identity_calls() {
    let doc = committed().expect("the committed contract");
    let operation = doc
        .pointer("/paths/~1api~1v1~1internal~1users~1{id}/delete")
        .expect("DELETE /api/v1/internal/users/{id}");
    assert!(
        operation.pointer("/responses/204").is_some(),
        "answers 204 on success"
    );
    assert_eq!(
        operation.pointer("/security/0/internalToken"),
        Some(&Value::Array(Vec::new())),
        "with the internal service token"
    );
}
