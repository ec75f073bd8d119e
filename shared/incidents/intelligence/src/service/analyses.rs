//! Analyses: a log analysed by the model (with retrieved passages when asked), stored under
//! its log and its author and indexed; queried, and deleted one log's at a time or all at
//! once.

use std::time::Instant;

use llm::Provider;
use platform::dynamo::request::Update;

use super::retrieval::Retrieved;
use super::{Actor, Intelligence, IntelligenceError, ANALYZE_REFERENCES, CANDIDATE_POOL};
use crate::index::{ChunkTerms, TermIndex, Unit};
use crate::input::{AnalysesQuery, AnalyzeInput};
use crate::model::{Analysis, ReferenceKind};
use crate::prompt::{self, ContextPassage, Draft};
use crate::redact::redact;
use crate::store::{Store, StoredAnalysis};

/// The index unit of an analysis: its key, its author and its id (`{key}/{author}/{id}`;
/// keys and user ids hold no `/`).
fn analysis_unit(key: &str, author: &str, id: &str) -> Unit {
    Unit::new(ReferenceKind::Analysis, format!("{key}/{author}/{id}"))
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

/// The model's usable answer to an analysis request.
struct Answer {
    /// The new analysis's id.
    id: String,
    draft: Draft,
    /// The analysis's counts, for the transaction that stores it.
    counted: Vec<Update>,
    latency_ms: u64,
}

/// Removes an analysis (and any stale one of its author and key) from the index, then its
/// record.
pub(super) async fn remove_analysis<I: TermIndex>(
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

impl<I: TermIndex> Intelligence<I> {
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
        let Answer {
            id,
            draft,
            counted,
            latency_ms: latency,
        } = self.answer(&provider, &redacted.text, &references).await?;
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
        self.store_analysis(key, &actor.id, analysis, redacted.text, counted)
            .await
    }

    /// The model's answer for `text` (redacted) with the passages `references`, under a new
    /// analysis id. A usable answer comes with its counts, for the record's transaction; a
    /// failed one is counted on its own, once, and is the error.
    async fn answer(
        &self,
        provider: &Provider,
        text: &str,
        references: &[Retrieved],
    ) -> Result<Answer, IntelligenceError> {
        let context: Vec<ContextPassage> = references
            .iter()
            .map(|r| ContextPassage {
                kind: r.kind,
                title: r.title.clone(),
                text: r.text.clone(),
            })
            .collect();
        let request = prompt::analysis_request(text, &context);
        let started = Instant::now();
        let id = uuid::Uuid::new_v4().to_string();
        let answered = self.llm.complete(provider, &request).await;
        let elapsed = started.elapsed();
        let latency = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        let draft = answered
            .map_err(IntelligenceError::Llm)
            .and_then(|completion| {
                prompt::parse_analysis(&completion.content).map_err(|reason| {
                    IntelligenceError::Llm(self.llm.unusable_answer(
                        prompt::OPERATION,
                        provider,
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
        Ok(Answer {
            id,
            draft,
            counted,
            latency_ms: latency,
        })
    }

    /// Stores `analysis` (of `content`, redacted) under `key` and `author` with the counts
    /// `counted`, replacing the author's earlier analysis of `key`, and indexes it; the
    /// earlier one's units leave the index (a stale one before the write, the replaced one
    /// after it).
    async fn store_analysis(
        &self,
        key: String,
        author: &str,
        analysis: Analysis,
        content: String,
        counted: Vec<Update>,
    ) -> Result<Analysis, IntelligenceError> {
        let id = analysis.id.clone();
        let text = analysis_text(&analysis);
        let indexed = format!("{content}\n{text}");
        let embedding = self.embed_or_skip(&indexed, "analysis").await;
        let previous = self.store.analysis(&key, author).await?;
        if let Some(stale) = previous.as_ref().and_then(|p| p.stale.as_deref()) {
            self.index
                .remove(&analysis_unit(&key, author, stale))
                .await?;
        }
        let stored = StoredAnalysis {
            key: key.clone(),
            analysis,
            content,
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
                &analysis_unit(&key, author, &id),
                &[ChunkTerms::of(&indexed)],
            )
            .await?;
        if let Some(previous) = previous {
            self.index
                .remove(&analysis_unit(&key, author, &previous.analysis.id))
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
}
