//! `GET /health`: the providers, the embeddings and the index's figures.

use llm::ProviderKind;

use super::Intelligence;
use crate::index::TermIndex;
use crate::model::{
    EmbeddingsHealth, IndexHealth, IntelligenceHealth, ProviderHealth, ProvidersHealth,
};

impl<I: TermIndex> Intelligence<I> {
    /// `GET /health`: the providers, the embeddings and the index's figures; `status` is
    /// `unavailable` when the table cannot be read.
    pub async fn health(&self) -> IntelligenceHealth {
        let config = self.config();
        let model = |kind| {
            self.provider_for(Some(kind))
                .map(|p| p.model)
                .unwrap_or_default()
        };
        let providers = ProvidersHealth {
            default_mode: config.resolve(None).ok().map(|p| p.kind),
            cloud: ProviderHealth {
                configured: config.configured(ProviderKind::Cloud),
                model: model(ProviderKind::Cloud),
            },
            local: ProviderHealth {
                configured: config.configured(ProviderKind::Local),
                model: model(ProviderKind::Local),
            },
        };
        let embeddings = EmbeddingsHealth {
            configured: self.embedder.is_some(),
            model: self.embedder.as_ref().map(|e| e.model().to_string()),
        };
        let ranking = if self.embedder.is_some() {
            "hybrid"
        } else {
            "bm25"
        };
        let figures = match (self.index.stats().await, self.store.document_count().await) {
            (Ok(stats), Ok(documents)) => Some((stats, documents)),
            (Err(error), _) => {
                tracing::warn!(%error, "index unavailable");
                None
            }
            (_, Err(error)) => {
                tracing::warn!(%error, "index unavailable");
                None
            }
        };
        let status = if figures.is_some() {
            "ok"
        } else {
            "unavailable"
        };
        IntelligenceHealth {
            status: status.to_string(),
            providers,
            embeddings,
            index: IndexHealth {
                status: status.to_string(),
                ranking: ranking.to_string(),
                documents: figures.as_ref().map(|(_, d)| *d),
                runbook_chunks: figures.as_ref().map(|(s, _)| s.runbook_chunks),
                analyses: figures.as_ref().map(|(s, _)| s.analysis_chunks),
            },
        }
    }
}
