//! Ingestion limits: the newest entries only, articles cut to fit DynamoDB's item limit, and
//! a feed whose entries cannot be stored backed off instead of retried forever. The emulator
//! does not enforce DynamoDB's limits, so these tests measure what the code writes.

use aws_sdk_dynamodb::types::AttributeValue;
use news::store::ARTICLE_ITEM_BUDGET;
use platform::dynamo::{item_size, MAX_ITEM_BYTES};
use serde_json::Value;
use stack_tests::content::{
    article_items_of, feed_worker, make_due, partition, sqs_event, subscribed_feed, SubmittedFeed,
    ARTICLES,
};
use stack_tests::feeds::{generated_rss, FeedDocument};

/// The story numbers of every article of source `id` (titles "Story number N ...").
async fn story_numbers(t: &stack_tests::TestStack, id: &str) -> Vec<usize> {
    let page = t
        .get_json(&format!("{ARTICLES}?sourceId={id}&size=100"))
        .await;
    let mut numbers: Vec<usize> = page["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            a["title"].as_str().unwrap()["Story number ".len()..]
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    numbers.sort_unstable();
    numbers
}

#[tokio::test]
async fn only_the_newest_entries_of_a_feed_are_stored() {
    // 130 entries, the later numbers the newer; the default cap is 100.
    let SubmittedFeed {
        t,
        feeds,
        source_id: id,
        ..
    } = subscribed_feed(
        "capped",
        "/capped.xml",
        FeedDocument::rss(generated_rss("Capped", 0, 130)),
    )
    .await;
    assert_eq!(story_numbers(&t, &id).await, (30..130).collect::<Vec<_>>());

    // A refresh with 5 newer entries stores those, and still none of the old ones.
    feeds.put(
        "/capped.xml",
        FeedDocument::rss(generated_rss("Capped", 0, 135)),
    );
    let worker = feed_worker(&t).await;
    let due = make_due(&t, &id).await;
    let response = worker
        .handle(sqs_event(&[(
            "m1",
            news::FeedRefresh::due(&id, &due).to_json(),
        )]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    let t_page = t.get_json(&format!("{ARTICLES}?sourceId={id}")).await;
    assert_eq!(t_page["totalElements"], 105);
    let numbers = story_numbers(&t, &id).await;
    assert_eq!(
        numbers.first(),
        Some(&35),
        "the 100 newest of 105: {numbers:?}"
    );
}

/// An RSS feed of `entries` entries, each a short paragraph, then one of `chars` copies of
/// "é日" (5 bytes each), then another short one.
fn heavy_rss(entries: usize, chars: usize) -> (String, String) {
    let heavy = "é日".repeat(chars);
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" \
         xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"><channel>\
         <title>Heavy</title><link>https://heavy.example.com/</link>",
    );
    for i in 0..entries {
        out.push_str(&format!(
            "<item><title>Heavy {i}</title><guid>heavy-{i}</guid>\
             <pubDate>Mon, 01 Sep 2025 10:{i:02}:00 +0000</pubDate><category>Long reads</category>\
             <content:encoded><![CDATA[<p>Opening of {i}.</p><p>{heavy}</p><p>Closing.</p>]]>\
             </content:encoded></item>"
        ));
    }
    out.push_str("</channel></rss>");
    (out, heavy)
}

#[tokio::test]
async fn oversized_articles_are_cut_to_fit_an_item_and_stored_in_bounded_transactions() {
    // Three entries of 600 KB of text each: every one over the 400 KB item limit, together
    // over a transaction's 4 MB... once cut, under both.
    let (document, heavy) = heavy_rss(3, 120_000);
    let SubmittedFeed {
        t, source_id: id, ..
    } = subscribed_feed("heavy", "/heavy.xml", FeedDocument::rss(document)).await;
    let items = article_items_of(&t, &id).await;
    assert_eq!(items.len(), 3);
    for item in &items {
        let size = item_size(item);
        assert!(size <= ARTICLE_ITEM_BUDGET, "{size} bytes");
        assert!(
            size < MAX_ITEM_BYTES - 40 * 1024,
            "a margin under the limit"
        );
        assert!(
            size > ARTICLE_ITEM_BUDGET - 16,
            "cut at the budget: {size} bytes"
        );
        let Some(AttributeValue::L(paragraphs)) = item.get("paragraphs") else {
            panic!("paragraphs");
        };
        let texts: Vec<&String> = paragraphs.iter().map(|p| p.as_s().unwrap()).collect();
        assert_eq!(texts.len(), 2, "the closing paragraph is left out");
        assert!(texts[0].starts_with("Opening of "));
        assert!(texts[1].len() > 300_000);
        assert!(
            heavy.starts_with(texts[1].as_str()),
            "cut on a character boundary"
        );
    }
    let page = t.get_json(&format!("{ARTICLES}?sourceId={id}")).await;
    let first = page["content"][0]["id"].as_str().unwrap().to_string();
    let article: Value = t.get_json(&format!("{ARTICLES}/{first}")).await;
    assert_eq!(article["paragraphs"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_poisoned_feed_is_backed_off() {
    let SubmittedFeed {
        t,
        feeds,
        source_id: id,
        ..
    } = subscribed_feed(
        "poisoned",
        "/poisoned.xml",
        FeedDocument::rss(generated_rss("Poisoned", 0, 3)),
    )
    .await;
    // Every shard of every topic counter is made unusable: storing any new entry fails,
    // every time.
    let db = t.dynamodb().await;
    for topic in ["world", "science", "tech", "business", "culture", "sport"] {
        for shard in 0..4 {
            db.put_item()
                .table_name(t.table("ContentTable"))
                .item(
                    "pk",
                    AttributeValue::S(format!("TOPIC#{topic}#COUNT#{shard}")),
                )
                .item("sk", AttributeValue::S("COUNT".into()))
                .item("articleCount", AttributeValue::S("not a number".into()))
                .send()
                .await
                .unwrap();
        }
    }
    feeds.put(
        "/poisoned.xml",
        FeedDocument::rss(generated_rss("Poisoned", 0, 6)),
    );

    let worker = feed_worker(&t).await;
    let due = make_due(&t, &id).await;
    let response = worker
        .handle(sqs_event(&[(
            "m1",
            news::FeedRefresh::due(&id, &due).to_json(),
        )]))
        .await
        .unwrap();
    assert!(
        response.batch_item_failures.is_empty(),
        "backed off, not retried through SQS"
    );
    let items = partition(&t, &format!("SOURCE#{id}")).await;
    let fetch = items
        .iter()
        .find(|i| i["sk"].as_s().unwrap() == "FETCH")
        .unwrap();
    assert_eq!(fetch["failures"].as_n().unwrap(), "1");
    assert_eq!(
        t.get_json(&format!("{ARTICLES}?sourceId={id}")).await["totalElements"],
        3,
        "nothing half-written"
    );

    // Not due again after the normal interval, only after the back-off (30 minutes).
    let next = chrono::DateTime::parse_from_rfc3339(fetch["nextFetchAt"].as_s().unwrap()).unwrap();
    let wait = next.with_timezone(&chrono::Utc) - chrono::Utc::now();
    assert!(
        wait > chrono::Duration::minutes(29) && wait <= chrono::Duration::minutes(30),
        "{wait}"
    );
}
