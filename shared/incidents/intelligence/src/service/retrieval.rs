//! Retrieval: BM25 candidates from the index, checked against their records (a runbook must
//! be READY, an analysis visible), fused with cosine similarity when embeddings are
//! configured; and the runbook search built on it.

use std::collections::HashMap;

use platform::dynamo::Item;

use super::{Intelligence, IntelligenceError, CANDIDATE_POOL};
use crate::embed::{cosine, fuse};
use crate::index::{query_terms, ChunkHit, TermIndex};
use crate::input::SearchInput;
use crate::model::{Analysis, AnalysisReference, RagDocumentStatus, RagSearchHit, ReferenceKind};
use crate::redact::redact;
use crate::store::{analysis_key, chunk_key, document_key, Embedding, StoredAnalysis};

/// The key, author and id an analysis unit names.
fn unit_parts(unit: &str) -> Option<(&str, &str, &str)> {
    let mut parts = unit.splitn(3, '/');
    Some((parts.next()?, parts.next()?, parts.next()?))
}

/// How a found analysis is titled.
fn analysis_title(analysis: &Analysis) -> String {
    match &analysis.log_id {
        Some(log) => format!("Analysis of log {log}"),
        None => format!("Analysis {}", analysis.id),
    }
}

/// One retrieved passage.
#[derive(Clone, Debug)]
pub(super) struct Retrieved {
    pub(super) kind: ReferenceKind,
    /// The document's id, or the analysis's.
    pub(super) id: String,
    pub(super) title: String,
    pub(super) text: String,
    pub(super) chunk_index: Option<u32>,
    pub(super) score: f64,
    pub(super) embedding: Option<Embedding>,
    pub(super) analysis: Option<StoredAnalysis>,
}

impl Retrieved {
    pub(super) fn reference(&self) -> AnalysisReference {
        AnalysisReference {
            kind: self.kind,
            id: self.id.clone(),
            title: self.title.clone(),
            chunk: self.text.clone(),
            chunk_index: self.chunk_index,
            log_id: self
                .analysis
                .as_ref()
                .and_then(|a| a.analysis.log_id.clone()),
            score: self.score,
        }
    }
}

impl<I: TermIndex> Intelligence<I> {
    /// The best `top_k` visible passages of `kinds` for `text` (redacted already) that
    /// `keep` accepts: BM25 candidates, checked against their records, fused with cosine
    /// similarity when embeddings are configured.
    pub(super) async fn retrieve(
        &self,
        text: &str,
        kinds: &[ReferenceKind],
        top_k: usize,
        pool: usize,
        keep: impl Fn(&Retrieved) -> bool,
    ) -> Result<Vec<Retrieved>, IntelligenceError> {
        let terms = query_terms(text);
        let hits = self.index.search(&terms, kinds, pool).await?;
        if hits.is_empty() {
            return Ok(Vec::new());
        }
        let cutoff = if kinds.contains(&ReferenceKind::Analysis) {
            self.store.purged_before().await?
        } else {
            String::new()
        };
        let records = self.records(&hits).await?;
        let record = |key: Item| -> Option<&Item> {
            let part = |name: &str| key.get(name).and_then(|v| v.as_s().ok()).cloned();
            records.get(&(part("pk")?, part("sk")?))
        };
        let mut found: Vec<Retrieved> = Vec::new();
        for hit in &hits {
            let candidate = match hit.kind {
                ReferenceKind::Runbook => {
                    let doc = record(document_key(&hit.unit))
                        .map(|i| self.store.document_from(i))
                        .transpose()?
                        .filter(|d| d.status == RagDocumentStatus::Ready);
                    let chunk = record(chunk_key(&hit.unit, hit.chunk))
                        .map(|i| self.store.chunk_from(i))
                        .transpose()?;
                    doc.zip(chunk).map(|(doc, chunk)| Retrieved {
                        kind: ReferenceKind::Runbook,
                        id: doc.id,
                        title: doc.title,
                        text: chunk.text,
                        chunk_index: Some(chunk.index),
                        score: hit.score,
                        embedding: chunk.embedding,
                        analysis: None,
                    })
                }
                ReferenceKind::Analysis => {
                    let (key, author, id) = unit_parts(&hit.unit).unwrap_or(("", "", ""));
                    record(analysis_key(key, author))
                        .map(|i| self.store.analysis_from(i))
                        .transpose()?
                        .filter(|a| a.analysis.id == id && a.analysis.created_at >= cutoff)
                        .map(|stored| Retrieved {
                            kind: ReferenceKind::Analysis,
                            id: stored.analysis.id.clone(),
                            title: analysis_title(&stored.analysis),
                            text: stored.text.clone(),
                            chunk_index: None,
                            score: hit.score,
                            embedding: stored.embedding.clone(),
                            analysis: Some(stored),
                        })
                }
            };
            if let Some(candidate) = candidate.filter(|c| keep(c)) {
                found.push(candidate);
            }
        }
        self.rerank(text, &mut found).await;
        found.truncate(top_k);
        Ok(found)
    }

    /// The records the `hits` name (a runbook's record and chunk, an analysis's record), in
    /// one batch read, by their `(pk, sk)`.
    async fn records(
        &self,
        hits: &[ChunkHit],
    ) -> Result<HashMap<(String, String), Item>, IntelligenceError> {
        let mut keys: Vec<Item> = Vec::new();
        for hit in hits {
            match hit.kind {
                ReferenceKind::Runbook => {
                    keys.push(document_key(&hit.unit));
                    keys.push(chunk_key(&hit.unit, hit.chunk));
                }
                ReferenceKind::Analysis => {
                    if let Some((key, author, _)) = unit_parts(&hit.unit) {
                        keys.push(analysis_key(key, author));
                    }
                }
            }
        }
        let mut records: HashMap<(String, String), Item> = HashMap::new();
        for item in self.store.items(keys).await? {
            let pk = item.get("pk").and_then(|v| v.as_s().ok()).cloned();
            let sk = item.get("sk").and_then(|v| v.as_s().ok()).cloned();
            if let (Some(pk), Some(sk)) = (pk, sk) {
                records.insert((pk, sk), item);
            }
        }
        Ok(records)
    }

    /// Reorders `found` by its BM25 scores fused with the query's cosine similarity, when
    /// embeddings are configured and the query's embedding is had; else leaves it as it is.
    async fn rerank(&self, text: &str, found: &mut [Retrieved]) {
        if let (Some(embedder), false) = (&self.embedder, found.is_empty()) {
            if let Some(query) = self.embed_or_skip(text, "query").await {
                let similarities: Vec<Option<f64>> = found
                    .iter()
                    .map(|c| {
                        c.embedding
                            .as_ref()
                            .filter(|e| e.model == embedder.model())
                            .and_then(|e| cosine(&query.vector, &e.vector))
                    })
                    .collect();
                for (candidate, score) in found.iter_mut().zip(fuse(&similarities)) {
                    candidate.score = score;
                }
                found.sort_by(|a, b| b.score.total_cmp(&a.score));
            }
        }
    }

    /// `POST /api/v1/rag/search`: the best runbook chunks for a query.
    pub async fn search(&self, input: SearchInput) -> Result<Vec<RagSearchHit>, IntelligenceError> {
        let query = redact(&input.query).text;
        let found = self
            .retrieve(
                &query,
                &[ReferenceKind::Runbook],
                input.top_k,
                CANDIDATE_POOL.max(input.top_k),
                |_| true,
            )
            .await?;
        Ok(found
            .into_iter()
            .map(|r| RagSearchHit {
                document_id: r.id,
                title: r.title,
                chunk: r.text,
                chunk_index: r.chunk_index.unwrap_or(0),
                score: r.score,
            })
            .collect())
    }
}
