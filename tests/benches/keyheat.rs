//! Key heat at the target scale (not a test; prints figures and fails on a hot key).
//!
//! Drives a workload mix of each system through the whole local stack, in-process against the
//! emulator, while the emulator meters every partition key of the stack's tables and indexes
//! in DynamoDB's capacity units (`local/emulator.py`, `stack_tests::keyheat`). Each scenario
//! runs a few dozen operations of one kind, waits for the background work they cause (queues,
//! indexers, processors) to settle, and scales what each key took to the scenario's target
//! rate. It prints each scenario's hottest keys, the hottest key of each system as a share of
//! a partition (3,000 read or 1,000 write units a second), and DynamoDB's on-demand request
//! cost of a month at target; it exits 1 when any key takes over half a partition.
//!
//! Targets: news, 1M sources refreshed every 15 min, 50M articles a day, 20k list
//! reads a second; community, 5M posts a day, a viral post read 10k and liked 5k times a
//! second, the feed 20k and search 2k a second; incidents, 1M logs a second from 10k services,
//! one service at 100k; recipes, 1M users creating 2k and reading 20k recipes a second.
//!
//! Run: `local/bench-keyheat [--only SYSTEM]` (it starts its own emulator).
// Bench code: a failed unwrap or assertion is how it stops, and printing is its output.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::time::{Duration, Instant};

use futures::StreamExt;
use incidents::escalation::Outcome;
use incidents_sweeper_function::IncidentsSweeper;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::community::{post_input, post_path, POSTS};
use stack_tests::content::{feed_scheduler, feed_worker, make_due, sqs_event, submit_id, ARTICLES};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer};
use stack_tests::genai::llm_parameters;
use stack_tests::incidents::{log, INCIDENTS};
use stack_tests::keyheat::{
    self, heat, monthly_cost, origin_rate, shared_max_age, units_per_second, KeyHeat, Meter,
    Scenario, REGIONAL_EDGE_CACHES,
};
use stack_tests::llm::FakeLlm;
use stack_tests::recipes::{pancakes, recipe_path};
use stack_tests::{emulator, header, Call, TestStack};

/// What one scenario measured.
struct Measured {
    scenario: Scenario,
    heat: Vec<KeyHeat>,
    reads_per_second: f64,
    writes_per_second: f64,
}

/// The shortest time a shared cache may keep the answers of a scenario's reads (None once
/// any answer is not cacheable).
#[derive(Default)]
struct Edge(RefCell<Option<Option<u32>>>);

impl Edge {
    fn saw(&self, response: &reqwest::Response) {
        let seconds = shared_max_age(header(response.headers(), "cache-control"));
        let mut kept = self.0.borrow_mut();
        *kept = Some(match *kept {
            None => seconds,
            Some(before) => before.zip(seconds).map(|(a, b)| a.min(b)),
        });
    }

    fn seconds(&self) -> Option<u32> {
        self.0.borrow().flatten()
    }
}

struct Bench {
    meter: Meter,
    prefix: String,
    results: Vec<Measured>,
}

impl Bench {
    /// Runs `work` (which makes `ops` operations), waits for what it queued to settle, and
    /// records the scenario.
    async fn measure<F: Future<Output = ()>>(
        &mut self,
        system: &'static str,
        name: &'static str,
        target_per_second: f64,
        spread: f64,
        ops: usize,
        work: F,
    ) {
        let (uses, elapsed) = self.run(work).await;
        let scenario = Scenario {
            system,
            name,
            target_per_second,
            spread,
            ops,
        };
        println!(
            "\n{system} / {name}: {ops} operations in {elapsed:.1} s; at {target_per_second} a second:"
        );
        self.record(scenario, &uses);
    }

    /// [`Self::measure`] for `ops` anonymous GETs of `path`, which readers ask for
    /// `readers_per_second` times a second: the origin takes what a CDN in front of it (the
    /// template's EdgeCache) passes on, per the answers' `Cache-Control`.
    async fn measure_reads(
        &mut self,
        t: &TestStack,
        system: &'static str,
        name: &'static str,
        readers_per_second: f64,
        path: &str,
        ops: usize,
    ) {
        let edge = Edge::default();
        let reads = async {
            for _ in 0..ops {
                let answer = t.get(path).await;
                assert_eq!(answer.status(), 200, "GET {path}");
                edge.saw(&answer);
            }
        };
        let (uses, elapsed) = self.run(reads).await;
        let seconds = edge.seconds();
        let origin = origin_rate(readers_per_second, 1, seconds);
        let scenario = Scenario {
            system,
            name,
            target_per_second: origin,
            spread: 1.0,
            ops,
        };
        let kept = seconds.map_or("not cacheable".to_string(), |s| {
            format!("kept {s} s by {REGIONAL_EDGE_CACHES} regional edge caches")
        });
        println!(
            "\n{system} / {name}: {ops} operations in {elapsed:.1} s; {readers_per_second} readers \
             a second, {kept}: {origin:.1} a second at the origin:"
        );
        self.record(scenario, &uses);
    }

    /// Runs `work` and lets it settle, unmeasured: what the target's steady state has done
    /// long before (a service's first log, an incident's opening).
    async fn warm_up<T, F: Future<Output = T>>(&mut self, work: F) {
        self.run(async {
            work.await;
        })
        .await;
    }

    async fn run<F: Future<Output = ()>>(&mut self, work: F) -> (Vec<keyheat::KeyUse>, f64) {
        self.meter.take().await;
        let started = Instant::now();
        work.await;
        let uses = self.settle().await;
        (uses, started.elapsed().as_secs_f64())
    }

    fn record(&mut self, scenario: Scenario, uses: &[keyheat::KeyUse]) {
        let prefix = self.prefix.clone();
        let heat = heat(&scenario, uses, |table| {
            table.strip_prefix(&prefix).unwrap_or(table).to_string()
        });
        let (reads_per_second, writes_per_second) = units_per_second(&scenario, uses);
        println!("  {reads_per_second:.0} read and {writes_per_second:.0} write units a second");
        for key in heat.iter().take(4) {
            print_key(key);
        }
        self.results.push(Measured {
            scenario,
            heat,
            reads_per_second,
            writes_per_second,
        });
    }

    /// What the keys took, once nothing has been charged for a second and a half (the queues'
    /// workers done), or after 30 s.
    async fn settle(&self) -> Vec<keyheat::KeyUse> {
        let mut all: BTreeMap<(String, String, String), keyheat::KeyUse> = BTreeMap::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut quiet = 0;
        while Instant::now() < deadline && quiet < 3 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let fresh = self.meter.take().await;
            quiet = if fresh.is_empty() { quiet + 1 } else { 0 };
            for u in fresh {
                let row = all
                    .entry((u.table.clone(), u.index.clone(), u.key.clone()))
                    .or_insert_with(|| keyheat::KeyUse {
                        read_units: 0.0,
                        write_units: 0.0,
                        reads: 0,
                        writes: 0,
                        ..u.clone()
                    });
                row.read_units += u.read_units;
                row.write_units += u.write_units;
                row.reads += u.reads;
                row.writes += u.writes;
            }
        }
        all.into_values().collect()
    }
}

fn print_key(key: &KeyHeat) {
    let index = if key.index.is_empty() {
        String::new()
    } else {
        format!(" {}", key.index)
    };
    println!(
        "  {:>7.1}%{} {}{index} {} ({}): {:.1} RCU/s, {:.1} WCU/s",
        key.share() * 100.0,
        if key.hot() { " HOT" } else { "    " },
        key.table,
        key.class,
        key.key,
        key.reads_per_second,
        key.writes_per_second
    );
}

fn name(kind: &str, n: usize) -> String {
    format!("kh{kind}{n:06}")
}

async fn recipes(b: &mut Bench, t: &TestStack) {
    let mut cooks = Vec::new();
    for n in 0..8 {
        cooks.push(t.cook(&name("cook", n)).await);
    }
    let mut ids = Vec::new();
    let creates = async {
        for _ in 0..5 {
            for cook in &cooks {
                ids.push((cook.clone(), t.create_recipe(cook, &pancakes()).await));
            }
        }
    };
    // 1M users making 2,000 recipes a second.
    b.measure("recipes", "create a recipe", 2000.0, 1e6, 40, creates)
        .await;
    for (cook, id) in &ids {
        assert_eq!(t.get_auth(&recipe_path(id), cook).await.status(), 200);
    }
    let reads = async {
        for (cook, id) in &ids {
            assert_eq!(t.get_auth(&recipe_path(id), cook).await.status(), 200);
        }
    };
    // Read again within minutes of the last reading: the steady state of 20,000 a second.
    b.measure("recipes", "read a recipe again", 20_000.0, 1e6, 40, reads)
        .await;
}

async fn news(b: &mut Bench, t: &TestStack) {
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

async fn community(b: &mut Bench, t: &TestStack) {
    let mut members = Vec::new();
    for n in 0..8 {
        members.push(t.member(&name("member", n)).await.1);
    }
    let mut posts = Vec::new();
    let creates = async {
        for round in 0..2 {
            for token in &members {
                let input = post_input(&format!("Bench post {round} on coffee"), &["kh-bench"]);
                posts.push(
                    t.create_post(token, &input).await["id"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                );
            }
        }
    };
    // 5M posts a day from a million members, indexed for search.
    b.measure("community", "create a post", 58.0, 1e6, 16, creates)
        .await;
    let viral = posts[0].clone();
    // Its readers' pages: the read through the CDN, and one view beacon per page open.
    b.measure_reads(
        t,
        "community",
        "read a viral post",
        10_000.0,
        &post_path(&viral),
        40,
    )
    .await;
    // At 10,000 views a second the view counter's batches are always full (500), and a
    // post's views of a batch are one write of it: the run sends its views close together.
    let mut readers = Vec::new();
    for n in 0..198 {
        readers.push(t.member(&name("viewer", n)).await.1);
    }
    let viral_ref = &viral;
    let views = async {
        let views_path = format!("{}/views", post_path(viral_ref));
        futures::stream::iter(&readers)
            .map(|token| async {
                assert_eq!(t.post_auth(&views_path, token).await.status(), 202);
            })
            .buffer_unordered(99)
            .collect::<Vec<()>>()
            .await;
        // Counted: the view counter's batching window can outlast the settle's quiet spell.
        queue_drained(t, "COMMUNITY_VIEW_QUEUE_URL").await;
    };
    // 10,000 page opens a second, from a million members.
    b.measure("community", "view a viral post", 10_000.0, 1e6, 198, views)
        .await;
    // At 5,000 likes a second the reaction counter's batches are full too: the run sends its
    // likes close together, and waits for them to be counted onto the post.
    let likers: Vec<String> = readers.clone();
    let likes = async {
        futures::stream::iter(&likers)
            .map(|token| async {
                assert_eq!(t.react(viral_ref, token, "LIKE").await.status(), 200);
            })
            .buffer_unordered(50)
            .collect::<Vec<()>>()
            .await;
        queue_drained(t, "COMMUNITY_REACTION_QUEUE_URL").await;
    };
    // 5,000 likes a second on one post, from a million members.
    b.measure("community", "like a viral post", 5000.0, 1e6, 198, likes)
        .await;
    b.measure_reads(
        t,
        "community",
        "first page of posts",
        20_000.0,
        &format!("{POSTS}?page=0&size=20"),
        20,
    )
    .await;
    // One common term's first page: 2,000 a second.
    b.measure_reads(
        t,
        "community",
        "search a common term",
        2000.0,
        "/api/v1/posts/search?q=coffee",
        20,
    )
    .await;
}

/// Waits until the community function's queue `variable` is empty: every message counted.
async fn queue_drained(t: &TestStack, variable: &str) {
    use aws_sdk_sqs::types::QueueAttributeName;
    let sqs = aws_sdk_sqs::Client::new(&platform::aws::sdk_config(&platform::Env::from_process()));
    let queue_url = t
        .env("CommunityFunction")
        .get(variable)
        .expect("the queue")
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let attributes = sqs
            .get_queue_attributes()
            .queue_url(&queue_url)
            .attribute_names(QueueAttributeName::ApproximateNumberOfMessages)
            .attribute_names(QueueAttributeName::ApproximateNumberOfMessagesNotVisible)
            .send()
            .await
            .expect("queue attributes")
            .attributes
            .unwrap_or_default();
        if attributes.values().all(|v| v == "0") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{variable} never drained: {attributes:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn batch(services: &[String], size: usize, severity_of: &impl Fn(usize) -> &'static str) -> Value {
    Value::Array(
        (0..size)
            .map(|i| {
                let service = &services[i % services.len()];
                log(
                    service,
                    severity_of(i),
                    &format!("request {i} served in 12 ms"),
                )
            })
            .collect(),
    )
}

/// What the logs bucket holds: objects and their bytes (the logs and their indexes).
async fn log_objects(t: &TestStack, bucket: &str) -> (usize, i64) {
    let s3 = t.aws().await.s3();
    let (mut objects, mut bytes) = (0, 0);
    for prefix in [incidents::objects::PREFIX, incidents::objects::INDEX_PREFIX] {
        let mut token: Option<String> = None;
        loop {
            let out = s3
                .client()
                .list_objects_v2()
                .bucket(bucket)
                .prefix(prefix)
                .set_continuation_token(token.clone())
                .send()
                .await
                .unwrap();
            objects += out.contents().len();
            bytes += out.contents().iter().filter_map(|o| o.size()).sum::<i64>();
            token = out.next_continuation_token().map(str::to_string);
            if token.is_none() {
                break;
            }
        }
    }
    (objects, bytes)
}

/// Logs a processor batch carries at target (the SQS batch of the template's event source):
/// the bench's own batches are smaller (the few ingest calls of a scenario).
const TARGET_LOGS_PER_BATCH: f64 = 12_500.0;

/// The S3 side of an incidents scenario: the objects `logs` logs took (every one a PUT, and
/// the processor makes no other S3 request), scaled per log to `target` logs a second (an
/// upper bound: the bench's batches are smaller than at target), and as batches of 12,500
/// at target write them (one object per bucket touched and minute, per type present and
/// minute, and per indexed severity present: WARN, ERROR, FATAL); the month's cost of
/// the latter, with 30 days of the measured bytes a log stored.
async fn s3_figures(
    t: &TestStack,
    bucket: &str,
    before: (usize, i64),
    logs: f64,
    target: f64,
    per_batch: f64,
) -> f64 {
    let after = log_objects(t, bucket).await;
    let (objects, bytes) = ((after.0 - before.0) as f64, (after.1 - before.1) as f64);
    let per_log = objects / logs * target;
    let at_target = target / TARGET_LOGS_PER_BATCH * per_batch;
    let stored_gb = bytes / logs * target * keyheat::SECONDS_PER_MONTH / 1e9;
    let cost = keyheat::s3_monthly_cost(at_target, 0.0, stored_gb);
    println!(
        "  S3: {objects} objects ({bytes} B) for {logs} logs; at target {per_log:.0} PUT/s scaled \
         per log, {at_target:.0} PUT/s in batches of {TARGET_LOGS_PER_BATCH} logs of {per_batch} \
         objects each; {stored_gb:.0} GB kept (30 days); ${cost:.0} a month"
    );
    cost
}

/// Logs in one processor batch at target (`IncidentsProcessorFunction`: 50 messages).
const TARGET_BATCH_LOGS: usize = 12_500;

/// [`TARGET_BATCH_LOGS`] logs from `services`, sent 500 a request, all at once.
async fn full_batch(t: &TestStack, services: &[String], severity: impl Fn(usize) -> &'static str) {
    let requests: Vec<Value> = (0..TARGET_BATCH_LOGS / 500)
        .map(|_| batch(services, 500, &severity))
        .collect();
    futures::stream::iter(&requests)
        .map(|logs| t.ingest_ok(logs))
        .buffer_unordered(25)
        .collect::<Vec<_>>()
        .await;
}

async fn incidents(b: &mut Bench, t: &TestStack) {
    let bucket = t
        .env("IncidentsProcessorFunction")
        .get("LOGS_BUCKET")
        .unwrap()
        .to_string();
    let many: Vec<String> = (0..20).map(|n| name("svc", n)).collect();
    let severity = |i: usize| {
        if i.is_multiple_of(50) {
            "ERROR"
        } else {
            "INFO"
        }
    };
    // The target is a steady state: its 10,000 services known and their incidents open. A
    // service's first log and a fingerprint's first ERROR are one-offs, not a rate, so each
    // scenario's services send a batch before it is measured.
    b.warm_up(t.ingest_ok(&batch(&many, 500, &severity))).await;
    let start = log_objects(t, &bucket).await;
    // A processor batch at target holds 50 messages of 250 logs, 12,500 logs; the run sends
    // that many at once so its per-batch writes (metrics, counts) scale as they would.
    let spread_out = full_batch(t, &many, severity);
    // 1M logs a second from 10,000 services (1 in 50 an ERROR).
    b.measure(
        "incidents",
        "logs from many services",
        1e6,
        1e4,
        TARGET_BATCH_LOGS,
        spread_out,
    )
    .await;
    // Objects a batch writes: its 16 buckets, the ERROR index and its one type's index.
    let mut s3 = s3_figures(t, &bucket, start, TARGET_BATCH_LOGS as f64, 1e6, 18.0).await;
    let one = vec![name("noisy", 0)];
    b.warm_up(t.ingest_ok(&batch(&one, 500, &severity))).await;
    let start = log_objects(t, &bucket).await;
    let noisy = full_batch(t, &one, severity);
    // One service sending 100,000 a second.
    b.measure(
        "incidents",
        "logs from one noisy service",
        1e5,
        1.0,
        TARGET_BATCH_LOGS,
        noisy,
    )
    .await;
    s3 += s3_figures(t, &bucket, start, TARGET_BATCH_LOGS as f64, 1e5, 3.0).await;
    println!("\nincidents: S3 (log objects) a month at target: ${s3:.0}");
    incident_changes(b, t).await;
    escalations(b, t).await;
}

/// Escalations due a second at target: as many as incident changes, far above what
/// unacknowledged incidents come to.
const TARGET_ESCALATIONS: f64 = 100.0;
/// Incidents the escalation scenario escalates.
const ESCALATED_INCIDENTS: usize = 20;
const CHANNELS: &str = "/api/v1/notifications/channels";

/// A step of an escalation chain, nobody acknowledging: the sweeper queries the due rows of
/// gsi1 `ESCALATIONS` (one partition for every incident, by due time), deletes each with its
/// `Incident Escalated` outbox row, the event is published and sent to the next channel, and
/// the notifier schedules that channel's own escalation (a new `ESCALATIONS` row).
async fn escalations(b: &mut Bench, t: &TestStack) {
    let token = t.operator("keyheat-escalation").await.1;
    let channel = |body: Value| {
        let token = token.clone();
        async move {
            let answer = t.post_json_auth(CHANNELS, &token, &body).await;
            assert_eq!(answer.status(), 201, "channel {body}");
            answer.json::<Value>().await.unwrap()
        }
    };
    // On call escalates after a minute to the secondary, which escalates after 5 to the
    // manager. One FATAL from each of 20 services opens 20 incidents (the default rule's
    // threshold is 1), each notified to on call and due to escalate a minute later: the
    // steady state the measured step starts from.
    let fatals = Value::Array(
        (0..ESCALATED_INCIDENTS)
            .map(|n| {
                log(
                    &name("escalating", n),
                    "FATAL",
                    "primary database unreachable",
                )
            })
            .collect(),
    );
    b.warm_up(async {
        let manager = channel(json!({"name": "bench manager", "kind": "email",
            "address": "manager@example.com", "escalationOnly": true}))
        .await;
        let secondary = channel(json!({"name": "bench secondary", "kind": "email",
            "address": "secondary@example.com", "escalationOnly": true,
            "escalateAfterMinutes": 5, "escalateTo": manager["id"]}))
        .await;
        channel(json!({"name": "bench on call", "kind": "email",
            "address": "oncall@example.com", "severities": ["FATAL"],
            "escalateAfterMinutes": 1, "escalateTo": secondary["id"]}))
        .await;
        t.ingest_ok(&fatals).await;
        // The processor gathers a batch for a second, then each event crosses the bus and the
        // notification queue before its escalation is scheduled.
        tokio::time::sleep(Duration::from_secs(5)).await;
    })
    .await;
    let escalated = RefCell::new(0);
    let sweep = async {
        let later = Clock::fixed(chrono::Utc::now() + chrono::Duration::minutes(2));
        let sweeper = IncidentsSweeper::from_env(&t.env("IncidentsSweeperFunction"), later)
            .await
            .unwrap();
        let outcomes = sweeper.escalate().await.unwrap();
        *escalated.borrow_mut() = outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::Escalated { .. }))
            .count();
    };
    b.measure(
        "incidents",
        "escalations due (ESCALATIONS)",
        TARGET_ESCALATIONS,
        1e4,
        ESCALATED_INCIDENTS,
        sweep,
    )
    .await;
    assert_eq!(
        *escalated.borrow(),
        ESCALATED_INCIDENTS,
        "every incident escalated once"
    );
}

/// Incident changes a second at target: every one of 10,000 services' incidents acknowledged
/// or resolved once every 100 s, far above what on-call people do.
const TARGET_INCIDENT_CHANGES: f64 = 100.0;

/// The incidents the bursts opened, acknowledged then resolved through the API: each change
/// writes an outbox row (gsi1 `OUTBOX`) the publisher deletes once its event is on the bus.
async fn incident_changes(b: &mut Bench, t: &TestStack) {
    let token = t.operator("keyheat-oncall").await.1;
    let listed = t
        .get_ok_auth(&format!("{INCIDENTS}?status=ACTIVE&limit=100"), &token)
        .await;
    let ids: Vec<String> = listed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["id"].as_str().map(str::to_string))
        .collect();
    assert!(!ids.is_empty(), "the bursts opened incidents");
    let changes = async {
        for status in ["ACKNOWLEDGED", "RESOLVED"] {
            for id in &ids {
                let path = format!("{INCIDENTS}/{id}");
                let answer = t
                    .patch_json_auth_raw(&path, &token, &json!({ "status": status }))
                    .await;
                assert_eq!(answer.status(), 200, "PATCH {path} {status}");
            }
        }
    };
    b.measure(
        "incidents",
        "incident changes (events outbox)",
        TARGET_INCIDENT_CHANGES,
        1e4,
        ids.len() * 2,
        changes,
    )
    .await;
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let only = std::env::args().skip_while(|a| a != "--only").nth(1);
    // A model that answers, so a post's summary is made (and paid for) in the scenario that
    // caused it, not retried into later ones.
    let llm = FakeLlm::start().await;
    let t = TestStack::start_with(llm_parameters(&llm)).await;
    let recipes_table = t.table("RecipesTable");
    let prefix = recipes_table
        .strip_suffix("RecipesTable")
        .unwrap_or(&recipes_table)
        .to_string();
    let meter = Meter::start(&emulator(), &prefix).await;
    let mut b = Bench {
        meter,
        prefix,
        results: Vec::new(),
    };
    let wanted = |system: &str| only.as_deref().is_none_or(|o| o == system);
    if wanted("news") {
        news(&mut b, &t).await;
    }
    if wanted("community") {
        community(&mut b, &t).await;
    }
    if wanted("incidents") {
        incidents(&mut b, &t).await;
    }
    if wanted("recipes") {
        recipes(&mut b, &t).await;
    }

    println!("\n| system | hottest key at target (table, index, key) | scenario | RCU/s | WCU/s | share of a partition | DynamoDB requests a month |");
    println!("|---|---|---|---:|---:|---:|---:|");
    let mut systems: Vec<&str> = b.results.iter().map(|m| m.scenario.system).collect();
    systems.dedup();
    let mut failed = false;
    for system in systems {
        let measured: Vec<&Measured> = b
            .results
            .iter()
            .filter(|m| m.scenario.system == system)
            .collect();
        let (r, w) = measured.iter().fold((0.0, 0.0), |(r, w), m| {
            (r + m.reads_per_second, w + m.writes_per_second)
        });
        let hottest = measured
            .iter()
            .flat_map(|m| m.heat.iter())
            .max_by(|a, b| a.share().total_cmp(&b.share()));
        let hot: Vec<&KeyHeat> = measured
            .iter()
            .flat_map(|m| m.heat.iter())
            .filter(|k| k.hot())
            .collect();
        failed |= !hot.is_empty();
        if let Some(key) = hottest {
            let index = if key.index.is_empty() {
                "-"
            } else {
                &key.index
            };
            println!(
                "| {system} | {} {index} `{}` | {} | {:.0} | {:.0} | {:.1}%{} | ${:.0} |",
                key.table,
                key.class,
                key.scenario,
                key.reads_per_second,
                key.writes_per_second,
                key.share() * 100.0,
                if key.hot() {
                    format!(" (HOT; {} keys over 50%)", hot.len())
                } else {
                    String::new()
                },
                monthly_cost(r, w)
            );
        }
    }
    if failed {
        println!("\nkeyheat: FAILED: keys over half a partition at target (HOT above)");
        std::process::exit(1);
    }
    println!("\nkeyheat: OK: no key over half a partition at target");
}
