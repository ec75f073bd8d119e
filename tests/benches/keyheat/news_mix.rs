//! News: feeds refreshed (one new article, or nothing), the scheduler's walk, the first page
//! of articles, and subscriptions churned.

use stack_tests::content::{feed_scheduler, feed_worker, make_due, sqs_event, submit_id, ARTICLES};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer};
use stack_tests::{Call, TestStack};

use super::{name, Bench};

pub(super) async fn news(b: &mut Bench, t: &TestStack) {
    let feeds = FeedServer::start().await;
    let (_, token) = t.user(&name("reader", 0)).await;
    let mut sources = Vec::new();
    for n in 0..16 {
        let path = format!("/{}.xml", name("feed", n));
        let url = feeds.put(
            &path,
            FeedDocument::rss(generated_rss(&name("Feed ", n), n * 100, 5)),
        );
        let id = submit_id(t, &token, &url).await;
        // A source nobody subscribes to is neither fetched nor kept.
        assert_eq!(t.subscribe(&token, &id).await.status(), 200);
        sources.push((path, id));
    }
    let worker = feed_worker(t).await;
    // Each refresh as its chain delivers it: the message due at the source's next fetch time,
    // made now (outside the measured runs).
    let refresh =
        |id: &str, due: &str| sqs_event(&[("m", news::FeedRefresh::due(id, due).to_json())]);
    let mut due = Vec::new();
    for (_, id) in &sources {
        due.push(make_due(t, id).await);
    }
    for ((_, id), due) in sources.iter().zip(&due) {
        worker.handle(refresh(id, due)).await.unwrap();
    }
    let mut due = Vec::new();
    for (_, id) in &sources {
        due.push(make_due(t, id).await);
    }
    let worker_ref = &worker;
    let feeds_ref = &feeds;
    let sources_ref = &sources;
    let due_ref = &due;
    let new_article = async move {
        for (n, ((path, id), due)) in sources_ref.iter().zip(due_ref).enumerate() {
            // The next edition: one story more.
            feeds_ref.put(
                path,
                FeedDocument::rss(generated_rss(&name("Feed ", n), n * 100, 6)),
            );
            worker_ref.handle(refresh(id, due)).await.unwrap();
        }
    };
    // 50M articles a day: 579 refreshes a second that find one new article.
    b.measure(
        "news",
        "refresh finding 1 new article",
        579.0,
        1e6,
        16,
        new_article,
    )
    .await;
    let mut due = Vec::new();
    for (_, id) in &sources {
        due.push(make_due(t, id).await);
    }
    let due_ref = &due;
    let nothing_new = async move {
        for ((_, id), due) in sources_ref.iter().zip(due_ref) {
            worker_ref.handle(refresh(id, due)).await.unwrap();
        }
    };
    // 1M sources every 15 minutes: 1,111 refreshes a second, most finding nothing new.
    b.measure(
        "news",
        "refresh finding nothing",
        1111.0,
        1e6,
        16,
        nothing_new,
    )
    .await;
    let scheduler = feed_scheduler(t).await;
    let count = sources.len();
    let run = async {
        // One run of the walk: a page of sources (all of these), none of them lost.
        let run = scheduler.run(chrono::Utc::now()).await.unwrap();
        assert_eq!(run.walked, count);
    };
    // Per source walked: a page of 1,000 sources a run, a run every 5 minutes (the
    // refreshes themselves are the chains' messages, measured above).
    b.measure(
        "news",
        "scheduler walk, per source",
        1000.0 / 300.0,
        1.0,
        count,
        run,
    )
    .await;
    b.measure_reads(
        t,
        "news",
        "first page of articles",
        20_000.0,
        &format!("{ARTICLES}?page=0&size=20"),
        20,
    )
    .await;
    let service = t.service_token().await;
    let popular = sources[0].1.clone();
    let churn = async {
        for n in 0..16 {
            let path = format!(
                "/api/content/sources/{popular}/subscribers/{}",
                name("member", n)
            );
            let joined = t.http.post(t.url(&path)).bearer_auth(&service).call().await;
            assert_eq!(joined.status(), 200);
            let left = t.delete_auth(&path, &service).await;
            assert_eq!(left.status(), 200);
        }
    };
    // A popular source: 200 joins and leaves a second.
    b.measure("news", "subscribe and unsubscribe", 200.0, 1.0, 32, churn)
        .await;
}
