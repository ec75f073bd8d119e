//! Embeddings, when `EMBEDDINGS_MODEL` is set: the deployment's provider (`LLM_PROVIDER`) is
//! asked at its OpenAI-compatible `/embeddings` endpoint, and retrieval becomes hybrid: the
//! BM25 candidates are ranked again by reciprocal rank fusion of their BM25 rank and their
//! cosine similarity to the query ([`fuse`]).
//!
//! Bounded and without Scan: vectors are stored on the chunks (and analyses) they embed, and
//! only the BM25 candidate pool's vectors are read (the same BatchGet that reads their text).
//! So hybrid ranking reorders what BM25 finds; a passage that shares no term with the query is
//! not found (a vector index, such as OpenSearch Serverless's k-NN, is the next step if that
//! matters).

use llm::{Llm, LlmError};
use platform::Env;

use crate::store::Embedding;

/// The metrics' `endpoint` label of embeddings calls.
pub const OPERATION: &str = "incident-embeddings";
/// Inputs per embeddings call (a document's chunks go in calls of this many).
pub const BATCH: usize = 64;
/// The longest text embedded, in characters (models take about 8,000 tokens).
pub const MAX_INPUT_CHARS: usize = 8_000;
/// Reciprocal rank fusion's constant.
pub const RRF_K: f64 = 60.0;

/// The embeddings model and the client that asks for it.
#[derive(Clone)]
pub struct Embedder {
    llm: Llm,
    model: String,
}

impl Embedder {
    pub fn new(llm: Llm, model: impl Into<String>) -> Self {
        Self {
            llm,
            model: model.into(),
        }
    }

    /// `EMBEDDINGS_MODEL`, unset or blank: none (BM25 alone).
    pub fn from_env(env: &Env, llm: &Llm) -> Option<Self> {
        env.get("EMBEDDINGS_MODEL")
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(|model| Self::new(llm.clone(), model))
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    /// One embedding per text, in order (texts cut to [`MAX_INPUT_CHARS`]).
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Embedding>, LlmError> {
        let provider = self.llm.provider().await?;
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let inputs: Vec<String> = batch
                .iter()
                .map(|t| t.chars().take(MAX_INPUT_CHARS).collect())
                .collect();
            let vectors = self
                .llm
                .embed(OPERATION, &provider, &self.model, &inputs)
                .await?;
            out.extend(vectors.into_iter().map(|vector| Embedding {
                model: self.model.clone(),
                vector,
            }));
        }
        Ok(out)
    }
}

/// Cosine similarity of two vectors of one dimension (`None` otherwise, or for a zero one).
pub fn cosine(a: &[f32], b: &[f32]) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let (mut dot, mut na, mut nb) = (0.0_f64, 0.0_f64, 0.0_f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    (na > 0.0 && nb > 0.0).then(|| dot / (na.sqrt() * nb.sqrt()))
}

/// Reciprocal rank fusion of a BM25 order (candidates `0..n` are in it, best first) and
/// their similarities to the query (`None`: no comparable vector, ranked after every
/// candidate that has one): each candidate's `1/(k + bm25 rank) + 1/(k + cosine rank)`,
/// ranks from 1. Returns the fused scores in candidate order.
pub fn fuse(similarities: &[Option<f64>]) -> Vec<f64> {
    let mut by_similarity: Vec<usize> = (0..similarities.len()).collect();
    by_similarity.sort_by(|a, b| match (similarities.get(*a), similarities.get(*b)) {
        (Some(Some(x)), Some(Some(y))) => y.total_cmp(x).then(a.cmp(b)),
        (Some(Some(_)), _) => std::cmp::Ordering::Less,
        (_, Some(Some(_))) => std::cmp::Ordering::Greater,
        _ => a.cmp(b),
    });
    let mut cosine_rank = vec![0usize; similarities.len()];
    for (rank, candidate) in by_similarity.into_iter().enumerate() {
        if let Some(slot) = cosine_rank.get_mut(candidate) {
            *slot = rank + 1;
        }
    }
    cosine_rank
        .into_iter()
        .enumerate()
        .map(|(bm25, cos)| 1.0 / (RRF_K + (bm25 + 1) as f64) + 1.0 / (RRF_K + cos as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_of_vectors() {
        assert_eq!(cosine(&[1.0, 0.0], &[2.0, 0.0]), Some(1.0));
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 3.0]), Some(0.0));
        assert!(cosine(&[1.0, 0.0], &[-1.0, 0.0]).is_some_and(|c| c < -0.99));
        assert_eq!(cosine(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn fusion_lets_a_close_vector_overtake_a_better_bm25_rank() {
        // BM25 order: 0, 1, 2. Cosine: 2 is closest, 1 has no vector.
        let fused = fuse(&[Some(0.1), None, Some(0.9)]);
        assert!(fused[2] > fused[1], "{fused:?}");
        assert!(fused[0] > fused[1], "{fused:?}");
        // Equal similarity: BM25 decides.
        let tie = fuse(&[Some(0.5), Some(0.5)]);
        assert!(tie[0] > tie[1]);
        assert!(fuse(&[]).is_empty());
    }
}
