//! Pairwise precision and recall of a clustering against labels: the measure the crate's
//! threshold was chosen with (`tests/labelled.rs`), kept here so a caller can measure its own
//! labelled days the same way.

use std::collections::HashMap;
use std::hash::Hash;

use crate::{ArticleId, Story};

/// Counts over the pairs of articles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairScores {
    /// Pairs in one story that share a label.
    pub true_positives: u64,
    /// Pairs in one story.
    pub predicted_pairs: u64,
    /// Pairs that share a label.
    pub labelled_pairs: u64,
}

impl PairScores {
    /// The share of pairs put together that belong together (1 when none were put together).
    pub fn precision(&self) -> f64 {
        ratio(self.true_positives, self.predicted_pairs)
    }

    /// The share of pairs that belong together that were put together (1 when none belong).
    pub fn recall(&self) -> f64 {
        ratio(self.true_positives, self.labelled_pairs)
    }

    /// The harmonic mean of precision and recall.
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        }
    }
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

fn pairs(count: u64) -> u64 {
    count * count.saturating_sub(1) / 2
}

/// Scores `stories` against `labels` (article → its true event). An article without a label
/// is an event of its own.
pub fn pairwise<L: Eq + Hash>(labels: &HashMap<ArticleId, L>, stories: &[Story]) -> PairScores {
    let mut scores = PairScores::default();
    let mut per_label: HashMap<&L, u64> = HashMap::new();
    for story in stories {
        scores.predicted_pairs += pairs(story.articles.len() as u64);
        let mut in_story: HashMap<&L, u64> = HashMap::new();
        for article in &story.articles {
            if let Some(label) = labels.get(&article.id) {
                *in_story.entry(label).or_default() += 1;
                *per_label.entry(label).or_default() += 1;
            }
        }
        scores.true_positives += in_story.values().map(|&k| pairs(k)).sum::<u64>();
    }
    scores.labelled_pairs = per_label.values().map(|&k| pairs(k)).sum();
    scores
}
