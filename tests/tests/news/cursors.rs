//! The sources and the topics grow without bound, so they come a page at a time: a bare array
//! (the shape API.md fixes) with the next page's cursor in `X-Next-Cursor`. A walk by it
//! yields every source and topic exactly once in order, names outside ASCII included; a bad
//! cursor or limit is a 400 naming it.

use serde_json::Value;
use stack_tests::content::{submit_id, SOURCES, TOPICS};
use stack_tests::feeds::{FeedDocument, FeedServer};
use stack_tests::{assert_news_error, details, next_cursor, TestStack};

/// An RSS feed of `items` articles, the `i`th in the topic `topics[i]`.
fn feed(name: &str, topics: &[&str]) -> String {
    let items: String = topics
        .iter()
        .enumerate()
        .map(|(i, topic)| {
            format!(
                "<item><title>{name} story {i}</title>\
                 <link>https://{name}.example.com/{i}</link><guid>{name}-{i}</guid>\
                 <pubDate>Tue, 04 Mar 2025 0{i}:30:00 +0000</pubDate>\
                 <category>{topic}</category><description>Story {i} of {name}.</description></item>"
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\"><channel>\
         <title>{name}</title><link>https://{name}.example.com/</link>\
         <description>The {name} feed</description>{items}</channel></rss>"
    )
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("an array")
        .iter()
        .map(|v| v["id"].as_str().expect("id").to_string())
        .collect()
}

/// Every id of `path`, walked by `X-Next-Cursor` `limit` at a time.
async fn walk(t: &TestStack, path: &str, limit: usize) -> Vec<String> {
    let mut all = Vec::new();
    let mut url = format!("{path}?limit={limit}");
    for _ in 0..100 {
        let response = t.get(&url).await;
        assert_eq!(response.status(), 200, "{url}");
        let next = next_cursor(response.headers());
        let body: Value = response.json().await.expect("json");
        let got = ids(&body);
        assert!(got.len() <= limit, "{url}");
        all.extend(got);
        let Some(cursor) = next else {
            return all;
        };
        url = format!("{path}?limit={limit}&cursor={cursor}");
    }
    panic!("{path} did not end within 100 pages");
}

#[tokio::test]
async fn sources_and_topics_page_by_cursor_every_one_once_in_order() {
    let t = TestStack::for_product(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let (_, token) = t.user("reader").await;
    let topics = [
        ["Alpha", "Économie", "Zeta"],
        ["Beta", "Ωmega", "Alpha"],
        ["Gamma", "Delta", "Ärzte"],
        ["Mu", "Nu", "Xi"],
        ["Pi", "Rho", "Sigma"],
    ];
    let mut sources = Vec::new();
    for (i, names) in topics.iter().enumerate() {
        let url = feeds.put(
            &format!("/feed{i}.xml"),
            FeedDocument::rss(feed(&format!("f{i}"), names)),
        );
        sources.push(submit_id(&t, &token, &url).await);
    }
    // Oldest first, one at a time or a few.
    let all_sources = ids(&t.get_json(SOURCES).await);
    assert_eq!(all_sources, sources);
    for limit in [1, 2, 5] {
        assert_eq!(walk(&t, SOURCES, limit).await, sources, "limit {limit}");
    }
    // By name (byte order), every topic once.
    let all_topics = t.get_json(TOPICS).await;
    let mut names: Vec<String> = all_topics
        .as_array()
        .unwrap()
        .iter()
        .map(|topic| topic["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 14, "{all_topics}");
    let in_order = names.clone();
    names.sort();
    assert_eq!(in_order, names, "by name");
    let all_topic_ids = ids(&all_topics);
    for limit in [1, 3, 14] {
        assert_eq!(
            walk(&t, TOPICS, limit).await,
            all_topic_ids,
            "limit {limit}"
        );
    }

    for path in [SOURCES, TOPICS] {
        for (query, field) in [
            ("cursor=", "cursor"),
            ("cursor=zz", "cursor"),
            ("cursor=3", "cursor"),
            ("cursor=3A", "cursor"),
            ("limit=0", "limit"),
            ("limit=101", "limit"),
            ("limit=x", "limit"),
        ] {
            let response = t.get(&format!("{path}?{query}")).await;
            let public = path.trim_start_matches("/api/content");
            let body = assert_news_error(response, 400, public).await;
            let named: Vec<String> = details(&body)
                .iter()
                .map(|d| d.split(':').next().unwrap_or_default().to_string())
                .collect();
            assert_eq!(named, [field], "{path}?{query}");
        }
        // Any text the pattern allows is a place in the list: past every name, nothing.
        let past = t.get(&format!("{path}?cursor=ffff")).await;
        assert_eq!(past.status(), 200);
        assert!(past.headers().get("x-next-cursor").is_none());
        assert_eq!(past.json::<Value>().await.unwrap(), serde_json::json!([]));
    }
}
