//! The analyzer of posts and queries: the platform's text analysis ([`text_analysis`]:
//! lowercase, fold accents, split into tokens, drop stop words, stem; "Café Running" → `cafe`,
//! `run`) applied to a post's title and body, and to a query.

use std::collections::{BTreeMap, BTreeSet};

pub use text_analysis::analyze::{
    fold, fold_char, is_stop_word, terms, tokens, MAX_NUMBER_DIGITS, MAX_TOKEN_BYTES,
    MIN_TOKEN_BYTES,
};

/// The most distinct terms a query may have.
pub const MAX_QUERY_TERMS: usize = 8;

/// How often a term occurs in a post's title and in its body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TermFrequency {
    pub title: u32,
    pub body: u32,
}

/// A post's text, analysed: each distinct term with its frequencies, and the length of the
/// post in terms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analyzed {
    pub terms: BTreeMap<String, TermFrequency>,
    pub length: u32,
}

impl Analyzed {
    /// True when every one of `query`'s terms occurs in this post (the re-check of a hit
    /// whose post changed after it was indexed).
    pub fn contains_all(&self, query: &QueryTerms) -> bool {
        query.terms().iter().all(|t| self.terms.contains_key(t))
    }
}

/// Analyses a post's title and body.
pub fn analyze(title: &str, body: &str) -> Analyzed {
    let mut out = Analyzed::default();
    for (text, in_title) in [(title, true), (body, false)] {
        for term in terms(text) {
            let tf = out.terms.entry(term).or_default();
            if in_title {
                tf.title = tf.title.saturating_add(1);
            } else {
                tf.body = tf.body.saturating_add(1);
            }
            out.length = out.length.saturating_add(1);
        }
    }
    out
}

/// Why a query cannot be searched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("must have at most {MAX_QUERY_TERMS} distinct words")]
    TooManyTerms,
}

/// A query's distinct terms (at most [`MAX_QUERY_TERMS`]); empty when it held only stop
/// words, which matches nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryTerms(Vec<String>);

impl QueryTerms {
    /// Analyses the query text `q` (the caller has checked its length).
    pub fn parse(q: &str) -> Result<Self, QueryError> {
        let distinct: BTreeSet<String> = terms(q).into_iter().collect();
        if distinct.len() > MAX_QUERY_TERMS {
            return Err(QueryError::TooManyTerms);
        }
        Ok(Self(distinct.into_iter().collect()))
    }

    /// The terms, sorted.
    pub fn terms(&self) -> &[String] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analysis_counts_title_and_body() {
        let a = analyze("Running shoes", "Shoes for running. Shoe care.");
        assert_eq!(a.length, 6);
        assert_eq!(a.terms["run"], TermFrequency { title: 1, body: 1 });
        assert_eq!(a.terms["shoe"], TermFrequency { title: 1, body: 2 });
        assert_eq!(a.terms["care"], TermFrequency { title: 0, body: 1 });
    }

    #[test]
    fn queries_have_distinct_terms_at_most_eight() {
        let q = QueryTerms::parse("Running runs RUN café").unwrap();
        assert_eq!(q.terms(), ["cafe", "run"]);
        assert!(QueryTerms::parse("the of and").unwrap().is_empty());
        assert_eq!(
            QueryTerms::parse("alpha bravo charlie delta echo foxtrot golf hotel india"),
            Err(QueryError::TooManyTerms)
        );
        let a = analyze("Café news", "running");
        assert!(a.contains_all(&q));
        assert!(!a.contains_all(&QueryTerms::parse("cafe tea").unwrap()));
    }
}
