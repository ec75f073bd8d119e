//! The query: the candidate terms' df and the corpus figures, the rarest terms' postings,
//! chunks scored by BM25; and the corpus figures for health.

use std::collections::HashMap;

use futures::future::try_join_all;
use platform::dynamo::{s, Attributes, DynamoError, Item};
use text_analysis::bm25::Corpus;

use super::{
    decode_entries, df_key, stats_key, term_pk, ChunkHit, DynamoTermIndex, IndexError, IndexStats,
    QueryTerm, MAX_CANDIDATE_TERMS, MAX_POSTINGS_PER_TERM, MAX_QUERY_TERMS, STATS_PK,
};
use crate::model::ReferenceKind;

impl DynamoTermIndex {
    /// One term's postings of `kinds`, at most [`MAX_POSTINGS_PER_TERM`].
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

    /// [`super::TermIndex::search`], in its steps: the figures, the rarest terms, their
    /// postings (concurrently), BM25 per chunk.
    pub(super) async fn search_terms(
        &self,
        terms: &[QueryTerm],
        kinds: &[ReferenceKind],
        limit: usize,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        if terms.is_empty() || kinds.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let (corpus, df) = self.figures(terms, kinds).await?;
        let chosen = rarest(terms, &df, &corpus);
        // Step 3: their postings, concurrently.
        let postings = try_join_all(
            chosen
                .iter()
                .map(|(_, t)| self.term_postings(&t.term, kinds)),
        )
        .await?;
        let scores = self.scores(&chosen, postings, &corpus)?;
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

    /// Step 1: the df of the candidate terms and the corpus figures, summed over `kinds`
    /// (one batch read).
    async fn figures(
        &self,
        terms: &[QueryTerm],
        kinds: &[ReferenceKind],
    ) -> Result<(Corpus, HashMap<String, i64>), DynamoError> {
        let table = self.table.name();
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
        Ok((corpus, df))
    }

    /// Step 4: BM25 per chunk, from the `postings` of each `chosen` term.
    fn scores(
        &self,
        chosen: &[(f64, &QueryTerm)],
        postings: Vec<Vec<Item>>,
        corpus: &Corpus,
    ) -> Result<HashMap<(ReferenceKind, String, u32), f64>, DynamoError> {
        let table = self.table.name();
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
        Ok(scores)
    }

    pub(super) async fn read_stats(&self) -> Result<IndexStats, IndexError> {
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

/// Step 2: the rarest (highest idf) of the candidate terms that any chunk holds, at most
/// [`MAX_QUERY_TERMS`].
fn rarest<'a>(
    terms: &'a [QueryTerm],
    df: &HashMap<String, i64>,
    corpus: &Corpus,
) -> Vec<(f64, &'a QueryTerm)> {
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
    chosen
}
