//! The facade: the intelligence routes' one entry point. Inputs arrive parsed
//! ([`crate::input`]); errors are [`IntelligenceError`], with no HTTP in them.
//!
//! Every text from a client passes through [`redact`](crate::redact::redact) before
//! anything else sees it: the model, the embeddings provider, the table.
//!
//! - `errors`: [`IntelligenceError`], and what the parts' errors become;
//! - `retrieval`: BM25 candidates checked against their records, fused with embeddings;
//!   the runbook search;
//! - `analyses`: analysing a log, querying and deleting analyses;
//! - `documents`: the runbooks;
//! - `health`: the providers', the embeddings' and the index's state;
//! - `sweeper`: the sweep that deletes purged analyses.

use std::sync::Arc;

use llm::{Llm, LlmConfig, LlmError, Provider, ProviderChoice, ProviderKind};
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{Clock, Env};

use crate::embed::Embedder;
use crate::index::{DynamoTermIndex, TermIndex};
use crate::logs::{IncidentLogs, LogDirectory};
use crate::store::{Embedding, Store};

mod analyses;
mod documents;
mod errors;
mod health;
mod retrieval;
mod sweeper;

pub use errors::IntelligenceError;
pub use sweeper::Sweeper;

/// The most runbook documents the corpus holds.
pub const MAX_DOCUMENTS: i64 = 1_000;
/// The most chunks one document may split into.
pub const MAX_CHUNKS: usize = 400;
/// Passages an analysis is given when `use_rag` is set.
pub const ANALYZE_REFERENCES: usize = 5;
/// BM25 candidates read per retrieval: the pool hybrid ranking reorders and that hits
/// which are no longer visible are replaced from.
pub const CANDIDATE_POOL: usize = 50;
/// Analyses a sweep step deletes.
pub const SWEEP_STEP: usize = 10;

/// Who makes a change.
#[derive(Clone, Debug)]
pub struct Actor {
    pub id: String,
    pub admin: bool,
}

impl Actor {
    fn may_change(&self, owner: &str) -> bool {
        self.admin || self.id == owner
    }
}

pub struct Intelligence<I: TermIndex = DynamoTermIndex> {
    store: Store,
    index: I,
    llm: Llm,
    logs: Arc<dyn LogDirectory>,
    embedder: Option<Embedder>,
    /// `LOCAL_LLM_MODEL`: the local provider's model, when it differs from `LLM_MODEL`.
    local_model: Option<String>,
    /// The platform's durable metrics: analyses and the model's latency.
    metrics: incidents_metrics::Metrics,
    clock: Clock,
}

impl Intelligence<DynamoTermIndex> {
    /// Over `INTELLIGENCE_TABLE` (records and index), `LOGS_BUCKET` and `INCIDENTS_TABLE` (log
    /// lookups), `llm` for the model and the embeddings (`EMBEDDINGS_MODEL`), on the system clock.
    pub fn from_env(env: &Env, aws: &AwsClients, llm: Llm) -> Result<Self, platform::ConfigError> {
        let table = Table::from_env(env, aws, "INTELLIGENCE_TABLE")?;
        let logs = IncidentLogs::new(
            Table::from_env(env, aws, "INCIDENTS_TABLE")?,
            incidents::objects::LogObjects::from_env(env, aws)?,
        );
        Ok(Self {
            store: Store::new(table.clone()),
            index: DynamoTermIndex::new(table),
            embedder: Embedder::from_env(env, &llm),
            llm,
            logs: Arc::new(logs),
            local_model: env
                .get("LOCAL_LLM_MODEL")
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(str::to_string),
            metrics: incidents_metrics::Metrics::from_env(env, aws)?,
            clock: Clock::system(),
        })
    }
}

impl<I: TermIndex> Intelligence<I> {
    pub fn store(&self) -> &Store {
        &self.store
    }

    fn config(&self) -> &LlmConfig {
        self.llm.config()
    }

    /// The provider `mode` names (`None`: `LLM_PROVIDER`), with the local model if set.
    fn provider_for(&self, mode: Option<ProviderKind>) -> Result<Provider, LlmError> {
        let kind = match mode {
            Some(kind) => kind,
            None => self.config().resolve(None)?.kind,
        };
        let model = match kind {
            ProviderKind::Local => self.local_model.clone(),
            ProviderKind::Cloud => None,
        };
        self.config().resolve(Some(&ProviderChoice {
            provider: kind,
            model,
        }))
    }

    /// Embeddings of `texts` when configured; a failure is `Err` (the caller decides).
    async fn embed(&self, texts: &[String]) -> Result<Option<Vec<Embedding>>, LlmError> {
        match &self.embedder {
            Some(embedder) => embedder.embed(texts).await.map(Some),
            None => Ok(None),
        }
    }

    /// One embedding when configured; a failure is logged and there is none (retrieval
    /// then ranks by BM25 alone).
    async fn embed_or_skip(&self, text: &str, what: &str) -> Option<Embedding> {
        match self.embed(&[text.to_string()]).await {
            Ok(found) => found.and_then(|v| v.into_iter().next()),
            Err(error) => {
                tracing::warn!(%error, what, "embedding failed; ranking by BM25 alone");
                None
            }
        }
    }
}
