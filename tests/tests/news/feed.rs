//! Bounded paging and the personal feed: pages are capped (no request reads an index in
//! proportion to a number the client chose), and `sourceId` repeated merges those sources'
//! articles newest first, a page at a time.

use serde_json::Value;
use stack_tests::content::{ids, submit_id, ARTICLES};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer};
use stack_tests::{assert_news_error, details, TestStack};

/// `(publishedAt, id)` of every article of a page.
fn keyed(page: &Value) -> Vec<(String, String)> {
    page["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["publishedAt"].as_str().unwrap().to_string(),
                a["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn pages_are_capped_and_a_personal_feed_merges_its_sources_newest_first() {
    let t = TestStack::for_product(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let (_, token) = t.user("paging").await;
    let big = feeds.put("/big.xml", FeedDocument::rss(generated_rss("Big", 0, 51)));
    let small = feeds.put(
        "/small.xml",
        FeedDocument::rss(generated_rss("Small", 20, 6)),
    );
    let big = submit_id(&t, &token, &big).await;
    let small = submit_id(&t, &token, &small).await;

    // The cap: page 49 is the last page served, page 50 is a 400 naming `page`, and
    // totalPages counts only the pages that can be asked for.
    let last = t.get_json(&format!("{ARTICLES}?size=1&page=49")).await;
    assert_eq!(last["totalElements"], 57);
    assert_eq!(last["totalPages"], 50);
    assert_eq!(last["content"].as_array().unwrap().len(), 1);
    for query in ["page=50", "page=2147483648", "sourceId=x&page=50"] {
        let error = assert_news_error(
            t.get(&format!("{ARTICLES}?{query}")).await,
            400,
            "/articles",
        )
        .await;
        assert!(details(&error)[0].starts_with("page: "), "{query}: {error}");
    }
    let error = assert_news_error(
        t.get(&format!("{ARTICLES}?page=50")).await,
        400,
        "/articles",
    )
    .await;
    assert_eq!(details(&error), ["page: must be between 0 and 49"]);

    // The feed of both sources is their articles merged newest first.
    let mut expected = keyed(
        &t.get_json(&format!("{ARTICLES}?sourceId={big}&size=100"))
            .await,
    );
    expected.extend(keyed(
        &t.get_json(&format!("{ARTICLES}?sourceId={small}&size=100"))
            .await,
    ));
    expected.sort_by(|a, b| b.cmp(a));
    assert_eq!(expected.len(), 57);
    let feed = format!("{ARTICLES}?sourceId={small}&sourceId={big}&sourceId=no-such-source");
    let mut merged = Vec::new();
    for page in 0..6 {
        let body = t.get_json(&format!("{feed}&size=10&page={page}")).await;
        assert_eq!(body["totalElements"], 57);
        assert_eq!(body["totalPages"], 6);
        assert_eq!(body["page"], page);
        merged.extend(keyed(&body));
    }
    assert_eq!(merged, expected);
    // One source named twice is that source's list.
    let twice = t
        .get_json(&format!("{ARTICLES}?sourceId={small}&sourceId={small}"))
        .await;
    assert_eq!(twice["totalElements"], 6);
    assert_eq!(
        ids(&twice),
        ids(&t.get_json(&format!("{ARTICLES}?sourceId={small}")).await)
    );

    // Bounded: at most 50 sources, and no topic across several sources.
    let many: String = (0..51).map(|n| format!("&sourceId=s{n}")).collect();
    let error = assert_news_error(
        t.get(&format!("{ARTICLES}?size=5{many}")).await,
        400,
        "/articles",
    )
    .await;
    assert_eq!(
        details(&error),
        ["sourceId: must be given at most 50 times"]
    );
    // A topic with several sources: that topic's articles from any of them.
    let in_topic = |query: String| {
        let t = &t;
        async move {
            let page = t
                .get_json(&format!("{ARTICLES}?topicId=tech&size=100&{query}"))
                .await;
            let mut ids = ids(&page);
            ids.sort();
            (page["totalElements"].as_u64().unwrap(), ids)
        }
    };
    let (big_total, mut expected) = in_topic(format!("sourceId={big}")).await;
    let (small_total, small_ids) = in_topic(format!("sourceId={small}")).await;
    assert!(
        big_total > 0 && small_total > 0,
        "both sources have tech articles"
    );
    expected.extend(small_ids);
    expected.sort();
    assert_eq!(
        in_topic(format!("sourceId={big}&sourceId={small}")).await,
        (big_total + small_total, expected)
    );
    // A blank id filters nothing, alone (as before the feed) or in a list.
    assert_eq!(
        ids(&t
            .get_json(&format!("{ARTICLES}?sourceId={big}&sourceId=%20"))
            .await),
        ids(&t.get_json(&format!("{ARTICLES}?sourceId={big}")).await)
    );
}
