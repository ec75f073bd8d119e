//! Our Porter2 stemmer against the official Snowball English fixture (`snowball-data`,
//! `english/voc.txt` and `output.txt`): every pair of the committed sample
//! (`tests/fixtures/porter2.tsv`, made by `make-porter2.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use text_analysis::porter2::stem;

#[test]
fn porter2_matches_snowball_fixture() {
    let fixture = include_str!("fixtures/porter2.tsv");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for line in fixture.lines() {
        let (word, expected) = line.split_once('\t').expect("word<TAB>stem");
        checked += 1;
        let got = stem(word);
        if got != expected {
            wrong.push(format!("{word}: {got} (expected {expected})"));
        }
    }
    assert!(checked > 5_000, "{checked} pairs");
    assert!(
        wrong.is_empty(),
        "{} of {checked} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
