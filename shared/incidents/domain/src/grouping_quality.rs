//! How well the default fingerprint groups: pairwise precision and recall of
//! [`normalize`] over a labelled set of log lines (`group label \t line`, one a line,
//! `#` comments), as the crate's test set `tests/data/grouping.tsv` holds them.

use std::collections::HashMap;

use crate::fingerprint::normalize;

/// One labelled log line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled {
    pub group: String,
    pub line: String,
}

/// The labelled lines of `tsv`; a line without a tab is an error naming its number.
pub fn parse(tsv: &str) -> Result<Vec<Labelled>, String> {
    tsv.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            l.split_once('\t')
                .map(|(group, line)| Labelled {
                    group: group.to_string(),
                    line: line.to_string(),
                })
                .ok_or_else(|| format!("line {} has no tab", i + 1))
        })
        .collect()
}

/// Pairwise figures: a pair of lines is "grouped" when their normalised messages are
/// equal, "same" when their labels are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scores {
    pub lines: usize,
    pub labels: usize,
    /// Distinct normalised messages (the incidents the set would open).
    pub groups: usize,
    pub same_pairs: u64,
    pub grouped_pairs: u64,
    pub grouped_and_same: u64,
    /// Of the pairs grouped together, the share labelled the same (1 when none is).
    pub precision: f64,
    /// Of the pairs labelled the same, the share grouped together (1 when none is).
    pub recall: f64,
    /// Lines grouped with a line of another label, as `(label, other label, normalised)`.
    pub merged_apart: Vec<(String, String, String)>,
}

fn pairs(count: u64) -> u64 {
    count * count.saturating_sub(1) / 2
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

/// The pairwise precision and recall of [`normalize`] over `set`.
pub fn score(set: &[Labelled]) -> Scores {
    let mut by_label: HashMap<&str, u64> = HashMap::new();
    let mut by_message: HashMap<String, HashMap<&str, u64>> = HashMap::new();
    for item in set {
        *by_label.entry(item.group.as_str()).or_default() += 1;
        *by_message
            .entry(normalize(&item.line))
            .or_default()
            .entry(item.group.as_str())
            .or_default() += 1;
    }
    let same_pairs = by_label.values().map(|&c| pairs(c)).sum();
    let grouped_pairs = by_message
        .values()
        .map(|labels| pairs(labels.values().sum()))
        .sum();
    let grouped_and_same = by_message
        .values()
        .flat_map(|labels| labels.values().map(|&c| pairs(c)))
        .sum();
    let mut merged_apart: Vec<(String, String, String)> = by_message
        .iter()
        .filter(|(_, labels)| labels.len() > 1)
        .map(|(message, labels)| {
            let mut names: Vec<&str> = labels.keys().copied().collect();
            names.sort_unstable();
            let (first, others) = names.split_first().unwrap_or((&"", &[]));
            (first.to_string(), others.join(","), message.clone())
        })
        .collect();
    merged_apart.sort();
    Scores {
        lines: set.len(),
        labels: by_label.len(),
        groups: by_message.len(),
        same_pairs,
        grouped_pairs,
        grouped_and_same,
        precision: ratio(grouped_and_same, grouped_pairs),
        recall: ratio(grouped_and_same, same_pairs),
        merged_apart,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(rows: &[(&str, &str)]) -> Vec<Labelled> {
        rows.iter()
            .map(|(g, l)| Labelled {
                group: g.to_string(),
                line: l.to_string(),
            })
            .collect()
    }

    #[test]
    fn pairs_are_counted_by_label_and_by_message() {
        // a: two lines grouped; b: one line grouped with a (a wrong pair), one apart.
        let scores = score(&set(&[
            ("a", "disk 1 full"),
            ("a", "disk 2 full"),
            ("b", "disk 3 full"),
            ("b", "cpu hot"),
        ]));
        assert_eq!((scores.same_pairs, scores.grouped_pairs), (2, 3));
        assert_eq!(scores.grouped_and_same, 1);
        assert!((scores.precision - 1.0 / 3.0).abs() < 1e-9);
        assert!((scores.recall - 0.5).abs() < 1e-9);
        assert_eq!(scores.merged_apart.len(), 1);
        assert!(parse("a\tx\n# note\n\nb\ty\n").is_ok_and(|s| s.len() == 2));
        assert!(parse("no tab").is_err());
    }
}
