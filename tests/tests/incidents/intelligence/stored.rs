//! Stored analyses: queried best first, deleted one or all, braked per user, and each
//! belonging to its author.

use serde_json::{json, Value};
use stack_tests::assert_news_error;
use stack_tests::incidents::eventually;
use stack_tests::intelligence::{answer, stack, ANALYSES, ANALYZE};
use stack_tests::limits::assert_rate_limited;
use stack_tests::llm::FakeLlm;

use super::{stored_log, POOL_LOG};

#[tokio::test]
async fn analyses_are_queried_best_first_and_deleted_one_or_all() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, alice) = t.operator("alice").await;
    let (_, bob) = t.operator("bob").await;
    let admin = t.admin_token().await;

    let mut made = Vec::new();
    for (content, summary) in [
        (
            "ERROR disk /var is 100% full on host db-3",
            "The disk of db-3 is full.",
        ),
        (POOL_LOG, "The connection pool is exhausted."),
        (
            "ERROR dns lookup of payments.internal timed out",
            "DNS lookups time out.",
        ),
    ] {
        cloud.reply(&answer(summary, "MEDIUM", &["Act"]));
        made.push(t.analyze_ok(&alice, &json!({"content": content})).await);
    }
    let ids = |list: &[Value]| -> Vec<String> {
        list.iter()
            .map(|a| a["id"].as_str().unwrap().to_string())
            .collect()
    };
    let newest_first: Vec<String> = ids(&made).into_iter().rev().collect();
    assert_eq!(
        ids(&t.query_analyses(&alice, &json!({})).await),
        newest_first
    );
    assert_eq!(
        ids(&t.query_analyses(&alice, &json!({"limit": 1})).await),
        newest_first[..1]
    );
    let by_text = t
        .query_analyses(&bob, &json!({"text": "disk full on db-3"}))
        .await;
    assert_eq!(by_text[0]["id"], made[0]["id"], "best first");
    let pool = t
        .query_analyses(&bob, &json!({"text": "connection pool"}))
        .await;
    assert_eq!(pool[0]["id"], made[1]["id"]);

    // One: its author or an admin.
    let key = made[0]["id"].as_str().unwrap();
    let path = format!("{ANALYSES}/{key}");
    assert_news_error(t.delete_auth(&path, &bob).await, 403, &path).await;
    assert_eq!(t.delete_auth(&path, &alice).await.status(), 204);
    assert_news_error(t.delete_auth(&path, &alice).await, 404, &path).await;
    let left = ids(&t.query_analyses(&alice, &json!({})).await);
    assert_eq!(left, newest_first[..2]);
    assert!(t
        .query_analyses(&alice, &json!({"text": "disk full on db-3"}))
        .await
        .iter()
        .all(|a| a["id"] != made[0]["id"]));
    let bogus = format!("{ANALYSES}/not-a-key");
    assert_news_error(t.delete_auth(&bogus, &alice).await, 404, &bogus).await;

    // All: admins only; gone at once, swept from the table by the sweeper.
    assert_news_error(t.delete_auth(ANALYSES, &alice).await, 403, ANALYSES).await;
    assert_eq!(t.delete_auth(ANALYSES, &admin).await.status(), 204);
    assert!(t.query_analyses(&alice, &json!({})).await.is_empty());
    assert!(t
        .query_analyses(&alice, &json!({"text": "connection pool"}))
        .await
        .is_empty());
    let table = eventually("the sweeper deletes every analysis", || async {
        let items = t.scan("IntelligenceTable").await;
        let left = items.iter().any(|i| {
            let pk = i["pk"].as_s().unwrap();
            let sk = i["sk"].as_s().unwrap();
            pk.starts_with("AN#") || pk.starts_with("U#A#") || sk.starts_with("A#")
        });
        (!left).then_some(items)
    })
    .await;
    let stats = table
        .iter()
        .find(|i| i["pk"].as_s().unwrap() == "STATS" && i["sk"].as_s().unwrap() == "A")
        .expect("analyses' corpus figures");
    assert_eq!(stats["chunks"].as_n().unwrap(), "0");
    assert!(
        table
            .iter()
            .filter(|i| i["sk"].as_s().unwrap() == "!DF#A")
            .all(|i| i["df"].as_n().unwrap() == "0"),
        "every df of analyses back to 0"
    );
    // Later analyses are kept.
    cloud.reply(&answer("After the purge.", "LOW", &["Nothing"]));
    let after = t.analyze_ok(&alice, &json!({"content": POOL_LOG})).await;
    assert_eq!(
        ids(&t.query_analyses(&alice, &json!({})).await),
        ids(&[after])
    );
}

#[tokio::test]
async fn analyses_and_retrieval_are_braked_per_user() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(
        &cloud,
        &local,
        &[
            ("IncidentsAiRateLimitPerUser", "2/60"),
            ("IncidentsRagRateLimitPerUser", "1/60"),
        ],
    )
    .await;
    let (_, eager) = t.operator("eager").await;
    let (_, other) = t.operator("other").await;
    cloud.reply(&answer("Fine.", "LOW", &["None"]));
    let request = json!({"content": "ERROR x"});
    stack_tests::limits::in_one_window(60, std::time::Duration::from_secs(20)).await;
    for _ in 0..2 {
        t.analyze_ok(&eager, &request).await;
    }
    assert_rate_limited(t.analyze(&eager, &request).await, ANALYZE, 60).await;
    assert_eq!(
        cloud.call_count(),
        2,
        "the refused request never reached the model"
    );
    // A 400 is not counted, and another user has a limit of their own.
    assert_eq!(t.analyze(&other, &json!({})).await.status(), 400);
    t.analyze_ok(&other, &request).await;

    let search = json!({"query": "disk"});
    let path = "/api/v1/rag/search";
    assert_eq!(t.post_json_auth(path, &eager, &search).await.status(), 200);
    assert_rate_limited(t.post_json_auth(path, &eager, &search).await, path, 60).await;
}

#[tokio::test]
async fn analyses_of_one_log_belong_to_their_authors() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, alice) = t.operator("alice").await;
    let (_, bob) = t.operator("bob").await;
    let (_, carol) = t.operator("carol").await;
    let admin = t.admin_token().await;
    let log_id = stored_log(&t, &alice, "checkout", POOL_LOG).await;
    let of_log = json!({"log_id": log_id});
    let ids = |list: &[Value]| -> Vec<String> {
        list.iter()
            .map(|a| a["id"].as_str().unwrap().to_string())
            .collect()
    };
    let analyse = |token: String, summary: &'static str| {
        cloud.reply(&answer(summary, "HIGH", &["Raise the pool size"]));
        let body = json!({"content": POOL_LOG, "log_id": log_id});
        let t = &t;
        async move { t.analyze_ok(&token, &body).await }
    };

    // Bob's analysis of the log Alice analysed is added beside hers.
    let a1 = analyse(alice.clone(), "Alice: the pool is too small.").await;
    let b1 = analyse(bob.clone(), "Bob: a slow query holds connections.").await;
    assert_eq!(
        ids(&t.query_analyses(&carol, &of_log).await),
        ids(&[b1.clone(), a1.clone()]),
        "both, newest first"
    );
    // Alice's second opinion replaces her own, never Bob's.
    let a2 = analyse(alice.clone(), "Alice: the pool is too small, again.").await;
    assert_eq!(
        ids(&t.query_analyses(&carol, &of_log).await),
        ids(&[a2.clone(), b1.clone()])
    );
    assert_eq!(
        ids(&t
            .query_analyses(&carol, &json!({"log_id": log_id, "limit": 1}))
            .await),
        ids(std::slice::from_ref(&a2))
    );
    // Both are retrieved by text, each under its author.
    let found = t
        .query_analyses(&carol, &json!({"text": "pool connections query"}))
        .await;
    let mut found = ids(&found);
    found.sort();
    let mut both = ids(&[a2.clone(), b1.clone()]);
    both.sort();
    assert_eq!(found, both);

    // Deleting the log's analyses deletes the caller's own.
    let path = format!("{ANALYSES}/{log_id}");
    assert_news_error(t.delete_auth(&path, &carol).await, 403, &path).await;
    assert_eq!(t.delete_auth(&path, &bob).await.status(), 204);
    assert_eq!(
        ids(&t.query_analyses(&carol, &of_log).await),
        ids(std::slice::from_ref(&a2))
    );
    assert_news_error(t.delete_auth(&path, &bob).await, 403, &path).await;
    // An admin deletes every operator's.
    let b2 = analyse(bob.clone(), "Bob: still the slow query.").await;
    assert_eq!(
        ids(&t.query_analyses(&carol, &of_log).await),
        ids(&[b2, a2])
    );
    assert_eq!(t.delete_auth(&path, &admin).await.status(), 204);
    assert!(t.query_analyses(&carol, &of_log).await.is_empty());
    assert!(t
        .query_analyses(&carol, &json!({"text": "pool connections query"}))
        .await
        .is_empty());
    assert_news_error(t.delete_auth(&path, &admin).await, 404, &path).await;
}
