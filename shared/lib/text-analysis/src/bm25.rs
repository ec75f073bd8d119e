//! Okapi BM25: `Σ idf(t)·tf·(k1+1)/(tf + k1·(1−b+b·len/avgLen))` with
//! `idf = ln(1+(N−df+0.5)/(df+0.5))`, never negative.

/// BM25's saturation.
pub const K1: f64 = 1.2;
/// BM25's length normalisation.
pub const B: f64 = 0.75;

/// The corpus numbers a score needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Corpus {
    /// Documents (or chunks: whatever a score ranks) in the index.
    pub docs: f64,
    /// Their average length in terms.
    pub avg_len: f64,
}

impl Corpus {
    pub fn new(docs: i64, total_len: i64) -> Self {
        // Counters are exact, but a query racing the first document's indexing may see 0.
        let docs = (docs.max(1)) as f64;
        let avg_len = ((total_len.max(1)) as f64 / docs).max(1.0);
        Self { docs, avg_len }
    }

    /// A term's inverse document frequency (never negative).
    pub fn idf(&self, df: i64) -> f64 {
        let df = df.max(0) as f64;
        (1.0 + (self.docs - df + 0.5) / (df + 0.5)).max(1.0).ln()
    }

    /// One term's contribution to a document's score: `tf` occurrences (weighted, if the
    /// caller weighs fields) in a document of `len` terms.
    pub fn score(&self, idf: f64, tf: f64, len: u32) -> f64 {
        let norm = K1 * (1.0 - B + B * f64::from(len) / self.avg_len);
        idf * tf * (K1 + 1.0) / (tf + norm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_beats_common_short_beats_long_and_tf_saturates() {
        let corpus = Corpus::new(100, 10_000);
        assert!(corpus.idf(1) > corpus.idf(50));
        assert!(corpus.idf(100) > 0.0);
        let idf = corpus.idf(5);
        assert!(corpus.score(idf, 1.0, 50) > corpus.score(idf, 1.0, 200));
        let (one, two, ten) = (
            corpus.score(idf, 1.0, 100),
            corpus.score(idf, 2.0, 100),
            corpus.score(idf, 10.0, 100),
        );
        assert!(one < two && two < ten);
        assert!(ten < idf * (K1 + 1.0), "saturates below idf·(k1+1)");
        let empty = Corpus::new(0, 0);
        assert!(empty.idf(0).is_finite() && empty.avg_len >= 1.0);
    }
}
