//! Ingestion end to end on the local stack (not a test; prints figures).
//!
//! Sends batches of 500 logs (about 300 bytes each, six services, every severity) through
//! `POST /api/v1/logs` with the ingest key, several at a time, to the whole stack running
//! in-process against the emulator (the ingest function, `IngestQueue`, the stack's queue
//! poller and the processor, as `local/run` runs them). It measures:
//!
//! - the 202's latency (p50, p95) and the rate the API accepts logs at;
//! - ingested logs per second end to end: from the first request until the ingest queue holds
//!   no message, visible or in flight (the processor's message is deleted once its logs are
//!   stored and grouped); then every accepted id must be in the table, once (the SDK counts
//!   each partition the ids name with `Select=COUNT` queries);
//! - the AWS calls per batch of 500, counted by the emulator itself (`local/emulator.py` with
//!   `EMULATOR_COUNT_REQUESTS=1`): the functions' own calls (their User-Agent names the app `platform-function`)
//!   apart from the SDK's (the stack's queue poller; this bench's counting is left out).
//!
//! Two scenarios: `mixed` (1 log in 10 is an ERROR or FATAL, which the default rule groups into
//! incidents) and `quiet` (TRACE to WARN: no rule matches, the floor of storing logs).
//!
//! Run: `local/bench-ingest [--batches N] [--concurrency C] [--quiet-batches M] [--size BYTES]`
//! (it starts its own counting emulator). The stack runs one poller per queue and the
//! processor handles a batch's messages one after another, as one Lambda instance would;
//! deployed, `MaximumConcurrency: 5` runs five.
// Bench code: a failed unwrap or assertion is how it stops, and printing is its output.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{AttributeValue, Select};
use aws_sdk_sqs::types::QueueAttributeName;
use platform::Env;
use serde_json::{json, Value};
use stack_tests::bench::{mean, ms, percentile};
use stack_tests::incidents::LOGS;
use stack_tests::stack::INGEST_KEY;
use stack_tests::{emulator, TestStack};

/// Logs per request: the API's largest batch.
const BATCH: usize = 500;
const SERVICES: [&str; 6] = [
    "checkout",
    "payments",
    "inventory",
    "search",
    "auth",
    "shipping",
];
const TYPES: [&str; 3] = ["APPLICATION_LOG", "ACCESS_LOG", "DEPLOYMENT_LOG"];

/// The bench's settings, from its arguments.
struct Settings {
    batches: usize,
    quiet_batches: usize,
    concurrency: usize,
    size: usize,
}

impl Settings {
    fn from_args() -> Self {
        let args: Vec<String> = std::env::args().collect();
        let number = |name: &str, default: usize| {
            args.iter()
                .position(|a| a == name)
                .and_then(|i| args.get(i + 1))
                .map(|v| {
                    v.parse()
                        .unwrap_or_else(|_| panic!("{name} takes a number, not {v}"))
                })
                .unwrap_or(default)
        };
        let settings = Self {
            batches: number("--batches", 20),
            quiet_batches: number("--quiet-batches", 10),
            concurrency: number("--concurrency", 4).max(1),
            size: number("--size", 300),
        };
        assert!(
            (120..=16_000).contains(&settings.size),
            "--size: 120 to 16000 bytes a log"
        );
        settings
    }
}

/// A small deterministic generator, so that every run sends the same logs.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        let at = usize::try_from(self.next()).unwrap_or(0) % items.len();
        items[at]
    }
}

/// A severity: in `mixed`, 5% TRACE, 15% DEBUG, 50% INFO, 20% WARN, 8% ERROR, 2% FATAL; in
/// `quiet`, none above WARN.
fn severity(rng: &mut Lcg, quiet: bool) -> &'static str {
    let roll = rng.below(if quiet { 90 } else { 100 });
    match roll {
        0..=4 => "TRACE",
        5..=19 => "DEBUG",
        20..=69 => "INFO",
        70..=89 => "WARN",
        90..=97 => "ERROR",
        _ => "FATAL",
    }
}

/// One log of about `size` bytes of JSON: a message of its severity with its own numbers (so
/// that ERRORs of one service and template share a fingerprint), padded with context.
fn log(rng: &mut Lcg, quiet: bool, size: usize) -> Value {
    let service = rng.pick(&SERVICES);
    let severity = severity(rng, quiet);
    let log_type = if matches!(severity, "ERROR" | "FATAL") {
        "APPLICATION_LOG"
    } else {
        rng.pick(&TYPES)
    };
    let (a, b, c) = (rng.below(10_000), rng.below(1_000), rng.next());
    let mut message = match (severity, rng.below(3)) {
        ("ERROR" | "FATAL", 0) => format!("Upstream timed out after {b} ms (request {a})"),
        ("ERROR" | "FATAL", 1) => {
            format!(
                "Connection refused by 10.0.{}.{}:5432 (pool {a})",
                b % 256,
                a % 256
            )
        }
        ("ERROR" | "FATAL", _) => format!("Unhandled error in handler {a}: index {b} out of range"),
        ("WARN", _) => format!("Slow query took {b} ms on shard {}", a % 16),
        _ => format!("GET /api/items/{a} answered 200 in {b} ms"),
    };
    message.push_str(&format!(
        " trace={c:016x} region=eu-west-1 host=ip-10-0-{}-{}",
        b % 256,
        a % 256
    ));
    let mut entry = json!({
        "serviceName": service,
        "type": log_type,
        "severity": severity,
        "logContent": message,
    });
    let current = entry.to_string().len();
    if current < size {
        let padding = " ctx=".to_string() + &"x".repeat(size - current - 5);
        entry["logContent"] = Value::String(format!(
            "{}{padding}",
            entry["logContent"].as_str().unwrap_or("")
        ));
    }
    entry
}

/// The scenario's request bodies, built before the clock starts, and how many of their logs
/// the default rule groups (ERROR and FATAL).
fn batches(count: usize, quiet: bool, size: usize, seed: u64) -> (Vec<String>, usize) {
    let mut rng = Lcg(seed);
    let mut grouped = 0;
    let bodies = (0..count)
        .map(|_| {
            let logs: Vec<Value> = (0..BATCH).map(|_| log(&mut rng, quiet, size)).collect();
            grouped += logs
                .iter()
                .filter(|l| matches!(l["severity"].as_str(), Some("ERROR" | "FATAL")))
                .count();
            Value::Array(logs).to_string()
        })
        .collect();
    (bodies, grouped)
}

/// One kind of request the emulator counted.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Kind {
    client: String,
    service: String,
    operation: String,
    queue: String,
    failed: bool,
}

/// How many requests of a kind, and the messages of SQS batch calls among them.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    requests: u64,
    entries: u64,
}

/// What the emulator counted.
type Counts = BTreeMap<Kind, Tally>;

async fn emulator_counts(http: &reqwest::Client, clear: bool) -> Counts {
    let url = format!("{}/_emulator/requests", emulator());
    let request = if clear {
        http.delete(&url)
    } else {
        http.get(&url)
    };
    let rows: Vec<Value> = request
        .send()
        .await
        .expect("the emulator answers")
        .json()
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{url} is not there: start the emulator with EMULATOR_COUNT_REQUESTS=1 (local/bench-ingest does)"
            )
        });
    rows.iter()
        .map(|r| {
            let text = |k: &str| r[k].as_str().unwrap_or("").to_string();
            let kind = Kind {
                client: text("client"),
                service: text("service"),
                operation: text("operation"),
                queue: text("queue"),
                failed: r["failed"].as_bool().unwrap_or(false),
            };
            let tally = Tally {
                requests: r["count"].as_u64().unwrap_or(0),
                entries: r["entries"].as_u64().unwrap_or(0),
            };
            (kind, tally)
        })
        .collect()
}

/// Logs stored in the table's partitions `pks` (SDK Queries counting, not reading items).
async fn stored(dynamodb: &aws_sdk_dynamodb::Client, table: &str, pks: &BTreeSet<String>) -> usize {
    let mut total = 0;
    for pk in pks {
        let mut start = None;
        loop {
            let page = dynamodb
                .query()
                .table_name(table)
                .key_condition_expression("pk = :pk")
                .expression_attribute_values(":pk", AttributeValue::S(pk.clone()))
                .select(Select::Count)
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("count query");
            total += usize::try_from(page.count).unwrap_or(0);
            start = page.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
    }
    total
}

/// Messages on the queue, visible or in flight.
async fn queued(sqs: &aws_sdk_sqs::Client, queue_url: &str) -> u64 {
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(queue_url)
        .attribute_names(QueueAttributeName::ApproximateNumberOfMessages)
        .attribute_names(QueueAttributeName::ApproximateNumberOfMessagesNotVisible)
        .send()
        .await
        .expect("queue attributes")
        .attributes
        .unwrap_or_default();
    attributes
        .values()
        .map(|v| v.parse::<u64>().unwrap_or(0))
        .sum()
}

/// The figures of one scenario.
struct Outcome {
    name: &'static str,
    logs: usize,
    /// Logs the default rule groups (ERROR and FATAL).
    grouped: usize,
    batches: usize,
    latencies: Vec<Duration>,
    accepted: Duration,
    done: Duration,
    calls: Counts,
}

struct Bench {
    t: TestStack,
    http: reqwest::Client,
    dynamodb: aws_sdk_dynamodb::Client,
    sqs: aws_sdk_sqs::Client,
    table: String,
    queue_url: String,
    queue_name: String,
    pks: BTreeSet<String>,
    stored_before: usize,
}

impl Bench {
    async fn run(
        &mut self,
        name: &'static str,
        (bodies, grouped): (Vec<String>, usize),
        concurrency: usize,
    ) -> Outcome {
        let batches = bodies.len();
        let bodies = Arc::new(bodies);
        let next = Arc::new(AtomicUsize::new(0));
        let ids = Arc::new(Mutex::new(Vec::<String>::new()));
        let latencies = Arc::new(Mutex::new(Vec::<Duration>::new()));
        emulator_counts(&self.http, true).await;
        let started = Instant::now();
        let senders: Vec<_> = (0..concurrency)
            .map(|_| {
                let (bodies, next, ids, latencies) = (
                    Arc::clone(&bodies),
                    Arc::clone(&next),
                    Arc::clone(&ids),
                    Arc::clone(&latencies),
                );
                let http = self.http.clone();
                let url = self.t.url(LOGS);
                tokio::spawn(async move {
                    while let Some(body) = bodies.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let sent = Instant::now();
                        let response = http
                            .post(&url)
                            .header("x-api-key", INGEST_KEY)
                            .header("content-type", "application/json")
                            .body(body.clone())
                            .send()
                            .await
                            .expect("the stack answers");
                        let status = response.status();
                        let answer: Value = response.json().await.unwrap_or(Value::Null);
                        latencies.lock().unwrap().push(sent.elapsed());
                        assert_eq!(status, 202, "ingestion answered {status}: {answer}");
                        let accepted = answer["ids"].as_array().expect("ids");
                        ids.lock()
                            .unwrap()
                            .extend(accepted.iter().filter_map(|v| v.as_str().map(String::from)));
                    }
                })
            })
            .collect();
        for sender in senders {
            sender.await.expect("a sender failed");
        }
        let accepted = started.elapsed();
        let ids = std::mem::take(&mut *ids.lock().unwrap());
        let logs = ids.len();
        assert_eq!(logs, batches * BATCH, "every log accepted");
        // The partitions the ids name, by the store's own key function.
        for id in &ids {
            if let Some(platform::dynamo::AttributeValue::S(pk)) =
                incidents::timeline::log_key(id).get("pk")
            {
                self.pks.insert(pk.clone());
            }
        }
        // Done when the queue holds nothing, visible or in flight: the processor's message is
        // deleted only once its logs are stored and grouped. Asking the queue is cheap for the
        // emulator; counting a growing table while it works would slow what is measured.
        let deadline = Instant::now() + Duration::from_secs(1800);
        while queued(&self.sqs, &self.queue_url).await > 0 {
            assert!(
                Instant::now() < deadline,
                "the queue drained within 30 minutes"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let done = started.elapsed();
        // Then every accepted log is in the table, once.
        let want = self.stored_before + logs;
        let have = stored(&self.dynamodb, &self.table, &self.pks).await;
        assert_eq!(have, want, "every accepted log stored once, none twice");
        self.stored_before = have;
        let calls = emulator_counts(&self.http, false).await;
        let mut latencies = std::mem::take(&mut *latencies.lock().unwrap());
        latencies.sort();
        Outcome {
            name,
            logs,
            grouped,
            batches,
            latencies,
            accepted,
            done,
            calls,
        }
    }

    /// The calls of the scenario that ingestion costs, by "service operation (who)": every
    /// call of the functions, and the SDK's on the ingest queue (the stack's poller, as
    /// Lambda's receives and deletes); each with how many of them failed.
    fn ingestion_calls(&self, outcome: &Outcome) -> BTreeMap<String, (Tally, u64)> {
        let mut calls: BTreeMap<String, (Tally, u64)> = BTreeMap::new();
        for (kind, tally) in &outcome.calls {
            let who = match (kind.client.as_str(), kind.service.as_str()) {
                ("functions", _) => "functions",
                ("sdk", "sqs")
                    if kind.queue == self.queue_name && kind.operation != "GetQueueAttributes" =>
                {
                    "poller"
                }
                _ => continue,
            };
            let entry = calls
                .entry(format!("{} {} ({who})", kind.service, kind.operation))
                .or_default();
            entry.0.requests += tally.requests;
            entry.0.entries += tally.entries;
            if kind.failed {
                entry.1 += tally.requests;
            }
        }
        calls
    }
}

fn print(outcomes: &[Outcome], bench: &Bench, settings: &Settings) {
    println!(
        "\nIngestion, {} logs a batch of about {} bytes each, {} request(s) at a time; {}, {} core(s)\n",
        BATCH,
        settings.size,
        settings.concurrency,
        if cfg!(debug_assertions) {
            "debug build"
        } else {
            "bench profile (release code generation)"
        },
        std::thread::available_parallelism().map_or(0, |n| n.get()),
    );
    println!("| scenario | batches | logs | 202 p50 ms | 202 p95 ms | 202 mean ms | accepted logs/s | seconds to stored and grouped | ingested logs/s end to end |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for o in outcomes {
        let rate = |d: Duration| o.logs as f64 / d.as_secs_f64().max(1e-9);
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.0} | {:.1} | {:.0} |",
            o.name,
            o.batches,
            o.logs,
            ms(percentile(&o.latencies, 50)),
            ms(percentile(&o.latencies, 95)),
            ms(mean(&o.latencies)),
            rate(o.accepted),
            o.done.as_secs_f64(),
            rate(o.done),
        );
    }
    for o in outcomes {
        println!("\nAWS calls per batch of {BATCH} ({}, counted by the emulator over {} batches; `poller`: the stack's SQS poller on the ingest queue, idle long polls included)\n", o.name, o.batches);
        println!("| call | total | of which failed | per batch | messages per batch |");
        println!("|---|---:|---:|---:|---:|");
        let per_batch = |n: u64| n as f64 / o.batches as f64;
        let mut dynamodb = 0;
        let mut sqs = 0;
        for (call, (tally, failed)) in &bench.ingestion_calls(o) {
            let messages = if tally.entries > 0 {
                format!("{:.1}", per_batch(tally.entries))
            } else {
                "-".to_string()
            };
            println!(
                "| {call} | {} | {failed} | {:.1} | {messages} |",
                tally.requests,
                per_batch(tally.requests)
            );
            if call.starts_with("dynamodb") {
                dynamodb += tally.requests;
            } else if call.starts_with("sqs") {
                sqs += tally.requests;
            }
        }
        println!(
            "| **DynamoDB, all** | {dynamodb} | | {:.1} | |\n| **SQS, all** | {sqs} | | {:.1} | |",
            per_batch(dynamodb),
            per_batch(sqs)
        );
        let batch_writes = bench
            .ingestion_calls(o)
            .get("dynamodb BatchWriteItem (functions)")
            .map_or(0, |(tally, _)| tally.requests);
        if o.grouped > 0 {
            println!(
                "\n{} logs grouped ({:.1} a batch): {:.2} DynamoDB calls each beyond the BatchWriteItems",
                o.grouped,
                per_batch(o.grouped as u64),
                dynamodb.saturating_sub(batch_writes) as f64 / o.grouped as f64
            );
        }
    }
}

fn main() {
    let settings = Settings::from_args();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let mixed = batches(settings.batches, false, settings.size, 1);
        let quiet = batches(settings.quiet_batches, true, settings.size, 2);
        let t = TestStack::start().await;
        let config = platform::aws::sdk_config(&Env::from_process());
        let queue_url = t
            .env("IncidentsProcessorFunction")
            .get("INGEST_QUEUE_URL")
            .expect("the processor's queue")
            .to_string();
        let mut bench = Bench {
            http: platform::tls::http_client().build().expect("client"),
            dynamodb: aws_sdk_dynamodb::Client::new(&config),
            sqs: aws_sdk_sqs::Client::new(&config),
            table: t.table("IncidentsTable"),
            queue_name: queue_url.rsplit('/').next().unwrap_or("").to_string(),
            queue_url,
            pks: BTreeSet::new(),
            stored_before: 0,
            t,
        };
        let mut outcomes = Vec::new();
        if settings.batches > 0 {
            outcomes.push(bench.run("mixed", mixed, settings.concurrency).await);
        }
        if settings.quiet_batches > 0 {
            outcomes.push(bench.run("quiet", quiet, settings.concurrency).await);
        }
        print(&outcomes, &bench, &settings);
    });
}
