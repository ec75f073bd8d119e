//! The news reader's per-person state: a reader with 1,000 subscriptions and 100k unread
//! (counts, the first page of unread, mark all as read), marks across many readers and on one
//! popular source, and a popular source's unread count polled by its subscribers.
//!
//! The rows a reader of that size reads are written straight into the content table (the
//! API would take an hour to make 1,000 sources of 100 articles); everything measured goes
//! through the API.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{Duration, Utc};
use serde_json::json;
use stack_tests::TestStack;

use super::{name, Bench};

type Item = HashMap<String, AttributeValue>;

fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// Sources at the reader's scale, and articles (all unread) in each.
const SOURCES: usize = 1000;
const ARTICLES_PER_SOURCE: usize = 100;

fn source_id(k: usize) -> String {
    format!("{:032x}", 0xfeed_0000_u64 + k as u64)
}

/// Distinct in its first 16 hex digits (its Google Reader item id), as real ids are.
fn article_id(source: usize, i: usize) -> String {
    format!("{:08x}{:08x}{:016x}", i, 0xa000_0000_u64 + source as u64, 0)
}

/// A source's items as the API stores them: its item, its counters, its article rows (with
/// their aliases, as the insert transaction writes them) and its two newest articles.
fn source_items(k: usize, now: chrono::DateTime<Utc>) -> Vec<Item> {
    let id = source_id(k);
    let pk = format!("SOURCE#{id}");
    let created = (now - Duration::days(60)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let mut items = vec![
        item(&[
            ("pk", s(&pk)),
            ("sk", s("META")),
            ("id", s(&id)),
            ("url", s(format!("https://feeds.example.com/{k}.xml"))),
            ("title", s(format!("Bench source {k}"))),
            ("createdAt", s(&created)),
        ]),
        item(&[
            ("pk", s(format!("{pk}#COUNTS"))),
            ("sk", s("COUNTS")),
            ("subscriberCount", n(100_000)),
            ("articleCount", n(ARTICLES_PER_SOURCE as i64)),
            ("topicRows", s("DONE")),
        ]),
    ];
    for i in 0..ARTICLES_PER_SOURCE {
        let article = article_id(k, i);
        // Spread over the last 28 hours, interleaved across sources.
        let at = (now - Duration::seconds((i * SOURCES + k) as i64 + 60))
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        items.push(item(&[
            ("pk", s(&pk)),
            ("sk", s(format!("ART#{at}#{article}"))),
            ("articleId", s(&article)),
            ("topicIds", AttributeValue::L(Vec::new())),
            ("aliased", AttributeValue::Bool(true)),
        ]));
        items.push(item(&[
            ("pk", s(format!("ITEM#{}", &article[..16]))),
            ("sk", s("ITEM")),
            ("articleId", s(&article)),
            ("sourceId", s(&id)),
            ("publishedAt", s(&at)),
        ]));
        if i < 2 {
            items.push(item(&[
                ("pk", s(format!("ARTICLE#{article}"))),
                ("sk", s("META")),
                ("id", s(&article)),
                ("sourceId", s(&id)),
                ("sourceTitle", s(format!("Bench source {k}"))),
                ("title", s(format!("Story {i} of source {k}"))),
                ("publishedAt", s(&at)),
                (
                    "summary",
                    s("A summary of a few words, as feeds give them."),
                ),
                ("paragraphs", AttributeValue::L(Vec::new())),
                ("topics", AttributeValue::L(Vec::new())),
            ]));
        }
    }
    items
}

/// The person's reader rows for `sources` (labelled in tens), imported already.
fn reader_items(user: &str, sources: impl Iterator<Item = usize>) -> Vec<Item> {
    let pk = format!("READER#{user}");
    let mut items = vec![item(&[
        ("pk", s(&pk)),
        ("sk", s("ALL")),
        ("importedAt", s("2026-01-01T00:00:00.000Z")),
    ])];
    for k in sources {
        items.push(item(&[
            ("pk", s(&pk)),
            ("sk", s(format!("SUB#{}", source_id(k)))),
            ("sourceId", s(source_id(k))),
            (
                "labels",
                AttributeValue::L(vec![s(format!("folder {}", k % 10))]),
            ),
            ("subscribedAt", s("2026-01-01T00:00:00.000Z")),
        ]));
    }
    items
}

pub(super) async fn reader(b: &mut Bench, t: &TestStack) {
    let now = Utc::now();
    let mut rows = Vec::new();
    for k in 0..SOURCES {
        rows.extend(source_items(k, now));
    }
    let (big, big_token) = t.user(&name("bigreader", 0)).await;
    let big_id = big["id"].as_str().expect("id").to_string();
    rows.extend(reader_items(&big_id, 0..SOURCES));
    // Eight fans of source 0, the popular one, subscribed to it alone.
    let mut fans = Vec::new();
    for r in 0..8 {
        let (user, token) = t.user(&name("fan", r)).await;
        let id = user["id"].as_str().expect("id").to_string();
        rows.extend(reader_items(&id, std::iter::once(0)));
        fans.push(token);
    }
    // Eight lighter readers, each with ten sources; source 0 is everyone's popular one.
    let mut light = Vec::new();
    for r in 0..8 {
        let (user, token) = t.user(&name("lightreader", r)).await;
        let id = user["id"].as_str().expect("id").to_string();
        rows.extend(reader_items(
            &id,
            std::iter::once(0).chain((1..10).map(|j| 1 + r * 100 + j)),
        ));
        light.push((id, token));
    }
    t.put_items("ContentTable", rows).await;

    let get = |path: String, token: String| async move {
        let response = t.get_auth(&path, &token).await;
        assert_eq!(response.status(), 200, "GET {path}");
        response.json::<serde_json::Value>().await.expect("json")
    };
    let counts = get("/api/content/reader/counts".into(), big_token.clone()).await;
    assert_eq!(
        counts["total"],
        (SOURCES * ARTICLES_PER_SOURCE) as u64,
        "a reader with 1,000 subscriptions and 100k unread"
    );

    // A client polling the counts every second: each of the 1,000 sources' partitions
    // counted once (its rows after the watermark), the person's partitions read.
    let polls = async {
        for _ in 0..2 {
            get("/api/content/reader/counts".into(), big_token.clone()).await;
        }
    };
    b.measure(
        "news",
        "reader counts: 1,000 subscriptions, 100k unread",
        1.0,
        1.0,
        2,
        polls,
    )
    .await;

    let pages = async {
        let page = get(
            "/api/content/reader/articles?state=unread&size=20".into(),
            big_token.clone(),
        )
        .await;
        assert_eq!(page["items"].as_array().map(Vec::len), Some(20));
        let next = page["nextCursor"].as_str().expect("next").to_string();
        get(
            format!("/api/content/reader/articles?state=unread&size=20&cursor={next}"),
            big_token.clone(),
        )
        .await;
    };
    b.measure(
        "news",
        "reader unread pages: 1,000 subscriptions, 100k unread",
        1.0,
        1.0,
        2,
        pages,
    )
    .await;

    // Marks across readers and sources: 20,000 a second over 1M readers.
    let marks = async {
        for (r, (_, token)) in light.iter().enumerate() {
            for j in 1..5 {
                let ids = vec![article_id(1 + r * 100 + j, r + j)];
                let response = t
                    .post_json_auth(
                        "/api/content/reader/marks",
                        token,
                        &json!({"ids": ids, "read": true}),
                    )
                    .await;
                assert_eq!(response.status(), 200);
            }
        }
    };
    b.measure("news", "reader marks", 20_000.0, 1e6, 32, marks)
        .await;

    // One popular source read by its 100k subscribers: 50 stories a day, each read by all.
    let popular = async {
        for (r, (_, token)) in light.iter().enumerate() {
            for i in 0..4 {
                let ids = vec![article_id(0, r * 4 + i)];
                let response = t
                    .post_json_auth(
                        "/api/content/reader/marks",
                        token,
                        &json!({"ids": ids, "read": true, "starred": i == 0}),
                    )
                    .await;
                assert_eq!(response.status(), 200);
            }
        }
    };
    b.measure(
        "news",
        "reader marks on one popular source (100k readers)",
        58.0,
        1e5,
        32,
        popular,
    )
    .await;

    // Its subscribers' counts: 100k polling every 5 minutes.
    let popular_counts = async {
        for token in &fans {
            get("/api/content/reader/counts".into(), token.clone()).await;
        }
    };
    b.measure(
        "news",
        "reader counts of one popular source's subscribers",
        333.0,
        1e5,
        8,
        popular_counts,
    )
    .await;

    // Mark all as read, everything, a label or a source: one write, 1,000 a second over 1M.
    let mark_all = async {
        for (r, (_, token)) in light.iter().enumerate() {
            let body = match r % 3 {
                0 => json!({}),
                1 => json!({"label": format!("folder {}", (2 + r * 100) % 10)}),
                _ => json!({"sourceId": source_id(0)}),
            };
            let response = t
                .post_json_auth("/api/content/reader/mark-all-read", token, &body)
                .await;
            assert_eq!(response.status(), 204, "{body}");
        }
        // And the big reader, once: the same one write.
        let response = t
            .post_json_auth("/api/content/reader/mark-all-read", &big_token, &json!({}))
            .await;
        assert_eq!(response.status(), 204);
    };
    b.measure("news", "reader mark all as read", 1000.0, 1e6, 9, mark_all)
        .await;
    let counts = get("/api/content/reader/counts".into(), big_token.clone()).await;
    assert_eq!(counts["total"], 0, "everything read with one write");
}
