//! The retrieval index: BM25 over chunks without any embedding model, kept as an inverted
//! index in the intelligence table, behind the [`TermIndex`] port (a managed engine could
//! replace it without touching the service).
//!
//! A *unit* is what is indexed and removed as one: a runbook document (its chunks) or a
//! stored analysis (one chunk). Items (keys `pk`/`sk`):
//!
//! | Item | pk | sk | attributes |
//! |---|---|---|---|
//! | posting | `T#{term}` | `{kind}#{unit}` | `c`: `chunk:tf:len,...` of the unit's chunks holding the term |
//! | document frequency | `T#{term}` | `!DF#{kind}` | `df`: chunks of that kind holding the term |
//! | corpus | `STATS` | `{kind}` | `chunks`, `length` (terms in all chunks) |
//! | unit marker | `U#{kind}#{unit}` | `IDX` | `terms` (`term:k ...`, k = its chunks holding it), `chunks`, `length`, `state` |
//!
//! `{kind}` is `D` (runbook) or `A` (analysis). BM25 needs N and the average chunk length
//! (`STATS`, summed over the kinds searched), each term's df (`!DF#` items, summed) and each
//! chunk's tf and length (the postings). Terms come from `text-analysis` (folded, stop words
//! out, Porter2 stems), as community search's do.
//!
//! **Exactly once.** A posting and its df change travel in one transaction: the posting's Put
//! is conditioned on its absence (its Delete on its presence), and a pair whose condition
//! fails is dropped from the transaction, which is sent again. So df always equals the
//! number of chunks posted, whatever is retried, interrupted or repeated. The corpus figures
//! move with the marker's state changes (PARTIAL → COMPLETE adds them, COMPLETE → REMOVING
//! takes them away), each conditioned on the state read, so they move once too.
//!
//! **Writes.** [`TermIndex::put`] makes the index hold exactly the unit given: it removes
//! whatever the unit held before (a crashed or earlier put), writes the marker (absent
//! required: a concurrent put of the same unit is [`IndexError::Contended`]), then the
//! postings, 50 terms (100 items) a transaction, then completes. A unit keeps at most
//! [`MAX_UNIT_TERMS`] distinct terms (the most frequent), so a put is at most 60 posting
//! transactions plus 3 more. [`TermIndex::remove`] mirrors it, from the marker's term list.
//! An interrupted put or remove leaves a marker behind that the next put or remove of the
//! unit finishes; hits of units that are not (or no longer) visible are filtered by the
//! caller, which checks every hit against its record.
//!
//! **Query.** The query's terms, most frequent first (at most [`MAX_CANDIDATE_TERMS`]); one
//! BatchGet of their df items and `STATS`; the [`MAX_QUERY_TERMS`] rarest terms any chunk
//! holds (highest idf); one Query of each term's postings (at most
//! [`MAX_POSTINGS_PER_TERM`], read concurrently); chunks scored by BM25 (k1 1.2, b 0.75,
//! each query term weighted by its frequency in the query, `(k3+1)qtf/(k3+qtf)`, k3 = 2).
//! At most 2 BatchGets and 12 Queries. A term with more postings than the bound is scored
//! on the first ones read (in unit order): only very common terms have that many, and they
//! weigh least.
//!
//! `writes` holds the unit's put and remove, `search` the query and the corpus figures.

use std::collections::BTreeMap;
use std::future::Future;

use platform::dynamo::{key, DynamoError, Item, Table, TransactionError};

use crate::model::ReferenceKind;

mod search;
mod writes;

/// The most distinct terms one unit keeps (the most frequent; ties alphabetical).
pub const MAX_UNIT_TERMS: usize = 3_000;
/// The most distinct query terms whose df is read.
pub const MAX_CANDIDATE_TERMS: usize = 48;
/// The most query terms whose postings are read (the rarest).
pub const MAX_QUERY_TERMS: usize = 12;
/// The most postings (units) read per query term.
pub const MAX_POSTINGS_PER_TERM: usize = 500;
/// Term pairs (posting and df) per transaction: 100 items, DynamoDB's limit.
const PAIRS_PER_TRANSACTION: usize = 50;
/// Rounds of dropping pairs whose condition failed before giving up.
const CONDITION_ROUNDS: usize = 3;
/// BM25's query-term saturation.
const K3: f64 = 2.0;

const MARKER_SK: &str = "IDX";
const STATS_PK: &str = "STATS";
const PARTIAL: &str = "PARTIAL";
const COMPLETE: &str = "COMPLETE";
const REMOVING: &str = "REMOVING";

impl ReferenceKind {
    /// The kind's letter in the index's keys.
    pub fn code(self) -> &'static str {
        match self {
            Self::Runbook => "D",
            Self::Analysis => "A",
        }
    }

    fn from_code(code: &str) -> Option<Self> {
        match code {
            "D" => Some(Self::Runbook),
            "A" => Some(Self::Analysis),
            _ => None,
        }
    }
}

/// What is indexed and removed as one: a runbook (by its id) or an analysis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub kind: ReferenceKind,
    pub id: String,
}

impl Unit {
    pub fn new(kind: ReferenceKind, id: impl Into<String>) -> Self {
        Self {
            kind,
            id: id.into(),
        }
    }
}

/// One chunk's terms and length in terms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkTerms {
    pub terms: BTreeMap<String, u32>,
    pub length: u32,
}

impl ChunkTerms {
    /// The analysis of `text` (folded, stop words out, stemmed).
    pub fn of(text: &str) -> Self {
        let mut out = Self::default();
        for term in text_analysis::terms(text) {
            *out.terms.entry(term).or_default() += 1;
            out.length = out.length.saturating_add(1);
        }
        out
    }
}

/// A query term and its weight (from its frequency in the query).
#[derive(Clone, Debug, PartialEq)]
pub struct QueryTerm {
    pub term: String,
    pub weight: f64,
}

/// `text`'s distinct terms, most frequent first (ties: first seen), at most
/// [`MAX_CANDIDATE_TERMS`].
pub fn query_terms(text: &str) -> Vec<QueryTerm> {
    let mut counts: Vec<(String, u32)> = Vec::new();
    for term in text_analysis::terms(text) {
        match counts.iter_mut().find(|(t, _)| *t == term) {
            Some((_, c)) => *c += 1,
            None => counts.push((term, 1)),
        }
    }
    // Stable: equal counts keep their first-seen order.
    counts.sort_by_key(|(_, count)| std::cmp::Reverse(*count));
    counts
        .into_iter()
        .take(MAX_CANDIDATE_TERMS)
        .map(|(term, qtf)| {
            let qtf = f64::from(qtf);
            QueryTerm {
                term,
                weight: (K3 + 1.0) * qtf / (K3 + qtf),
            }
        })
        .collect()
}

/// One scored chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkHit {
    pub kind: ReferenceKind,
    pub unit: String,
    pub chunk: u32,
    pub score: f64,
}

/// The corpus figures of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    pub runbook_chunks: i64,
    pub analysis_chunks: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
    /// Another writer is changing the same unit (or kept conflicting).
    #[error("the index entry is being changed concurrently")]
    Contended,
}

impl IndexError {
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::Dynamo(e) if e.is_unavailable())
    }
}

impl From<TransactionError> for IndexError {
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Dynamo(d) => Self::Dynamo(d),
            TransactionError::Condition { .. } | TransactionError::Conflict => Self::Contended,
        }
    }
}

/// The retrieval index's port.
pub trait TermIndex: Send + Sync {
    /// Makes the index hold exactly `chunks` for `unit` (whatever it held before is removed).
    fn put(
        &self,
        unit: &Unit,
        chunks: &[ChunkTerms],
    ) -> impl Future<Output = Result<(), IndexError>> + Send;

    /// Removes whatever the index holds for `unit` (nothing: no error).
    fn remove(&self, unit: &Unit) -> impl Future<Output = Result<(), IndexError>> + Send;

    /// The best `limit` chunks of units of `kinds` for `terms`, by BM25, best first.
    fn search(
        &self,
        terms: &[QueryTerm],
        kinds: &[ReferenceKind],
        limit: usize,
    ) -> impl Future<Output = Result<Vec<ChunkHit>, IndexError>> + Send;

    fn stats(&self) -> impl Future<Output = Result<IndexStats, IndexError>> + Send;
}

/// [`TermIndex`] over the intelligence table.
#[derive(Clone, Debug)]
pub struct DynamoTermIndex {
    table: Table,
}

fn term_pk(term: &str) -> String {
    format!("T#{term}")
}

fn posting_key(term: &str, unit: &Unit) -> Item {
    key(term_pk(term), format!("{}#{}", unit.kind.code(), unit.id))
}

fn df_key(term: &str, kind: ReferenceKind) -> Item {
    key(term_pk(term), format!("!DF#{}", kind.code()))
}

fn marker_key(unit: &Unit) -> Item {
    key(format!("U#{}#{}", unit.kind.code(), unit.id), MARKER_SK)
}

fn stats_key(kind: ReferenceKind) -> Item {
    key(STATS_PK, kind.code())
}

fn encode_entries(entries: &[(u32, u32, u32)]) -> String {
    entries
        .iter()
        .map(|(c, tf, len)| format!("{c}:{tf}:{len}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn decode_entries(raw: &str) -> Option<Vec<(u32, u32, u32)>> {
    raw.split(',')
        .filter(|e| !e.is_empty())
        .map(|entry| {
            let mut parts = entry.split(':').map(|p| p.parse::<u32>().ok());
            match (parts.next(), parts.next(), parts.next(), parts.next()) {
                (Some(Some(c)), Some(Some(tf)), Some(Some(len)), None) => Some((c, tf, len)),
                _ => None,
            }
        })
        .collect()
}

impl DynamoTermIndex {
    pub fn new(table: Table) -> Self {
        Self { table }
    }

    fn corrupt(&self, reason: impl Into<String>) -> DynamoError {
        self.table.corrupt(reason)
    }
}

impl TermIndex for DynamoTermIndex {
    async fn put(&self, unit: &Unit, chunks: &[ChunkTerms]) -> Result<(), IndexError> {
        self.put_unit(unit, chunks).await
    }

    async fn remove(&self, unit: &Unit) -> Result<(), IndexError> {
        self.remove_unit(unit).await
    }

    async fn search(
        &self,
        terms: &[QueryTerm],
        kinds: &[ReferenceKind],
        limit: usize,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        self.search_terms(terms, kinds, limit).await
    }

    async fn stats(&self) -> Result<IndexStats, IndexError> {
        self.read_stats().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_terms_are_weighted_by_frequency() {
        let terms = query_terms("Disk full: the disk on db-1 is full, DISK alarms");
        let names: Vec<&str> = terms.iter().map(|t| t.term.as_str()).collect();
        assert_eq!(names[..2], ["disk", "full"]);
        assert!(terms[0].weight > terms[1].weight && terms[1].weight > terms[2].weight);
        assert_eq!(terms[2].weight, 1.0);
        let many: String = (0..100).map(|i| format!("word{i} ")).collect();
        assert_eq!(query_terms(&many).len(), MAX_CANDIDATE_TERMS);
        assert!(query_terms("the of and").is_empty());
    }

    #[test]
    fn entries_round_trip() {
        let entries = vec![(0, 2, 150), (7, 1, 99)];
        assert_eq!(decode_entries(&encode_entries(&entries)), Some(entries));
        assert_eq!(decode_entries(""), Some(vec![]));
        assert_eq!(decode_entries("1:2"), None);
        assert_eq!(decode_entries("1:2:3:4"), None);
        assert_eq!(decode_entries("a:b:c"), None);
    }
}
