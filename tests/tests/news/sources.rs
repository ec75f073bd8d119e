//! Submitting a feed: a new source with its articles and topics at once, the same feed
//! spelled differently, and the submissions refused.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use stack_tests::content::{self, published, submit, ARTICLES, SOURCES, TOPICS};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer, ATOM, HTML_PAGE, RSS2};
use stack_tests::{assert_news_error, details, TestStack};

/// `dates` run newest first.
fn assert_newest_first(dates: &[String]) {
    let mut sorted = dates.to_vec();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted, "newest first");
}

#[tokio::test]
async fn submitted_feed_shows_its_articles_and_topics_at_once() {
    let t = TestStack::for_product(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/circuit.xml", FeedDocument::rss(RSS2));
    let (_, token) = t.user("reader").await;

    let created = submit(&t, &token, &url).await;
    assert_eq!(created.status(), 201);
    let source: Value = created.json().await.expect("json");
    let id = source["id"].as_str().expect("id").to_string();
    assert_eq!(source["title"], "The Daily Circuit & Co.");
    assert_eq!(source["url"], url);
    assert_eq!(source["siteUrl"], "https://circuit.example.com/");
    assert_eq!(source["subscriberCount"], 0);
    assert!(source["lastFetchedAt"].is_string(), "{source}");
    assert!(source["createdAt"].is_string(), "{source}");

    // The same feed again, spelled differently, is the same source: 200, not a new one.
    let again_url = url.replace("http://", "HTTP://") + "#latest";
    let again = submit(&t, &token, &again_url).await;
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.expect("json");
    assert_eq!(again["id"], id.as_str());
    assert_eq!(
        feeds.hits("/circuit.xml").full,
        1,
        "known URL not refetched"
    );

    let listed = t.get_json(SOURCES).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(t.get_json(&content::source(&id)).await["id"], id.as_str());

    // Articles: the envelope, newest first, plain-text paragraphs.
    let page = t.get_json(&format!("{ARTICLES}?sourceId={id}")).await;
    assert_eq!(page["totalElements"], 6, "{page}");
    assert_eq!(page["totalPages"], 1);
    assert_eq!(page["page"], 0);
    assert_eq!(page["size"], 20);
    assert_newest_first(&published(&page));
    assert!(
        page["content"][0].get("paragraphs").is_none(),
        "lists leave bodies out"
    );

    let chips = page["content"]
        .as_array()
        .expect("content")
        .iter()
        .find(|a| a["title"] == "Chipmakers race to 2 nm — and beyond")
        .expect("chips article")
        .clone();
    let article = t
        .get_json(&format!("{ARTICLES}/{}", chips["id"].as_str().expect("id")))
        .await;
    assert_eq!(article["sourceId"], id.as_str());
    assert_eq!(article["sourceTitle"], "The Daily Circuit & Co.");
    assert_eq!(article["author"], "Priya Raman");
    assert_eq!(
        article["link"],
        "https://circuit.example.com/2025/03/04/chipmakers-2nm"
    );
    assert_eq!(article["publishedAt"], "2025-03-04T09:30:00.000Z");
    assert_eq!(
        article["paragraphs"],
        json!([
            "Three foundries say they will ship 2 nm parts next year — a claim analysts call “ambitious”.",
            "The first wafers are due in Q3… if the lithography tools arrive on time.",
            "A test wafer © Circuit"
        ])
    );
    assert_eq!(
        article["topics"],
        json!([{"id": "tech", "name": "Tech"}, {"id": "semiconductors", "name": "Semiconductors"},
               {"id": "science-space", "name": "Science & Space"}])
    );
    assert_eq!(
        article["imageUrl"],
        "https://cdn.circuit.example.com/thumbs/2nm.jpg"
    );

    // Topics, and the articles of one topic.
    let topics = t.get_json(TOPICS).await;
    let tech = topics
        .as_array()
        .expect("topics")
        .iter()
        .find(|topic| topic["id"] == "tech")
        .expect("tech topic")
        .clone();
    assert_eq!(tech["name"], "Tech");
    let tech_count = tech["articleCount"].as_i64().expect("count");
    assert!(tech_count >= 1);
    let by_topic = t.get_json(&format!("{ARTICLES}?topicId=tech")).await;
    assert_eq!(by_topic["totalElements"], tech_count);
    assert!(by_topic["content"]
        .as_array()
        .expect("content")
        .iter()
        .all(|a| a["topics"]
            .as_array()
            .is_some_and(|ts| ts.iter().any(|x| x["id"] == "tech"))));

    // Paging: 6 articles in pages of 4.
    let first = t.get_json(&format!("{ARTICLES}?size=4")).await;
    let second = t.get_json(&format!("{ARTICLES}?size=4&page=1")).await;
    assert_eq!(first["totalPages"], 2);
    assert_eq!(first["content"].as_array().map(Vec::len), Some(4));
    assert_eq!(second["content"].as_array().map(Vec::len), Some(2));
    let mut all = published(&first);
    all.extend(published(&second));
    assert_newest_first(&all);
    let beyond = t.get_json(&format!("{ARTICLES}?size=4&page=7")).await;
    assert_eq!(beyond["content"], json!([]));
    assert_eq!(beyond["totalElements"], 6);
}

#[tokio::test]
async fn atom_feeds_are_read_too() {
    let t = TestStack::for_product(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/climate.atom", FeedDocument::atom(ATOM));
    let (_, token) = t.user("atomreader").await;
    let created = submit(&t, &token, &url).await;
    assert_eq!(created.status(), 201);
    let source: Value = created.json().await.expect("json");
    assert_eq!(source["title"], "Field Notes on Climate");
    let id = source["id"].as_str().expect("id");
    let page = t.get_json(&format!("{ARTICLES}?sourceId={id}")).await;
    assert_eq!(page["totalElements"], 4);
}

#[tokio::test]
async fn bad_submissions_are_refused_naming_the_url() {
    let t = TestStack::start_with(BTreeMap::from([(
        "FeedFetchTimeoutSeconds".to_string(),
        "1".to_string(),
    )]))
    .await;
    let feeds = FeedServer::start().await;
    let (_, token) = t.user("submitter").await;

    let anonymous = t
        .post_json(SOURCES, &json!({"url": "http://example.com/feed"}))
        .await;
    assert_news_error(anonymous, 401, "/sources").await;

    let cases = [
        (json!({}), "url: must not be blank"),
        (json!({"url": "   "}), "url: must not be blank"),
        (
            json!({"url": "ftp://example.com/feed.xml"}),
            "url: must use http or https",
        ),
        (
            json!({"url": "not a url"}),
            "url: is not a valid absolute URL",
        ),
    ];
    for (body, expected) in cases {
        let response = t.post_json_auth(SOURCES, &token, &body).await;
        let error = assert_news_error(response, 400, "/sources").await;
        let details = details(&error);
        assert!(
            details.iter().any(|d| d.starts_with(expected)),
            "{body}: {details:?}"
        );
    }

    let html = feeds.put("/index.html", FeedDocument::html(HTML_PAGE));
    let missing = feeds.url("/missing.xml");
    let slow = feeds.put(
        "/slow.xml",
        FeedDocument::rss(RSS2).stalled(Duration::from_secs(5)),
    );
    for (url, expected) in [
        // A page linking to no feed, at a site serving none at the usual paths.
        (html, "url: no feed found at this address"),
        (
            missing,
            "url: unreachable: the feed server answered with HTTP status 404",
        ),
        (
            slow,
            "url: unreachable: the feed server did not respond in time",
        ),
    ] {
        let error = assert_news_error(submit(&t, &token, &url).await, 400, "/sources").await;
        let details = details(&error);
        assert!(
            details.iter().any(|d| d.starts_with(expected)),
            "{url}: {details:?}"
        );
    }
    // Nothing was stored for any of them.
    assert_eq!(t.get_json(SOURCES).await, json!([]));
}

#[tokio::test]
async fn private_addresses_are_refused_unless_allowed() {
    let t = TestStack::start_with(BTreeMap::from([(
        "FeedAllowPrivateNetworks".to_string(),
        "false".to_string(),
    )]))
    .await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/circuit.xml", FeedDocument::rss(RSS2));
    let (_, token) = t.user("ssrf").await;
    let error = assert_news_error(submit(&t, &token, &url).await, 400, "/sources").await;
    assert!(
        details(&error)
            .iter()
            .any(|d| d.contains("private or reserved network")),
        "{error}"
    );
    assert_eq!(feeds.hits("/circuit.xml").full, 0, "never contacted");
}

#[tokio::test]
async fn each_user_submits_only_so_many_feeds_a_window() {
    let t = TestStack::start_with(BTreeMap::from([(
        "SourceSubmissionRateLimit".to_string(),
        "2/86400".to_string(),
    )]))
    .await;
    let feeds = FeedServer::start().await;
    let (_, busy) = t.user("busy_submitter").await;
    let (_, other) = t.user("other_submitter").await;
    for n in 0..2 {
        let url = feeds.put(
            &format!("/limited-{n}.xml"),
            FeedDocument::rss(generated_rss("Limited", n * 10, 1)),
        );
        assert_eq!(submit(&t, &busy, &url).await.status(), 201);
    }
    // The third submission is refused before anything is fetched.
    let third = feeds.put(
        "/limited-3.xml",
        FeedDocument::rss(generated_rss("Limited", 30, 1)),
    );
    let refused = submit(&t, &busy, &third).await;
    stack_tests::limits::assert_rate_limited(refused, "/sources", 86_400).await;
    assert_eq!(feeds.hits("/limited-3.xml").full, 0, "nothing fetched");
    // Another user has their own allowance.
    assert_eq!(submit(&t, &other, &third).await.status(), 201);
}

#[tokio::test]
async fn the_paths_shared_with_the_intake_name_all_their_methods() {
    let t = TestStack::for_product(stack_tests::Product::News).await;
    // POST goes to the intake function; any other method reaches the news function, whose
    // 405 names the intake's POST too (as the contract documents the paths).
    for (path, allow) in [
        (SOURCES.to_string(), "GET,HEAD,POST"),
        (format!("{SOURCES}/discover"), "POST"),
    ] {
        let response = t
            .http
            .request(reqwest::Method::OPTIONS, t.url(&path))
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 405, "{path}");
        let allowed = response
            .headers()
            .get("allow")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        assert_eq!(allowed.as_deref(), Some(allow), "{path}");
    }
}
