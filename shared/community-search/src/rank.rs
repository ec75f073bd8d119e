//! BM25F-lite: BM25 over `tf' = 3·tfTitle + tfBody`, so a title counts three times a body.

/// BM25's saturation.
pub const K1: f64 = 1.2;
/// BM25's length normalisation.
pub const B: f64 = 0.75;
/// How much more a title occurrence counts than a body one.
pub const TITLE_WEIGHT: f64 = 3.0;

/// The corpus numbers a score needs.
#[derive(Clone, Copy, Debug)]
pub struct Corpus {
    /// Posts in the index.
    pub docs: f64,
    /// Their average length in terms.
    pub avg_len: f64,
}

impl Corpus {
    pub fn new(docs: i64, total_len: i64) -> Self {
        // Counters are exact, but a query racing the first post's indexing may see 0.
        let docs = (docs.max(1)) as f64;
        let avg_len = ((total_len.max(1)) as f64 / docs).max(1.0);
        Self { docs, avg_len }
    }

    /// A term's inverse document frequency (never negative).
    pub fn idf(&self, df: i64) -> f64 {
        let df = df.max(0) as f64;
        (1.0 + (self.docs - df + 0.5) / (df + 0.5)).max(1.0).ln()
    }

    /// One term's contribution to a post's score.
    pub fn term_score(&self, idf: f64, tf_title: u32, tf_body: u32, len: u32) -> f64 {
        let tf = TITLE_WEIGHT * f64::from(tf_title) + f64::from(tf_body);
        let norm = K1 * (1.0 - B + B * f64::from(len) / self.avg_len);
        idf * tf * (K1 + 1.0) / (tf + norm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_beats_body_rare_beats_common() {
        let corpus = Corpus::new(100, 10_000);
        let idf = corpus.idf(5);
        assert!(corpus.term_score(idf, 1, 0, 100) > corpus.term_score(idf, 0, 1, 100));
        assert!(corpus.idf(1) > corpus.idf(50));
        assert!(corpus.idf(100) > 0.0);
        // Shorter posts score higher for the same counts.
        assert!(corpus.term_score(idf, 0, 1, 50) > corpus.term_score(idf, 0, 1, 200));
        let empty = Corpus::new(0, 0);
        assert!(empty.idf(0).is_finite() && empty.avg_len >= 1.0);
    }
}
