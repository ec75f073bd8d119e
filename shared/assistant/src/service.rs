//! One GenAI request from validated job to answer.

use std::sync::Arc;
use std::time::Duration;

use platform::aws::AwsClients;
use platform::llm::{ChatRequest, Llm, LlmConfig, LlmError, Provider, ProviderOverride};
use platform::otel::Otel;
use platform::{ApiError, BoxError, ConfigError, Env};

use crate::article::ContentClient;
use crate::cache::{AnswerCache, CacheKey, DEFAULT_TTL};
use crate::model::{
    Answer, ArticleText, ExplainResponse, Input, Job, QaResponse, SentimentResponse,
    SummarizeResponse, Task,
};
use crate::{prompt, sentiment};

/// An answer and whether it came from the cache.
#[derive(Clone, Debug, PartialEq)]
pub struct Answered {
    pub answer: Answer,
    pub cached: bool,
}

/// The GenAI service: built once per cold start.
#[derive(Clone)]
pub struct Assistant {
    llm: Llm,
    content: ContentClient,
    cache: Option<AnswerCache>,
}

impl Assistant {
    pub fn new(llm: Llm, content: ContentClient, cache: Option<AnswerCache>) -> Self {
        Self {
            llm,
            content,
            cache,
        }
    }

    /// From the function's environment: the `LLM_*` settings (checked per request),
    /// `INTERNAL_API_URL` (optional), and the cache table `GENAI_CACHE_TABLE` (unset: no cache) with
    /// `GENAI_CACHE_TTL_SECONDS` (a week).
    pub fn from_env(
        env: &Env,
        aws: &AwsClients,
        http: reqwest::Client,
        otel: Otel,
    ) -> Result<Self, BoxError> {
        let ttl = env.parse_or("GENAI_CACHE_TTL_SECONDS", DEFAULT_TTL.as_secs())?;
        if ttl == 0 {
            return Err(ConfigError::Invalid {
                name: "GENAI_CACHE_TTL_SECONDS".into(),
                reason: "must be at least 1".into(),
            }
            .into());
        }
        let cache = match env.get("GENAI_CACHE_TABLE") {
            Some(table) => Some(AnswerCache::new(
                aws.dynamodb.clone(),
                table,
                Duration::from_secs(ttl),
            )),
            None => {
                tracing::warn!("GENAI_CACHE_TABLE is unset: every request calls the model");
                None
            }
        };
        let content = ContentClient::new(http.clone(), env.get("INTERNAL_API_URL"), otel.clone());
        let llm = Llm::new(http, LlmConfig::from_env(env), otel);
        Ok(Self::new(llm, content, cache))
    }

    /// Where Document B's per-deployment provider setting plugs in.
    pub fn with_provider_override(mut self, overrides: Arc<dyn ProviderOverride>) -> Self {
        self.llm = self.llm.with_override(overrides);
        self
    }

    /// Answers `job`: provider (500 when misconfigured), text (the article's, 404/400/502),
    /// cache, model (502 when it fails or its answer cannot be used), cache again.
    /// `api_origin` is the public URL of the API the request came through, if it did: where
    /// articles are read when `INTERNAL_API_URL` is unset.
    pub async fn answer(&self, job: Job, api_origin: Option<&str>) -> Result<Answered, ApiError> {
        let provider = self.llm.provider().await?;
        let text = match job.input {
            Input::Text(text) => text,
            Input::Article(id) => self.content.article_text(&id, api_origin).await?,
        };
        let key = CacheKey::new(&job.task, text.as_str(), &provider);
        if let Some(cache) = &self.cache {
            if let Some(answer) = cache.get(&key, &job.task).await {
                return Ok(Answered {
                    answer,
                    cached: true,
                });
            }
        }
        let answer = self.ask(&provider, &job.task, &text).await?;
        if let Some(cache) = &self.cache {
            cache.put(&key, &answer).await;
        }
        Ok(Answered {
            answer,
            cached: false,
        })
    }

    async fn ask(
        &self,
        provider: &Provider,
        task: &Task,
        text: &ArticleText,
    ) -> Result<Answer, ApiError> {
        let operation = task.operation().as_str();
        let request = ChatRequest {
            operation,
            messages: prompt::messages(task, text.as_str()),
        };
        let completion = self
            .llm
            .complete(provider, &request)
            .await
            .map_err(|e| e.into_api_error(Some(provider.kind)))?;
        let model = provider.model.clone();
        let provider_kind = provider.kind;
        Ok(match task {
            Task::Summarize { .. } => Answer::Summary(SummarizeResponse {
                summary: completion.content,
                model,
                provider: provider_kind,
            }),
            Task::Explain { level } => Answer::Explanation(ExplainResponse {
                explanation: completion.content,
                knowledge_level: *level,
                model,
                provider: provider_kind,
            }),
            Task::Qa { .. } => Answer::Qa(QaResponse {
                answer: completion.content,
                model,
                provider: provider_kind,
            }),
            Task::Sentiment => {
                let reading = sentiment::parse(&completion.content).map_err(|reason| {
                    let error = LlmError::Unusable(reason);
                    self.llm.count_error(operation, provider_kind, &error);
                    error.into_api_error(Some(provider_kind))
                })?;
                Answer::Sentiment(SentimentResponse {
                    sentiment: reading.sentiment,
                    score: reading.score,
                    bias: reading.bias,
                    rationale: reading.rationale,
                    model,
                    provider: provider_kind,
                })
            }
        })
    }
}
