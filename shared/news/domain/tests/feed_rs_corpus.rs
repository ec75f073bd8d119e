//! The feed-rs fixture corpus (`tests/fixtures/feed-rs`, see its README) through `parse_feed`:
//! every document feed-rs reads gives feed-rs's number of entries (`parse_feed` keeps them all:
//! the entry bound, `FEED_MAX_ENTRIES`, is the ingest's, applied after parsing), and every
//! document feed-rs refuses is `Err` (`ParseError`, which the content service answers with a
//! 400: `IngestError::NotAFeed` → `NewsError::Invalid` → `ApiError::validation`).

// All test code (helpers too): a failed unwrap, expect or index is a failed test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

mod support;
use support::manifest_dir;

use std::path::{Path, PathBuf};

use news::parse_feed;

/// The corpus documents, sorted: every file but feed-rs's expected outputs (`*.serde.json`).
fn documents(dir: &Path) -> Vec<PathBuf> {
    let mut pending = vec![dir.to_path_buf()];
    let mut found = Vec::new();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                pending.push(path);
            } else if name.ends_with(".xml")
                || (name.ends_with(".json") && !name.ends_with(".serde.json"))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn feed_rs_corpus_entry_counts_and_refusals() {
    let dir = manifest_dir().join("tests/fixtures/feed-rs");
    let documents = documents(&dir);
    let (mut valid, mut invalid) = (0, 0);
    let mut refused = Vec::new();
    let mut mismatches = Vec::new();
    for path in &documents {
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        let body = std::fs::read(path).unwrap();
        let theirs = feed_rs::parser::parse(body.as_slice());
        let ours = parse_feed(&body, "https://feeds.example.com/feed");
        match (&theirs, &ours) {
            (Ok(feed), Ok(parsed)) => {
                valid += 1;
                if feed.entries.len() != parsed.entries.len() {
                    mismatches.push(format!(
                        "{name}: feed-rs reads {} entries, parse_feed {}",
                        feed.entries.len(),
                        parsed.entries.len()
                    ));
                }
            }
            (Err(theirs), Err(ours)) => {
                invalid += 1;
                refused.push(format!("{name}: feed-rs: {theirs}; parse_feed: {ours}"));
            }
            (Ok(feed), Err(e)) => mismatches.push(format!(
                "{name}: feed-rs reads {} entries, parse_feed refuses it: {e}",
                feed.entries.len()
            )),
            (Err(e), Ok(parsed)) => mismatches.push(format!(
                "{name}: feed-rs refuses it ({e}), parse_feed reads {} entries",
                parsed.entries.len()
            )),
        }
    }
    println!(
        "feed-rs corpus: {} documents, {valid} read alike, {invalid} refused by both, {} mismatched",
        documents.len(),
        mismatches.len()
    );
    for line in &refused {
        println!("refused: {line}");
    }
    assert!(
        mismatches.is_empty(),
        "parse_feed and feed-rs disagree:\n{}",
        mismatches.join("\n")
    );
    // Not vacuous: the corpus has 76 documents, 72 of them feeds feed-rs reads.
    assert!(documents.len() >= 60, "only {} documents", documents.len());
    assert!(valid >= 60, "only {valid} feeds read");
    assert!(invalid >= 1, "no refused document");
    assert_eq!(valid + invalid, documents.len());
}
