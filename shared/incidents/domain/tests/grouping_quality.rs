//! The default fingerprint over the labelled set `tests/data/grouping.tsv`: pairwise
//! precision at least 0.95 (recall reported; see docs/incident-grouping.md).

use incidents::grouping_quality::{parse, score};

/// The lowest pairwise precision the default fingerprint may have on the set.
const MIN_PRECISION: f64 = 0.95;
/// The lowest recall: what the normaliser reaches today, so a change that folds less fails.
const MIN_RECALL: f64 = 0.95;

#[test]
fn the_default_fingerprint_groups_the_labelled_set() {
    let set = parse(include_str!("data/grouping.tsv")).expect("grouping.tsv parses");
    assert!(set.len() >= 200, "the set holds {} lines", set.len());
    let scores = score(&set);
    assert!(
        scores.precision >= MIN_PRECISION,
        "precision {:.3} under {MIN_PRECISION}; merged apart: {:#?}",
        scores.precision,
        scores.merged_apart
    );
    assert!(
        scores.recall >= MIN_RECALL,
        "recall {:.3} under {MIN_RECALL}",
        scores.recall
    );
}
