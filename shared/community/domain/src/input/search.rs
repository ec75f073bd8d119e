//! A search's input: the query text.

use community_search::QueryTerms;
use platform::Invalid;

/// The longest query text, in characters.
pub const MAX_QUERY_CHARS: usize = 200;
/// A search query: 1 to 200 characters, at most 8 distinct words after analysis. A query of
/// stop words only ("the") is valid and finds nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchText(QueryTerms);

impl SearchText {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        let q = raw.map(str::trim).unwrap_or_default();
        if q.is_empty() {
            return Err(Invalid::field("q", "is required and must not be blank"));
        }
        if q.chars().count() > MAX_QUERY_CHARS {
            return Err(Invalid::field(
                "q",
                format!("must be at most {MAX_QUERY_CHARS} characters"),
            ));
        }
        QueryTerms::parse(q)
            .map(Self)
            .map_err(|e| Invalid::field("q", e.to_string()))
    }

    pub fn terms(&self) -> &QueryTerms {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(e: &Invalid) -> Vec<&str> {
        e.errors().iter().map(|f| f.field.as_str()).collect()
    }

    #[test]
    fn queries_are_bounded_and_name_q() {
        for bad in [None, Some(""), Some("   ")] {
            let e = SearchText::parse(bad).unwrap_err();
            assert_eq!(fields(&e), vec!["q"], "{bad:?}");
        }
        let long = "a".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(
            fields(&SearchText::parse(Some(&long)).unwrap_err()),
            vec!["q"]
        );
        let many = "alpha bravo charlie delta echo foxtrot golf hotel india";
        assert_eq!(
            fields(&SearchText::parse(Some(many)).unwrap_err()),
            vec!["q"]
        );
        let ok = SearchText::parse(Some("  Running CAFÉS ")).unwrap();
        assert_eq!(ok.terms().terms(), ["cafe", "run"]);
        assert!(SearchText::parse(Some("the"))
            .unwrap()
            .terms()
            .terms()
            .is_empty());
    }
}
