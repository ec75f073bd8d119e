//! What a cached GenAI answer costs against an uncached one (not a test; prints figures).
//!
//! `POST /api/ai/summarize` through the GenAI function's router (the code Lambda runs), its
//! cache table in the emulator, its model the fake OpenAI-compatible server on loopback that
//! answers at once. Uncached: a new text each time (cache read that misses, model call, cache
//! write). Cached: the same text each time (one cache read). A real model adds its generation
//! time, typically seconds, to the uncached path only.
//!
//! Run with an emulator: `AWS_ENDPOINT_URL=http://127.0.0.1:4566 AWS_ACCESS_KEY_ID=test
//! AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 cargo bench -p stack-tests --bench genai_cache`.
// Bench code: a failed unwrap or assertion is how it stops, and printing is its output.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::time::{Duration, Instant};

use serde_json::json;
use stack_tests::bench::{mean, ms, percentile};
use stack_tests::genai::{llm_parameters, ARTICLE, CACHE_HEADER};
use stack_tests::llm::FakeLlm;
use stack_tests::{router, TestStack};

const WARMUP: usize = 10;
const ROUNDS: usize = 200;

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run());
}

async fn summarize(genai: &axum::Router, text: &str) -> (Duration, String) {
    let started = Instant::now();
    let answer = router::post_json(genai, "/api/ai/summarize", &json!({ "text": text })).await;
    let elapsed = started.elapsed();
    assert_eq!(answer.status, 200, "summarize failed");
    (elapsed, answer.header(CACHE_HEADER).to_string())
}

fn report(label: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    println!(
        "{label:<10} n={:<4} mean {:>7.2} ms  p50 {:>7.2} ms  p95 {:>7.2} ms  min {:>7.2} ms  max {:>7.2} ms",
        samples.len(),
        ms(mean(&samples)),
        ms(percentile(&samples, 50)),
        ms(percentile(&samples, 95)),
        ms(percentile(&samples, 0)),
        ms(percentile(&samples, 100)),
    );
    percentile(&samples, 50)
}

async fn run() {
    let llm = FakeLlm::start().await;
    let t = TestStack::start_with(llm_parameters(&llm)).await;
    let genai = assistant_function::router(t.env("AssistantFunction"))
        .await
        .expect("router");

    for i in 0..WARMUP {
        summarize(&genai, &format!("{ARTICLE} (warm-up {i})")).await;
    }
    let mut uncached = Vec::with_capacity(ROUNDS);
    for i in 0..ROUNDS {
        let (elapsed, cache) = summarize(&genai, &format!("{ARTICLE} (edition {i})")).await;
        assert_eq!(cache, "miss");
        uncached.push(elapsed);
    }
    let mut cached = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let (elapsed, cache) = summarize(&genai, &format!("{ARTICLE} (edition 0)")).await;
        assert_eq!(cache, "hit");
        cached.push(elapsed);
    }
    let calls = llm.call_count();
    println!("summarize through the GenAI router; model: fake server on loopback (instant); cache: DynamoDB emulator");
    let miss = report("uncached", uncached);
    let hit = report("cached", cached);
    println!(
        "model calls: {calls} for {} requests; a cached answer takes {:.0}% of an uncached one (p50) before any model time",
        WARMUP + 2 * ROUNDS,
        100.0 * hit.as_secs_f64() / miss.as_secs_f64()
    );
}
