//! The warm path of every HTTP function and of a feed refresh (not a test; prints figures).
//!
//! Each route is called in-process through its function's router (the code Lambda runs), its
//! AWS calls going to the emulator through a recording transport installed with
//! `platform::aws::set_transport_hook`. Per route it prints: the AWS calls made (named), the time
//! outside them (the handler's own work: routing, token checks, JSON, password hashing),
//! p50/p95 of the whole request, and the DynamoDB capacity the calls consume.
//!
//! Capacity is computed from the items the calls read and write, with DynamoDB's rules (reads
//! in 4 KB units, halved when eventually consistent; writes in 1 KB units; transactions
//! double), because the emulator's `ConsumedCapacity` is a constant. Index writes are not
//! counted. `--json FILE` (after `--`) writes the figures for `local/cost`; `--only TEXT` runs
//! only the routes whose name contains TEXT (to profile one).
//!
//! Then, once each: the incident processor's AWS calls for one ingested batch of 500 logs (the
//! messages ingestion packs them into), on a fresh instance and on a warm one, and the
//! metrics' share of them (the incident metrics' counting transactions).
//!
//! Run: `local/bench-warm` (starts its own emulator), or with an emulator running:
//! `AWS_ENDPOINT_URL=http://127.0.0.1:4566 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test
//! AWS_REGION=us-east-1 cargo bench -p stack-tests --bench warm`.
// Bench code: a failed unwrap or assertion is how it stops, and printing is its output.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use platform::aws::{SharedTransport, Transport, TransportFuture};
use platform::Env;
use serde_json::{json, Value};
use stack_tests::bench::{ms, percentile};
use stack_tests::content::{feed_worker, sqs_event, submit_id, ARTICLES};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer};
use stack_tests::genai::{llm_parameters, ARTICLE, CACHE_HEADER};
use stack_tests::llm::FakeLlm;
use stack_tests::router::{self, Answer};
use stack_tests::users::{password, LOGIN, ME};
use stack_tests::TestStack;

const WARMUP: usize = 20;
const ROUNDS: usize = 200;
/// `--only TEXT`: measure only the routes whose name contains TEXT (for a profiler).
static ONLY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// One AWS call as the recording client saw it.
#[derive(Debug, Clone)]
struct AwsCall {
    operation: String,
    elapsed: Duration,
    read_units: f64,
    write_units: f64,
}

static CALLS: Mutex<Vec<AwsCall>> = Mutex::new(Vec::new());

fn take_calls() -> Vec<AwsCall> {
    std::mem::take(&mut *CALLS.lock().unwrap())
}

fn record(_env: &Env, inner: SharedTransport) -> SharedTransport {
    Arc::new(Recording { inner })
}

#[derive(Debug)]
struct Recording {
    inner: SharedTransport,
}

impl Transport for Recording {
    fn send(&self, request: http::Request<bytes::Bytes>) -> TransportFuture {
        // The recording's own work (parsing both bodies, counting units) is timed as part of the
        // call, so that "handler" is only what a deployed function also does.
        let started = Instant::now();
        let target = request
            .headers()
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        // DynamoDB calls by operation ("GetItem"); other services prefixed ("SQS SendMessage").
        let operation = match target.as_deref().and_then(|t| t.split_once('.')) {
            Some((service, op)) if service.starts_with("DynamoDB") => op.to_string(),
            Some((service, op)) => format!("{} {op}", service.trim_start_matches("Amazon")),
            None => format!("{} {}", request.method(), request.uri()),
        };
        let sent: Value = serde_json::from_slice(request.body()).unwrap_or(Value::Null);
        let call = self.inner.send(request);
        Box::pin(async move {
            let response = call.await?;
            let received: Value = serde_json::from_slice(response.body()).unwrap_or(Value::Null);
            let (read_units, write_units) = if target
                .as_deref()
                .is_some_and(|t| t.starts_with("DynamoDB_"))
                && response.status().is_success()
            {
                capacity(&operation, &sent, &received)
            } else {
                (0.0, 0.0)
            };
            let elapsed = started.elapsed();
            CALLS.lock().unwrap().push(AwsCall {
                operation,
                elapsed,
                read_units,
                write_units,
            });
            Ok(response)
        })
    }
}

/// Read and write capacity units of one DynamoDB call, from its request and answer.
fn capacity(operation: &str, sent: &Value, received: &Value) -> (f64, f64) {
    let factor = |request: &Value| {
        if request["ConsistentRead"].as_bool() == Some(true) {
            1.0
        } else {
            0.5
        }
    };
    let read = |size: usize| (size.div_ceil(4096).max(1)) as f64;
    let write = |size: usize| (size.div_ceil(1024).max(1)) as f64;
    match operation {
        "GetItem" => (read(item_size(&received["Item"])) * factor(sent), 0.0),
        "Query" | "Scan" => {
            let total: usize = items(&received["Items"]).map(item_size).sum();
            (read(total) * factor(sent), 0.0)
        }
        "BatchGetItem" => {
            let mut units = 0.0;
            if let Some(tables) = received["Responses"].as_object() {
                for (table, found) in tables {
                    let f = factor(&sent["RequestItems"][table]);
                    units += items(found).map(|i| read(item_size(i)) * f).sum::<f64>();
                }
            }
            (units, 0.0)
        }
        "TransactGetItems" => {
            let units = items(&received["Responses"])
                .map(|r| 2.0 * read(item_size(&r["Item"])))
                .sum();
            (units, 0.0)
        }
        "PutItem" => (0.0, write(item_size(&sent["Item"]))),
        // The item's size is not in the exchange: one unit (items here are under 1 KB).
        "UpdateItem" | "DeleteItem" => (0.0, 1.0),
        "TransactWriteItems" => {
            let units = items(&sent["TransactItems"])
                .map(|action| match action["Put"]["Item"].as_object() {
                    Some(_) => 2.0 * write(item_size(&action["Put"]["Item"])),
                    None => 2.0,
                })
                .sum();
            (0.0, units)
        }
        "BatchWriteItem" => {
            let mut units = 0.0;
            if let Some(tables) = sent["RequestItems"].as_object() {
                for requests in tables.values() {
                    units += items(requests)
                        .map(|r| match r["PutRequest"]["Item"].as_object() {
                            Some(_) => write(item_size(&r["PutRequest"]["Item"])),
                            None => 1.0,
                        })
                        .sum::<f64>();
                }
            }
            (0.0, units)
        }
        _ => (0.0, 0.0),
    }
}

fn items(list: &Value) -> impl Iterator<Item = &Value> {
    list.as_array().into_iter().flatten()
}

/// DynamoDB's item size: attribute names plus values, in bytes.
fn item_size(item: &Value) -> usize {
    item.as_object()
        .map(|attrs| attrs.iter().map(|(k, v)| k.len() + value_size(v)).sum())
        .unwrap_or(0)
}

fn value_size(value: &Value) -> usize {
    let Some((kind, v)) = value.as_object().and_then(|o| o.iter().next()) else {
        return 0;
    };
    let number = |n: &str| n.trim_start_matches('-').len().div_ceil(2) + 1;
    match kind.as_str() {
        "S" => v.as_str().map_or(0, str::len),
        "N" => v.as_str().map_or(0, number),
        "B" => v.as_str().map_or(0, |b| b.len() * 3 / 4),
        "BOOL" | "NULL" => 1,
        "SS" => items(v).filter_map(Value::as_str).map(str::len).sum(),
        "NS" => items(v).filter_map(Value::as_str).map(number).sum(),
        "L" => 3 + items(v).map(|e| 1 + value_size(e)).sum::<usize>(),
        "M" => 3 + item_size(v) + v.as_object().map_or(0, |o| o.len()),
        _ => 0,
    }
}

/// The figures of one route.
struct Route {
    function: &'static str,
    name: &'static str,
    total: Vec<Duration>,
    overhead: Vec<Duration>,
    calls: BTreeMap<String, usize>,
    read_units: f64,
    write_units: f64,
}

impl Route {
    fn new(function: &'static str, name: &'static str) -> Self {
        Self {
            function,
            name,
            total: Vec::new(),
            overhead: Vec::new(),
            calls: BTreeMap::new(),
            read_units: 0.0,
            write_units: 0.0,
        }
    }

    /// Times `call` WARMUP + ROUNDS times; the calls of the last round name the route's calls.
    /// Under `--only TEXT` (profiling one route) other routes are not called at all.
    async fn measure<F, Fut>(mut self, mut call: F) -> Self
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        if ONLY
            .get()
            .and_then(Option::as_deref)
            .is_some_and(|only| !format!("{} {}", self.function, self.name).contains(only))
        {
            return self;
        }
        for i in 0..WARMUP {
            call(i).await;
        }
        for i in 0..ROUNDS {
            take_calls();
            let started = Instant::now();
            call(WARMUP + i).await;
            let total = started.elapsed();
            let calls = take_calls();
            let aws: Duration = calls.iter().map(|c| c.elapsed).sum();
            self.total.push(total);
            self.overhead.push(total.saturating_sub(aws));
            self.calls.clear();
            for c in &calls {
                *self.calls.entry(c.operation.clone()).or_default() += 1;
            }
            // `+ 0.0`: an empty f64 sum is -0.0.
            self.read_units = calls.iter().map(|c| c.read_units).sum::<f64>() + 0.0;
            self.write_units = calls.iter().map(|c| c.write_units).sum::<f64>() + 0.0;
        }
        self.total.sort();
        self.overhead.sort();
        self
    }

    fn calls_text(&self) -> String {
        if self.calls.is_empty() {
            return "none".into();
        }
        self.calls
            .iter()
            .map(|(op, n)| {
                if *n == 1 {
                    op.clone()
                } else {
                    format!("{op} x{n}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn json(&self) -> Value {
        json!({
            "function": self.function,
            "route": self.name,
            "calls": self.calls,
            "dynamodbCalls": self.calls.iter().filter(|(op, _)| !op.contains(' ')).map(|(_, n)| n).sum::<usize>(),
            "sqsCalls": self.calls.iter().filter(|(op, _)| op.starts_with("SQS ")).map(|(_, n)| n).sum::<usize>(),
            "totalP50Ms": ms(percentile(&self.total, 50)),
            "totalP95Ms": ms(percentile(&self.total, 95)),
            "overheadP50Ms": ms(percentile(&self.overhead, 50)),
            "overheadP95Ms": ms(percentile(&self.overhead, 95)),
            "readUnits": self.read_units,
            "writeUnits": self.write_units,
        })
    }
}

fn main() {
    assert!(
        platform::aws::set_transport_hook(record),
        "the recording hook must be the first"
    );
    // The runtime a function runs on (`platform::lambda::start`): one thread, no hand-offs.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let json_out = std::env::args().skip_while(|a| a != "--json").nth(1);
    ONLY.get_or_init(|| std::env::args().skip_while(|a| a != "--only").nth(1));
    runtime.block_on(run(json_out));
}

fn ok(answer: &Answer, what: &str) {
    assert!(
        answer.status.is_success(),
        "{what}: {} {}",
        answer.status,
        answer.text()
    );
}

async fn run(json_out: Option<String>) {
    let llm = FakeLlm::start().await;
    let t = TestStack::start_with(llm_parameters(&llm)).await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/wire.xml", FeedDocument::rss(generated_rss("Wire", 0, 20)));
    let (_, token) = t.user("warm").await;
    let source_id = submit_id(&t, &token, &url).await;
    // A source nobody subscribes to is not refreshed: subscribe, as a reader would.
    let subscribed = t.subscribe(&token, &source_id).await;
    assert_eq!(subscribed.status(), 200, "subscribe");
    let page = t.get_json(&format!("{ARTICLES}?size=1")).await;
    let article_id = page["content"][0]["id"]
        .as_str()
        .expect("an article")
        .to_string();

    let users = identity_function::router(t.env("IdentityFunction"))
        .await
        .expect("users");
    let content = news_function::router(t.env("NewsFunction"))
        .await
        .expect("content");
    let genai = assistant_function::router(t.env("AssistantFunction"))
        .await
        .expect("genai");
    let web = web_function::router(t.env("WebFunction"))
        .await
        .expect("web");
    let metrics = incidents_metrics_function::router(t.env("IncidentsMetricsFunction"))
        .await
        .expect("incidents-metrics");
    let batches = incident_batches(&t).await;
    let worker = feed_worker(&t).await;

    let login_body = json!({"username": "warm", "password": password("warm")}).to_string();
    let bearer = format!("Bearer {token}");
    let article = format!("{ARTICLES}/{article_id}");
    let summarize = json!({ "text": ARTICLE });
    let refresh = news::FeedRefresh::new(&source_id).to_json();

    let mut routes = Vec::new();
    routes.push(
        Route::new("news", "GET /api/content/articles/{id}")
            .measure(|_| async { ok(&router::get(&content, &article).await, "article") })
            .await,
    );
    routes.push(
        Route::new("news", "GET /api/content/articles (first page)")
            .measure(|_| async { ok(&router::get(&content, ARTICLES).await, "list") })
            .await,
    );
    routes.push(
        Route::new("identity", "GET /api/users/users/me")
            .measure(|_| async {
                let request =
                    router::request("GET", ME, &[("authorization", &bearer)], Body::empty());
                ok(&router::send(&users, request).await, "me")
            })
            .await,
    );
    routes.push(
        Route::new("identity", "POST /api/users/auth/login")
            .measure(|_| async {
                ok(
                    &router::json(&users, "POST", LOGIN, &login_body).await,
                    "login",
                )
            })
            .await,
    );
    // The first answer goes to the model and into the cache; every later one is a cache hit.
    ok(
        &router::post_json(&genai, "/api/ai/summarize", &summarize).await,
        "prime the cache",
    );
    routes.push(
        Route::new("assistant", "POST /api/ai/summarize (cached)")
            .measure(|_| async {
                let answer = router::post_json(&genai, "/api/ai/summarize", &summarize).await;
                ok(&answer, "summarize");
                assert_eq!(answer.header(CACHE_HEADER), "hit");
            })
            .await,
    );
    routes.push(
        Route::new("assistant", "GET /api/ai/health")
            .measure(|_| async { ok(&router::get(&genai, "/api/ai/health").await, "health") })
            .await,
    );
    routes.push(
        Route::new("web", "GET /actuator/health")
            .measure(|_| async { ok(&router::get(&web, "/actuator/health").await, "web health") })
            .await,
    );
    routes.push(
        Route::new("news-feed-worker", "SQS refresh of an unchanged feed (304)")
            .measure(|i| {
                let event = sqs_event(&[(&format!("m{i}"), refresh.clone())]);
                let worker = Arc::clone(&worker);
                async move {
                    let answer = worker.handle(event).await.expect("batch");
                    assert!(answer.batch_item_failures.is_empty());
                }
            })
            .await,
    );

    let basic = format!(
        "Basic {}",
        base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            format!(
                "{}:{}",
                stack_tests::stack::METRICS_USERNAME,
                stack_tests::stack::METRICS_PASSWORD
            )
        )
    );
    routes.push(
        Route::new("incidents-metrics", "GET /prometheus")
            .measure(|_| async {
                let request = router::request(
                    "GET",
                    "/prometheus",
                    &[("authorization", &basic)],
                    Body::empty(),
                );
                ok(&router::send(&metrics, request).await, "prometheus")
            })
            .await,
    );

    println!(
        "warm path, in-process against the emulator; {ROUNDS} requests per route after {WARMUP} warm-up; \
         handler = request time outside its AWS calls"
    );
    println!(
        "{:<46} {:>9} {:>9} {:>11} {:>11} {:>6} {:>6}  AWS calls",
        "route", "p50 ms", "p95 ms", "handler p50", "handler p95", "RCU", "WCU"
    );
    for r in routes.iter().filter(|r| !r.total.is_empty()) {
        println!(
            "{:<46} {:>9.2} {:>9.2} {:>11.3} {:>11.3} {:>6.1} {:>6.1}  {}",
            format!("{} {}", r.function, r.name),
            ms(percentile(&r.total, 50)),
            ms(percentile(&r.total, 95)),
            ms(percentile(&r.overhead, 50)),
            ms(percentile(&r.overhead, 95)),
            r.read_units,
            r.write_units,
            r.calls_text(),
        );
    }
    println!();
    for batch in &batches {
        println!("{batch}");
    }
    if let Some(path) = json_out {
        let figures = json!({
            "rounds": ROUNDS,
            "routes": routes
                .iter()
                .filter(|r| !r.total.is_empty())
                .map(Route::json)
                .collect::<Vec<_>>(),
        });
        std::fs::write(&path, serde_json::to_string_pretty(&figures).unwrap()).unwrap();
        println!("figures written to {path}");
    }
}

/// The incident processor's calls for one ingested batch of 500 INFO logs of 5 services (as
/// ingestion packs them into messages), first on a fresh instance, then on the same instance
/// again: one line each, with the metrics' counting transactions apart.
async fn incident_batches(t: &TestStack) -> Vec<String> {
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .expect("incidents-processor");
    let mut lines = Vec::new();
    for run in ["fresh instance", "warm instance"] {
        let body = Value::Array(
            (0..500)
                .map(|i| {
                    json!({
                        "serviceName": format!("service-{}", i % 5),
                        "type": "APPLICATION_LOG",
                        "severity": "INFO",
                        "logContent": format!("GET /api/orders/{i} answered 200 in 12 ms for a signed-in customer of the shop, cache hit, upstream fine"),
                    })
                })
                .collect(),
        );
        let now = chrono::Utc::now();
        let logs = incidents::service::assign(
            incidents::input::parse_logs(&body, now).expect("logs"),
            now,
        );
        let messages = incidents::queue::pack(&logs).expect("pack");
        let records: Vec<(String, String)> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| (format!("m{i}"), m.clone()))
            .collect();
        let records: Vec<(&str, String)> = records
            .iter()
            .map(|(id, m)| (id.as_str(), m.clone()))
            .collect();
        take_calls();
        let answer = processor.handle(sqs_event(&records)).await.expect("batch");
        assert!(answer.batch_item_failures.is_empty());
        let calls = take_calls();
        let mut by_operation: BTreeMap<&str, usize> = BTreeMap::new();
        for c in &calls {
            *by_operation.entry(c.operation.as_str()).or_default() += 1;
        }
        let counting: Vec<&AwsCall> = calls
            .iter()
            .filter(|c| c.operation == "TransactWriteItems")
            .collect();
        lines.push(format!(
            "incidents-processor, 500 INFO logs of 5 services in {} messages, {run}: {} AWS calls ({}), {:.0} WCU; \
             the metrics' TransactWriteItems (counts, and a service's registration when first seen): {} ({:.0} WCU)",
            messages.len(),
            calls.len(),
            by_operation
                .iter()
                .map(|(op, n)| format!("{op} x{n}"))
                .collect::<Vec<_>>()
                .join(", "),
            calls.iter().map(|c| c.write_units).sum::<f64>(),
            counting.len(),
            counting.iter().map(|c| c.write_units).sum::<f64>(),
        ));
    }
    lines
}
