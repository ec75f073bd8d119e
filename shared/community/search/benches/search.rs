//! Search at scale against the emulator: indexes N synthetic posts (default 10,000; English
//! word frequencies drawn from a Zipf law over a 20,000-word vocabulary, 8-word titles and
//! 60-word bodies), then times queries of 1 to 3 terms of every frequency band and reports
//! p50/p95 latency, the calls and postings each read, and the index's size.
//!
//! `local/bench-search [POSTS]` starts a private emulator and runs it. The emulator is not
//! DynamoDB: its latencies are an upper bound of the code's own work plus a local HTTP round
//! trip per call; the calls and postings read are what DynamoDB would bill.
// A benchmark: printing is its output, and a failed setup ends it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue as Sdk;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use community_search::{DynamoSearchIndex, IndexDoc, QueryTerms, SearchIndex, Window};
use futures::StreamExt;
use platform::dynamo::Table;

const VOCABULARY: u64 = 20_000;
const TITLE_WORDS: usize = 8;
const BODY_WORDS: usize = 60;
const QUERIES_PER_BAND: usize = 40;

/// A deterministic generator (SplitMix64), so every run indexes the same posts.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A word rank from a Zipf law (s = 1) over the vocabulary: rank r with weight 1/r.
    fn zipf(&mut self) -> u64 {
        let h = (VOCABULARY as f64).ln() + 0.5772;
        let target = self.unit() * h;
        // The inverse of the harmonic sum's approximation ln(r) + γ.
        ((target - 0.5772).exp().floor() as u64).clamp(1, VOCABULARY)
    }
}

/// The word of a rank: letters only, so the analyzer keeps it whole (no stemming changes it).
fn word(rank: u64) -> String {
    let mut n = rank;
    let mut out = String::from("q");
    while n > 0 {
        out.push(char::from(b'b' + (n % 20) as u8));
        n /= 20;
    }
    out.push('z');
    out
}

fn text(rng: &mut Rng, words: usize) -> String {
    (0..words)
        .map(|_| word(rng.zipf()))
        .collect::<Vec<_>>()
        .join(" ")
}

async fn create_table(env: &platform::Env) -> String {
    let db = aws_sdk_dynamodb::Client::new(&platform::aws::sdk_config(env));
    let name = format!("bench-search-{}", uuid::Uuid::new_v4().simple());
    let mut create = db
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest);
    for (attribute, kind) in [("pk", KeyType::Hash), ("sk", KeyType::Range)] {
        create = create
            .key_schema(
                KeySchemaElement::builder()
                    .attribute_name(attribute)
                    .key_type(kind)
                    .build()
                    .unwrap(),
            )
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(attribute)
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            );
    }
    create.send().await.expect("create table");
    name
}

/// An attribute value's size as DynamoDB counts it (numbers: about one byte per two digits).
fn sdk_size(v: &Sdk) -> usize {
    match v {
        Sdk::S(s) => s.len(),
        Sdk::N(n) => n.len().div_ceil(2) + 1,
        Sdk::Bool(_) | Sdk::Null(_) => 1,
        Sdk::Ns(ns) => ns.iter().map(|n| n.len().div_ceil(2) + 1).sum(),
        Sdk::Ss(ss) => ss.iter().map(String::len).sum(),
        Sdk::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| k.len() + sdk_size(v) + 1)
                .sum::<usize>()
        }
        Sdk::L(l) => 3 + l.iter().map(|v| sdk_size(v) + 1).sum::<usize>(),
        _ => 0,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// Items, bytes (attribute names and values) and postings of one partition.
async fn partition_size(
    db: &aws_sdk_dynamodb::Client,
    table: &str,
    pk: &str,
) -> (usize, usize, usize) {
    let (mut items, mut bytes, mut postings) = (0, 0, 0);
    let mut start = None;
    loop {
        let out = db
            .query()
            .table_name(table)
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", Sdk::S(pk.to_string()))
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        for item in out.items() {
            items += 1;
            bytes += item
                .iter()
                .map(|(k, v)| k.len() + sdk_size(v))
                .sum::<usize>();
            let sk = item.get("sk").and_then(|v| v.as_s().ok());
            if pk.starts_with("T#") && sk.is_some_and(|sk| !sk.starts_with('#')) {
                postings += 1;
            }
        }
        match out.last_evaluated_key() {
            Some(k) if !k.is_empty() => start = Some(k.clone()),
            _ => return (items, bytes, postings),
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    assert!(
        std::env::var_os("AWS_ENDPOINT_URL").is_some(),
        "AWS_ENDPOINT_URL is not set: run local/bench-search, which starts the emulator"
    );
    let posts: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let env = platform::Env::from_process();
    let name = create_table(&env).await;
    let aws = platform::aws::AwsClients::from_env(&env).await;
    // The emulator reads a common term's partition (megabytes) far slower than DynamoDB:
    // give the search's calls the time it needs, so the figures are measured, not cut off.
    let patient = aws
        .dynamodb
        .config()
        .to_builder()
        .timeout_config(
            aws_sdk_dynamodb::config::timeout::TimeoutConfig::builder()
                .operation_attempt_timeout(Duration::from_secs(120))
                .operation_timeout(Duration::from_secs(600))
                .build(),
        )
        .build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(patient), name.clone());
    let index = DynamoSearchIndex::new(table.clone());

    // Index: posts one day apart in publication order, eight at a time.
    let started = Instant::now();
    let mut rng = Rng(7);
    let docs: Vec<IndexDoc> = (0..posts)
        .map(|n| {
            let day = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH
                + chrono::Duration::days(20_000)
                + chrono::Duration::minutes(i64::from(n));
            IndexDoc {
                post_id: format!("00000000-0000-4000-8000-{n:012}"),
                version: 1,
                title: text(&mut rng, TITLE_WORDS),
                body: text(&mut rng, BODY_WORDS),
                published_live: true,
                first_published_at: Some(day.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
            }
        })
        .collect();
    let mut transactions = 0usize;
    // Two at a time, as the indexer's MaximumConcurrency; a timed-out or contended apply is
    // applied again (it resumes where it stopped), as a redelivered message would be.
    let apply = |doc: &'static IndexDoc| {
        let index = index.clone();
        async move {
            let mut attempt = 0;
            loop {
                attempt += 1;
                match index.apply(doc).await {
                    Err(e) if e.is_unavailable() && attempt < 5 => continue,
                    other => return other,
                }
            }
        }
    };
    let docs: &'static [IndexDoc] = docs.leak();
    let mut stream = futures::stream::iter(docs.iter())
        .map(apply)
        .buffer_unordered(2);
    let mut done = 0;
    while let Some(applied) = stream.next().await {
        if let community_search::Applied::Indexed { transactions: t } = applied.unwrap() {
            transactions += t;
        }
        done += 1;
        if done % 1_000 == 0 {
            println!(
                "indexed {done} posts in {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    let indexing = started.elapsed();

    // Size: every partition the index wrote, read whole with Queries (a Scan of the emulator
    // sorts the whole table for every page, which times out at this size): each term's
    // (`T#term`: its df item and postings), each post's (`P#id`) and `GLOBAL`.
    // Generous timeouts: a common term's partition is megabytes, which the emulator pages
    // slowly on a loaded machine (this is the measurement, not the code under test).
    let timeouts = aws_sdk_dynamodb::config::timeout::TimeoutConfig::builder()
        .operation_attempt_timeout(Duration::from_secs(120))
        .operation_timeout(Duration::from_secs(600))
        .build();
    let db = aws_sdk_dynamodb::Client::from_conf(
        aws_sdk_dynamodb::config::Builder::from(&platform::aws::sdk_config(&env))
            .timeout_config(timeouts)
            .build(),
    );
    let mut partitions: std::collections::BTreeSet<String> = docs
        .iter()
        .flat_map(|d| {
            community_search::analyze(&d.title, &d.body)
                .terms
                .into_keys()
        })
        .map(|term| format!("T#{term}"))
        .collect();
    partitions.extend(docs.iter().map(|d| format!("P#{}", d.post_id)));
    partitions.insert("GLOBAL".to_string());
    let sizes: Vec<(usize, usize, usize)> = futures::stream::iter(partitions)
        .map(|pk| {
            let db = db.clone();
            let name = name.clone();
            async move { partition_size(&db, &name, &pk).await }
        })
        .buffer_unordered(2)
        .collect()
        .await;
    let items: usize = sizes.iter().map(|s| s.0).sum();
    let bytes: usize = sizes.iter().map(|s| s.1).sum();
    let postings: usize = sizes.iter().map(|s| s.2).sum();
    let described = db
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap()
        .table()
        .and_then(|t| t.item_count())
        .unwrap_or_default();
    assert_eq!(
        i64::try_from(items).unwrap(),
        described,
        "the partitions read hold every item of the table"
    );

    // Queries: terms from three frequency bands (rank 1-50 common, 200-2,000 middle,
    // 5,000-20,000 rare), alone and in pairs and triples.
    let mut rng = Rng(11);
    let band = |rng: &mut Rng, lo: u64, hi: u64| word(lo + rng.next() % (hi - lo));
    let mut shapes: Vec<(&str, Vec<String>)> = Vec::new();
    for _ in 0..QUERIES_PER_BAND {
        shapes.push(("1 common term", vec![band(&mut rng, 1, 50)]));
        shapes.push(("1 middle term", vec![band(&mut rng, 200, 2_000)]));
        shapes.push(("1 rare term", vec![band(&mut rng, 5_000, 20_000)]));
        shapes.push((
            "common + middle",
            vec![band(&mut rng, 1, 50), band(&mut rng, 200, 2_000)],
        ));
        shapes.push((
            "2 common",
            vec![band(&mut rng, 1, 50), band(&mut rng, 1, 50)],
        ));
        shapes.push((
            "3 common",
            vec![
                band(&mut rng, 1, 50),
                band(&mut rng, 1, 50),
                band(&mut rng, 1, 50),
            ],
        ));
    }
    println!();
    println!(
        "{posts} posts ({TITLE_WORDS}-word titles, {BODY_WORDS}-word bodies, Zipf over {VOCABULARY} words): indexed in {:.0} s, {transactions} transactions",
        indexing.as_secs_f64()
    );
    println!(
        "index: {items} items, {postings} postings, {:.1} MB of item data (DynamoDB also bills ~100 B per item: {:.1} MB)",
        bytes as f64 / 1e6,
        (bytes + items * 100) as f64 / 1e6
    );
    println!();
    println!("| query | n | p50 ms | p95 ms | Query calls (max) | postings read (max) | matches (median) | truncated |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut all = Vec::new();
    let labels: Vec<&str> = {
        let mut l: Vec<&str> = shapes.iter().map(|(l, _)| *l).collect();
        l.dedup();
        l.truncate(6);
        l
    };
    for label in labels {
        let mut times = Vec::new();
        let mut calls = 0;
        let mut read = 0;
        let mut matches = Vec::new();
        let mut truncated = 0;
        for (_, terms) in shapes.iter().filter(|(l, _)| *l == label) {
            let q = QueryTerms::parse(&terms.join(" ")).unwrap();
            let t0 = Instant::now();
            let hits = index
                .search(
                    &q,
                    Window {
                        offset: 0,
                        limit: 14,
                    },
                )
                .await
                .unwrap();
            let elapsed = t0.elapsed();
            times.push(elapsed);
            all.push(elapsed);
            calls = calls.max(hits.queries);
            read = read.max(hits.postings_read);
            matches.push(hits.total);
            truncated += usize::from(hits.truncated.is_some());
        }
        times.sort();
        matches.sort_unstable();
        println!(
            "| {label} | {} | {} | {} | {calls} | {read} | {} | {truncated} |",
            times.len(),
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.95)),
            matches[matches.len() / 2],
        );
    }
    all.sort();
    println!(
        "| all | {} | {} | {} | | | | |",
        all.len(),
        ms(percentile(&all, 0.5)),
        ms(percentile(&all, 0.95))
    );
    let _ = db.delete_table().table_name(&name).send().await;
}
