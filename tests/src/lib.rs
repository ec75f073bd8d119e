//! Black-box test support, written once for every test file and bench: a whole local stack
//! (every function of `template.yaml`) started in-process on a random port against the
//! emulator ([`TestStack`]), its users and tokens, requests straight through a router
//! ([`router`]), the servers tests start ([`server`]: a fake model, an OTLP receiver, feeds),
//! and the contract checks.
// All of this crate is test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

pub mod apigen;
pub mod bench;
pub mod community;
pub mod content;
pub mod contract;
pub mod errors;
pub mod faults;
pub mod feeds;
pub mod genai;
pub mod incidents;
pub mod intelligence;
pub mod keyheat;
pub mod limits;
pub mod llm;
pub mod otlp;
pub mod prometheus;
pub mod recipes;
pub mod router;
pub mod server;
pub mod soak;
pub mod stack;
pub mod tokens;
pub mod users;
pub mod websub;

use std::path::PathBuf;

pub use errors::{assert_news_error, details};
pub use stack::{
    show_stack_warnings, Call, Product, TestStack, INTERNAL_TOKEN, SERVICE_CLIENT, SERVICE_SECRET,
};

/// The repository root (this crate lives in `tests/`), found when the test runs: a test binary
/// built in another checkout that shares the build directory (cargo reuses it) must read this
/// checkout's template, not the one `env!("CARGO_MANIFEST_DIR")` named at build time.
pub fn repo_root() -> PathBuf {
    manifest_dir()
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// This crate's directory in the checkout under test: `CARGO_MANIFEST_DIR` as cargo (and
/// local/run-tests) sets it for the test process, or the directory the test runs in.
pub fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

/// The emulator the suite runs against; `local/test` starts one and exports its URL.
pub fn emulator() -> String {
    std::env::var("AWS_ENDPOINT_URL").unwrap_or_else(|_| {
        panic!("AWS_ENDPOINT_URL is not set: run the suite through local/test, which starts the emulator")
    })
}

/// `path` with `query` appended (after `?`, or `&` when it has a query already).
pub fn with_query(path: &str, query: &str) -> String {
    let joiner = if path.contains('?') { '&' } else { '?' };
    format!("{path}{joiner}{query}")
}

/// The `X-Next-Cursor` of a list answered as a bare array: the next page's cursor, if any.
pub fn next_cursor(headers: &http::HeaderMap) -> Option<String> {
    headers
        .get("x-next-cursor")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// A header's value as text; empty when it is absent or not text.
pub fn header<'a>(headers: &'a http::HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}
