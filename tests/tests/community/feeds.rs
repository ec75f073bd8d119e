//! The RSS 2.0 and Atom 1.0 feeds of published posts (site, topic, author): read with feed-rs
//! as readers read them, and held to the W3C feed validator's rules encoded below (required
//! elements, RFC 822 and RFC 3339 dates, unique guids and ids, self links); drafts and deleted
//! posts never in them; `ETag` and `If-None-Match`; unknown topics and authors 404.

use std::collections::HashSet;

use reqwest::Response;
use serde_json::json;
use stack_tests::community::{assert_reason_error, post_path};
use stack_tests::{header, TestStack};

const SITE_RSS: &str = "/api/v1/feeds/posts.rss";
const SITE_ATOM: &str = "/api/v1/feeds/posts.atom";

async fn fetch(t: &TestStack, path: &str, if_none_match: Option<&str>) -> Response {
    let mut request = t.http.get(t.url(path));
    if let Some(tag) = if_none_match {
        request = request.header("if-none-match", tag);
    }
    t.send(request).await
}

/// A feed's answer, which must be a 200 of `content_type` with an `ETag` and the cache header.
async fn document(t: &TestStack, path: &str, content_type: &str) -> (String, String) {
    let response = fetch(t, path, None).await;
    assert_eq!(response.status(), 200, "{path}");
    let headers = response.headers().clone();
    assert_eq!(header(&headers, "content-type"), content_type, "{path}");
    assert_eq!(header(&headers, "cache-control"), "public, max-age=300");
    let etag = header(&headers, "etag").to_string();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() > 2,
        "a strong ETag: {etag}"
    );
    (response.text().await.unwrap(), etag)
}

/// The text of the first `<name>` element of `xml` (escaped as written).
fn element<'a>(xml: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{name}>"))? + start;
    Some(&xml[start..end])
}

/// Every block `<name>...</name>` of `xml`.
fn blocks<'a>(xml: &'a str, name: &str) -> Vec<&'a str> {
    xml.split(&format!("<{name}>"))
        .skip(1)
        .map(|b| b.split(&format!("</{name}>")).next().unwrap())
        .collect()
}

/// The validator's RSS 2.0 rules this feed must meet; answers the items' guids.
fn validate_rss(xml: &str, self_url: &str) -> Vec<String> {
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\""));
    let channel = xml.split("<item>").next().unwrap();
    for required in ["title", "link", "description"] {
        let value = element(channel, required).unwrap_or_else(|| panic!("channel {required}"));
        assert!(!value.trim().is_empty(), "channel {required}");
    }
    assert!(
        channel.contains(&format!(
            "<atom:link href=\"{self_url}\" rel=\"self\" type=\"application/rss+xml\"/>"
        )),
        "self link {self_url}: {channel}"
    );
    chrono::DateTime::parse_from_rfc2822(element(channel, "lastBuildDate").unwrap()).unwrap();
    let mut guids = Vec::new();
    for item in blocks(xml, "item") {
        for required in ["title", "link", "pubDate", "description", "dc:creator"] {
            assert!(element(item, required).is_some(), "item {required}: {item}");
        }
        assert!(element(item, "link").unwrap().contains("/community/posts/"));
        chrono::DateTime::parse_from_rfc2822(element(item, "pubDate").unwrap())
            .unwrap_or_else(|e| panic!("RFC 822 pubDate: {e}"));
        let guid = item
            .split("<guid isPermaLink=\"false\">")
            .nth(1)
            .and_then(|g| g.split("</guid>").next())
            .unwrap_or_else(|| panic!("guid: {item}"));
        assert!(guid.starts_with("urn:uuid:"), "{guid}");
        guids.push(guid.to_string());
    }
    let unique: HashSet<&String> = guids.iter().collect();
    assert_eq!(unique.len(), guids.len(), "unique guids");
    assert!(guids.len() <= 50);
    guids
}

/// The validator's Atom 1.0 rules; answers the entries' ids.
fn validate_atom(xml: &str, self_url: &str) -> Vec<String> {
    assert!(xml.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
    let head = xml.split("<entry>").next().unwrap();
    assert_eq!(element(head, "id"), Some(self_url));
    assert!(head.contains("<title type=\"text\">"));
    chrono::DateTime::parse_from_rfc3339(element(head, "updated").unwrap()).unwrap();
    assert!(head.contains(&format!(
        "<link rel=\"self\" type=\"application/atom+xml\" href=\"{self_url}\"/>"
    )));
    assert!(head.contains("<link rel=\"alternate\" type=\"text/html\" href=\""));
    let mut ids = Vec::new();
    for entry in blocks(xml, "entry") {
        let id = element(entry, "id").unwrap();
        assert!(id.starts_with("urn:uuid:"), "{id}");
        for date in ["published", "updated"] {
            chrono::DateTime::parse_from_rfc3339(element(entry, date).unwrap())
                .unwrap_or_else(|e| panic!("{date}: {e}"));
        }
        assert!(entry.contains("<title type=\"text\">"));
        assert!(
            element(entry, "name").is_some_and(|n| !n.is_empty()),
            "author"
        );
        assert!(entry.contains("<link rel=\"alternate\" type=\"text/html\" href=\""));
        assert!(entry.contains("<content type=\"html\">") || entry.contains("<summary"));
        ids.push(id.to_string());
    }
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "unique ids");
    assert!(ids.len() <= 50);
    ids
}

#[tokio::test]
async fn site_feeds_hold_published_posts_only_and_parse() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let first = t
        .create_post(
            &alice,
            &json!({"title": "First <post> & more", "content": "Some **bold** text and `code`.", "topics": ["Rust"]}),
        )
        .await;
    let second = t
        .create_post(
            &bob,
            &json!({"title": "Second post", "content": "- a\n- b"}),
        )
        .await;
    let draft = t
        .create_post(
            &alice,
            &json!({"title": "A draft post", "content": "secret", "status": "DRAFT"}),
        )
        .await;
    let deleted = t
        .create_post(&alice, &json!({"title": "Deleted post", "content": "gone"}))
        .await;
    let removed = t
        .delete_auth(&post_path(deleted["id"].as_str().unwrap()), &alice)
        .await;
    assert_eq!(removed.status().as_u16(), 204);
    let base = t.url("");

    let (rss, _) = document(&t, SITE_RSS, "application/rss+xml; charset=utf-8").await;
    let guids = validate_rss(&rss, &format!("{base}{SITE_RSS}"));
    let uuid = |post: &serde_json::Value| format!("urn:uuid:{}", post["id"].as_str().unwrap());
    assert_eq!(guids, vec![uuid(&second), uuid(&first)], "newest first");
    assert!(!rss.contains("secret") && !rss.contains("A draft post"));
    assert!(!rss.contains("Deleted post"));
    let parsed = feed_rs::parser::parse(rss.as_bytes()).unwrap();
    assert_eq!(parsed.title.unwrap().content, "Community posts");
    assert_eq!(parsed.entries.len(), 2);
    let entry = &parsed.entries[1];
    assert_eq!(entry.title.as_ref().unwrap().content, "First <post> & more");
    assert_eq!(
        entry.links[0].href,
        format!("{base}/community/posts/{}", first["id"].as_str().unwrap())
    );
    assert_eq!(
        entry.content.as_ref().unwrap().body.as_deref(),
        Some("<p>Some <strong>bold</strong> text and <code>code</code>.</p>\n"),
        "the rendered HTML, unescaped once by the reader"
    );
    assert_eq!(entry.categories[0].term, "Rust");
    assert!(entry.published.is_some());
    assert_eq!(entry.authors[0].name.as_deref(), Some("alice tester"));

    let (atom, _) = document(&t, SITE_ATOM, "application/atom+xml; charset=utf-8").await;
    let ids = validate_atom(&atom, &format!("{base}{SITE_ATOM}"));
    assert_eq!(ids, vec![uuid(&second), uuid(&first)]);
    let parsed = feed_rs::parser::parse(atom.as_bytes()).unwrap();
    assert_eq!(parsed.id, format!("{base}{SITE_ATOM}"));
    assert!(parsed.updated.is_some());
    let entry = &parsed.entries[0];
    assert_eq!(entry.id, uuid(&second));
    assert_eq!(entry.authors[0].name.as_deref(), Some("bob tester"));
    assert_eq!(
        entry
            .content
            .as_ref()
            .unwrap()
            .body
            .as_deref()
            .map(str::trim_end),
        Some("<ul>\n<li>a</li>\n<li>b</li>\n</ul>")
    );
    assert!(entry.summary.is_some());
    assert_eq!(draft["status"], "DRAFT");
}

#[tokio::test]
async fn etag_answers_304_until_a_post_changes() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    let post = t
        .create_post(&alice, &json!({"title": "Cached post", "content": "v1"}))
        .await;
    let (_, etag) = document(&t, SITE_ATOM, "application/atom+xml; charset=utf-8").await;
    let again = fetch(&t, SITE_ATOM, Some(&etag)).await;
    assert_eq!(again.status(), 304);
    assert_eq!(header(again.headers(), "etag"), etag);
    assert_eq!(
        header(again.headers(), "cache-control"),
        "public, max-age=300"
    );
    assert!(again.text().await.unwrap().is_empty());
    let listed = format!("\"other\", W/{etag}");
    assert_eq!(fetch(&t, SITE_ATOM, Some(&listed)).await.status(), 304);
    assert_eq!(fetch(&t, SITE_ATOM, Some("\"other\"")).await.status(), 200);
    // The RSS of the same posts is another document, another tag.
    let (_, rss_etag) = document(&t, SITE_RSS, "application/rss+xml; charset=utf-8").await;
    assert_ne!(rss_etag, etag);
    // An edit changes the feed, and its tag.
    let id = post["id"].as_str().unwrap();
    let edited = t
        .patch_json_auth(&post_path(id), &alice, &json!({"content": "v2"}))
        .await;
    assert_eq!(edited.status(), 200);
    let changed = fetch(&t, SITE_ATOM, Some(&etag)).await;
    assert_eq!(changed.status(), 200);
    assert_ne!(header(changed.headers(), "etag"), etag);
    assert!(changed
        .text()
        .await
        .unwrap()
        .contains("&lt;p&gt;v2&lt;/p&gt;"));
}

#[tokio::test]
async fn topic_and_author_feeds() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (alice_id, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let rusty = t
        .create_post(
            &alice,
            &json!({"title": "Rust post", "content": "r", "topics": ["Public Transport"]}),
        )
        .await;
    let other = t
        .create_post(
            &bob,
            &json!({"title": "Bob's post", "content": "b", "topics": ["Cooking"]}),
        )
        .await;
    t.create_post(
        &alice,
        &json!({"title": "Alice's draft", "content": "d", "topics": ["Public Transport"], "status": "DRAFT"}),
    )
    .await;
    let base = t.url("");
    let path = "/api/v1/feeds/topics/public-transport.rss";
    let (rss, _) = document(&t, path, "application/rss+xml; charset=utf-8").await;
    let guids = validate_rss(&rss, &format!("{base}{path}"));
    assert_eq!(
        guids,
        vec![format!("urn:uuid:{}", rusty["id"].as_str().unwrap())]
    );
    assert_eq!(
        element(&rss, "title"),
        Some("Public Transport: community posts")
    );
    assert_eq!(
        element(&rss, "link"),
        Some(format!("{base}/community/topics/public-transport").as_str())
    );
    // By name too: it is slugged.
    let by_name = fetch(&t, "/api/v1/feeds/topics/Public%20Transport.atom", None).await;
    assert_eq!(by_name.status(), 200);
    let atom = by_name.text().await.unwrap();
    validate_atom(
        &atom,
        &format!("{base}/api/v1/feeds/topics/public-transport.atom"),
    );
    feed_rs::parser::parse(atom.as_bytes()).unwrap();

    let path = "/api/v1/feeds/authors/alice.atom";
    let (atom, _) = document(&t, path, "application/atom+xml; charset=utf-8").await;
    let ids = validate_atom(&atom, &format!("{base}{path}"));
    assert_eq!(
        ids,
        vec![format!("urn:uuid:{}", rusty["id"].as_str().unwrap())]
    );
    assert!(atom.contains("<title type=\"text\">Posts by alice tester</title>"));
    assert!(atom.contains(&format!("href=\"{base}/community/users/{alice_id}\"")));
    assert!(!atom.contains(other["id"].as_str().unwrap()));
    // Usernames are case-insensitive.
    let upper = fetch(&t, "/api/v1/feeds/authors/ALICE.rss", None).await;
    assert_eq!(upper.status(), 200);
    let rss = upper.text().await.unwrap();
    validate_rss(&rss, &format!("{base}/api/v1/feeds/authors/alice.rss"));
    let parsed = feed_rs::parser::parse(rss.as_bytes()).unwrap();
    assert_eq!(parsed.entries.len(), 1);
}

#[tokio::test]
async fn unknown_feeds_are_404() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    t.create_post(
        &alice,
        &json!({"title": "Only a draft", "content": "d", "status": "DRAFT", "topics": ["Draft Only"]}),
    )
    .await;
    for path in [
        "/api/v1/feeds/topics/no-such-topic.rss",
        "/api/v1/feeds/topics/---.atom",
        // A topic only a draft names is not public.
        "/api/v1/feeds/topics/draft-only.rss",
        "/api/v1/feeds/authors/nobody.atom",
        // A draft names no author's feed.
        "/api/v1/feeds/authors/alice.rss",
        "/api/v1/feeds/posts.json",
        "/api/v1/feeds/other.rss",
        "/api/v1/feeds/posts",
        "/api/v1/feeds/topics/.rss",
    ] {
        assert_reason_error(fetch(&t, path, None).await, 404).await;
    }
    let long = format!("/api/v1/feeds/authors/{}.rss", "a".repeat(201));
    assert_reason_error(fetch(&t, &long, None).await, 404).await;
    // The feeds are public: no token needed.
    assert_eq!(fetch(&t, SITE_RSS, None).await.status(), 200);
}
