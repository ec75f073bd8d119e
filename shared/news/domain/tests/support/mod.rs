//! What the news crate's test binaries share.

use std::path::PathBuf;

/// This crate's directory in the checkout under test, found when the test runs (cargo and
/// local/run-tests set `CARGO_MANIFEST_DIR` for the test process; else the directory it runs
/// in): a binary built in another checkout sharing the build directory is reused by cargo,
/// and `env!("CARGO_MANIFEST_DIR")` would still name that checkout.
pub fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}
