//! The community summarizer: consumes [`SummaryRequest`] messages from the summary queue,
//! asks the LLM (GenAI's provider configuration, with the admin's override of the GenAI
//! deployment) for a summary of the post's content and stores it; and consumes the same
//! messages from the queue's dead-letter queue, where SQS moves them once every retry
//! failed, and marks those summaries FAILED. The design (states, versions, the outbox) is in
//! `community::summary`.
//!
//! Outcomes per message of the summary queue, reported with `ReportBatchItemFailures`:
//! - stored; or nothing to do: the post is gone, its summary moved on to a newer version or
//!   is no longer PENDING (a duplicate), or its content is not the request's: done, and the
//!   model is not asked;
//! - the brake refused (this author's or everyone's summaries per window spent), the limits
//!   table, the model or the table failed: a batch item failure, so SQS delivers the message
//!   again after the queue's visibility timeout; after `maxReceiveCount` receives it goes to
//!   the dead-letter queue;
//! - unreadable: a batch item failure (it ends in the dead-letter queue, where it is logged
//!   and dropped).
//!
//! Per message of the dead-letter queue (`SUMMARY_DLQ_ARN`): FAILED under the request's
//! version (a post that moved on is left alone); a table failure is a batch item failure, so
//! the dead-letter queue delivers it again.
//!
//! The brake on the paid model, besides the bounded retries: each model call is counted per
//! author and for all authors together in `RATE_LIMIT_TABLE` (`SUMMARY_RATE_LIMIT_PER_AUTHOR`,
//! `SUMMARY_RATE_LIMIT_TOTAL`; refused when the table fails), a call asks for at most
//! `SUMMARY_MAX_TOKENS` tokens and sends at most [`MAX_PROMPT_CHARS`] characters of content,
//! duplicates never reach the model, and the event source's maximum concurrency is small.

use std::sync::Arc;
use std::time::Duration;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use community::model::jobs::Applied;
use community::{Community, CommunityError, SummaryRequest};
use futures::future::BoxFuture;
use futures::FutureExt;
use llm::provider_override::{Deployment, StoredOverride};
use llm::{ChatRequest, Llm, LlmConfig, Message};
use platform::aws::AwsClients;
use platform::batch::Failures;
use platform::dynamo::Table;
use platform::otel::Otel;
use platform::ratelimit::{ClientKey, Limit, RateLimiter, Verdict};
use platform::{BoxError, Clock, ConfigError, Env, SqsHandler};

/// The `endpoint` label of the model call's metrics.
pub const OPERATION: &str = "post-summary";
/// `OTEL_SERVICE_NAME` when unset.
pub const SERVICE_NAME: &str = "community-summarizer";
/// `SUMMARY_MAX_TOKENS` when unset: a few sentences.
pub const DEFAULT_MAX_TOKENS: u32 = 300;
/// Characters of a post's content sent to the model (about 6,000 tokens); a longer post is
/// summarised from its beginning.
pub const MAX_PROMPT_CHARS: usize = 24_000;
/// Characters of a summary kept (a model ignoring `max_tokens` cannot bloat the post).
pub const MAX_SUMMARY_CHARS: usize = 2_000;
/// `SUMMARY_RATE_LIMIT_PER_AUTHOR` when unset: model calls per author.
pub const DEFAULT_PER_AUTHOR: &str = "20/3600,100/86400";
/// `SUMMARY_RATE_LIMIT_TOTAL` when unset: model calls of all authors together.
pub const DEFAULT_TOTAL: &str = "600/3600,5000/86400";

const SYSTEM_PROMPT: &str = "You summarise community posts. Answer with a neutral summary of \
    the post in at most three sentences of plain text, in the post's language, without a \
    preamble.";

/// Why a request is to be delivered again.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    #[error("brake: {0}")]
    Limited(String),
    #[error(transparent)]
    Llm(#[from] llm::LlmError),
    #[error(transparent)]
    Community(#[from] CommunityError),
}

/// What happened to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The summary is stored.
    Stored,
    /// Nothing to do (gone, moved on, duplicate); the model was not asked.
    Skipped,
}

/// The brake: model calls counted per author and in total.
#[derive(Clone)]
pub struct Brake {
    limiter: Option<RateLimiter>,
    per_author: Limit,
    total: Limit,
}

impl Brake {
    /// `RATE_LIMIT_TABLE` (unset: no brake, logged), `SUMMARY_RATE_LIMIT_PER_AUTHOR`,
    /// `SUMMARY_RATE_LIMIT_TOTAL`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!("RATE_LIMIT_TABLE is unset: summaries have no rate limits");
        }
        Ok(Self {
            limiter,
            per_author: Limit::from_env(
                env,
                "SUMMARY_RATE_LIMIT_PER_AUTHOR",
                "summary-author",
                DEFAULT_PER_AUTHOR,
            )?,
            total: Limit::from_env(
                env,
                "SUMMARY_RATE_LIMIT_TOTAL",
                "summary-total",
                DEFAULT_TOTAL,
            )?,
        })
    }

    /// Counts one model call of `author`; refused when a limit is spent or the table fails
    /// (closed: the model is the bill).
    async fn allow(&self, author: &str) -> Result<(), SummaryError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        let checks = [
            (&self.per_author, ClientKey::user(author)),
            (&self.total, ClientKey::user("all")),
        ];
        for (limit, key) in checks {
            match limiter
                .check(limit, &key)
                .await
                .map_err(|e| SummaryError::Limited(format!("limits table: {e}")))?
            {
                Verdict::Allowed => {}
                Verdict::Limited { retry_after } => {
                    return Err(SummaryError::Limited(format!(
                        "{} spent for {retry_after} s",
                        limit.name()
                    )))
                }
            }
        }
        Ok(())
    }
}

/// The summarizer: the community's facade, the model and its brake. Cheap to clone.
#[derive(Clone)]
pub struct Summarizer {
    community: Community,
    llm: Llm,
    brake: Brake,
    max_tokens: u32,
    /// Messages from this queue are given up (`SUMMARY_DLQ_ARN`).
    dead_letter_arn: Option<String>,
}

/// Builds the handler from its environment: what a cold start does. Nothing about the LLM
/// settings is checked here: a bad one fails each request (and ends FAILED), not the start.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let http = platform::tls::http_client()
        .connect_timeout(Duration::from_secs(5))
        .user_agent(concat!(
            "news-platform-community-summarizer/",
            env!("CARGO_PKG_VERSION")
        ))
        .build()?;
    let otel = Otel::from_env(&env, SERVICE_NAME, http.clone());
    let mut llm = Llm::new(http, LlmConfig::from_env(&env), otel);
    match (
        env.get("GENAI_CACHE_TABLE"),
        env.get("GENAI_FUNCTION_VERSION")
            .and_then(Deployment::from_version_arn),
    ) {
        (Some(table), Some(deployment)) => {
            llm = llm.with_override(Arc::new(StoredOverride::new(
                Table::new(aws.dynamodb.clone(), table),
                deployment,
                Clock::system(),
            )));
        }
        _ => tracing::warn!(
            "GENAI_CACHE_TABLE or GENAI_FUNCTION_VERSION unset or unreadable: the admin's provider override does not apply to summaries"
        ),
    }
    Ok(Arc::new(Summarizer {
        community: Community::from_env(&env, &aws, &[])?,
        llm,
        brake: Brake::from_env(&env, &aws)?,
        max_tokens: max_tokens(&env)?,
        dead_letter_arn: env.get("SUMMARY_DLQ_ARN").map(str::to_string),
    }))
}

/// `SUMMARY_MAX_TOKENS`: 16 to 4096.
fn max_tokens(env: &Env) -> Result<u32, ConfigError> {
    let tokens: u32 = env.parse_or("SUMMARY_MAX_TOKENS", DEFAULT_MAX_TOKENS)?;
    if !(16..=4096).contains(&tokens) {
        return Err(ConfigError::Invalid {
            name: "SUMMARY_MAX_TOKENS".into(),
            reason: format!("{tokens} is not from 16 to 4096"),
        });
    }
    Ok(tokens)
}

/// At most `max` characters of `text`, cut on a character boundary.
fn at_most(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((end, _)) => text.get(..end).unwrap_or(text),
        None => text,
    }
}

impl Summarizer {
    pub fn new(
        community: Community,
        llm: Llm,
        brake: Brake,
        max_tokens: u32,
        dead_letter_arn: Option<String>,
    ) -> Self {
        Self {
            community,
            llm,
            brake,
            max_tokens,
            dead_letter_arn,
        }
    }

    /// Summarises the post `request` names, unless it has moved on.
    pub async fn summarize(&self, request: &SummaryRequest) -> Result<Outcome, SummaryError> {
        let id = request.post_id.as_str();
        // Gone, moved on, or its content changed: skipped (the facade logs which).
        let Some(post) = self.community.summary_job(request).await? else {
            return Ok(Outcome::Skipped);
        };
        self.brake.allow(&post.author_id).await?;
        let provider = self.llm.provider().await?;
        let chat = ChatRequest {
            operation: OPERATION,
            messages: vec![
                Message::system(SYSTEM_PROMPT),
                Message::user(format!(
                    "Title: {}\n\n{}",
                    post.title,
                    at_most(&post.content, MAX_PROMPT_CHARS)
                )),
            ],
            max_tokens: Some(self.max_tokens),
        };
        let completion = self.llm.complete(&provider, &chat).await?;
        let summary = at_most(completion.content.trim(), MAX_SUMMARY_CHARS).trim();
        if summary.is_empty() {
            return Err(self
                .llm
                .unusable_answer(OPERATION, &provider, "an empty summary")
                .into());
        }
        match self
            .community
            .complete_summary(request, summary, &provider.model)
            .await?
        {
            Applied::Done => {
                tracing::info!(post_id = id, version = request.version, model = %provider.model,
                    "summary stored");
                Ok(Outcome::Stored)
            }
            Applied::Stale => {
                tracing::info!(
                    post_id = id,
                    version = request.version,
                    "the post moved on while the model answered: summary discarded"
                );
                Ok(Outcome::Skipped)
            }
        }
    }

    /// Gives `request` up (every retry failed): FAILED, unless the post moved on.
    pub async fn give_up(&self, request: &SummaryRequest) -> Result<Applied, SummaryError> {
        let applied = self.community.fail_summary(request).await?;
        tracing::warn!(post_id = %request.post_id, version = request.version, ?applied,
            "summary given up after every retry");
        Ok(applied)
    }

    fn is_dead_letter(&self, record: &SqsMessage) -> bool {
        self.dead_letter_arn.is_some()
            && record.event_source_arn.as_deref() == self.dead_letter_arn.as_deref()
    }

    /// One batch: the ids of the messages to deliver again.
    pub async fn batch(&self, records: Vec<SqsMessage>) -> Vec<String> {
        let mut failures = Vec::new();
        // A request named twice in one batch is handled once.
        let mut seen: Vec<(bool, SummaryRequest, Vec<String>)> = Vec::new();
        for record in &records {
            let id = record.message_id.clone().unwrap_or_default();
            let dead = self.is_dead_letter(record);
            match SummaryRequest::parse(record.body.as_deref().unwrap_or("")) {
                Ok(request) => match seen
                    .iter_mut()
                    .find(|(d, r, _)| *d == dead && *r == request)
                {
                    Some((_, _, ids)) => ids.push(id),
                    None => seen.push((dead, request, vec![id])),
                },
                Err(error) if dead => {
                    tracing::warn!(message_id = %id, %error, "unreadable dead summary request: dropped");
                }
                Err(error) => {
                    tracing::warn!(message_id = %id, %error, "unreadable summary request");
                    failures.push(id);
                }
            }
        }
        for (dead, request, ids) in seen {
            let ok = if dead {
                self.give_up(&request).await.map(|_| ())
            } else {
                self.summarize(&request).await.map(|_| ())
            };
            if let Err(error) = ok {
                tracing::warn!(post_id = %request.post_id, version = request.version, %error,
                    dead_letter = dead, "summary request failed; it will be delivered again");
                failures.extend(ids);
            }
        }
        failures
    }
}

impl SqsHandler for Summarizer {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let this = self.clone();
        async move {
            let mut failures = Failures::default();
            failures.retry_all(this.batch(event.records).await);
            Ok(failures.into_response())
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_cut_on_character_boundaries() {
        assert_eq!(at_most("héllo", 2), "hé");
        assert_eq!(at_most("héllo", 10), "héllo");
        assert_eq!(at_most("", 3), "");
    }

    #[test]
    fn max_tokens_is_bounded() {
        assert_eq!(max_tokens(&Env::new()).unwrap(), DEFAULT_MAX_TOKENS);
        assert_eq!(
            max_tokens(&Env::new().with("SUMMARY_MAX_TOKENS", "64")).unwrap(),
            64
        );
        for bad in ["0", "15", "4097", "many"] {
            assert!(max_tokens(&Env::new().with("SUMMARY_MAX_TOKENS", bad)).is_err());
        }
    }
}
