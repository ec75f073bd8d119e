//! An article of an excerpt-only feed is summarised from the full text of its page (which
//! the feed worker reads after the submission): the prompt the model receives holds the
//! page's last paragraph, not only the feed's teaser.

use serde_json::{json, Value};
use stack_tests::content::{ids, submit_id, ARTICLES};
use stack_tests::feeds::{FeedDocument, FeedServer};
use stack_tests::genai::{ok_json, post, stack};
use stack_tests::llm::FakeLlm;

/// A saved magazine page of the extraction corpus (consent overlay, rail, related cards).
const PAGE: &str = include_str!("../../../shared/news/domain/tests/pages/20-science-bees.html");
const FIRST: &str = "In a small arena at a university laboratory, bumblebees have been filmed rolling tiny wooden balls around for no reward at all.";
const LAST: &str = "The team now plans to test whether bees that play are better at learning new tasks than bees that do not.";

#[tokio::test]
async fn the_summary_prompt_holds_the_full_text_of_an_excerpt_only_feed() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let feeds = FeedServer::start().await;
    let link = feeds.put("/science/bees-play.html", FeedDocument::html(PAGE));
    let url = feeds.put(
        "/science.xml",
        FeedDocument::rss(format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Field &amp; Lab</title>\
             <link>https://fieldandlab.example/</link><description>Science</description>\
             <item><title>Bumblebees learn to roll balls</title><link>{link}</link>\
             <guid>{link}</guid><pubDate>Thu, 26 Nov 2026 09:00:00 GMT</pubDate>\
             <description>Bees seem to play.</description></item></channel></rss>"
        )),
    );
    let (_, token) = t.user("curious").await;
    let source_id = submit_id(&t, &token, &url).await;
    let page = t
        .get_json(&format!("{ARTICLES}?sourceId={source_id}"))
        .await;
    let id = ids(&page).pop().expect("the article");
    // The submission stores the teaser; the stack's feed worker, sent the page, adds the text.
    let started = std::time::Instant::now();
    let article = loop {
        let article: Value = t.get_json(&format!("{ARTICLES}/{id}")).await;
        let has_text = article["paragraphs"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| p == FIRST));
        if has_text || started.elapsed() > std::time::Duration::from_secs(30) {
            break article;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    };
    let paragraphs = article["paragraphs"].as_array().expect("paragraphs");
    assert!(paragraphs.iter().any(|p| p == FIRST), "{article}");
    assert_eq!(article["summary"], "Bees seem to play.");

    llm.reply("Bumblebees roll balls for fun.");
    ok_json(post(&t, &t.url("/api/ai/summarize"), &json!({"articleId": id})).await).await;
    let prompt = llm.last_call().content_of("user");
    assert!(
        prompt.contains(LAST),
        "the full text reaches the model: {prompt}"
    );
    assert!(!prompt.contains("Trending now"), "{prompt}");
}
