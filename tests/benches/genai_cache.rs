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

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::json;
use stack_tests::llm::{FakeLlm, TEST_KEY, TEST_MODEL};
use stack_tests::TestStack;
use tower::ServiceExt;

const WARMUP: usize = 10;
const ROUNDS: usize = 200;
const ARTICLE: &str = "Harbour city opens its first tidal power station\n\nThe station, built \
    over four years under the old harbour wall, will supply 40,000 homes when the tide turns \
    twice a day.\n\nFishermen worried about the harbour's eels; the operator says the turbines \
    turn slowly enough for fish to pass.";

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run());
}

async fn summarize(router: &axum::Router, text: &str) -> (Duration, String) {
    let request = http::Request::builder()
        .method("POST")
        .uri("/api/ai/summarize")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(json!({ "text": text }).to_string()))
        .expect("request");
    let started = Instant::now();
    let response = router.clone().oneshot(request).await.expect("response");
    let status = response.status();
    let cache = response
        .headers()
        .get("x-genai-cache")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let _ = http_body_util::BodyExt::collect(response.into_body())
        .await
        .expect("body");
    let elapsed = started.elapsed();
    assert_eq!(status, 200, "summarize failed");
    (elapsed, cache)
}

fn report(label: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    let pick = |p: f64| samples[((samples.len() as f64 - 1.0) * p).round() as usize];
    let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
    println!(
        "{label:<10} n={:<4} mean {:>7.2} ms  p50 {:>7.2} ms  p95 {:>7.2} ms  min {:>7.2} ms  max {:>7.2} ms",
        samples.len(),
        mean.as_secs_f64() * 1e3,
        pick(0.5).as_secs_f64() * 1e3,
        pick(0.95).as_secs_f64() * 1e3,
        pick(0.0).as_secs_f64() * 1e3,
        pick(1.0).as_secs_f64() * 1e3,
    );
    pick(0.5)
}

async fn run() {
    let llm = FakeLlm::start().await;
    let t = TestStack::start_with(BTreeMap::from([
        ("LlmBaseUrl".to_string(), llm.base_url()),
        ("LlmApiKey".to_string(), TEST_KEY.to_string()),
        ("LlmModel".to_string(), TEST_MODEL.to_string()),
    ]))
    .await;
    let env = t
        .stack
        .function_env("GenAiFunction")
        .expect("GenAI function")
        .clone();
    let router = genai_function::router(env).await.expect("router");

    for i in 0..WARMUP {
        summarize(&router, &format!("{ARTICLE} (warm-up {i})")).await;
    }
    let mut uncached = Vec::with_capacity(ROUNDS);
    for i in 0..ROUNDS {
        let (elapsed, cache) = summarize(&router, &format!("{ARTICLE} (edition {i})")).await;
        assert_eq!(cache, "miss");
        uncached.push(elapsed);
    }
    let mut cached = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let (elapsed, cache) = summarize(&router, &format!("{ARTICLE} (edition 0)")).await;
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
