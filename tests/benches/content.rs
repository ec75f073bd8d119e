//! Content benchmarks against the emulator (not a test; prints figures):
//!
//! 1. ingestion: articles per second the feed worker's refresh parses and stores for a
//!    100-item feed (fetched from a loopback server), and parsing alone;
//! 2. DynamoDB calls per `GET /api/content/articles` (all, by source, by topic), counted on
//!    the store's client's transport, and the request's latency through the stack.
//!
//! Run: `local/bench` (starts its own emulator), or with an emulator already running:
//! `AWS_ENDPOINT_URL=http://127.0.0.1:4566 cargo bench -p stack-tests --bench content`.
// Bench code: a failed unwrap or assertion is how it stops, and printing is its output.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use news::fetch::{FeedFetcher, FetchConfig};
use news::ingest::Ingest;
use news::store::{ArticleFilter, ContentStore};
use platform::aws::{AwsClients, SharedTransport, Transport, TransportFuture};
use stack_tests::bench::{ms, percentile};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer};
use stack_tests::{Call, TestStack};

const ITEMS: usize = 100;
const ROUNDS: usize = 5;

/// Counts the requests one client sends (a retried call counts each attempt).
#[derive(Debug, Clone, Default)]
struct CallCounter(Arc<AtomicUsize>);

#[derive(Debug)]
struct Counting {
    inner: SharedTransport,
    counter: CallCounter,
}

impl Transport for Counting {
    fn send(&self, request: http::Request<bytes::Bytes>) -> TransportFuture {
        self.counter.0.fetch_add(1, Ordering::Relaxed);
        self.inner.send(request)
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let table = t.table("ContentTable");
    let counter = CallCounter::default();
    let aws = AwsClients::from_env_with(&platform::Env::from_process(), |inner| {
        Arc::new(Counting {
            inner,
            counter: counter.clone(),
        })
    });
    let store = ContentStore::new(
        platform::dynamo::Table::new(aws.dynamodb.clone(), table),
        platform::Clock::system(),
    );
    let fetcher = FeedFetcher::new(FetchConfig {
        allow_private_networks: true,
        ..FetchConfig::default()
    })
    .expect("fetcher");
    let refreshes = news::RefreshQueue::from_env(&t.env("NewsFeedWorkerFunction"), aws.sqs())
        .expect("feed queue");
    let pages =
        news::PageQueue::from_env(&t.env("NewsFeedWorkerFunction"), aws.sqs()).expect("page queue");
    let ingest = Ingest::new(store.clone(), fetcher, refreshes, pages);

    println!(
        "content benchmark ({} build)",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );

    // 1a. Parsing alone.
    let document = generated_rss("Bench", 0, ITEMS);
    let parse_runs = 50;
    let started = Instant::now();
    for _ in 0..parse_runs {
        let feed =
            news::parse_feed(document.as_bytes(), "http://127.0.0.1/bench.xml").expect("parse");
        assert_eq!(feed.entries.len(), ITEMS);
    }
    let parse = started.elapsed() / parse_runs;
    println!(
        "parse a {ITEMS}-item RSS feed ({} KiB): {:.2} ms, {:.0} articles/s",
        document.len() / 1024,
        ms(parse),
        ITEMS as f64 / parse.as_secs_f64()
    );

    // 1b. Fetch, parse and store a new 100-item feed, as a submit or first refresh does.
    let mut rounds = Vec::new();
    let mut calls = 0;
    for round in 0..ROUNDS {
        let url = feeds.put(
            &format!("/bench-{round}.xml"),
            FeedDocument::rss(document.clone()),
        );
        let before = counter.0.load(Ordering::Relaxed);
        let started = Instant::now();
        let (_, created) = ingest.submit(&url).await.expect("submit");
        rounds.push(started.elapsed());
        calls = counter.0.load(Ordering::Relaxed) - before;
        assert!(created);
    }
    // The emulator slows down as its tables grow (moto copies them for every transaction),
    // so each round is shown: the first is the one least dominated by the emulator.
    let per_round: Vec<String> = rounds
        .iter()
        .map(|d| format!("{:.0}", ITEMS as f64 / d.as_secs_f64()))
        .collect();
    rounds.sort();
    let median = percentile(&rounds, 50);
    println!(
        "fetch + parse + store {ITEMS} new articles: median {:.0} ms over {ROUNDS} feeds, {:.0} articles/s \
         (per feed, in order: {} articles/s), {calls} DynamoDB calls per feed",
        ms(median),
        ITEMS as f64 / median.as_secs_f64(),
        per_round.join(", ")
    );

    // 1c. A refresh of an unchanged feed (conditional GET answered 304).
    let source = store.sources().await.expect("sources").remove(0);
    let before = counter.0.load(Ordering::Relaxed);
    let started = Instant::now();
    // The refresh as its chain's message asks for it (due now, so not skipped).
    let report = ingest
        .refresh(&news::FeedRefresh::new(&source.id))
        .await
        .expect("refresh");
    println!(
        "refresh of an unchanged feed: {:.1} ms, not modified: {}, {} DynamoDB calls",
        ms(started.elapsed()),
        report.not_modified,
        counter.0.load(Ordering::Relaxed) - before
    );

    // 2. DynamoDB calls per GET /articles, and its latency through the stack.
    let topic = store.topics().await.expect("topics").remove(0);
    for (label, filter, query) in [
        ("all articles", ArticleFilter::default(), String::new()),
        (
            "by source",
            ArticleFilter {
                source_ids: vec![source.id.clone()],
                topic_id: None,
            },
            format!("sourceId={}&", source.id),
        ),
        (
            "by topic",
            ArticleFilter {
                source_ids: Vec::new(),
                topic_id: Some(topic.id.clone()),
            },
            format!("topicId={}&", topic.id),
        ),
    ] {
        for page in [0u32, 4] {
            let before = counter.0.load(Ordering::Relaxed);
            let window = news::PageRequest::parse(Some(page), Some(20))
                .expect("page")
                .window();
            let result = store
                .articles_page(&filter, &window, 20)
                .await
                .expect("page")
                .page;
            let used = counter.0.load(Ordering::Relaxed) - before;
            let url = t.url(&format!("/api/content/articles?{query}page={page}&size=20"));
            let mut latencies = Vec::new();
            for _ in 0..30 {
                let started = Instant::now();
                let response = t.http.get(&url).call().await;
                assert_eq!(response.status(), 200);
                response.bytes().await.expect("body");
                latencies.push(started.elapsed());
            }
            latencies.sort();
            println!(
                "GET /articles {label}, page {page} ({} of {}): {used} DynamoDB calls; p50 {:.1} ms, p90 {:.1} ms",
                result.content.len(),
                result.total_elements,
                ms(percentile(&latencies, 50)),
                ms(percentile(&latencies, 90)),
            );
        }
    }
}
