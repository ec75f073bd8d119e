//! Keeping feeds fresh: the scheduler enqueues due sources, the feed worker refreshes them
//! conditionally, never stores an article twice, and backs a failing feed off.

use std::time::Duration;

use serde_json::Value;
use stack_tests::content::{
    feed_scheduler, feed_worker, ids, sqs_event, subscribed_feed, SubmittedFeed, ARTICLES, SOURCES,
};
use stack_tests::feeds::{generated_rss, FeedDocument, Hits};

#[tokio::test]
async fn worker_refreshes_conditionally_and_redelivery_never_duplicates() {
    let SubmittedFeed {
        t,
        feeds,
        source_id: id,
        ..
    } = subscribed_feed(
        "wire",
        "/news.xml",
        FeedDocument::rss(generated_rss("Wire", 0, 10)),
    )
    .await;
    let articles = format!("{ARTICLES}?sourceId={id}&size=100");
    assert_eq!(t.get_json(&articles).await["totalElements"], 10);

    let worker = feed_worker(&t).await;
    let refresh = news::FeedRefresh::new(&id).to_json();

    // Unchanged feed: a conditional GET answered 304, nothing parsed or stored.
    let response = worker
        .handle(sqs_event(&[("m1", refresh.clone())]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(
        feeds.hits("/news.xml"),
        Hits {
            full: 1,
            not_modified: 1
        }
    );
    assert_eq!(t.get_json(&articles).await["totalElements"], 10);

    // A new edition with 5 more items, delivered twice in one batch and once more later.
    feeds.put("/news.xml", FeedDocument::rss(generated_rss("Wire", 0, 15)));
    let batch = sqs_event(&[("m2", refresh.clone()), ("m3", refresh.clone())]);
    let response = worker.handle(batch).await.expect("batch");
    assert!(response.batch_item_failures.is_empty());
    let response = worker
        .handle(sqs_event(&[("m4", refresh.clone())]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    let page = t.get_json(&articles).await;
    assert_eq!(page["totalElements"], 15, "no duplicates");
    let mut ids = ids(&page);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 15);
    assert_eq!(t.get_json(SOURCES).await[0]["title"], "Wire");

    // An unreadable message is a batch item failure (redelivered, then dead-lettered);
    // a message for a source that no longer exists is simply done.
    let response = worker
        .handle(sqs_event(&[
            ("junk", "not json".to_string()),
            (
                "gone",
                news::FeedRefresh::new("0123456789abcdef0123456789abcdef").to_json(),
            ),
        ]))
        .await
        .expect("batch");
    let failed: Vec<&str> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_str())
        .collect();
    assert_eq!(failed, vec!["junk"]);
}

#[tokio::test]
async fn a_failing_feed_is_backed_off() {
    let SubmittedFeed {
        t,
        feeds,
        source_id: id,
        ..
    } = subscribed_feed(
        "flaky",
        "/flaky.xml",
        FeedDocument::rss(generated_rss("Flaky", 0, 3)),
    )
    .await;
    feeds.put("/flaky.xml", FeedDocument::html("<html>maintenance</html>"));

    let worker = feed_worker(&t).await;
    let response = worker
        .handle(sqs_event(&[("m1", news::FeedRefresh::new(&id).to_json())]))
        .await
        .expect("batch");
    assert!(
        response.batch_item_failures.is_empty(),
        "the back-off replaces SQS retries"
    );

    // Backed off: not due even after the normal refresh interval.
    let scheduler = feed_scheduler(&t).await;
    let now = chrono::Utc::now();
    assert_eq!(
        scheduler
            .run(now + chrono::Duration::minutes(16))
            .await
            .expect("run"),
        0
    );
    assert_eq!(
        scheduler
            .run(now + chrono::Duration::minutes(31))
            .await
            .expect("run"),
        1
    );
    assert_eq!(
        t.get_json(&format!("{ARTICLES}?sourceId={id}")).await["totalElements"],
        3
    );
}

#[tokio::test]
async fn scheduler_enqueues_due_sources_for_the_worker() {
    let SubmittedFeed {
        t,
        feeds,
        source_id: id,
        ..
    } = subscribed_feed(
        "due",
        "/due.xml",
        FeedDocument::rss(generated_rss("Due", 0, 4)),
    )
    .await;

    let scheduler = feed_scheduler(&t).await;
    let now = chrono::Utc::now();
    assert_eq!(
        scheduler.run(now).await.expect("run"),
        0,
        "just fetched: not due"
    );

    // Due in 15 minutes: enqueued, and the stack's SQS poller hands it to the worker.
    feeds.put("/due.xml", FeedDocument::rss(generated_rss("Due", 0, 6)));
    assert_eq!(
        scheduler
            .run(now + chrono::Duration::minutes(16))
            .await
            .expect("run"),
        1
    );
    let articles = format!("{ARTICLES}?sourceId={id}");
    let mut total = Value::Null;
    for _ in 0..100 {
        total = t.get_json(&articles).await["totalElements"].clone();
        if total == 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(total, 6, "the worker stored the new items");
    assert_eq!(feeds.hits("/due.xml").full, 2);
}
