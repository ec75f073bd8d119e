//! A short soak in every `local/test` (issue: reliability under AWS faults): a minute of
//! mixed writes over every product with the emulator throttling DynamoDB, losing replies and
//! SQS deletes and slowing S3 down, then a drain and the invariants of [`stack_tests::soak`].
//! `local/bench-soak` runs the long one and prints its figures.
// Test code: a failed assertion is how a test fails.
#![allow(clippy::panic)]

use std::time::Duration;

use stack_tests::llm::FakeLlm;
use stack_tests::soak::{self, Rates, Settings};

#[tokio::test]
async fn a_minute_of_faults_loses_nothing_and_counts_nothing_twice() {
    let llm = FakeLlm::start().await;
    let t = soak::stack(&llm).await;
    let settings = Settings {
        duration: Duration::from_secs(60),
        clients: 3,
        sources: 3,
        faults: Rates::ISSUE,
        seed: 44,
    };
    let report = soak::run(&t, &settings).await;
    println!("{}", report.render());
    assert!(
        report.requests() > 100,
        "too little load:\n{}",
        report.render()
    );
    let injected: u64 = report.injected.iter().map(|row| row.3).sum();
    assert!(injected > 0, "no fault was injected:\n{}", report.render());
    assert!(
        report.violations.is_empty(),
        "the soak found violations:\n{}",
        report.render()
    );
}
