//! Keeping feeds fresh: each source's chain of delayed refreshes, the feed worker refreshing
//! conditionally, never storing an article twice, dropping repeats of a refresh, backing a
//! failing feed off, and the scheduler walking a bounded page of sources a run.

use std::time::Duration;

use stack_tests::content::{
    feed_scheduler, feed_worker, fetch_item, ids, make_due, set_next_fetch, sqs_event,
    subscribed_feed, SubmittedFeed, ARTICLES, SOURCES,
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
    let due = make_due(&t, &id).await;
    let refresh = news::FeedRefresh::due(&id, &due).to_json();

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
    let due = make_due(&t, &id).await;
    let refresh = news::FeedRefresh::due(&id, &due).to_json();
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
    assert_eq!(
        feeds.hits("/news.xml"),
        Hits {
            full: 2,
            not_modified: 1
        },
        "the later delivery was a repeat of a refresh already recorded: not fetched"
    );
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
    let due = make_due(&t, &id).await;
    let response = worker
        .handle(sqs_event(&[(
            "m1",
            news::FeedRefresh::due(&id, &due).to_json(),
        )]))
        .await
        .expect("batch");
    assert!(
        response.batch_item_failures.is_empty(),
        "the back-off replaces SQS retries"
    );

    // Backed off: due again after 30 minutes, not the normal 15; the chain's next message
    // (due then) arriving early is only enqueued again, not fetched.
    let fetch = fetch_item(&t, &id).await;
    assert_eq!(fetch["failures"].as_n().unwrap(), "1");
    let next = fetch["nextFetchAt"].as_s().unwrap().clone();
    let wait = chrono::DateTime::parse_from_rfc3339(&next)
        .unwrap()
        .with_timezone(&chrono::Utc)
        - chrono::Utc::now();
    assert!(
        wait > chrono::Duration::minutes(29) && wait <= chrono::Duration::minutes(30),
        "{wait}"
    );
    let hits = feeds.hits("/flaky.xml");
    let response = worker
        .handle(sqs_event(&[(
            "m2",
            news::FeedRefresh::due(&id, &next).to_json(),
        )]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(feeds.hits("/flaky.xml"), hits, "not due yet: not fetched");
    assert_eq!(
        fetch_item(&t, &id).await["nextFetchAt"].as_s().unwrap(),
        &next
    );
    assert_eq!(
        t.get_json(&format!("{ARTICLES}?sourceId={id}")).await["totalElements"],
        3
    );
}

#[tokio::test]
async fn the_scheduler_walks_a_bounded_page_a_run_and_restarts_only_lost_chains() {
    let SubmittedFeed {
        t, source_id: id, ..
    } = subscribed_feed(
        "walked",
        "/walked.xml",
        FeedDocument::rss(generated_rss("Walked", 0, 4)),
    )
    .await;
    let (_, token) = t.user("walker").await;
    let feeds = stack_tests::feeds::FeedServer::start().await;
    let mut others = Vec::new();
    for n in 0..2 {
        let url = feeds.put(
            &format!("/other-{n}.xml"),
            FeedDocument::rss(generated_rss(&format!("Other {n}"), n * 10, 2)),
        );
        others.push(stack_tests::content::submit_id(&t, &token, &url).await);
    }
    // The first source's chain is lost: its next fetch two hours ago.
    let lost = platform::clock::rfc3339(chrono::Utc::now() - chrono::Duration::hours(2));
    set_next_fetch(&t, &id, &lost).await;

    // Two sources a run: three sources take two runs, whatever the list holds, and only the
    // lost chain is restarted; then the walk starts over.
    let scheduler = feed_scheduler(&t).await.with_page(2);
    let now = chrono::Utc::now();
    let first = scheduler.run(now).await.expect("run");
    let second = scheduler.run(now).await.expect("run");
    assert_eq!((first.walked, second.walked), (2, 1));
    assert_eq!(first.rescued + second.rescued, 1);
    assert_eq!(
        scheduler.run(now).await.expect("run").walked,
        2,
        "from the top"
    );

    // The rescue (no `due`) goes through the stack's poller to the worker, which refreshes
    // the source and puts it back on a chain.
    let mut next = String::new();
    for _ in 0..100 {
        next = fetch_item(&t, &id).await["nextFetchAt"]
            .as_s()
            .unwrap()
            .clone();
        if next.as_str() > platform::clock::rfc3339(chrono::Utc::now()).as_str() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        next.as_str() > platform::clock::rfc3339(chrono::Utc::now()).as_str(),
        "refreshed and rescheduled: {next}"
    );
}

#[tokio::test]
async fn a_refresh_writes_no_index_copy_and_no_unsharded_list_or_counter() {
    let SubmittedFeed {
        t,
        feeds,
        source_id: id,
        ..
    } = subscribed_feed(
        "metered",
        "/metered.xml",
        FeedDocument::rss(generated_rss("Metered", 0, 5)),
    )
    .await;
    let worker = feed_worker(&t).await;
    let table = t.table("ContentTable");
    let prefix = table.strip_suffix("ContentTable").unwrap();
    let meter = stack_tests::keyheat::Meter::start(&stack_tests::emulator(), prefix).await;
    let written = |uses: Vec<stack_tests::keyheat::KeyUse>| -> Vec<(String, String)> {
        uses.into_iter()
            .filter(|u| u.table == table && u.write_units > 0.0)
            .map(|u| (u.index, u.key))
            .collect()
    };

    // A first refresh (of every topic) makes the worker know the feed's topics (it creates a
    // topic's item once); then one that finds one new article.
    for items in [12, 13] {
        feeds.put(
            "/metered.xml",
            FeedDocument::rss(generated_rss("Metered", 0, items)),
        );
        if items == 13 {
            break;
        }
        let due = make_due(&t, &id).await;
        worker
            .handle(sqs_event(&[(
                "m0",
                news::FeedRefresh::due(&id, &due).to_json(),
            )]))
            .await
            .unwrap();
    }
    let due = make_due(&t, &id).await;
    meter.take().await;
    let response = worker
        .handle(sqs_event(&[(
            "m1",
            news::FeedRefresh::due(&id, &due).to_json(),
        )]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    let writes = written(meter.take().await);
    assert!(
        writes.iter().all(|(index, _)| index.is_empty()),
        "an index copy was written: {writes:?}"
    );
    let keys: Vec<&str> = writes.iter().map(|(_, k)| k.as_str()).collect();
    for shared in ["STATS", "ARTICLES"] {
        assert!(!keys.contains(&shared), "{shared} written: {keys:?}");
    }
    assert!(
        keys.iter()
            .filter(|k| k.starts_with("TOPIC#"))
            .all(|k| k.matches('#').count() == 3),
        "a topic's unsharded partition written: {keys:?}"
    );
    assert!(
        keys.iter().any(|k| k.starts_with("ARTICLES#2025#")),
        "{keys:?}"
    );
    assert!(keys.iter().any(|k| k.starts_with("STATS#")), "{keys:?}");
    assert_eq!(
        t.get_json(&format!("{ARTICLES}?sourceId={id}")).await["totalElements"],
        13
    );

    // A refresh that finds nothing (304): only the source's fetch bookkeeping, and the check
    // that the source is live.
    let due = make_due(&t, &id).await;
    meter.take().await;
    worker
        .handle(sqs_event(&[(
            "m2",
            news::FeedRefresh::due(&id, &due).to_json(),
        )]))
        .await
        .unwrap();
    let mut writes = written(meter.take().await);
    writes.sort();
    assert_eq!(
        writes,
        vec![
            (String::new(), format!("SOURCE#{id}")),
            (String::new(), format!("SOURCE#{id}#COUNTS")),
        ]
    );
}
