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
//! reads a second, a reader with 1,000 subscriptions and 100k unread, 20k marks a second;
//! community, 5M posts a day, a viral post read 10k and liked 5k times a
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

mod community_mix;
mod incidents_integrations;
mod incidents_mix;
mod news_mix;
mod reader_mix;
mod recipes_mix;
mod shippers_mix;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::time::{Duration, Instant};

use stack_tests::genai::llm_parameters;
use stack_tests::keyheat::{
    self, heat, monthly_cost, origin_rate, shared_max_age, units_per_second, KeyHeat, Meter,
    Scenario, REGIONAL_EDGE_CACHES,
};
use stack_tests::llm::FakeLlm;
use stack_tests::{emulator, header, TestStack};

use community_mix::community;
use incidents_integrations::integrations;
use incidents_mix::incidents;
use news_mix::news;
use reader_mix::reader;
use recipes_mix::recipes;

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
        reader(&mut b, &t).await;
    }
    if wanted("community") {
        community(&mut b, &t).await;
    }
    if wanted("incidents") {
        incidents(&mut b, &t).await;
        integrations(&mut b, &t).await;
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
