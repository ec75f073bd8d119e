//! The facade: the intelligence routes' one entry point. Inputs arrive parsed
//! ([`crate::input`]); errors are [`IntelligenceError`], with no HTTP in them.
//!
//! Every text from a client passes through [`redact`] before anything else sees it: the
//! model, the embeddings provider, the table.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use llm::{Llm, LlmConfig, LlmError, Provider, ProviderChoice, ProviderKind};
use platform::aws::AwsClients;
use platform::dynamo::{DynamoError, Item, Table};
use platform::{Clock, Env, Invalid};

use crate::chunk::chunks;
use crate::embed::{cosine, fuse, Embedder};
use crate::index::{query_terms, ChunkTerms, DynamoTermIndex, IndexError, TermIndex, Unit};
use crate::input::{AnalysesQuery, AnalyzeInput, DocumentInput, SearchInput};
use crate::logs::{IncidentLogs, LogDirectory};
use crate::model::{
    Analysis, AnalysisReference, EmbeddingsHealth, IndexHealth, IntelligenceHealth, ProviderHealth,
    ProvidersHealth, RagDocument, RagDocumentStatus, RagSearchHit, ReferenceKind,
};
use crate::prompt::{self, ContextPassage};
use crate::redact::redact;
use crate::store::{
    analysis_key, chunk_key, document_key, Embedding, Store, StoreError, StoredAnalysis,
    StoredChunk,
};

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

#[derive(Debug, thiserror::Error)]
pub enum IntelligenceError {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Forbidden(&'static str),
    /// The item changed between read and write, or another request is changing it.
    #[error("changed concurrently")]
    Changed,
    /// The corpus holds [`MAX_DOCUMENTS`] documents.
    #[error("the corpus holds {0} documents")]
    Full(i64),
    /// The model gave no usable answer, or the LLM settings are wrong.
    #[error(transparent)]
    Llm(LlmError),
    /// The embeddings provider failed (a document is not stored without its embeddings).
    #[error("embeddings: {0}")]
    Embeddings(LlmError),
    #[error(transparent)]
    Store(#[from] DynamoError),
    /// The logs bucket failed.
    #[error(transparent)]
    Logs(#[from] incidents::objects::ObjectsError),
}

impl From<crate::logs::LookupError> for IntelligenceError {
    fn from(e: crate::logs::LookupError) -> Self {
        match e {
            crate::logs::LookupError::Table(e) => Self::Store(e),
            crate::logs::LookupError::Objects(e) => Self::Logs(e),
        }
    }
}

impl From<StoreError> for IntelligenceError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Dynamo(d) => Self::Store(d),
            StoreError::Changed => Self::Changed,
            StoreError::Full => Self::Full(MAX_DOCUMENTS),
        }
    }
}

impl From<IndexError> for IntelligenceError {
    fn from(e: IndexError) -> Self {
        match e {
            IndexError::Dynamo(d) => Self::Store(d),
            IndexError::Contended => Self::Changed,
        }
    }
}

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

/// One retrieved passage.
#[derive(Clone, Debug)]
struct Retrieved {
    kind: ReferenceKind,
    /// The document's id, or the analysis's.
    id: String,
    title: String,
    text: String,
    chunk_index: Option<u32>,
    score: f64,
    embedding: Option<Embedding>,
    analysis: Option<StoredAnalysis>,
}

impl Retrieved {
    fn reference(&self) -> AnalysisReference {
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

/// The index unit of an analysis: its key, its author and its id (`{key}/{author}/{id}`;
/// keys and user ids hold no `/`).
fn analysis_unit(key: &str, author: &str, id: &str) -> Unit {
    Unit::new(ReferenceKind::Analysis, format!("{key}/{author}/{id}"))
}

/// The key, author and id an analysis unit names.
fn unit_parts(unit: &str) -> Option<(&str, &str, &str)> {
    let mut parts = unit.splitn(3, '/');
    Some((parts.next()?, parts.next()?, parts.next()?))
}

/// What an analysis is found by: the log it analysed and what was concluded.
fn analysis_text(analysis: &Analysis) -> String {
    let mut text = format!("{}\n{}", analysis.summary, analysis.root_cause);
    for r in &analysis.recommendations {
        text.push('\n');
        text.push_str(r);
    }
    text
}

fn analysis_title(analysis: &Analysis) -> String {
    match &analysis.log_id {
        Some(log) => format!("Analysis of log {log}"),
        None => format!("Analysis {}", analysis.id),
    }
}

/// Removes an analysis (and any stale one of its author and key) from the index, then its
/// record.
async fn remove_analysis<I: TermIndex>(
    store: &Store,
    index: &I,
    stored: &StoredAnalysis,
) -> Result<(), IntelligenceError> {
    let author = &stored.analysis.created_by;
    index
        .remove(&analysis_unit(&stored.key, author, &stored.analysis.id))
        .await?;
    if let Some(stale) = &stored.stale {
        index
            .remove(&analysis_unit(&stored.key, author, stale))
            .await?;
    }
    store
        .delete_analysis(&stored.key, author, &stored.analysis.id)
        .await?;
    Ok(())
}

/// What the sweeper function needs: the records and the index, nothing else.
pub struct Sweeper<I: TermIndex = DynamoTermIndex> {
    store: Store,
    index: I,
}

impl Sweeper<DynamoTermIndex> {
    /// Over `INTELLIGENCE_TABLE`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, platform::ConfigError> {
        let table = Table::from_env(env, aws, "INTELLIGENCE_TABLE")?;
        Ok(Self {
            store: Store::new(table.clone()),
            index: DynamoTermIndex::new(table),
        })
    }
}

impl<I: TermIndex> Sweeper<I> {
    /// One step of a sweep: deletes up to [`SWEEP_STEP`] analyses made before `before`;
    /// true when more may remain. Safe to repeat.
    pub async fn step(&self, before: &str) -> Result<bool, IntelligenceError> {
        let keys = self.store.keys_before(before, SWEEP_STEP).await?;
        for (key, author) in &keys {
            let Some(stored) = self.store.analysis(key, author).await? else {
                continue;
            };
            if stored.analysis.created_at.as_str() >= before {
                continue;
            }
            match remove_analysis(&self.store, &self.index, &stored).await {
                // Replaced meanwhile: the new analysis stays.
                Ok(()) | Err(IntelligenceError::Changed) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(keys.len() == SWEEP_STEP)
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

    // ---- retrieval --------------------------------------------------------------------

    /// The best `top_k` visible passages of `kinds` for `text` (redacted already) that
    /// `keep` accepts: BM25 candidates, checked against their records, fused with cosine
    /// similarity when embeddings are configured.
    async fn retrieve(
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
        let mut keys: Vec<Item> = Vec::new();
        for hit in &hits {
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
        found.truncate(top_k);
        Ok(found)
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

    // ---- analyses ---------------------------------------------------------------------

    /// `POST /api/v1/analyze`: the model's analysis of a log's text (redacted first), with
    /// runbook and earlier-analysis passages when `use_rag`; stored under its log id and its
    /// author (a new analysis replaces its author's earlier one of that log, never another
    /// operator's) and indexed for later retrieval.
    pub async fn analyze(
        &self,
        input: AnalyzeInput,
        actor: &Actor,
    ) -> Result<Analysis, IntelligenceError> {
        let service_name = match &input.log_id {
            Some(id) => Some(
                self.logs
                    .service_of(id)
                    .await?
                    .ok_or(IntelligenceError::NotFound("Log"))?,
            ),
            None => None,
        };
        let provider = self
            .provider_for(input.mode)
            .map_err(IntelligenceError::Llm)?;
        let redacted = redact(&input.content);
        let references = if input.use_rag {
            self.retrieve(
                &redacted.text,
                &[ReferenceKind::Runbook, ReferenceKind::Analysis],
                ANALYZE_REFERENCES,
                CANDIDATE_POOL,
                |_| true,
            )
            .await?
        } else {
            Vec::new()
        };
        let context: Vec<ContextPassage> = references
            .iter()
            .map(|r| ContextPassage {
                kind: r.kind,
                title: r.title.clone(),
                text: r.text.clone(),
            })
            .collect();
        let request = prompt::analysis_request(&redacted.text, &context);
        let started = Instant::now();
        let id = uuid::Uuid::new_v4().to_string();
        let answered = self.llm.complete(&provider, &request).await;
        let elapsed = started.elapsed();
        let latency = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        let draft = answered
            .map_err(IntelligenceError::Llm)
            .and_then(|completion| {
                prompt::parse_analysis(&completion.content).map_err(|reason| {
                    IntelligenceError::Llm(self.llm.unusable_answer(
                        prompt::OPERATION,
                        &provider,
                        reason,
                    ))
                })
            });
        let counted = incidents_metrics::Analysis {
            id: &id,
            mode: provider.kind.as_str(),
            provider: provider.kind.as_str(),
            outcome: if draft.is_ok() {
                incidents_metrics::Outcome::Ok
            } else {
                incidents_metrics::Outcome::Error
            },
            latency: Some(elapsed),
        };
        let draft = match draft {
            Ok(draft) => draft,
            Err(e) => {
                // Nothing is stored for a failed analysis: it is counted on its own, once.
                if let Err(error) = self.metrics.record_analysis(&counted).await {
                    tracing::warn!(%error, "failed analysis not counted");
                }
                return Err(e);
            }
        };
        let counted = self.metrics.analysis_updates(&counted);
        let key = input.log_id.clone().unwrap_or_else(|| id.clone());
        let analysis = Analysis {
            id: id.clone(),
            log_id: input.log_id,
            service_name,
            summary: draft.summary,
            root_cause: draft.root_cause,
            severity: draft.severity,
            recommendations: draft.recommendations,
            references: references.iter().map(Retrieved::reference).collect(),
            mode: provider.kind,
            model: provider.model.clone(),
            provider: provider.kind,
            llm_latency_ms: latency,
            redactions: redacted.count(),
            created_by: actor.id.clone(),
            created_at: self.clock.timestamp(),
        };
        tracing::info!(
            analysis = %id,
            provider = %provider.kind,
            model = %provider.model,
            llm_latency_ms = latency,
            redactions = redacted.count(),
            references = references.len(),
            "log analysed"
        );
        let text = analysis_text(&analysis);
        let indexed = format!("{}\n{text}", redacted.text);
        let embedding = self.embed_or_skip(&indexed, "analysis").await;
        let previous = self.store.analysis(&key, &actor.id).await?;
        if let Some(stale) = previous.as_ref().and_then(|p| p.stale.as_deref()) {
            self.index
                .remove(&analysis_unit(&key, &actor.id, stale))
                .await?;
        }
        let stored = StoredAnalysis {
            key: key.clone(),
            analysis,
            content: redacted.text,
            text,
            embedding,
            stale: previous.as_ref().map(|p| p.analysis.id.clone()),
        };
        self.store
            .put_analysis(
                &stored,
                previous.as_ref().map(|p| p.analysis.id.as_str()),
                counted,
            )
            .await?;
        self.index
            .put(
                &analysis_unit(&key, &actor.id, &id),
                &[ChunkTerms::of(&indexed)],
            )
            .await?;
        if let Some(previous) = previous {
            self.index
                .remove(&analysis_unit(&key, &actor.id, &previous.analysis.id))
                .await?;
        }
        Ok(stored.analysis)
    }

    /// `POST /api/v1/analyses/query`: stored analyses, best first for a `text`, else newest
    /// first; only those of `log_id` and `service_name` when given.
    pub async fn query(&self, query: AnalysesQuery) -> Result<Vec<Analysis>, IntelligenceError> {
        let cutoff = self.store.purged_before().await?;
        let wanted = |stored: &StoredAnalysis| {
            query.log_id.as_ref().is_none_or(|k| *k == stored.key)
                && query
                    .service_name
                    .as_ref()
                    .is_none_or(|s| stored.analysis.service_name.as_ref() == Some(s))
        };
        if let Some(text) = &query.text {
            let text = redact(text).text;
            let found = self
                .retrieve(
                    &text,
                    &[ReferenceKind::Analysis],
                    query.limit,
                    CANDIDATE_POOL.max(query.limit),
                    |r| r.analysis.as_ref().is_some_and(&wanted),
                )
                .await?;
            return Ok(found
                .into_iter()
                .filter_map(|r| r.analysis.map(|a| a.analysis))
                .collect());
        }
        if let Some(key) = &query.log_id {
            let mut found: Vec<Analysis> = self
                .store
                .analyses_of(key)
                .await?
                .into_iter()
                .filter(|a| a.analysis.created_at >= cutoff && wanted(a))
                .map(|a| a.analysis)
                .collect();
            found.sort_by(|a, b| (&b.created_at, &b.id).cmp(&(&a.created_at, &a.id)));
            found.truncate(query.limit);
            return Ok(found);
        }
        Ok(self
            .store
            .analyses(query.service_name.as_deref(), &cutoff, query.limit)
            .await?
            .into_iter()
            .map(|a| a.analysis)
            .collect())
    }

    /// `DELETE /api/v1/analyses/{log_id}`: the caller's analyses stored under `key`, or an
    /// admin's call, all of them. None visible: not found; only other operators': forbidden.
    pub async fn delete_analysis(&self, key: &str, actor: &Actor) -> Result<(), IntelligenceError> {
        let cutoff = self.store.purged_before().await?;
        let visible: Vec<StoredAnalysis> = self
            .store
            .analyses_of(key)
            .await?
            .into_iter()
            .filter(|a| a.analysis.created_at >= cutoff)
            .collect();
        if visible.is_empty() {
            return Err(IntelligenceError::NotFound("Analysis"));
        }
        let mine: Vec<&StoredAnalysis> = visible
            .iter()
            .filter(|a| actor.may_change(&a.analysis.created_by))
            .collect();
        if mine.is_empty() {
            return Err(IntelligenceError::Forbidden(
                "Only the analysis's author or an admin may delete it: this log's analyses are other operators'",
            ));
        }
        for stored in mine {
            remove_analysis(&self.store, &self.index, stored).await?;
        }
        Ok(())
    }

    /// `DELETE /api/v1/analyses` (admins): every analysis made until now is invisible from
    /// now on; the moment, for the sweep that deletes them.
    pub async fn delete_all_analyses(&self, actor: &Actor) -> Result<String, IntelligenceError> {
        if !actor.admin {
            return Err(IntelligenceError::Forbidden(
                "Only an admin may delete every analysis",
            ));
        }
        let now = self.clock.timestamp();
        self.store.purge_before(&now).await?;
        Ok(now)
    }

    // ---- documents ------------------------------------------------------------------

    /// `POST /api/v1/rag/documents`: a runbook, redacted, split into chunks, embedded when
    /// configured (before anything is written: a failed embedding stores nothing), stored and
    /// indexed. READY when this returns.
    pub async fn create_document(
        &self,
        input: DocumentInput,
        actor: &Actor,
    ) -> Result<RagDocument, IntelligenceError> {
        let title = redact(&input.title);
        let content = redact(&input.content);
        let texts = chunks(&content.text);
        if texts.len() > MAX_CHUNKS {
            return Err(Invalid::field(
                "content",
                format!(
                    "splits into {} chunks; at most {MAX_CHUNKS} are kept",
                    texts.len()
                ),
            )
            .into());
        }
        let embeddings = self
            .embed(&texts)
            .await
            .map_err(IntelligenceError::Embeddings)?;
        let id = uuid::Uuid::new_v4().to_string();
        let mut doc = RagDocument {
            id: id.clone(),
            title: title.text,
            tags: input.tags,
            chunks: u32::try_from(texts.len()).unwrap_or(u32::MAX),
            bytes: u64::try_from(content.text.len()).unwrap_or(u64::MAX),
            redactions: title.found.values().sum::<usize>() + content.count(),
            status: RagDocumentStatus::Indexing,
            embeddings_model: self.embedder.as_ref().map(|e| e.model().to_string()),
            created_by: actor.id.clone(),
            created_at: self.clock.timestamp(),
        };
        self.store.begin_document(&doc, MAX_DOCUMENTS).await?;
        let mut embeddings = embeddings.unwrap_or_default().into_iter();
        let stored: Vec<StoredChunk> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| StoredChunk {
                document_id: id.clone(),
                index: u32::try_from(i).unwrap_or(u32::MAX),
                text: text.clone(),
                embedding: embeddings.next(),
            })
            .collect();
        self.store.put_chunks(&stored).await?;
        // The title is part of every chunk's terms: a runbook's subject finds all its steps.
        let terms: Vec<ChunkTerms> = texts
            .iter()
            .map(|t| ChunkTerms::of(&format!("{}\n{t}", doc.title)))
            .collect();
        self.index
            .put(&Unit::new(ReferenceKind::Runbook, id.as_str()), &terms)
            .await?;
        self.store
            .set_document_status(&id, RagDocumentStatus::Indexing, RagDocumentStatus::Ready)
            .await?;
        doc.status = RagDocumentStatus::Ready;
        tracing::info!(document = %id, chunks = doc.chunks, bytes = doc.bytes, "runbook indexed");
        Ok(doc)
    }

    /// `GET /api/v1/rag/documents`: newest first, a page (after `cursor`, the previous
    /// page's).
    pub async fn documents(
        &self,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<(Vec<RagDocument>, Option<String>), IntelligenceError> {
        Ok(self.store.documents(limit, cursor).await?)
    }

    /// `DELETE /api/v1/rag/documents/{id}`: by its author or an admin. Marked DELETING (no
    /// longer retrieved), its postings removed, then its chunks and record. Repeating it
    /// after a failure finishes it.
    pub async fn delete_document(&self, id: &str, actor: &Actor) -> Result<(), IntelligenceError> {
        let doc = self
            .store
            .document(id)
            .await?
            .ok_or(IntelligenceError::NotFound("Document"))?;
        if !actor.may_change(&doc.created_by) {
            return Err(IntelligenceError::Forbidden(
                "Only the document's author or an admin may delete it",
            ));
        }
        if doc.status != RagDocumentStatus::Deleting {
            match self
                .store
                .set_document_status(id, doc.status, RagDocumentStatus::Deleting)
                .await
            {
                Ok(()) | Err(StoreError::Changed) => {}
                Err(e) => return Err(e.into()),
            }
        }
        self.index
            .remove(&Unit::new(ReferenceKind::Runbook, id))
            .await?;
        self.store.delete_document(&doc).await?;
        Ok(())
    }

    // ---- health ---------------------------------------------------------------------

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
