//! The facade: one GenAI request from validated job to answer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use llm::{ChatRequest, CompletionStream, Llm, Provider, ProviderOverride};
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{Clock, ConfigError, Env};

use crate::article::ArticleSource;
use crate::cache::{AnswerCache, CacheKey, DEFAULT_TTL};
use crate::error::AssistantError;
use crate::model::{
    Answer, ArticleText, ExplainResponse, Input, Job, QaResponse, SentimentResponse,
    SummarizeResponse, Task,
};
use crate::tokens::MaxTokens;
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
    cache: Option<AnswerCache>,
    max_tokens: MaxTokens,
}

impl Assistant {
    pub fn new(llm: Llm, cache: Option<AnswerCache>) -> Self {
        Self {
            llm,
            cache,
            max_tokens: MaxTokens::default(),
        }
    }

    /// The `max_tokens` each operation's model call is sent with.
    pub fn with_max_tokens(mut self, max_tokens: MaxTokens) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// The cache from the function's environment: the table `GENAI_CACHE_TABLE` (unset: no
    /// cache) with `GENAI_CACHE_TTL_SECONDS` (a week), and `LLM_MAX_TOKENS`. The other
    /// `LLM_*` settings are `llm`'s, checked per request.
    pub fn from_env(env: &Env, aws: &AwsClients, llm: Llm) -> Result<Self, ConfigError> {
        let max_tokens = MaxTokens::from_env(env)?;
        let ttl = env.parse_or("GENAI_CACHE_TTL_SECONDS", DEFAULT_TTL.as_secs())?;
        if ttl == 0 {
            return Err(ConfigError::Invalid {
                name: "GENAI_CACHE_TTL_SECONDS".into(),
                reason: "must be at least 1".into(),
            });
        }
        let cache = match env.get("GENAI_CACHE_TABLE") {
            Some(table) => Some(AnswerCache::new(
                Table::new(aws.dynamodb.clone(), table),
                Duration::from_secs(ttl),
                Clock::system(),
            )),
            None => {
                tracing::warn!("GENAI_CACHE_TABLE is unset: every request calls the model");
                None
            }
        };
        Ok(Self::new(llm, cache).with_max_tokens(max_tokens))
    }

    /// Where the community's per-deployment provider setting plugs in.
    pub fn with_provider_override(mut self, overrides: Arc<dyn ProviderOverride>) -> Self {
        self.llm = self.llm.with_override(overrides);
        self
    }

    /// Answers `job`, reading an article from `articles` when the job names one: provider
    /// (a configuration error when misconfigured), text, cache, model (a provider failure
    /// when it fails or its answer cannot be used), cache again.
    pub async fn answer(
        &self,
        job: Job,
        articles: &impl ArticleSource,
    ) -> Result<Answered, AssistantError> {
        self.answer_by(job, articles, None).await
    }

    /// [`Assistant::answer`], with the model's answer due by `deadline` at the latest: the
    /// model call's timeout is what is left of it (never more than the provider's own), so a
    /// caller behind a gateway with a hard limit gets the provider's timeout error in time.
    pub async fn answer_by(
        &self,
        job: Job,
        articles: &impl ArticleSource,
        deadline: Option<Instant>,
    ) -> Result<Answered, AssistantError> {
        let (mut asked, cached) = self.prepare(job, articles).await?;
        if let Some(answer) = cached {
            return Ok(Answered {
                answer,
                cached: true,
            });
        }
        if let Some(deadline) = deadline {
            asked.limit_to(deadline);
        }
        self.ask_and_keep(&asked).await
    }

    /// The model's whole answer, stored in the cache.
    async fn ask_and_keep(&self, asked: &Asked) -> Result<Answered, AssistantError> {
        let answer = self.ask(&asked.provider, &asked.task, &asked.text).await?;
        if let Some(cache) = &self.cache {
            cache.put(&asked.key, &answer).await;
        }
        Ok(Answered {
            answer,
            cached: false,
        })
    }

    /// Answers `job` as the model writes it: a cached answer whole at once; otherwise the
    /// model is asked with `stream: true` and [`LiveAnswer`] hands out its pieces, storing the
    /// finished answer in the cache. Sentiment is not prose to read as it comes: it is
    /// answered whole, as [`Assistant::answer`] does. With a `deadline`, the whole answer is
    /// due by then, as with [`Assistant::answer_by`].
    pub async fn stream(
        &self,
        job: Job,
        articles: &impl ArticleSource,
        deadline: Option<Instant>,
    ) -> Result<Streamed, AssistantError> {
        let (mut asked, cached) = self.prepare(job, articles).await?;
        if let Some(answer) = cached {
            return Ok(Streamed::Whole(Answered {
                answer,
                cached: true,
            }));
        }
        if let Some(deadline) = deadline {
            asked.limit_to(deadline);
        }
        if asked.task == Task::Sentiment {
            return self.ask_and_keep(&asked).await.map(Streamed::Whole);
        }
        let request = self.chat_request(&asked.task, &asked.text);
        let stream = self.llm.stream(&asked.provider, &request).await?;
        Ok(Streamed::Live(Box::new(LiveAnswer {
            stream,
            asked,
            cache: self.cache.clone(),
        })))
    }

    /// Provider, text and cache lookup: what every way of answering does first.
    async fn prepare(
        &self,
        job: Job,
        articles: &impl ArticleSource,
    ) -> Result<(Asked, Option<Answer>), AssistantError> {
        let provider = self.llm.provider().await?;
        let text = match job.input {
            Input::Text(text) => text,
            Input::Article(id) => {
                let article = articles.article(&id).await?;
                ArticleText::from_article(&article.title, &article.paragraphs)
                    .ok_or(AssistantError::NoContent(id))?
            }
        };
        let key = CacheKey::new(&job.task, text.as_str(), &provider);
        let cached = match &self.cache {
            Some(cache) => cache.get(&key, &job.task).await?,
            None => None,
        };
        Ok((
            Asked {
                provider,
                task: job.task,
                text,
                key,
            },
            cached,
        ))
    }

    fn chat_request(&self, task: &Task, text: &ArticleText) -> ChatRequest {
        ChatRequest {
            operation: task.operation().as_str(),
            messages: prompt::messages(task, text.as_str()),
            max_tokens: Some(self.max_tokens.of(task.operation())),
        }
    }

    async fn ask(
        &self,
        provider: &Provider,
        task: &Task,
        text: &ArticleText,
    ) -> Result<Answer, AssistantError> {
        let operation = task.operation().as_str();
        let request = self.chat_request(task, text);
        let completion = self.llm.complete(provider, &request).await?;
        let model = provider.model.clone();
        let provider_kind = provider.kind;
        Ok(match task {
            Task::Summarize { .. } | Task::Explain { .. } | Task::Qa { .. } => {
                prose(task, completion.content, provider)
            }
            Task::Sentiment => {
                let reading = sentiment::parse(&completion.content).map_err(|unreadable| {
                    self.llm
                        .unusable_answer(operation, provider, unreadable.to_string())
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

/// What [`Assistant::stream`] asks the model, and where its answer is cached.
struct Asked {
    provider: Provider,
    task: Task,
    text: ArticleText,
    key: CacheKey,
}

impl Asked {
    /// The model call's timeout is what is left until `deadline`, never more than the
    /// provider's own.
    fn limit_to(&mut self, deadline: Instant) {
        let left = deadline.saturating_duration_since(Instant::now());
        self.provider.timeout = self
            .provider
            .timeout
            .min(left.max(Duration::from_millis(1)));
    }
}

/// The answer of a prose operation (summary, explanation, answer to a question) from the
/// model's text. Never called for sentiment, which `ask` reads from JSON and is never streamed.
fn prose(task: &Task, content: String, provider: &Provider) -> Answer {
    let model = provider.model.clone();
    let provider = provider.kind;
    match task {
        Task::Explain { level } => Answer::Explanation(ExplainResponse {
            explanation: content,
            knowledge_level: *level,
            model,
            provider,
        }),
        Task::Qa { .. } => Answer::Qa(QaResponse {
            answer: content,
            model,
            provider,
        }),
        Task::Summarize { .. } | Task::Sentiment => Answer::Summary(SummarizeResponse {
            summary: content,
            model,
            provider,
        }),
    }
}

/// An answer from [`Assistant::stream`].
pub enum Streamed {
    /// Known at once: from the cache, or not prose (sentiment).
    Whole(Answered),
    /// Being written by the model (boxed: it holds the open response).
    Live(Box<LiveAnswer>),
}

/// A prose answer the model is writing: [`LiveAnswer::next`] until `None`, then
/// [`LiveAnswer::finish`] for the whole answer, which is cached then.
pub struct LiveAnswer {
    stream: CompletionStream,
    asked: Asked,
    cache: Option<AnswerCache>,
}

impl LiveAnswer {
    /// The next piece of text; `None` when the model has finished.
    pub async fn next(&mut self) -> Option<Result<String, AssistantError>> {
        self.stream
            .next()
            .await
            .map(|piece| piece.map_err(AssistantError::from))
    }

    /// The finished answer, stored in the cache (call after [`LiveAnswer::next`] said `None`;
    /// an answer stopped early is never cached, because it is never finished).
    pub async fn finish(self) -> Answer {
        let answer = prose(
            &self.asked.task,
            self.stream.content().to_string(),
            &self.asked.provider,
        );
        if let Some(cache) = &self.cache {
            cache.put(&self.asked.key, &answer).await;
        }
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::article::{Article, ArticleError};
    use crate::model::{ArticleId, GenAiRequest, Operation};
    use llm::{LlmConfig, LlmError};
    use platform::otel::Otel;

    /// Articles from memory: `empty` has no body, every other id is missing.
    struct Shelf;

    impl ArticleSource for Shelf {
        async fn article(&self, id: &ArticleId) -> Result<Article, ArticleError> {
            match id.as_str() {
                "empty" => Ok(Article {
                    title: "Only a title".into(),
                    paragraphs: vec![],
                }),
                _ => Err(ArticleError::NotFound(id.clone())),
            }
        }
    }

    /// The error of asking, with the settings `pairs`, about article `id`.
    async fn failure(pairs: &[(&str, &str)], id: &str) -> AssistantError {
        let env: Env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let llm = Llm::new(
            platform::tls::http_client().build().expect("client"),
            LlmConfig::from_env(&env),
            Otel::default(),
        );
        let job = serde_json::from_value::<GenAiRequest>(serde_json::json!({"articleId": id}))
            .expect("request")
            .into_job(Operation::Sentiment)
            .expect("job");
        Assistant::new(llm, None)
            .answer(job, &Shelf)
            .await
            .expect_err("no answer")
    }

    #[tokio::test]
    async fn articles_are_read_through_the_port_before_the_model_is_asked() {
        // Nothing listens there: reaching the model would fail otherwise.
        let local = [
            ("LLM_PROVIDER", "local"),
            ("LOCAL_LLM_BASE_URL", "http://127.0.0.1:9/v1"),
        ];
        let missing = failure(&local, "gone").await;
        assert!(
            matches!(missing, AssistantError::Article(ArticleError::NotFound(_))),
            "{missing}"
        );
        let empty = failure(&local, "empty").await;
        assert!(
            matches!(empty, AssistantError::NoContent(ref id) if id.as_str() == "empty"),
            "{empty}"
        );
    }

    #[tokio::test]
    async fn a_bad_provider_setting_fails_before_the_article_is_read() {
        let err = failure(&[("LLM_PROVIDER", "mistral")], "gone").await;
        assert!(
            matches!(err, AssistantError::Llm(LlmError::Config(_))),
            "{err}"
        );
    }
}
