//! The news client's answers against the committed contract (`functions/web/openapi.json`):
//! a sample of each, serialized, is what the route's schema describes, and each route other
//! products call answers that schema. A field renamed in these types (which the news
//! function's handlers serialize and the callers read) fails here until the contract is
//! regenerated, and the stack's contract test fails then.

// Test code: a failed read or check is the test failing.
#![allow(clippy::expect_used, clippy::panic)]

use news_client::{Article, FullTextMode, Page, Source, TopicRef, Unsubscribed};
use platform::contract::{check_answer, check_sample, committed};
use serde_json::Value;

fn article(paragraphs: Option<Vec<String>>) -> Article {
    Article {
        id: "a1".into(),
        source_id: "s1".into(),
        source_title: "A feed".into(),
        title: "A headline".into(),
        link: Some("https://example.com/a1".into()),
        author: None,
        published_at: "2026-01-01T00:00:00.000Z".into(),
        summary: Some("What happened.".into()),
        paragraphs,
        topics: vec![TopicRef {
            id: "open-source".into(),
            name: "Open Source".into(),
        }],
        image_url: None,
    }
}

fn source(full_text: FullTextMode) -> Source {
    Source {
        id: "s1".into(),
        url: "https://example.com/feed".into(),
        title: "A feed".into(),
        site_url: Some("https://example.com".into()),
        description: None,
        subscriber_count: 2,
        last_fetched_at: Some("2026-01-01T00:00:00.000Z".into()),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        full_text,
    }
}

#[test]
fn articles_are_what_the_assistant_and_the_digests_read() {
    let doc = committed().expect("the committed contract");
    check_answer(&doc, "get", "/api/content/articles/{id}", "Article").expect("one article");
    check_answer(&doc, "get", "/api/content/articles", "Page_Article").expect("a page");
    check_sample(&doc, "Article", &article(Some(vec!["A paragraph.".into()])))
        .expect("Article as the contract says");
    let mut page = Page::new(vec![article(None)], 0, 100, 1);
    check_sample(&doc, "Page_Article", &page).expect("Page_Article as the contract says");
    page.next_cursor = Some("c".into());
    check_sample(&doc, "Page_Article", &page).expect("Page_Article as the contract says");
}

#[test]
fn subscriber_answers_are_what_identity_reads() {
    let doc = committed().expect("the committed contract");
    let subscribers = "/api/content/sources/{id}/subscribers/{userId}";
    check_answer(&doc, "post", subscribers, "Source").expect("subscribe");
    check_answer(&doc, "delete", subscribers, "Unsubscribed").expect("unsubscribe");
    for mode in [FullTextMode::On, FullTextMode::Off, FullTextMode::Auto] {
        check_sample(&doc, "Source", &source(mode)).expect("Source as the contract says");
    }
    check_sample(&doc, "Unsubscribed", &Unsubscribed::deleted("s1"))
        .expect("Unsubscribed as the contract says");
    check_sample(
        &doc,
        "Unsubscribed",
        &Unsubscribed::without_source("s1", 1, false),
    )
    .expect("Unsubscribed as the contract says");
    // A surviving source: every Source field, and the three of Unsubscribed.
    let Value::Object(mut remains) =
        serde_json::to_value(Unsubscribed::remaining(source(FullTextMode::Auto))).expect("json")
    else {
        panic!("an object");
    };
    let left: serde_json::Map<String, Value> = ["id", "subscriberCount", "deleted"]
        .into_iter()
        .filter_map(|k| Some((k.to_string(), remains.get(k)?.clone())))
        .collect();
    check_sample(&doc, "Unsubscribed", &left).expect("Unsubscribed as the contract says");
    remains.remove("deleted");
    check_sample(&doc, "Source", &remains).expect("Source as the contract says");
}
