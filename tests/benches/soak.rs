//! The soak benchmark (not a test; prints figures): mixed writes over every product through the
//! whole local stack while the emulator injects AWS faults, then a drain with the faults off,
//! then the invariants of [`stack_tests::soak`] checked from the outside. Exits non-zero on
//! any violation.
//!
//! Run: `local/bench-soak [--minutes M] [--clients C] [--sources S] [--seed N] [--no-faults]`
//! (5 minutes, 6 clients, 4 sources and the issue's rates by default).
// Bench code: printing is its output, and a bad argument stops it.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::panic)]

use std::time::Duration;

use stack_tests::llm::FakeLlm;
use stack_tests::soak::{self, Rates, Settings};

fn settings() -> Settings {
    let mut settings = Settings {
        duration: Duration::from_secs(300),
        clients: 6,
        sources: 4,
        faults: Rates::ISSUE,
        seed: 44,
    };
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} takes a whole number"))
        };
        match arg.as_str() {
            "--minutes" => settings.duration = Duration::from_secs(value("--minutes") * 60),
            "--seconds" => settings.duration = Duration::from_secs(value("--seconds")),
            "--clients" => settings.clients = usize::try_from(value("--clients")).unwrap_or(1),
            "--sources" => settings.sources = usize::try_from(value("--sources")).unwrap_or(1),
            "--seed" => settings.seed = value("--seed"),
            "--no-faults" => settings.faults = Rates::NONE,
            other => panic!("unknown argument {other} (see local/bench-soak --help)"),
        }
    }
    settings
}

#[tokio::main]
async fn main() {
    let settings = settings();
    println!(
        "soak: {} s, {} clients, {} sources, faults {:?}",
        settings.duration.as_secs(),
        settings.clients,
        settings.sources,
        settings.faults
    );
    let llm = FakeLlm::start().await;
    let t = soak::stack(&llm).await;
    let report = soak::run(&t, &settings).await;
    println!("{}", report.render());
    if !report.violations.is_empty() {
        eprintln!("soak: {} violations", report.violations.len());
        std::process::exit(1);
    }
}
