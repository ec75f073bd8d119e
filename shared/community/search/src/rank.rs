//! BM25F-lite: BM25 ([`text_analysis::bm25`]) over `tf' = 3·tfTitle + tfBody`, so a title
//! counts three times a body.

pub use text_analysis::bm25::{Corpus, B, K1};

/// How much more a title occurrence counts than a body one.
pub const TITLE_WEIGHT: f64 = 3.0;

/// One term's contribution to a post's score.
pub fn term_score(corpus: &Corpus, idf: f64, tf_title: u32, tf_body: u32, len: u32) -> f64 {
    let tf = TITLE_WEIGHT * f64::from(tf_title) + f64::from(tf_body);
    corpus.score(idf, tf, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_beats_body() {
        let corpus = Corpus::new(100, 10_000);
        let idf = corpus.idf(5);
        assert!(term_score(&corpus, idf, 1, 0, 100) > term_score(&corpus, idf, 0, 1, 100));
        assert_eq!(
            term_score(&corpus, idf, 0, 3, 100),
            corpus.score(idf, 3.0, 100)
        );
    }
}
