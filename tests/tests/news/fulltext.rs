//! The full text of excerpt-only feeds: each new article's page fetched once by the page
//! reader (never by the feed worker), robots.txt honoured, its main text stored as the
//! article's paragraphs with the excerpt kept as the summary, and the per-source `fullText`
//! setting.

use serde_json::{json, Value};
use stack_tests::content::{
    content_store, feed_worker, ids, make_due, page_reader, source, sqs_event, submit_id,
    subscribed_feed, SubmittedFeed, ARTICLES,
};
use stack_tests::feeds::{FeedDocument, FeedServer};
use stack_tests::TestStack;
use stack_tests::{assert_news_error, details};

/// An article page as a news site serves it: navigation, a cookie banner, the story, related
/// links, comments and a footer around it.
fn article_page(title: &str, paragraphs: &[&str]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} | Harbour Gazette</title>
<script>window.dataLayer=[];</script><style>.nav a{{color:#333}}</style></head>
<body>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience.
 <button>Accept all cookies</button> <a href="/privacy">Manage preferences</a></div>
<header class="site-header"><nav class="nav"><a href="/">Home</a> <a href="/local">Local</a>
 <a href="/business">Business</a> <a href="/sport">Sport</a> <a href="/opinion">Opinion</a></nav></header>
<main><article class="story">
<h1>{title}</h1><p class="byline">By Morgan Ellery, 27 November 2026</p>
<div class="story-body">
{body}</div></article>
<aside class="related"><h3>Related stories</h3><ul>
<li><a href="/local/ferry-timetable">Winter ferry timetable published</a></li>
<li><a href="/business/fish-market">Fish market prices steady</a></li></ul></aside>
<section id="comments" class="comments"><h3>Comments (2)</h3>
<div class="comment">Great to see this finally happening. — Pat</div>
<div class="comment">About time the council listened. — Sam</div></section></main>
<footer class="site-footer"><p>Copyright 2026 Harbour Gazette. All rights reserved.</p>
<a href="/terms">Terms</a> <a href="/contact">Contact us</a></footer>
</body></html>"#
    )
}

const HARBOUR: [&str; 5] = [
    "The harbour board approved a twelve million plan on Tuesday to rebuild the north quay, whose timber piles have been failing since the storms of last winter.",
    "Engineers told the board that three of the quay's seven berths are already closed to vessels over forty metres, and that a fourth would close by spring without repairs.",
    "The plan replaces the timber with steel piles and a concrete deck, and adds shore power so that ferries can switch off their engines while they are alongside.",
    "Fishing crews, who lost most of their berths when the closures began, will get two of the rebuilt berths first, in a phased reopening that starts next August.",
    "Work is due to finish in the autumn of 2028, and the board said that the south quay would stay open throughout, with a temporary pontoon for the smaller boats.",
];

const SOLAR: [&str; 4] = [
    "When we put solar panels on the workshop roof last spring, the installer promised that they would cover about half of our electricity over a year.",
    "Twelve months of meter readings later, the panels covered sixty-one per cent, helped by a dry summer and by moving the kiln firings to the middle of the day.",
    "The battery was the part that disappointed: in winter it rarely filled, and the savings it brought would take longer than its warranty to pay it back.",
    "If we were doing it again, we would skip the battery, add four more panels on the east side, and spend the difference on insulating the drying room.",
];

fn rss(items: &[(&str, &str, &str)]) -> String {
    let items: String = items
        .iter()
        .enumerate()
        .map(|(n, (title, link, description))| {
            format!(
                "<item><title>{title}</title><link>{link}</link><guid>{link}</guid>\
                 <pubDate>Thu, 2{n} Nov 2026 09:00:00 GMT</pubDate>\
                 <description>{description}</description></item>"
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Harbour Gazette</title>\
         <link>https://gazette.example/</link><description>Local news</description>\
         {items}</channel></rss>"
    )
}

/// The article of the page of articles with this title, read by its id (with paragraphs).
async fn article_titled(t: &stack_tests::TestStack, source_id: &str, title: &str) -> Value {
    let page = t
        .get_json(&format!("{ARTICLES}?sourceId={source_id}&size=100"))
        .await;
    let found = page["content"]
        .as_array()
        .expect("content")
        .iter()
        .find(|a| a["title"] == title)
        .unwrap_or_else(|| panic!("no article {title}: {page}"));
    t.get_json(&format!("{ARTICLES}/{}", found["id"].as_str().expect("id")))
        .await
}

fn paragraphs(article: &Value) -> Vec<String> {
    article["paragraphs"]
        .as_array()
        .expect("paragraphs")
        .iter()
        .map(|p| p.as_str().expect("text").to_string())
        .collect()
}

/// The paragraphs of the article titled `title` once the stack's page reader has given it
/// its page's text (its first paragraph `first`), or what it has after 30 s.
async fn text_when_read(
    t: &stack_tests::TestStack,
    source_id: &str,
    title: &str,
    first: &str,
) -> Vec<String> {
    let started = std::time::Instant::now();
    loop {
        let text = paragraphs(&article_titled(t, source_id, title).await);
        if text.first().map(String::as_str) == Some(first)
            || started.elapsed() > std::time::Duration::from_secs(30)
        {
            return text;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

/// The messages on the stack's page queue (waiting up to `seconds` for the first), taken off it.
async fn page_queue_messages(t: &stack_tests::TestStack, seconds: u32) -> Vec<String> {
    let sqs = t.aws().await.sqs().client().clone();
    let url = t
        .env("NewsPageReaderFunction")
        .get("PAGE_QUEUE_URL")
        .expect("PAGE_QUEUE_URL")
        .to_string();
    let mut found = Vec::new();
    for _ in 0..seconds.max(1) {
        let out = sqs
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await
            .expect("receive");
        for message in out.messages.unwrap_or_default() {
            found.push(message.body.clone().expect("body"));
            sqs.delete_message()
                .queue_url(&url)
                .receipt_handle(message.receipt_handle.expect("receipt"))
                .send()
                .await
                .expect("delete");
        }
        if !found.is_empty() {
            break;
        }
    }
    found
}

#[tokio::test]
async fn an_excerpt_only_feed_gives_articles_with_their_full_text() {
    let long_body = "A long entry that carries its own text. ".repeat(30);
    let feed_items = |base: &str| {
        vec![
            (
                "Harbour board backs quay rebuild".to_string(),
                format!("{base}/2026/11/quay-rebuild.html"),
                "The north quay is to be rebuilt.".to_string(),
            ),
            (
                "A year of solar on the workshop".to_string(),
                format!("{base}/blog/solar-year.html"),
                "What the panels really did.".to_string(),
            ),
            (
                "Members only briefing".to_string(),
                format!("{base}/private/briefing.html"),
                "For members.".to_string(),
            ),
            (
                "A feed with its own text".to_string(),
                format!("{base}/2026/11/long.html"),
                long_body.clone(),
            ),
        ]
    };
    // The feed's URLs need the server's address: serve a placeholder first, then the feed.
    let SubmittedFeed {
        t,
        feeds,
        source_id,
        token,
        ..
    } = subscribed_feed(
        "reader",
        "/gazette.xml",
        FeedDocument::rss(rss(&[("Placeholder", "https://gazette.example/p", "x")])),
    )
    .await;
    let base = feeds.url("");
    let base = base.trim_end_matches('/');
    feeds.put(
        "/robots.txt",
        FeedDocument::html("User-agent: *\nDisallow: /private/\n"),
    );
    feeds.put(
        "/2026/11/quay-rebuild.html",
        FeedDocument::html(article_page("Harbour board backs quay rebuild", &HARBOUR)),
    );
    feeds.put(
        "/blog/solar-year.html",
        FeedDocument::html(article_page("A year of solar on the workshop", &SOLAR)),
    );
    feeds.put(
        "/private/briefing.html",
        FeedDocument::html(article_page("Members only briefing", &SOLAR)),
    );
    feeds.put(
        "/2026/11/long.html",
        FeedDocument::html(article_page("A feed with its own text", &HARBOUR)),
    );
    let items = feed_items(base);
    let items: Vec<(&str, &str, &str)> = items
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    feeds.put("/gazette.xml", FeedDocument::rss(rss(&items)));

    let worker = feed_worker(&t).await;
    let due = make_due(&t, &source_id).await;
    let refresh = news::FeedRefresh::due(&source_id, &due).to_json();
    let response = worker
        .handle(sqs_event(&[("m1", refresh)]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());

    // The refresh lists the pages and sends the page queue a message; the stack's page reader
    // writes their text into the stored articles.
    let text = text_when_read(
        &t,
        &source_id,
        "Harbour board backs quay rebuild",
        HARBOUR[0],
    )
    .await;
    let quay = article_titled(&t, &source_id, "Harbour board backs quay rebuild").await;
    assert_eq!(
        text.first().map(String::as_str),
        Some(HARBOUR[0]),
        "{text:?}"
    );
    assert_eq!(
        text.last().map(String::as_str),
        Some(HARBOUR[4]),
        "{text:?}"
    );
    let joined = text.join("\n");
    for boilerplate in ["cookies", "Related stories", "About time", "Copyright"] {
        assert!(
            !joined.contains(boilerplate),
            "{boilerplate} left in: {text:?}"
        );
    }
    assert_eq!(quay["summary"], "The north quay is to be rebuilt.");
    let solar = text_when_read(&t, &source_id, "A year of solar on the workshop", SOLAR[0]).await;
    assert_eq!(solar.last().map(String::as_str), Some(SOLAR[3]));
    let store = content_store(&t).await;
    let started = std::time::Instant::now();
    while !store
        .pending_pages(&source_id, 10)
        .await
        .expect("pending")
        .is_empty()
    {
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }

    // robots.txt refuses the page: the excerpt stays, and the page was never asked for.
    let private = article_titled(&t, &source_id, "Members only briefing").await;
    assert_eq!(paragraphs(&private), vec!["For members.".to_string()]);
    assert_eq!(feeds.hits("/private/briefing.html").full, 0);
    // `auto` leaves an entry with its own text alone.
    let long = article_titled(&t, &source_id, "A feed with its own text").await;
    assert_eq!(paragraphs(&long).join(" ").trim(), long_body.trim());
    assert_eq!(feeds.hits("/2026/11/long.html").full, 0);
    assert_eq!(feeds.hits("/robots.txt").full, 1, "robots.txt is cached");

    // A repeat of the refresh stores nothing new and fetches no page again.
    feeds.put(
        "/gazette.xml",
        FeedDocument::rss(format!("{} ", rss(&items))),
    );
    let due = make_due(&t, &source_id).await;
    worker
        .handle(sqs_event(&[(
            "m2",
            news::FeedRefresh::due(&source_id, &due).to_json(),
        )]))
        .await
        .expect("batch");
    assert_eq!(feeds.hits("/2026/11/quay-rebuild.html").full, 1);
    assert_eq!(feeds.hits("/blog/solar-year.html").full, 1);
    assert_eq!(
        ids(&t
            .get_json(&format!("{ARTICLES}?sourceId={source_id}&size=100"))
            .await)
        .len(),
        5,
        "the placeholder's article and the four of the feed"
    );
    assert_eq!(t.get_json(&source(&source_id)).await["fullText"], "auto");
    drop(token);
}

#[tokio::test]
async fn a_submitted_excerpt_feed_gets_its_pages_from_the_page_reader() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let base = feeds.url("");
    let base = base.trim_end_matches('/');
    feeds.put(
        "/2026/11/quay-rebuild.html",
        FeedDocument::html(article_page("Harbour board backs quay rebuild", &HARBOUR)),
    );
    let link = format!("{base}/2026/11/quay-rebuild.html");
    let url = feeds.put(
        "/excerpts.xml",
        FeedDocument::rss(rss(&[(
            "Harbour board backs quay rebuild",
            link.as_str(),
            "The north quay is to be rebuilt.",
        )])),
    );
    let (_, token) = t.user("pages").await;
    let store = content_store(&t).await;
    let before = std::time::Instant::now();
    let source_id = submit_id(&t, &token, &url).await;
    let next_fetch = store
        .source_for_fetch(&source_id)
        .await
        .expect("read")
        .expect("source")
        .1
        .next_fetch_at;

    // The submission answers without fetching the page; the stack's page reader, sent the
    // pages message, stores its text into the article.
    let mut text = Vec::new();
    while before.elapsed() < std::time::Duration::from_secs(30) {
        text =
            paragraphs(&article_titled(&t, &source_id, "Harbour board backs quay rebuild").await);
        if text.len() > 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert_eq!(
        text.first().map(String::as_str),
        Some(HARBOUR[0]),
        "{text:?}"
    );
    assert_eq!(feeds.hits("/2026/11/quay-rebuild.html").full, 1);
    assert!(store
        .pending_pages(&source_id, 10)
        .await
        .expect("pending")
        .is_empty());
    // The pages run is not a refresh: the source's chain keeps its next fetch time.
    let after = store
        .source_for_fetch(&source_id)
        .await
        .expect("read")
        .expect("source")
        .1;
    assert_eq!(after.next_fetch_at, next_fetch);
    assert_eq!(
        feeds.hits("/excerpts.xml").full,
        1,
        "the feed is not fetched again"
    );
}

/// The refresh of `source_id` due now, as the feed queue delivers it.
async fn due_refresh(t: &stack_tests::TestStack, source_id: &str) -> String {
    let due = make_due(t, source_id).await;
    news::FeedRefresh::due(source_id, &due).to_json()
}

/// An RSS feed of the week pages `weeks` (teasers only) at `base`.
fn weeks_feed(base: &str, weeks: impl Iterator<Item = usize>) -> String {
    let items: String = weeks
        .map(|n| {
            let link = format!("{base}/2026/11/quay-week-{n}.html");
            format!(
                "<item><title>Quay works, week {n}</title><link>{link}</link><guid>{link}</guid>\
                 <description>Week {n} of the works.</description></item>"
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Harbour Gazette</title>\
         <link>https://gazette.example/</link>{items}</channel></rss>"
    )
}

#[tokio::test]
async fn a_refreshs_pages_are_read_by_the_page_reader_whose_chain_drains_them_once() {
    // No queue pollers: the test takes each message off the page queue and hands it on.
    let t = TestStack::in_process(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let base = feeds.url("");
    let base = base.trim_end_matches('/').to_string();
    let url = feeds.put(
        "/backlog.xml",
        FeedDocument::rss(weeks_feed(&base, std::iter::empty())),
    );
    let (_, token) = t.user("backlog").await;
    let source_id = submit_id(&t, &token, &url).await;
    assert_eq!(t.subscribe(&token, &source_id).await.status(), 200);
    assert!(
        page_queue_messages(&t, 1).await.is_empty(),
        "no page listed"
    );

    let path = |n: usize| format!("/2026/11/quay-week-{n}.html");
    let title = |n: usize| format!("Quay works, week {n}");
    let weeks = 1..=15;
    for n in weeks.clone() {
        feeds.put(
            &path(n),
            FeedDocument::html(article_page(&title(n), &HARBOUR)),
        );
    }
    feeds.put(
        "/backlog.xml",
        FeedDocument::rss(weeks_feed(&base, weeks.clone())),
    );
    let fetched = || -> Vec<usize> { weeks.clone().map(|n| feeds.hits(&path(n)).full).collect() };
    let store = content_store(&t).await;
    let pages_message = news::ReadPages::new(&source_id).to_json();

    // The refresh stores the teasers and lists their pages, reads none, and sends the page
    // queue one pages message.
    let worker = feed_worker(&t).await;
    let response = worker
        .handle(sqs_event(&[("m1", due_refresh(&t, &source_id).await)]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(fetched(), vec![0; 15]);
    assert_eq!(
        store
            .pending_pages(&source_id, 100)
            .await
            .expect("left")
            .len(),
        15
    );
    assert_eq!(
        page_queue_messages(&t, 5).await,
        vec![pages_message.clone()]
    );

    // That message lost: a refresh answered 304 finds the listed pages and sends again.
    let response = worker
        .handle(sqs_event(&[("m2", due_refresh(&t, &source_id).await)]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    assert!(feeds.hits("/backlog.xml").full >= 2);
    assert_eq!(fetched(), vec![0; 15]);
    let sent = page_queue_messages(&t, 5).await;
    assert_eq!(sent, vec![pages_message.clone()]);

    // Delivered to two page readers at once: one message's room of pages, each claimed by
    // one of them and fetched once; pages remain, so each sends one more message.
    let (one, two) = (page_reader(&t).await, page_reader(&t).await);
    let (first, second) = tokio::join!(
        one.handle(sqs_event(&[("p1", pages_message.clone())])),
        two.handle(sqs_event(&[("p1", pages_message.clone())])),
    );
    assert!(first.expect("batch").batch_item_failures.is_empty());
    assert!(second.expect("batch").batch_item_failures.is_empty());
    assert_eq!(
        fetched().iter().sum::<usize>(),
        news::fulltext::MAX_PAGES_PER_REFRESH
    );
    assert!(fetched().iter().all(|hits| *hits <= 1), "{:?}", fetched());
    assert_eq!(
        store
            .pending_pages(&source_id, 100)
            .await
            .expect("left")
            .len(),
        5
    );
    let chained = page_queue_messages(&t, 5).await;
    assert!(!chained.is_empty(), "the chain goes on");
    assert!(chained.iter().all(|m| *m == pages_message), "{chained:?}");

    // The next message reads the rest; nothing is left, so the chain ends.
    let batch: Vec<(&str, String)> = chained.iter().map(|m| ("p2", m.clone())).collect();
    let response = one.handle(sqs_event(&batch)).await.expect("batch");
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(fetched(), vec![1; 15]);
    assert!(store
        .pending_pages(&source_id, 100)
        .await
        .expect("left")
        .is_empty());
    assert!(
        page_queue_messages(&t, 2).await.is_empty(),
        "the chain ended"
    );
    for n in weeks.clone() {
        let article = article_titled(&t, &source_id, &title(n)).await;
        let text = paragraphs(&article);
        assert_eq!(
            text.first().map(String::as_str),
            Some(HARBOUR[0]),
            "{n}: {text:?}"
        );
        assert_eq!(
            text.last().map(String::as_str),
            Some(HARBOUR[4]),
            "{n}: {text:?}"
        );
        assert_eq!(article["summary"], format!("Week {n} of the works."));
    }

    // A later refresh has no page to list and sends nothing.
    feeds.put(
        "/backlog.xml",
        FeedDocument::rss(format!("{} ", weeks_feed(&base, weeks.clone()))),
    );
    worker
        .handle(sqs_event(&[("m3", due_refresh(&t, &source_id).await)]))
        .await
        .expect("batch");
    assert!(page_queue_messages(&t, 2).await.is_empty());
    assert_eq!(fetched(), vec![1; 15]);
}

#[tokio::test]
async fn a_pages_message_still_on_the_feed_queue_is_forwarded_to_the_page_reader() {
    let t = TestStack::in_process(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let link = feeds.put(
        "/2026/11/quay-rebuild.html",
        FeedDocument::html(article_page("Harbour board backs quay rebuild", &HARBOUR)),
    );
    let url = feeds.put(
        "/forward.xml",
        FeedDocument::rss(rss(&[(
            "Harbour board backs quay rebuild",
            link.as_str(),
            "The north quay is to be rebuilt.",
        )])),
    );
    let (_, token) = t.user("forwarder").await;
    let source_id = submit_id(&t, &token, &url).await;
    // The submission's pages message goes to the page queue, not the feed queue.
    let pages_message = news::ReadPages::new(&source_id).to_json();
    assert_eq!(
        page_queue_messages(&t, 5).await,
        vec![pages_message.clone()]
    );

    // One sent to the feed queue before the page queue existed: forwarded as it is, unread.
    let old = news::FeedRefresh::pages(&source_id).to_json();
    assert_eq!(old, pages_message);
    let response = feed_worker(&t)
        .await
        .handle(sqs_event(&[("m1", old)]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(feeds.hits("/2026/11/quay-rebuild.html").full, 0);
    assert_eq!(store_pending(&t, &source_id).await, 1);
    let forwarded = page_queue_messages(&t, 5).await;
    assert_eq!(forwarded, vec![pages_message]);

    // The page reader reads it.
    let batch: Vec<(&str, String)> = forwarded.iter().map(|m| ("p1", m.clone())).collect();
    let response = page_reader(&t)
        .await
        .handle(sqs_event(&batch))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(feeds.hits("/2026/11/quay-rebuild.html").full, 1);
    assert_eq!(store_pending(&t, &source_id).await, 0);
    let quay = article_titled(&t, &source_id, "Harbour board backs quay rebuild").await;
    assert_eq!(
        paragraphs(&quay).first().map(String::as_str),
        Some(HARBOUR[0])
    );
}

/// How many of the source's pages are listed.
async fn store_pending(t: &TestStack, source_id: &str) -> usize {
    content_store(t)
        .await
        .pending_pages(source_id, 100)
        .await
        .expect("pending")
        .len()
}

#[tokio::test]
async fn the_full_text_setting_is_for_services_and_validated() {
    let SubmittedFeed {
        t,
        feeds,
        source_id,
        token,
        ..
    } = subscribed_feed(
        "settler",
        "/settings.xml",
        FeedDocument::rss(rss(&[("First", "https://gazette.example/first", "x")])),
    )
    .await;
    let path = format!("{}/settings", source(&source_id));
    let service = t.service_token().await;

    let as_user = t
        .put_json_auth(&path, &token, &json!({"fullText": "on"}))
        .await;
    assert_news_error(as_user, 403, &path.replace("/api/content", "")).await;
    for (body, detail) in [
        (
            json!({"fullText": "sometimes"}),
            "fullText: must be on, off or auto",
        ),
        (json!({}), "fullText: is required"),
    ] {
        let error = assert_news_error(
            t.put_json_auth(&path, &service, &body).await,
            400,
            &path.replace("/api/content", ""),
        )
        .await;
        assert_eq!(details(&error), vec![detail]);
    }
    let missing = "/api/content/sources/0123456789abcdef0123456789abcdef/settings";
    let response = t
        .put_json_auth(missing, &service, &json!({"fullText": "on"}))
        .await;
    assert_eq!(response.status(), 404);

    let off = t
        .put_json_auth(&path, &service, &json!({"fullText": "off"}))
        .await;
    assert_eq!(off.status(), 200);
    let off: Value = off.json().await.expect("json");
    assert_eq!(off["fullText"], "off");

    // Off: a new excerpt-only entry keeps its excerpt and its page is not fetched.
    let link = feeds.put(
        "/2026/11/quay-rebuild.html",
        FeedDocument::html(article_page("Harbour board backs quay rebuild", &HARBOUR)),
    );
    feeds.put(
        "/settings.xml",
        FeedDocument::rss(rss(&[(
            "Harbour board backs quay rebuild",
            &link,
            "The north quay is to be rebuilt.",
        )])),
    );
    let due = make_due(&t, &source_id).await;
    feed_worker(&t)
        .await
        .handle(sqs_event(&[(
            "m1",
            news::FeedRefresh::due(&source_id, &due).to_json(),
        )]))
        .await
        .expect("batch");
    let quay = article_titled(&t, &source_id, "Harbour board backs quay rebuild").await;
    assert_eq!(
        paragraphs(&quay),
        vec!["The north quay is to be rebuilt.".to_string()]
    );
    assert_eq!(feeds.hits("/2026/11/quay-rebuild.html").full, 0);
}
