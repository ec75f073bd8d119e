//! What the intelligence routes answer: analyses with their references, runbook documents,
//! search hits and the health body. Field names are snake_case, as the API names the
//! analysis request's (`use_rag`, `log_id`, `top_k`).

use llm::ProviderKind;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How serious the model judges what the log shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum AnalysisSeverity {
    Low,
    Medium,
    High,
    Critical,
}

impl AnalysisSeverity {
    pub const ALL: [Self; 4] = [Self::Low, Self::Medium, Self::High, Self::Critical];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "LOW",
            Self::Medium => "MEDIUM",
            Self::High => "HIGH",
            Self::Critical => "CRITICAL",
        }
    }

    /// The severity named by `raw`, in any case.
    pub fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim();
        Self::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(raw))
    }
}

/// What a reference points at.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ReferenceKind {
    /// A chunk of a runbook document (`POST /api/v1/rag/documents`).
    Runbook,
    /// A stored analysis of an earlier log.
    Analysis,
}

/// A retrieved passage an analysis was given, and cites.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AnalysisReference {
    pub kind: ReferenceKind,
    /// The runbook document's id, or the cited analysis's id.
    pub id: String,
    /// The runbook's title, or `Analysis of log {log_id}` for an analysis.
    pub title: String,
    /// The passage as the model was given it (secrets redacted).
    pub chunk: String,
    /// The chunk's position in its runbook (from 0); absent for an analysis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_index: Option<u32>,
    /// The log the cited analysis is about, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_id: Option<String>,
    /// The retrieval score (BM25, or the fused rank score when embeddings are configured).
    pub score: f64,
}

/// One stored analysis of a log's text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Analysis {
    /// The analysis's own id (a uuid).
    pub id: String,
    /// The log it analyses (a platform log id), when one was named; analyses are stored by it.
    pub log_id: Option<String>,
    /// The analysed log's service, when `log_id` named a stored log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    pub summary: String,
    pub root_cause: String,
    pub severity: AnalysisSeverity,
    pub recommendations: Vec<String>,
    /// What retrieval gave the model (empty unless `use_rag`).
    pub references: Vec<AnalysisReference>,
    /// The provider the request chose (`local` or `cloud`).
    pub mode: ProviderKind,
    /// The model that answered.
    pub model: String,
    /// The provider that answered.
    pub provider: ProviderKind,
    /// How long the model took to answer, in milliseconds.
    pub llm_latency_ms: u64,
    /// Secrets replaced in the text before the model saw it.
    pub redactions: usize,
    /// The user who asked for it.
    pub created_by: String,
    /// RFC 3339, UTC, milliseconds.
    pub created_at: String,
}

/// Where a runbook document is in its life: written chunk by chunk (`INDEXING`), searchable
/// (`READY`), being removed (`DELETING`). Only READY documents are retrieved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum RagDocumentStatus {
    Indexing,
    Ready,
    Deleting,
}

impl RagDocumentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Indexing => "INDEXING",
            Self::Ready => "READY",
            Self::Deleting => "DELETING",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [Self::Indexing, Self::Ready, Self::Deleting]
            .into_iter()
            .find(|s| s.as_str() == raw)
    }
}

/// A runbook document of the retrieval corpus (its text lives in its chunks).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RagDocument {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    /// The chunks its text was split into.
    pub chunks: u32,
    /// Its text's size in UTF-8 bytes (after redaction).
    pub bytes: u64,
    /// Secrets replaced in its text before it was stored.
    pub redactions: usize,
    pub status: RagDocumentStatus,
    /// Whether its chunks carry embeddings (hybrid ranking), and of which model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings_model: Option<String>,
    pub created_by: String,
    pub created_at: String,
}

/// One ranked chunk of a runbook.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RagSearchHit {
    pub document_id: String,
    pub title: String,
    pub chunk: String,
    /// The chunk's position in its document (from 0).
    pub chunk_index: u32,
    /// BM25, or the fused rank score when embeddings are configured; higher is better.
    pub score: f64,
}

/// One provider's readiness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProviderHealth {
    /// Whether it can be called (the cloud provider needs `LLM_API_KEY`).
    pub configured: bool,
    /// The model it is asked for.
    pub model: String,
}

/// The providers behind `mode`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProvidersHealth {
    /// The mode used when a request names none (`LLM_PROVIDER`); absent when that is invalid.
    pub default_mode: Option<ProviderKind>,
    pub cloud: ProviderHealth,
    pub local: ProviderHealth,
}

/// The embeddings that make retrieval hybrid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EmbeddingsHealth {
    /// `EMBEDDINGS_MODEL` is set: retrieval fuses BM25 with cosine similarity.
    pub configured: bool,
    pub model: Option<String>,
}

/// The retrieval index's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct IndexHealth {
    /// `ok`, or `unavailable` when the table cannot be read.
    pub status: String,
    /// `bm25`, or `hybrid` (BM25 fused with embeddings).
    pub ranking: String,
    pub documents: Option<i64>,
    pub runbook_chunks: Option<i64>,
    pub analyses: Option<i64>,
}

/// `GET /health`: the intelligence function, its providers and its index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct IntelligenceHealth {
    /// `ok`; `unavailable` (with a 503) when the index's table cannot be read.
    pub status: String,
    pub providers: ProvidersHealth,
    pub embeddings: EmbeddingsHealth,
    pub index: IndexHealth,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_and_statuses_read_back() {
        assert_eq!(
            AnalysisSeverity::parse(" high "),
            Some(AnalysisSeverity::High)
        );
        assert_eq!(AnalysisSeverity::parse("severe"), None);
        for status in [
            RagDocumentStatus::Indexing,
            RagDocumentStatus::Ready,
            RagDocumentStatus::Deleting,
        ] {
            assert_eq!(RagDocumentStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(
            serde_json::to_value(ReferenceKind::Runbook).unwrap(),
            serde_json::json!("runbook")
        );
    }
}
