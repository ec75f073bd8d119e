//! The port: what the community service and its indexer ask of a search index, whatever
//! implements it ([`crate::DynamoSearchIndex`] now, a managed engine later).

use std::future::Future;

use platform::dynamo::DynamoError;

use crate::analyze::QueryTerms;

/// The most matches a query collects (and so the deepest window it can page to).
pub const MAX_MATCHES: usize = 1_000;

/// A version of a post, as the indexer read it from the posts table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexDoc {
    /// The post's id (a lowercase uuid; no `#`).
    pub post_id: String,
    /// The post's version, which grows with every edit (`META.version`).
    pub version: u64,
    pub title: String,
    pub body: String,
    /// PUBLISHED and not deleted: only such posts are found. Otherwise every term of the post
    /// leaves the index.
    pub published_live: bool,
    /// When the post was first published (RFC 3339, UTC, milliseconds: sortable). Postings
    /// sort newest first by it. Required when `published_live`.
    pub first_published_at: Option<String>,
}

/// What [`SearchIndex::apply_within`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// The index now holds this version.
    Indexed { transactions: usize },
    /// The index already held this version (a redelivery) or a newer one (a stale message).
    UpToDate,
    /// The transaction budget ran out first; the work so far is kept, and applying the same
    /// (or a newer) version again continues it.
    Paused { transactions: usize },
}

/// Which ranks of the matches to return: `offset..offset + limit`, within [`MAX_MATCHES`].
/// A caller that re-checks hits asks for a few more than it shows, to replace failures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub offset: usize,
    pub limit: usize,
}

/// One ranked match.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub post_id: String,
    pub score: f64,
    /// The post's first publication (the tie-break: newer first).
    pub first_published_at: String,
}

/// Why a query stopped before it had seen every posting of its rarest term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truncation {
    /// [`MAX_MATCHES`] newest matches were found; older ones were not looked at.
    MatchCap,
    /// The read budget (postings or Query calls) was spent.
    Budget,
}

/// The ranked window of a query's matches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hits {
    pub hits: Vec<Hit>,
    /// Matches found (at most [`MAX_MATCHES`]): the page total.
    pub total: usize,
    /// Set when the ranking covers only the newest matches found.
    pub truncated: Option<Truncation>,
    /// What the query read: Query calls and postings.
    pub queries: usize,
    pub postings_read: usize,
    /// Ranks of the segment after the [`Resume`] point (all of `total` without one).
    pub available: usize,
    /// Where the next segment of older matches starts (the [`Resume::below`] of its first
    /// page): set when the ranking was truncated after covering at least one driver step.
    pub resume_below: Option<String>,
}

/// The longest [`Resume::below`] kept: a posting key (`{at}#{postId}`) is 61 characters, so
/// a resume point's text stays within a list cursor's 200.
const MAX_BELOW_CHARS: usize = 64;

/// Where a ranked search continues. Matches are ranked in segments: a segment is the (at
/// most [`MAX_MATCHES`]) newest matches whose posting key is below `below`; `after` is the
/// last rank already given out in it, as (score, posting key `{at}#{postId}`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resume {
    pub below: Option<String>,
    pub after: Option<(f64, String)>,
}

impl Resume {
    /// The resume point a cursor's text names: `{below}~{score bits in hex}~{key}`, or a bare
    /// `{below}`. Any text is a place (the rest of the ranking below it), never an error.
    pub fn parse(text: &str) -> Self {
        let parts: Vec<&str> = text.splitn(3, '~').collect();
        let below =
            |b: &str| (!b.is_empty()).then(|| b.chars().take(MAX_BELOW_CHARS).collect::<String>());
        if let [b, score, key] = parts[..] {
            if score.len() == 16 {
                if let Ok(bits) = u64::from_str_radix(score, 16) {
                    return Self {
                        below: below(b),
                        after: Some((f64::from_bits(bits), key.to_string())),
                    };
                }
            }
        }
        Self {
            below: below(text),
            after: None,
        }
    }

    /// The text [`Resume::parse`] reads back as this point.
    pub fn text(&self) -> String {
        let below = self.below.as_deref().unwrap_or_default();
        match &self.after {
            Some((score, key)) => format!("{below}~{:016x}~{key}", score.to_bits()),
            None => below.to_string(),
        }
    }
}

/// Why the index failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
    /// A document the index cannot hold (a bug in the caller).
    #[error("invalid document: {0}")]
    InvalidDoc(String),
    /// A window past [`MAX_MATCHES`] (the caller bounds pages first).
    #[error("window {0:?} goes past {MAX_MATCHES} matches")]
    Window(Window),
    /// A write would break one of DynamoDB's limits (a bug: the limits are planned for).
    #[error("DynamoDB limit: {0}")]
    Limit(String),
    /// Other indexers kept changing the same post or counters; the message is retried.
    #[error("concurrent indexing kept conflicting")]
    Contended,
}

impl SearchError {
    /// True when the table could not be reached or throttled: a 503, or a retry later.
    pub fn is_unavailable(&self) -> bool {
        match self {
            Self::Dynamo(e) => e.is_unavailable(),
            Self::Contended => true,
            _ => false,
        }
    }
}

/// A search index of posts.
pub trait SearchIndex: Send + Sync {
    /// Makes the index hold `doc`'s version of the post, spending at most `max_transactions`
    /// write transactions (the indexer's time budget). Idempotent; safe under redelivery and
    /// concurrent indexers; a crash at any point is mended by applying again.
    fn apply_within(
        &self,
        doc: &IndexDoc,
        max_transactions: usize,
    ) -> impl Future<Output = Result<Applied, SearchError>> + Send;

    /// [`SearchIndex::apply_within`] without a budget.
    fn apply(&self, doc: &IndexDoc) -> impl Future<Output = Result<Applied, SearchError>> + Send {
        self.apply_within(doc, usize::MAX)
    }

    /// Removes a post for good (a hard delete): later versions of it are ignored. Unpublishing
    /// and soft deletes go through [`SearchIndex::apply`] with `published_live: false`.
    fn remove(&self, post_id: &str) -> impl Future<Output = Result<Applied, SearchError>> + Send;

    /// The posts holding every term of `query`, ranked, the `window` of them.
    fn search(
        &self,
        query: &QueryTerms,
        window: Window,
    ) -> impl Future<Output = Result<Hits, SearchError>> + Send {
        self.search_from(query, Resume::default(), window)
    }

    /// [`SearchIndex::search`] continued from `from`: the `window` of the ranks after it.
    fn search_from(
        &self,
        query: &QueryTerms,
        from: Resume,
        window: Window,
    ) -> impl Future<Output = Result<Hits, SearchError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_points_read_back_and_any_text_is_one() {
        let key = "2026-11-28T10:00:00.000Z#00000000-0000-4000-8000-000000000001";
        let point = Resume {
            below: Some(key.to_string()),
            after: Some((3.25, key.to_string())),
        };
        assert_eq!(Resume::parse(&point.text()), point);
        assert!(point.text().len() <= 200);
        let first = Resume {
            below: None,
            after: Some((0.1, key.to_string())),
        };
        assert_eq!(Resume::parse(&first.text()), first);
        let segment = Resume {
            below: Some(key.to_string()),
            after: None,
        };
        assert_eq!(Resume::parse(&segment.text()), segment);
        // Text no page gave out is still a place: the ranks below it.
        assert_eq!(Resume::parse("~zz~k").after, None);
        assert_eq!(
            Resume::parse(&"x".repeat(200)).below.map(|b| b.len()),
            Some(MAX_BELOW_CHARS)
        );
    }
}
