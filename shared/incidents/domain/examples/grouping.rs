//! Prints the default fingerprint's pairwise precision and recall over the labelled set
//! (`cargo run -p incidents --example grouping [FILE.tsv]`), and each label split or merged.

// A printer: stdout is its output.
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;

use incidents::fingerprint::normalize;
use incidents::grouping_quality::{parse, score};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(path)?,
        None => include_str!("../tests/data/grouping.tsv").to_string(),
    };
    let set = parse(&text)?;
    let scores = score(&set);
    println!(
        "lines {} labels {} groups {}\npairs same {} grouped {} both {}\nprecision {:.4} recall {:.4}",
        scores.lines,
        scores.labels,
        scores.groups,
        scores.same_pairs,
        scores.grouped_pairs,
        scores.grouped_and_same,
        scores.precision,
        scores.recall
    );
    let mut split: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for item in &set {
        let messages = split.entry(item.group.as_str()).or_default();
        let message = normalize(&item.line);
        if !messages.contains(&message) {
            messages.push(message);
        }
    }
    for (label, messages) in split.iter().filter(|(_, m)| m.len() > 1) {
        println!("split {label}: {messages:?}");
    }
    for (label, others, message) in &scores.merged_apart {
        println!("merged {label} with {others}: {message}");
    }
    Ok(())
}
