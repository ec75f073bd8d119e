//! Retrieval documents: runbooks added (redacted, chunked, indexed), listed a page at a time
//! and deleted (chunks and postings with them); BM25 ranking on a small runbook corpus (the
//! right runbook first, rare terms weighing more than common ones); hybrid ranking with the
//! embeddings double; the corpus's bounds.

use platform::dynamo::{item_size, MAX_ITEM_BYTES};
use serde_json::{json, Value};
use stack_tests::intelligence::{stack, DOCUMENTS, EMBEDDINGS_MODEL};
use stack_tests::llm::FakeLlm;
use stack_tests::{assert_news_error, details, header, TestStack};

/// Three runbooks that share the query "database outage": BM25 ranks them A, B, C (A says it
/// most often); by meaning (the embeddings double's axes) B is closest, then C, then A.
const HYBRID_CORPUS: [(&str, &str); 3] = [
    (
        "Cache warmup",
        "database outage database outage database outage: cache cache memcached warmup cache",
    ),
    (
        "Primary promotion",
        "database outage database: promote the postgres primary and the postgres replica",
    ),
    (
        "Replica rebuild",
        "database outage: rebuild the replica, then warm the cache and memcached",
    ),
];

/// The embeddings double's meaning: database words on one axis, cache words on another.
const AXES: [(&str, usize); 9] = [
    ("database", 0),
    ("postgres", 0),
    ("primary", 0),
    ("replica", 0),
    ("snapshot", 0),
    ("cache", 1),
    ("memcached", 1),
    ("warmup", 1),
    ("outage", 2),
];

/// The runbook corpus of the ranking test: every runbook mentions the service, one Kafka.
const CORPUS: [(&str, &str); 5] = [
    (
        "Postgres replica failover",
        "When the primary fails, check replica lag, then promote the replica with \
         pg_ctl promote. Point the service at the new primary and rebuild the old one.",
    ),
    (
        "Disk full",
        "If a host's disk is full, the service stops writing logs. Delete rotated logs, then \
         grow the volume.",
    ),
    (
        "Service restarts",
        "Restart the service. If the service keeps restarting, restart the service's sidecar \
         and check the service's health endpoint; a service restart loop means a bad deploy.",
    ),
    (
        "Consumer lag",
        "When the service falls behind, check the kafka consumer group's lag.",
    ),
    (
        "Certificate expiry",
        "Renew the service's TLS certificate before it expires; reload the ingress.",
    ),
];

fn ids(list: &[Value]) -> Vec<&str> {
    list.iter().map(|d| d["id"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn documents_are_added_listed_a_page_at_a_time_and_deleted_with_their_postings() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, alice) = t.operator("alice").await;
    let (_, bob) = t.operator("bob").await;
    let admin = t.admin_token().await;

    let first = t
        .runbook(
            &alice,
            "Disk full",
            "Delete rotated logs.\n\nGrow the volume.",
        )
        .await;
    assert_eq!(first["title"], "Disk full");
    assert_eq!(first["tags"], json!(["runbook"]));
    assert_eq!(first["status"], "READY");
    assert_eq!(first["chunks"], 1);
    assert_eq!(
        first["bytes"],
        "Delete rotated logs.\n\nGrow the volume.".len()
    );
    assert!(first.get("embeddings_model").is_none());
    let second = t
        .runbook(&bob, "Replica failover", "Promote the replica.")
        .await;
    let third = t
        .runbook(&alice, "Certificate expiry", "Renew the certificate.")
        .await;

    let all = t.get_ok_auth(DOCUMENTS, &bob).await;
    assert_eq!(
        ids(all.as_array().unwrap()),
        [&third["id"], &second["id"], &first["id"]].map(|v| v.as_str().unwrap()),
        "newest first"
    );
    let page = t.get_auth(&format!("{DOCUMENTS}?limit=2"), &bob).await;
    let cursor = header(page.headers(), "x-next-cursor").to_string();
    let page: Value = page.json().await.unwrap();
    assert_eq!(page.as_array().unwrap().len(), 2);
    assert!(!cursor.is_empty());
    let rest = t
        .get_auth(&format!("{DOCUMENTS}?limit=2&cursor={cursor}"), &bob)
        .await;
    assert!(rest.headers().get("x-next-cursor").is_none());
    let rest: Value = rest.json().await.unwrap();
    assert_eq!(
        ids(rest.as_array().unwrap()),
        [first["id"].as_str().unwrap()]
    );

    // Its author or an admin deletes it; then it is gone from the list, the search and the
    // table (record, chunks, postings, marker).
    let path = format!("{DOCUMENTS}/{}", first["id"].as_str().unwrap());
    assert_news_error(t.delete_auth(&path, &bob).await, 403, &path).await;
    assert_eq!(
        t.search_titles(&bob, "rotated logs", 5).await,
        ["Disk full"]
    );
    assert_eq!(t.delete_auth(&path, &alice).await.status(), 204);
    assert_news_error(t.delete_auth(&path, &alice).await, 404, &path).await;
    assert!(t.search_titles(&bob, "rotated logs", 5).await.is_empty());
    let other = format!("{DOCUMENTS}/{}", second["id"].as_str().unwrap());
    assert_eq!(t.delete_auth(&other, &admin).await.status(), 204);
    let left = t.get_ok_auth(DOCUMENTS, &alice).await;
    assert_eq!(
        ids(left.as_array().unwrap()),
        [third["id"].as_str().unwrap()]
    );
    let gone = [
        first["id"].as_str().unwrap(),
        second["id"].as_str().unwrap(),
    ];
    for item in t.scan("IntelligenceTable").await {
        let pk = item["pk"].as_s().unwrap();
        let sk = item["sk"].as_s().unwrap();
        for id in gone {
            assert!(!pk.contains(id) && !sk.contains(id), "{pk} {sk} is left");
        }
        if sk == "!DF#D" {
            assert!(
                ["0", "1"].contains(&item["df"].as_n().unwrap().as_str()),
                "{pk}"
            );
        }
    }
    let health = t.get_json("/health").await;
    assert_eq!(health["index"]["documents"], 1);
    assert_eq!(health["index"]["runbook_chunks"], 1);
    let bad = format!("{DOCUMENTS}/not-a-uuid");
    assert_news_error(t.delete_auth(&bad, &alice).await, 404, &bad).await;
}

#[tokio::test]
async fn bm25_ranks_the_matching_runbook_first_and_rare_terms_weigh_more() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, token) = t.operator("ranker").await;
    for (title, content) in CORPUS.iter().chain(HYBRID_CORPUS.iter()) {
        t.runbook(&token, title, content).await;
    }
    assert_eq!(
        t.search_titles(&token, "replica lag failover", 1).await,
        ["Postgres replica failover"]
    );
    let hits = t
        .search(&token, "How do I promote the replica with pg_ctl?", 3)
        .await;
    assert_eq!(hits[0]["title"], "Postgres replica failover");
    assert!(hits[0]["chunk"]
        .as_str()
        .unwrap()
        .contains("pg_ctl promote"));
    assert_eq!(hits[0]["chunk_index"], 0);
    assert!(uuid::Uuid::parse_str(hits[0]["document_id"].as_str().unwrap()).is_ok());
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // Case and word endings are folded: "DISKS" finds "disk".
    assert_eq!(t.search_titles(&token, "DISKS", 5).await, ["Disk full"]);
    // IDF: "service" is in every runbook (and five times in "Service restarts"), "kafka" in
    // one: the runbook with the rare term wins.
    assert_eq!(
        t.search_titles(&token, "service kafka", 2).await,
        ["Consumer lag", "Service restarts"]
    );
    // Without the rare term, term frequency decides.
    assert_eq!(
        t.search_titles(&token, "service", 1).await,
        ["Service restarts"]
    );
    // BM25 alone ranks the hybrid corpus by how often it says the query.
    assert_eq!(
        t.search_titles(&token, "database outage", 3).await,
        ["Cache warmup", "Primary promotion", "Replica rebuild"]
    );
    // top_k bounds the answer; a query of stop words or unknown terms finds nothing.
    assert_eq!(t.search(&token, "service", 20).await.len(), 5);
    assert!(t.search(&token, "the of and", 5).await.is_empty());
    assert!(t.search(&token, "zeppelin", 5).await.is_empty());
    assert_eq!(
        cloud.call_count() + local.call_count(),
        0,
        "no model, no embeddings"
    );
}

#[tokio::test]
async fn hybrid_ranking_fuses_bm25_with_the_embeddings_of_the_chosen_provider() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    cloud.embed_axes(&AXES);
    let t = stack(&cloud, &local, &[("EmbeddingsModel", EMBEDDINGS_MODEL)]).await;
    let (_, token) = t.operator("hybrid").await;
    for (title, content) in HYBRID_CORPUS {
        let doc = t.runbook(&token, title, content).await;
        assert_eq!(doc["embeddings_model"], EMBEDDINGS_MODEL);
    }
    let hits = t.search(&token, "database outage", 3).await;
    let titles: Vec<&str> = hits.iter().map(|h| h["title"].as_str().unwrap()).collect();
    assert_eq!(
        titles,
        ["Primary promotion", "Cache warmup", "Replica rebuild"]
    );
    // Reciprocal rank fusion's scores: 1/(60 + rank) twice at most.
    assert!(hits
        .iter()
        .all(|h| h["score"].as_f64().unwrap() < 2.0 / 61.0));
    // Every chunk was embedded once, and the query: with the provider's key, the configured
    // model, at the cloud provider's /embeddings.
    let embedded = cloud.embedded_texts();
    for (_, content) in HYBRID_CORPUS {
        assert_eq!(embedded.iter().filter(|t| t.as_str() == content).count(), 1);
    }
    assert!(embedded.iter().any(|t| t == "database outage"));
    let call = cloud
        .calls()
        .into_iter()
        .find(|c| c.path == "/v1/embeddings")
        .unwrap();
    assert_eq!(call.model(), Some(EMBEDDINGS_MODEL));
    assert_eq!(call.bearer(), Some(stack_tests::llm::TEST_KEY));
    assert_eq!(local.call_count(), 0);
    let health = t.get_json("/health").await;
    assert_eq!(health["index"]["ranking"], "hybrid");
    assert_eq!(
        health["embeddings"],
        json!({"configured": true, "model": EMBEDDINGS_MODEL})
    );

    // Secrets never reach the embeddings call either.
    t.runbook(
        &token,
        "Leaked key",
        "database outage after AKIAIOSFODNN7EXAMPLE was used with password=hunter2",
    )
    .await;
    let embedded = cloud.embedded_texts().join("\n");
    assert!(!embedded.contains("AKIAIOSFODNN7EXAMPLE") && !embedded.contains("hunter2"));
    assert!(embedded.contains("[REDACTED:aws_access_key]"));

    // The embeddings provider failing: a runbook is not stored (nothing half-written); a
    // search falls back to BM25.
    cloud.fail_embeddings(Some(500));
    let before = t.get_ok_auth(DOCUMENTS, &token).await;
    let r = t
        .post_json_auth(
            DOCUMENTS,
            &token,
            &json!({"title": "T", "content": "database"}),
        )
        .await;
    assert_news_error(r, 502, DOCUMENTS).await;
    assert_eq!(t.get_ok_auth(DOCUMENTS, &token).await, before);
    let fallback = t.search_titles(&token, "database outage", 3).await;
    assert_eq!(fallback[0], "Cache warmup", "BM25 alone: {fallback:?}");
}

/// Every item of the table is under DynamoDB's 400 KB (the emulator does not check).
async fn largest_item(t: &TestStack) -> usize {
    t.scan("IntelligenceTable")
        .await
        .iter()
        .map(item_size)
        .max()
        .unwrap_or(0)
}

#[tokio::test]
async fn the_largest_runbook_fits_and_a_longer_one_is_refused() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, token) = t.operator("librarian").await;
    // 200 KB of 5,000 distinct words: the index keeps the 3,000 most frequent.
    let mut content = String::new();
    let mut i = 0;
    while content.len() + 12 < 200 * 1024 {
        content.push_str(&format!("word{} ", i % 5_000));
        if i % 150 == 149 {
            content.push_str("\n\n");
        }
        i += 1;
    }
    let started = std::time::Instant::now();
    let doc = t.runbook(&token, "Everything", &content).await;
    println!(
        "a {} byte runbook of {} chunks indexed in {:?}",
        content.len(),
        doc["chunks"],
        started.elapsed()
    );
    assert!(doc["chunks"].as_u64().unwrap() > 100);
    let largest = largest_item(&t).await;
    assert!(largest < MAX_ITEM_BYTES, "{largest} bytes");
    assert_eq!(t.search_titles(&token, "word17", 1).await, ["Everything"]);
    let path = format!("{DOCUMENTS}/{}", doc["id"].as_str().unwrap());
    assert_eq!(t.delete_auth(&path, &token).await.status(), 204);
    assert!(t
        .scan("IntelligenceTable")
        .await
        .iter()
        .all(|i| !i["sk"].as_s().unwrap().starts_with("D#")));

    // One byte more, or more than 400 chunks, is a 400 naming `content`.
    let over = "x".repeat(200 * 1024 + 1);
    let r = t
        .post_json_auth(DOCUMENTS, &token, &json!({"title": "T", "content": over}))
        .await;
    let body = assert_news_error(r, 400, DOCUMENTS).await;
    assert!(details(&body)[0].starts_with("content: must be at most 204800 bytes"));
    let steps: String = (0..500)
        .map(|n| {
            format!(
                "# Step {n}\n\n{}\n\n",
                "Do the next thing carefully. ".repeat(8)
            )
        })
        .collect();
    let r = t
        .post_json_auth(DOCUMENTS, &token, &json!({"title": "T", "content": steps}))
        .await;
    let body = assert_news_error(r, 400, DOCUMENTS).await;
    assert!(
        details(&body)[0].starts_with("content: splits into"),
        "{body}"
    );
    assert_eq!(t.get_ok_auth(DOCUMENTS, &token).await, json!([]));
}
