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

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;

use futures::future::try_join_all;
use platform::dynamo::{
    key, n, s, Attributes, DynamoError, Item, Table, Transaction, TransactionError,
};
use text_analysis::bm25::Corpus;

use crate::model::ReferenceKind;

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

/// A unit's postings: per term, `(chunk, tf, chunk length)` of each chunk holding it.
type Postings = BTreeMap<String, Vec<(u32, u32, u32)>>;

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

/// The postings of `chunks`, at most [`MAX_UNIT_TERMS`] terms (the most frequent).
fn postings_of(chunks: &[ChunkTerms]) -> Postings {
    let mut all: Postings = BTreeMap::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let index = u32::try_from(i).unwrap_or(u32::MAX);
        for (term, tf) in &chunk.terms {
            all.entry(term.clone())
                .or_default()
                .push((index, *tf, chunk.length));
        }
    }
    if all.len() > MAX_UNIT_TERMS {
        let mut ranked: Vec<(u64, String)> = all
            .iter()
            .map(|(t, list)| {
                (
                    list.iter().map(|(_, tf, _)| u64::from(*tf)).sum(),
                    t.clone(),
                )
            })
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let keep: HashSet<String> = ranked
            .into_iter()
            .take(MAX_UNIT_TERMS)
            .map(|(_, t)| t)
            .collect();
        all.retain(|t, _| keep.contains(t));
    }
    all
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

/// One write of a term: the posting (with its encoded chunks) and df's change.
struct TermWrite {
    term: String,
    entries: String,
    chunks: i64,
}

impl DynamoTermIndex {
    pub fn new(table: Table) -> Self {
        Self { table }
    }

    fn corrupt(&self, reason: impl Into<String>) -> DynamoError {
        self.table.corrupt(reason)
    }

    async fn marker(&self, unit: &Unit) -> Result<Option<Item>, DynamoError> {
        self.table.get(marker_key(unit)).await
    }

    /// Writes (`adding`) or deletes each term's posting with its df change, exactly once.
    async fn apply(
        &self,
        unit: &Unit,
        writes: &[TermWrite],
        adding: bool,
    ) -> Result<(), IndexError> {
        for batch in writes.chunks(PAIRS_PER_TRANSACTION) {
            let mut pending: Vec<&TermWrite> = batch.iter().collect();
            let mut rounds = 0;
            while !pending.is_empty() {
                rounds += 1;
                if rounds > CONDITION_ROUNDS {
                    return Err(IndexError::Contended);
                }
                let mut tx = Transaction::new(&self.table);
                for write in &pending {
                    let df = df_key(&write.term, unit.kind);
                    if adding {
                        let mut item = posting_key(&write.term, unit);
                        item.insert("c".into(), s(write.entries.as_str()));
                        tx.put(item, Some("attribute_not_exists(pk)"))?;
                        tx.add(df, "df", write.chunks, None)?;
                    } else {
                        tx.delete(posting_key(&write.term, unit), Some("attribute_exists(pk)"))?;
                        tx.add(df, "df", -write.chunks, None)?;
                    }
                }
                match tx.commit_retrying().await {
                    Ok(_) => pending.clear(),
                    // Already written (or already gone): that pair is done, the rest again.
                    Err(TransactionError::Condition { failed }) => {
                        let done: HashSet<usize> = failed.iter().map(|i| i / 2).collect();
                        pending = pending
                            .into_iter()
                            .enumerate()
                            .filter(|(i, _)| !done.contains(i))
                            .map(|(_, w)| w)
                            .collect();
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(())
    }

    /// The term writes a marker's `terms` attribute lists.
    fn writes_of_marker(&self, marker: &Item) -> Result<Vec<TermWrite>, DynamoError> {
        let raw = marker.opt_string("terms").unwrap_or_default();
        raw.split(' ')
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let (term, k) = pair
                    .rsplit_once(':')
                    .ok_or_else(|| self.corrupt("marker terms"))?;
                let chunks = k.parse::<i64>().map_err(|_| self.corrupt("marker terms"))?;
                Ok(TermWrite {
                    term: term.to_string(),
                    entries: String::new(),
                    chunks,
                })
            })
            .collect()
    }

    fn state_update(&self, unit: &Unit, from: &str, to: &str) -> platform::dynamo::request::Update {
        Transaction::new(&self.table)
            .update_builder(marker_key(unit))
            .update_expression("SET #state = :to")
            .condition_expression("#state = :from")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":to", s(to))
            .expression_attribute_values(":from", s(from))
    }

    fn stats_update(
        &self,
        kind: ReferenceKind,
        chunks: i64,
        length: i64,
    ) -> platform::dynamo::request::Update {
        Transaction::new(&self.table)
            .update_builder(stats_key(kind))
            .update_expression("ADD chunks :chunks, #length :length")
            .expression_attribute_names("#length", "length")
            .expression_attribute_values(":chunks", n(chunks))
            .expression_attribute_values(":length", n(length))
    }

    async fn term_postings(
        &self,
        term: &str,
        kinds: &[ReferenceKind],
    ) -> Result<Vec<Item>, DynamoError> {
        let query = self
            .table
            .query()
            .expression_attribute_values(":pk", s(term_pk(term)));
        let query = match kinds {
            [kind] => query
                .key_condition_expression("pk = :pk AND begins_with(sk, :kind)")
                .expression_attribute_values(":kind", s(format!("{}#", kind.code()))),
            // Every posting sorts after `#` (its kind's capital letter), every df item before.
            _ => query
                .key_condition_expression("pk = :pk AND sk > :floor")
                .expression_attribute_values(":floor", s("#")),
        };
        self.table
            .query_all(
                query
                    .projection_expression("sk, #c")
                    .expression_attribute_names("#c", "c"),
                Some(MAX_POSTINGS_PER_TERM),
            )
            .await
    }
}

impl TermIndex for DynamoTermIndex {
    async fn put(&self, unit: &Unit, chunks: &[ChunkTerms]) -> Result<(), IndexError> {
        if self.marker(unit).await?.is_some() {
            self.remove(unit).await?;
        }
        let postings = postings_of(chunks);
        let writes: Vec<TermWrite> = postings
            .iter()
            .map(|(term, entries)| TermWrite {
                term: term.clone(),
                entries: encode_entries(entries),
                chunks: i64::try_from(entries.len()).unwrap_or(i64::MAX),
            })
            .collect();
        let chunk_count = i64::try_from(chunks.len()).unwrap_or(i64::MAX);
        let length: i64 = chunks.iter().map(|c| i64::from(c.length)).sum();
        let mut marker = marker_key(unit);
        let terms: Vec<String> = writes
            .iter()
            .map(|w| format!("{}:{}", w.term, w.chunks))
            .collect();
        marker.insert("terms".into(), s(terms.join(" ")));
        marker.insert("chunks".into(), n(chunk_count));
        marker.insert("length".into(), n(length));
        marker.insert("state".into(), s(PARTIAL));
        match self
            .table
            .put_item()
            .set_item(Some(marker))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => {}
            Err(e) if platform::dynamo::is_condition_failed(&e) => {
                return Err(IndexError::Contended)
            }
            Err(e) => return Err(self.table.fail("PutItem", &e).into()),
        }
        self.apply(unit, &writes, true).await?;
        let mut tx = Transaction::new(&self.table);
        tx.update(self.state_update(unit, PARTIAL, COMPLETE))?;
        tx.update(self.stats_update(unit.kind, chunk_count, length))?;
        tx.commit_retrying().await?;
        Ok(())
    }

    async fn remove(&self, unit: &Unit) -> Result<(), IndexError> {
        let Some(marker) = self.marker(unit).await? else {
            return Ok(());
        };
        let state = marker.opt_string("state").unwrap_or_default();
        if state != REMOVING {
            let mut tx = Transaction::new(&self.table);
            tx.update(self.state_update(unit, &state, REMOVING))?;
            if state == COMPLETE {
                let table = self.table.name();
                tx.update(self.stats_update(
                    unit.kind,
                    -marker.counter(table, "chunks")?,
                    -marker.counter(table, "length")?,
                ))?;
            }
            match tx.commit_retrying().await {
                // Another remover moved it first: the postings are removed all the same.
                Ok(()) | Err(TransactionError::Condition { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let writes = self.writes_of_marker(&marker)?;
        self.apply(unit, &writes, false).await?;
        self.table
            .delete_item()
            .set_key(Some(marker_key(unit)))
            .send()
            .await
            .map_err(|e| self.table.fail("DeleteItem", &e))?;
        Ok(())
    }

    async fn search(
        &self,
        terms: &[QueryTerm],
        kinds: &[ReferenceKind],
        limit: usize,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        if terms.is_empty() || kinds.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let table = self.table.name();
        // 1. df of the candidate terms and the corpus figures.
        let mut keys: Vec<Item> = kinds.iter().map(|k| stats_key(*k)).collect();
        for term in terms.iter().take(MAX_CANDIDATE_TERMS) {
            keys.extend(kinds.iter().map(|k| df_key(&term.term, *k)));
        }
        let items = self.table.batch_get_all(keys, None).await?;
        let (mut chunks, mut length) = (0, 0);
        let mut df: HashMap<String, i64> = HashMap::new();
        for item in &items {
            let pk = item.string(table, "pk")?;
            if pk == STATS_PK {
                chunks += item.counter(table, "chunks")?;
                length += item.counter(table, "length")?;
            } else if let Some(term) = pk.strip_prefix("T#") {
                *df.entry(term.to_string()).or_default() += item.counter(table, "df")?;
            }
        }
        let corpus = Corpus::new(chunks, length);
        // 2. The rarest terms any chunk holds.
        let mut chosen: Vec<(f64, &QueryTerm)> = terms
            .iter()
            .take(MAX_CANDIDATE_TERMS)
            .filter_map(|t| {
                let df = df.get(&t.term).copied().unwrap_or(0);
                (df > 0).then(|| (corpus.idf(df), t))
            })
            .collect();
        chosen.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| b.1.weight.total_cmp(&a.1.weight))
                .then_with(|| a.1.term.cmp(&b.1.term))
        });
        chosen.truncate(MAX_QUERY_TERMS);
        // 3. Their postings, concurrently; 4. BM25 per chunk.
        let postings = try_join_all(
            chosen
                .iter()
                .map(|(_, t)| self.term_postings(&t.term, kinds)),
        )
        .await?;
        let mut scores: HashMap<(ReferenceKind, String, u32), f64> = HashMap::new();
        for ((idf, term), items) in chosen.iter().zip(postings) {
            for item in items {
                let sk = item.string(table, "sk")?;
                let (code, unit) = sk
                    .split_once('#')
                    .ok_or_else(|| self.corrupt("posting key"))?;
                let kind =
                    ReferenceKind::from_code(code).ok_or_else(|| self.corrupt("posting kind"))?;
                let entries = decode_entries(&item.opt_string("c").unwrap_or_default())
                    .ok_or_else(|| self.corrupt("posting chunks"))?;
                for (chunk, tf, len) in entries {
                    *scores.entry((kind, unit.to_string(), chunk)).or_default() +=
                        term.weight * corpus.score(*idf, f64::from(tf), len);
                }
            }
        }
        let mut hits: Vec<ChunkHit> = scores
            .into_iter()
            .map(|((kind, unit, chunk), score)| ChunkHit {
                kind,
                unit,
                chunk,
                score,
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.kind.cmp(&b.kind))
                .then_with(|| a.unit.cmp(&b.unit))
                .then_with(|| a.chunk.cmp(&b.chunk))
        });
        hits.truncate(limit);
        Ok(hits)
    }

    async fn stats(&self) -> Result<IndexStats, IndexError> {
        let table = self.table.name();
        let items = self
            .table
            .batch_get_all(
                vec![
                    stats_key(ReferenceKind::Runbook),
                    stats_key(ReferenceKind::Analysis),
                ],
                None,
            )
            .await?;
        let mut stats = IndexStats::default();
        for item in &items {
            let chunks = item.counter(table, "chunks")?;
            match item.opt_string("sk").as_deref() {
                Some("D") => stats.runbook_chunks = chunks,
                Some("A") => stats.analysis_chunks = chunks,
                _ => {}
            }
        }
        Ok(stats)
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
    fn postings_keep_the_most_frequent_terms() {
        let chunk = |text: &str| ChunkTerms::of(text);
        let postings = postings_of(&[chunk("disk disk full"), chunk("disk replica")]);
        assert_eq!(postings["disk"], vec![(0, 2, 3), (1, 1, 2)]);
        assert_eq!(postings["replica"], vec![(1, 1, 2)]);
        let huge: String = (0..MAX_UNIT_TERMS + 10).map(|i| format!("w{i} ")).collect();
        let kept = postings_of(&[chunk(&format!("{huge} w5 w5"))]);
        assert_eq!(kept.len(), MAX_UNIT_TERMS);
        assert!(kept.contains_key("w5"));
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
