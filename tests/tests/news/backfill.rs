//! Articles stored before the lists were sharded lack their source's rows of each topic, so
//! a source's list of one topic missed them. The scheduler's walk starts a backfill of every
//! source not marked done, and each step (on the sweep queue) writes a bounded page of the
//! missing rows, each once: steps repeated or run twice count nothing twice.

use chrono::Utc;
use news::store::BackfillStep;
use news::SourceSweep;
use serde_json::Value;
use stack_tests::content::{
    content_store, feed_scheduler, ids, partition, source_sweeper, sqs_event, submitted_feed,
    ARTICLES,
};
use stack_tests::feeds::{generated_rss, FeedDocument};
use stack_tests::incidents::eventually;
use stack_tests::TestStack;

/// Makes source `id` as a source stored before the topic rows: its rows of each topic and
/// their counts gone, its counters without the done mark.
async fn make_legacy(t: &TestStack, id: &str) {
    let db = t.dynamodb().await;
    let table = t.table("ContentTable");
    let pk = format!("SOURCE#{id}");
    for item in partition(t, &pk).await {
        let sk = item["sk"].as_s().unwrap().clone();
        if sk.starts_with("T#") || sk.starts_with("TOPIC#") {
            db.delete_item()
                .table_name(&table)
                .key("pk", item["pk"].clone())
                .key("sk", item["sk"].clone())
                .send()
                .await
                .expect("delete");
        }
    }
    db.update_item()
        .table_name(&table)
        .key("pk", platform::dynamo::s(format!("{pk}#COUNTS")))
        .key("sk", platform::dynamo::s("COUNTS"))
        .update_expression("REMOVE topicRows")
        .send()
        .await
        .expect("unmark");
}

/// The source's list of topic `topic`: its ids and its total.
async fn of_topic(t: &TestStack, source: &str, topic: &str) -> (Vec<String>, Value) {
    let page = t
        .get_json(&format!(
            "{ARTICLES}?sourceId={source}&topicId={topic}&size=100"
        ))
        .await;
    (ids(&page), page["totalElements"].clone())
}

#[tokio::test]
async fn older_articles_join_their_sources_topic_lists_once() {
    let feed = submitted_feed(
        "backfiller",
        "/many.xml",
        FeedDocument::rss(generated_rss("many", 0, 30)),
    )
    .await;
    let (t, source) = (&feed.t, feed.source_id.as_str());
    let first = t
        .get_json(&format!("{ARTICLES}?sourceId={source}&size=1"))
        .await;
    let topic = first["content"][0]["topics"][0]["id"]
        .as_str()
        .expect("the generated articles have topics")
        .to_string();
    let (before, total) = of_topic(t, source, &topic).await;
    assert!(!before.is_empty(), "{total}");
    let scheduler = feed_scheduler(t).await;
    assert_eq!(
        scheduler.run(Utc::now()).await.unwrap().backfills,
        0,
        "new sources are done"
    );

    make_legacy(t, source).await;
    assert_eq!(
        of_topic(t, source, &topic).await.0,
        Vec::<String>::new(),
        "the gap"
    );

    // Steps of 7 source rows at a time, each a bounded page, then the mark.
    let store = content_store(t).await;
    let mut after: Option<String> = None;
    let (mut steps, mut written) = (0, 0);
    loop {
        steps += 1;
        assert!(steps < 20, "the backfill ends");
        match store
            .backfill_step(source, after.as_deref(), 7)
            .await
            .unwrap()
        {
            BackfillStep::Filled { rows, next } => {
                written += rows;
                after = Some(next);
            }
            BackfillStep::Finished { rows } => {
                written += rows;
                break;
            }
        }
    }
    assert_eq!(steps, 5, "30 source rows, 7 a step");
    assert_eq!(written, 60, "two topics an article");
    assert_eq!(
        of_topic(t, source, &topic).await,
        (before.clone(), total.clone())
    );

    // The scheduler's walk starts the backfill of a source not marked done, which the
    // sweep queue's poller runs.
    make_legacy(t, source).await;
    assert_eq!(scheduler.run(Utc::now()).await.unwrap().backfills, 1);
    let expected = (before.clone(), total.clone());
    eventually("the queued backfill", || async {
        (of_topic(t, source, &topic).await == expected).then_some(())
    })
    .await;
    // Again, whole, through the sweeper's queue handler and twice in one batch: nothing new.
    let body = SourceSweep::backfill(source, None).to_json();
    let sweeper = source_sweeper(t).await;
    let response = sweeper
        .handle(sqs_event(&[("a", body.clone()), ("b", body)]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(
        store.backfill_step(source, None, 100).await.unwrap(),
        BackfillStep::Finished { rows: 0 }
    );
    assert_eq!(of_topic(t, source, &topic).await, (before, total));
    assert_eq!(
        scheduler.run(Utc::now()).await.unwrap().backfills,
        0,
        "marked done"
    );
}
