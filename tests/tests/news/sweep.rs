//! Retired sources: gone from every read at once, their rows removed by the SQS-driven sweep,
//! which survives being killed part-way and redelivery; sources nobody subscribes to are not
//! refreshed and go after the grace period; a retired source's URL submitted again is a
//! fresh source.

use std::time::Duration;

use news::store::SweepStep;
use news::sweep::{Sweeper, DEFAULT_SWEEP_BATCH};
use news::SourceSweep;
use serde_json::{json, Value};
use stack_tests::content::{
    self, article_items_of, content_store, feed_scheduler, feed_worker, ids, partition,
    source_sweeper, sqs_event, submitted_feed, subscribed_feed, SubmittedFeed, ARTICLES, TOPICS,
};
use stack_tests::feeds::{generated_rss, FeedDocument, Hits};
use stack_tests::{assert_news_error, TestStack};

/// Articles in the feeds of these tests: more than two sweep batches.
const ITEMS: usize = 60;

/// Waits (up to 20 s) until the source's partition and article items are all gone.
async fn wait_until_swept(t: &TestStack, id: &str) {
    for _ in 0..200 {
        if partition(t, &format!("SOURCE#{id}")).await.is_empty()
            && article_items_of(t, id).await.is_empty()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "source {id} not swept: {} rows, {} articles left",
        partition(t, &format!("SOURCE#{id}")).await.len(),
        article_items_of(t, id).await.len()
    );
}

/// Asserts that nothing of source `id` shows: the source, its articles in every list, by id
/// and among saved ones.
async fn assert_hidden(t: &TestStack, token: &str, id: &str, article_ids: &[String]) {
    assert_news_error(
        t.get(&content::source(id)).await,
        404,
        &format!("/sources/{id}"),
    )
    .await;
    let sources = t.get_json(content::SOURCES).await;
    assert!(
        !sources.as_array().unwrap().iter().any(|s| s["id"] == id),
        "{sources}"
    );
    assert_eq!(t.get_json(ARTICLES).await["totalElements"], 0);
    let by_source = t.get_json(&format!("{ARTICLES}?sourceId={id}")).await;
    assert_eq!(by_source["totalElements"], 0);
    assert_eq!(by_source["content"], json!([]));
    // In a personal feed too (its sources are read first, so the retired one adds nothing).
    let feed = t
        .get_json(&format!("{ARTICLES}?sourceId={id}&sourceId=another-source"))
        .await;
    assert_eq!(feed["totalElements"], 0, "{feed}");
    assert_eq!(feed["content"], json!([]), "{feed}");
    let by_topic = t
        .get_json(&format!("{ARTICLES}?topicId=tech&size=100"))
        .await;
    assert_eq!(by_topic["content"], json!([]), "{by_topic}");
    let first = &article_ids[0];
    assert_eq!(t.get(&format!("{ARTICLES}/{first}")).await.status(), 404);
    let saved = t
        .post_json_auth(
            &format!("{ARTICLES}/saved"),
            token,
            &json!({ "ids": article_ids }),
        )
        .await;
    assert_eq!(saved.status(), 200);
    assert_eq!(saved.json::<Value>().await.unwrap(), json!([]));
}

/// The articles of source `id`, all of them (at most 100).
async fn article_ids(t: &TestStack, id: &str) -> Vec<String> {
    ids(&t
        .get_json(&format!("{ARTICLES}?sourceId={id}&size=100"))
        .await)
}

#[tokio::test]
async fn the_last_subscriber_leaving_hides_everything_at_once_and_the_sweep_removes_it() {
    let SubmittedFeed {
        t,
        token,
        source_id: id,
        ..
    } = subscribed_feed(
        "leaver",
        "/leave.xml",
        FeedDocument::rss(generated_rss("Leave", 0, ITEMS)),
    )
    .await;
    let articles = article_ids(&t, &id).await;
    assert_eq!(articles.len(), ITEMS);

    let left = t.unsubscribe(&token, &id).await;
    assert_eq!(left.status(), 204);
    assert_hidden(&t, &token, &id, &articles).await;
    // The stack's poller runs the sweeper: every row goes, step by step, and the topics'
    // counts with them.
    wait_until_swept(&t, &id).await;
    assert_eq!(t.get_json(TOPICS).await, json!([]));
}

#[tokio::test]
async fn a_sweep_killed_part_way_and_redelivered_finishes_and_a_repeat_is_harmless() {
    let SubmittedFeed {
        t,
        user,
        token,
        source_id: id,
        ..
    } = subscribed_feed(
        "killed",
        "/killed.xml",
        FeedDocument::rss(generated_rss("Killed", 0, ITEMS)),
    )
    .await;
    let articles = article_ids(&t, &id).await;
    let store = content_store(&t).await;
    // The last subscriber leaves through the store: retired, but no sweep enqueued, so the
    // stack's own sweeper does not run.
    let left = store
        .unsubscribe(&id, user["id"].as_str().unwrap())
        .await
        .unwrap();
    assert!(left.source_deleted);
    assert_hidden(&t, &token, &id, &articles).await;

    // One step of a sweeper that is then killed: no next step enqueued, its message never
    // deleted. It left whole transactions: 10 articles gone with their rows, the rest intact.
    let killed = Sweeper::new(store.clone(), chrono::Duration::minutes(60), 10);
    assert_eq!(
        killed.step(&id).await.unwrap(),
        SweepStep::Swept { articles: 10 }
    );
    let rows = partition(&t, &format!("SOURCE#{id}")).await;
    let article_rows = rows
        .iter()
        .filter(|r| r["sk"].as_s().unwrap().starts_with("ART#"))
        .count();
    assert_eq!(article_rows, ITEMS - 10, "the article rows left");
    assert_eq!(article_items_of(&t, &id).await.len(), ITEMS - 10);
    assert_hidden(&t, &token, &id, &articles).await;

    // SQS redelivers the message: the real handler takes a step and enqueues the next, and
    // the stack's poller runs the rest.
    let sweeper = source_sweeper(&t).await;
    let message = SourceSweep::new(&id).to_json();
    let response = sweeper
        .handle(sqs_event(&[("m1", message.clone())]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    wait_until_swept(&t, &id).await;
    assert_eq!(t.get_json(TOPICS).await, json!([]));
    assert_eq!(t.get_json(ARTICLES).await["totalElements"], 0);

    // Delivered again (twice in one batch, too): nothing left to do, nothing fails.
    let response = sweeper
        .handle(sqs_event(&[("m2", message.clone()), ("m3", message)]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    assert!(partition(&t, &format!("SOURCE#{id}")).await.is_empty());
    assert_eq!(t.get_json(TOPICS).await, json!([]));
    let mut stored = 0;
    for shard in 0..8 {
        for total in partition(&t, &format!("STATS#{shard}")).await {
            stored += total["articleCount"]
                .as_n()
                .unwrap()
                .parse::<i64>()
                .unwrap();
            if let Some(retired) = total.get("retiredCount") {
                assert_eq!(retired.as_n().unwrap(), "0");
            }
        }
    }
    assert_eq!(
        stored, 0,
        "the counters of stored and retired articles back to 0"
    );
    assert_eq!(
        killed.step(&id).await.unwrap(),
        SweepStep::Finished,
        "a step after the end"
    );
}

#[tokio::test]
async fn sources_nobody_subscribes_to_are_not_refreshed_and_go_after_the_grace_period() {
    let SubmittedFeed {
        t,
        feeds,
        token,
        source_id: id,
        ..
    } = submitted_feed(
        "nobody",
        "/nobody.xml",
        FeedDocument::rss(generated_rss("Nobody", 0, 5)),
    )
    .await;
    let articles = article_ids(&t, &id).await;
    assert_eq!(articles.len(), 5);
    let now = chrono::Utc::now();

    // Not refreshed: the worker does not fetch it.
    let worker = feed_worker(&t).await;
    let response = worker
        .handle(sqs_event(&[("m1", news::FeedRefresh::new(&id).to_json())]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(
        feeds.hits("/nobody.xml"),
        Hits {
            full: 1,
            not_modified: 0
        },
        "only the submission fetched it"
    );

    // Within the grace period (60 minutes by default) it stays; after it, it is swept.
    // The scheduler's walk finds it once the grace period is over.
    let store = content_store(&t).await;
    let grace = chrono::Duration::minutes(60);
    let schedule = news::RefreshSchedule::new(store.clone());
    assert!(schedule
        .walk(None, 10, now, grace)
        .await
        .unwrap()
        .abandoned
        .is_empty());
    let later = now + chrono::Duration::minutes(61);
    assert_eq!(
        schedule
            .walk(None, 10, later, grace)
            .await
            .unwrap()
            .abandoned,
        vec![id.clone()]
    );
    let scheduler = feed_scheduler(&t).await;
    assert_eq!(scheduler.run(now).await.unwrap().sweeps, 0);
    let sweeper = Sweeper::new(store.clone(), grace, DEFAULT_SWEEP_BATCH);
    assert_eq!(sweeper.step_at(&id, now).await.unwrap(), SweepStep::Kept);
    assert_eq!(t.get(&content::source(&id)).await.status(), 200);
    assert_eq!(
        sweeper.step_at(&id, later).await.unwrap(),
        SweepStep::Swept { articles: 0 },
        "retired"
    );
    assert_hidden(&t, &token, &id, &articles).await;
    // The scheduler's rescue enqueues it once it has been retired a while; its step goes
    // through the stack's sweeper.
    assert_eq!(
        scheduler
            .run(later + chrono::Duration::minutes(15))
            .await
            .unwrap()
            .sweeps,
        1
    );
    wait_until_swept(&t, &id).await;
}

#[tokio::test]
async fn a_retired_source_is_gone_and_its_url_submitted_again_is_a_fresh_source() {
    let SubmittedFeed {
        t,
        feeds,
        user,
        token,
        source_id: id,
    } = subscribed_feed(
        "again",
        "/again.xml",
        FeedDocument::rss(generated_rss("Again", 0, ITEMS)),
    )
    .await;
    let store = content_store(&t).await;
    // Retired, its sweep one step in (and then lost).
    store
        .unsubscribe(&id, user["id"].as_str().unwrap())
        .await
        .unwrap();
    let partial = Sweeper::new(store.clone(), chrono::Duration::minutes(60), 10);
    assert_eq!(
        partial.step(&id).await.unwrap(),
        SweepStep::Swept { articles: 10 }
    );

    // Gone: no subscribing to it, through the users service or the content service.
    let path = format!("/users/me/subscriptions/{id}");
    assert_news_error(t.subscribe(&token, &id).await, 404, &path).await;
    let service = t.service_token().await;
    let member = format!("/api/content/sources/{id}/subscribers/someone");
    assert_eq!(t.post_auth(&member, &service).await.status(), 404);
    assert_eq!(t.delete_auth(&member, &service).await.status(), 404);

    // Submitting its URL again makes a fresh source: new, every entry back, countable.
    let url = feeds.url("/again.xml");
    let again = content::submit(&t, &token, &url).await;
    assert_eq!(again.status(), 201);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["id"], id.as_str());
    assert_eq!(again["subscriberCount"], 0);
    assert_eq!(article_ids(&t, &id).await.len(), ITEMS);
    assert_eq!(t.get_json(ARTICLES).await["totalElements"], ITEMS);
    assert_eq!(t.subscribe(&token, &id).await.status(), 200);

    // The old retirement's sweep, delivered late, leaves the fresh source alone.
    let response = source_sweeper(&t)
        .await
        .handle(sqs_event(&[("late", SourceSweep::new(&id).to_json())]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(article_items_of(&t, &id).await.len(), ITEMS);
    assert_eq!(t.get_json(ARTICLES).await["totalElements"], ITEMS);
    let topics = t.get_json(TOPICS).await;
    let counted: u64 = topics
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["articleCount"].as_u64().unwrap())
        .sum();
    assert_eq!(
        counted,
        2 * ITEMS as u64,
        "two topics per article: {topics}"
    );
}

#[tokio::test]
async fn unsubscribing_without_a_subscription_changes_nothing() {
    let SubmittedFeed {
        t,
        token,
        source_id: id,
        ..
    } = submitted_feed(
        "bystander",
        "/bystander.xml",
        FeedDocument::rss(generated_rss("Bystander", 0, 5)),
    )
    .await;
    // Nobody subscribes yet (the submitter's own step failed, say): another user, and a
    // service for a user who never subscribed, leave it as it is.
    let (_, other) = t.user("stranger").await;
    let response = t.unsubscribe(&other, &id).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["subscriberCount"], 0);
    let service = t.service_token().await;
    let member = format!("/api/content/sources/{id}/subscribers/never-subscribed");
    let response = t.delete_auth(&member, &service).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["deleted"], false);
    assert_eq!(body["subscriberCount"], 0);
    assert_eq!(t.get(&content::source(&id)).await.status(), 200);
    assert_eq!(article_ids(&t, &id).await.len(), 5);

    // With one subscriber, a non-subscriber leaving changes no count either.
    assert_eq!(t.subscribe(&token, &id).await.status(), 200);
    let response = t.delete_auth(&member, &service).await;
    assert_eq!(
        response.json::<Value>().await.unwrap()["subscriberCount"],
        1
    );
    assert_eq!(
        t.get_json(&content::source(&id)).await["subscriberCount"],
        1
    );
}
