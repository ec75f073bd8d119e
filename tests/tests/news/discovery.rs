//! Feed discovery, black-box through the local stack with sites served on loopback: a site's
//! address submitted follows its page's `<link rel="alternate">` (relative hrefs resolved),
//! then the usual paths; `POST /sources/discover` offers the choices; what is found nowhere is
//! a 400 naming `url`. (Links to private networks are refused as deployed, where they are not
//! allowed: `news::ingest` unit tests, since this stack allows loopback.)

use serde_json::{json, Value};
use stack_tests::content::{submit, ARTICLES, SOURCES};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer, ATOM};
use stack_tests::{assert_news_error, details, TestStack};

const DISCOVER: &str = "/api/content/sources/discover";

fn page(head: &str) -> FeedDocument {
    FeedDocument::html(format!(
        "<!doctype html><html><head><title>A blog</title>{head}</head><body><p>Hello</p></body></html>"
    ))
}

#[tokio::test]
async fn a_site_address_subscribes_the_first_feed_its_page_links_to() {
    let t = TestStack::start().await;
    let site = FeedServer::start().await;
    site.put(
        "/blog/",
        page(
            r#"<link rel="stylesheet" href="/style.css">
               <link rel="alternate" type="application/rss+xml" title="Posts" href="feeds/posts.xml">
               <link rel="alternate" type="application/atom+xml" href="/atom.xml">"#,
        ),
    );
    site.put(
        "/blog/feeds/posts.xml",
        FeedDocument::rss(generated_rss("Linked posts", 0, 3)),
    );
    site.put("/atom.xml", FeedDocument::atom(ATOM));
    let (_, token) = t.user("discoverer").await;

    let response = submit(&t, &token, &site.url("/blog/")).await;
    assert_eq!(response.status(), 201);
    let source: Value = response.json().await.unwrap();
    // The relative href, resolved against the page.
    assert_eq!(source["url"], site.url("/blog/feeds/posts.xml"));
    assert_eq!(source["title"], "Linked posts");
    let id = source["id"].as_str().unwrap();
    let articles = t.get_json(&format!("{ARTICLES}?sourceId={id}")).await;
    assert_eq!(articles["totalElements"], 3, "{articles}");
    // The second link was not needed.
    assert_eq!(site.hits("/atom.xml").full, 0);

    // The site's address again, or the feed's: the same source.
    for url in [site.url("/blog/"), site.url("/blog/feeds/posts.xml")] {
        let again = submit(&t, &token, &url).await;
        assert_eq!(again.status(), 200, "{url}");
        assert_eq!(again.json::<Value>().await.unwrap()["id"], id);
    }
    assert_eq!(site.hits("/blog/feeds/posts.xml").full, 1);
    assert_eq!(t.get_json(SOURCES).await.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_page_without_links_is_tried_at_the_usual_paths() {
    let t = TestStack::start().await;
    let site = FeedServer::start().await;
    site.put("/", page(""));
    // /feed, /rss and /atom.xml are missing; /feed.xml is a page; /rss.xml serves the feed.
    site.put("/feed.xml", page(""));
    site.put("/rss.xml", FeedDocument::rss(generated_rss("Usual", 0, 2)));
    let (_, token) = t.user("usual_paths").await;

    let response = submit(&t, &token, &site.url("/")).await;
    assert_eq!(response.status(), 201);
    let source: Value = response.json().await.unwrap();
    assert_eq!(source["url"], site.url("/rss.xml"));
    assert_eq!(site.hits("/feed.xml").full, 1);
    // The paths after the first that serves a feed are not asked for.
    assert_eq!(site.hits("/index.xml").full, 0);
}

#[tokio::test]
async fn discovery_offers_the_choices_and_stores_nothing() {
    let t = TestStack::start().await;
    let site = FeedServer::start().await;
    site.put(
        "/",
        page(
            r#"<base href="/news/">
               <link rel="alternate" type="application/rss+xml" title="Headlines" href="rss">
               <link rel="alternate" type="application/atom+xml" href="atom">
               <link rel="alternate" type="application/feed+json" title="JSON" href="https://json.example.org/feed.json">
               <link rel="alternate" type="application/rss+xml" href="rss">"#,
        ),
    );
    site.put("/bare/", page(""));
    // The usual paths are at the site's origin.
    site.put("/feed", FeedDocument::atom(ATOM));
    site.put("/only.xml", FeedDocument::rss(generated_rss("Only", 0, 1)));
    let (_, token) = t.user("chooser").await;

    let found = t
        .post_json_auth(DISCOVER, &token, &json!({ "url": site.url("/") }))
        .await;
    assert_eq!(found.status(), 200);
    assert_eq!(
        found.json::<Value>().await.unwrap(),
        json!({ "feeds": [
            { "url": site.url("/news/rss"), "title": "Headlines", "kind": "rss" },
            { "url": site.url("/news/atom"), "title": "Atom feed", "kind": "atom" },
            { "url": "https://json.example.org/feed.json", "title": "JSON", "kind": "json" },
        ]})
    );
    // The declared feeds are offered as named: none was fetched.
    assert_eq!(site.hits("/news/rss").full, 0);

    // A feed's own address answers itself.
    let itself = t
        .post_json_auth(DISCOVER, &token, &json!({ "url": site.url("/only.xml") }))
        .await;
    assert_eq!(
        itself.json::<Value>().await.unwrap(),
        json!({ "feeds": [{ "url": site.url("/only.xml"), "title": "Only", "kind": "rss" }] })
    );

    // A page naming none: the first usual path serving a feed, with its title.
    let usual = t
        .post_json_auth(DISCOVER, &token, &json!({ "url": site.url("/bare/") }))
        .await;
    let usual: Value = usual.json().await.unwrap();
    assert_eq!(usual["feeds"][0]["url"], site.url("/feed"));
    assert_eq!(usual["feeds"][0]["kind"], "atom");

    // Nothing was stored.
    assert_eq!(t.get_json(SOURCES).await, json!([]));
}

#[tokio::test]
async fn nothing_found_and_unreachable_are_told_apart() {
    let t = TestStack::start().await;
    let site = FeedServer::start().await;
    site.put("/", page(""));
    site.put(
        "/broken/",
        page(r#"<link rel="alternate" type="application/rss+xml" href="/gone.xml">"#),
    );
    let closed = format!("http://127.0.0.1:{}/", stack_tests::server::closed_port());
    let (_, token) = t.user("unlucky").await;

    for (route, path) in [(SOURCES, "/sources"), (DISCOVER, "/sources/discover")] {
        for (url, expected) in [
            (site.url("/"), "url: no feed found at this address"),
            (closed.clone(), "url: unreachable: "),
            (
                site.url("/missing"),
                "url: unreachable: the feed server answered with HTTP status 404",
            ),
        ] {
            let response = t
                .post_json_auth(route, &token, &json!({ "url": url }))
                .await;
            let error = assert_news_error(response, 400, path).await;
            assert!(
                details(&error).iter().any(|d| d.starts_with(expected)),
                "{route} {url}: {error}"
            );
        }
    }
    // A link that fails says why; discovery offers it as the page names it (unfetched).
    let offered = t
        .post_json_auth(DISCOVER, &token, &json!({ "url": site.url("/broken/") }))
        .await;
    assert_eq!(offered.status(), 200);
    assert_eq!(
        offered.json::<Value>().await.unwrap()["feeds"][0]["url"],
        site.url("/gone.xml")
    );
    let response = t
        .post_json_auth(SOURCES, &token, &json!({ "url": site.url("/broken/") }))
        .await;
    let error = assert_news_error(response, 400, "/sources").await;
    assert!(
        details(&error)
            .iter()
            .any(|d| d.contains("gone.xml: the feed server answered with HTTP status 404")),
        "{error}"
    );

    // Discovery takes a signed-in user and a url.
    let anonymous = t
        .post_json(DISCOVER, &json!({ "url": site.url("/") }))
        .await;
    assert_news_error(anonymous, 401, "/sources/discover").await;
    for body in [
        json!({}),
        json!({ "url": "ftp://example.org/" }),
        json!({ "url": "x".repeat(2049) }),
    ] {
        let response = t.post_json_auth(DISCOVER, &token, &body).await;
        let error = assert_news_error(response, 400, "/sources/discover").await;
        assert!(
            details(&error).iter().any(|d| d.starts_with("url: ")),
            "{body}: {error}"
        );
    }
    assert_eq!(t.get_json(SOURCES).await, json!([]));
}
