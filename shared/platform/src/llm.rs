//! The LLM client every AI feature shares: an OpenAI-compatible chat-completions API, either
//! the cloud provider (`LLM_BASE_URL` with `LLM_API_KEY` as a bearer key) or the local one
//! (`LOCAL_LLM_BASE_URL`: Ollama, llama.cpp server, vLLM all speak it).
//!
//! The provider is resolved per request, not at start-up: a wrong `LLM_PROVIDER` (or
//! temperature, or timeout) is a 500 on the request that needs it, while the function starts
//! and serves its other routes. Resolution asks a [`ProviderOverride`] first, the seam for
//! Document B's admin setting (`GET/PUT /api/v1/admin/ai/provider`, stored per deployment).
//!
//! Every call has a timeout and a mapped error ([`LlmError`]): configuration problems are
//! 500s, everything the provider does wrong (unreachable, slow, non-2xx, unreadable body,
//! empty answer) is a 502. With telemetry on, each call counts `gen_ai.llm.requests`,
//! `gen_ai.llm.latency`, `gen_ai.llm.errors` and, when the provider reports usage,
//! `gen_ai.llm.prompt_tokens` and `gen_ai.llm.completion_tokens`.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Env;
use crate::error::{ApiError, ErrorKind};
use crate::otel::{self, Instrument, Otel, SpanKind};

/// The cloud provider's default base URL (`LLM_BASE_URL`).
pub const DEFAULT_CLOUD_BASE_URL: &str = "https://api.openai.com/v1";
/// The local provider's default base URL (`LOCAL_LLM_BASE_URL`): Ollama's OpenAI endpoint.
pub const DEFAULT_LOCAL_BASE_URL: &str = "http://localhost:11434/v1";
/// `LLM_MODEL` when unset.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
pub const DEFAULT_TEMPERATURE: f64 = 0.2;
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// A chat completion larger than this is not an answer but a fault.
const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;

pub static REQUESTS: Instrument = Instrument::counter(
    "gen_ai.llm.requests",
    "{request}",
    "Chat-completion calls made to the LLM provider",
);
pub static LATENCY: Instrument = Instrument::histogram(
    "gen_ai.llm.latency",
    "s",
    "Duration of chat-completion calls, failures included",
    &[0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0],
);
pub static ERRORS: Instrument = Instrument::counter(
    "gen_ai.llm.errors",
    "{error}",
    "Chat-completion calls that failed or gave an unusable answer",
);
pub static PROMPT_TOKENS: Instrument = Instrument::counter(
    "gen_ai.llm.prompt_tokens",
    "{token}",
    "Prompt tokens the provider reported",
);
pub static COMPLETION_TOKENS: Instrument = Instrument::counter(
    "gen_ai.llm.completion_tokens",
    "{token}",
    "Completion tokens the provider reported",
);

/// Which provider answers: the values of `LLM_PROVIDER` and of the responses' `provider`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Cloud,
    Local,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cloud => "cloud",
            Self::Local => "local",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProviderKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cloud" => Ok(Self::Cloud),
            "local" => Ok(Self::Local),
            other => Err(format!("{other:?} is not a provider; use cloud or local")),
        }
    }
}

/// A provider choice made outside the environment (the admin override of Document B).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderChoice {
    pub provider: ProviderKind,
    /// A model for this provider; `None` keeps `LLM_MODEL`.
    pub model: Option<String>,
}

/// Where a deployment's provider override lives. The environment's choice applies when this
/// answers `None`; when it fails, the environment's choice applies too (logged), so a
/// broken override store never takes the AI features down.
pub trait ProviderOverride: Send + Sync + 'static {
    fn current(&self) -> BoxFuture<'_, Result<Option<ProviderChoice>, String>>;
}

/// No override: the environment decides. What every function uses until the admin setting
/// exists.
pub struct NoOverride;

impl ProviderOverride for NoOverride {
    fn current(&self) -> BoxFuture<'_, Result<Option<ProviderChoice>, String>> {
        Box::pin(async { Ok(None) })
    }
}

/// The provider settings read from the environment. Problems are kept, not raised: they
/// surface as a 500 on the first request that needs the provider.
#[derive(Clone, Debug)]
pub struct LlmConfig {
    provider: Result<ProviderKind, String>,
    cloud_base_url: String,
    local_base_url: String,
    api_key: Option<String>,
    model: String,
    temperature: Result<f64, String>,
    timeout: Result<Duration, String>,
}

impl LlmConfig {
    /// `LLM_PROVIDER` (cloud), `LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`, `LLM_TEMPERATURE`
    /// (0.2), `LLM_TIMEOUT_SECONDS` (60), `LOCAL_LLM_BASE_URL`.
    pub fn from_env(env: &Env) -> Self {
        let provider = env
            .get("LLM_PROVIDER")
            .map_or(Ok(ProviderKind::Cloud), str::parse)
            .map_err(|e| format!("LLM_PROVIDER: {e}"));
        let temperature = match env.get("LLM_TEMPERATURE") {
            None => Ok(DEFAULT_TEMPERATURE),
            Some(raw) => match raw.trim().parse::<f64>() {
                Ok(t) if (0.0..=2.0).contains(&t) => Ok(t),
                _ => Err(format!(
                    "LLM_TEMPERATURE: {raw:?} is not a number from 0 to 2"
                )),
            },
        };
        let timeout = match env.get("LLM_TIMEOUT_SECONDS") {
            None => Ok(DEFAULT_TIMEOUT),
            Some(raw) => match raw.trim().parse::<f64>() {
                Ok(s) if s > 0.0 && s <= 900.0 => Ok(Duration::from_secs_f64(s)),
                _ => Err(format!(
                    "LLM_TIMEOUT_SECONDS: {raw:?} is not a number of seconds from 0 to 900"
                )),
            },
        };
        Self {
            provider,
            cloud_base_url: env
                .get_or("LLM_BASE_URL", DEFAULT_CLOUD_BASE_URL)
                .to_string(),
            local_base_url: env
                .get_or("LOCAL_LLM_BASE_URL", DEFAULT_LOCAL_BASE_URL)
                .to_string(),
            api_key: env.get("LLM_API_KEY").map(str::to_string),
            model: env.get_or("LLM_MODEL", DEFAULT_MODEL).trim().to_string(),
            temperature,
            timeout,
        }
    }

    /// The provider a request uses: `choice` when given, else `LLM_PROVIDER`.
    pub fn resolve(&self, choice: Option<&ProviderChoice>) -> Result<Provider, LlmError> {
        let kind = match choice {
            Some(c) => c.provider,
            None => self.provider.clone().map_err(LlmError::Config)?,
        };
        let temperature = self.temperature.clone().map_err(LlmError::Config)?;
        let timeout = self.timeout.clone().map_err(LlmError::Config)?;
        let model = choice
            .and_then(|c| c.model.clone())
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| self.model.clone());
        let (base_url, api_key) = match kind {
            ProviderKind::Cloud => (self.cloud_base_url.clone(), self.api_key.clone()),
            // The cloud key is not sent to a local server.
            ProviderKind::Local => (self.local_base_url.clone(), None),
        };
        Ok(Provider {
            kind,
            chat_url: chat_completions_url(&base_url),
            api_key,
            model,
            temperature,
            timeout,
        })
    }
}

fn chat_completions_url(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim().trim_end_matches('/'))
}

/// A resolved provider: where to send, with what, and how long to wait.
#[derive(Clone)]
pub struct Provider {
    pub kind: ProviderKind,
    pub chat_url: String,
    api_key: Option<String>,
    pub model: String,
    pub temperature: f64,
    pub timeout: Duration,
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("kind", &self.kind)
            .field("chat_url", &self.chat_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("temperature", &self.temperature)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Who says a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }
}

/// One chat completion to ask for.
#[derive(Clone, Debug)]
pub struct ChatRequest {
    /// What the call is for (`summarize`, `digest`, ...): the `endpoint` label of the metrics.
    pub operation: &'static str,
    pub messages: Vec<Message>,
}

/// Token counts, when the provider reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// The model's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub content: String,
    pub usage: Option<Usage>,
}

/// Why a call produced no answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// The environment's LLM settings are wrong: a 500.
    #[error("LLM configuration: {0}")]
    Config(String),
    /// The provider cannot be called as configured (the cloud provider without a key).
    #[error("{0}")]
    NotConfigured(String),
    #[error("no answer within {} s", .0.as_secs_f64())]
    Timeout(Duration),
    #[error("unreachable: {0}")]
    Unreachable(String),
    #[error("answered HTTP {status}")]
    Status { status: u16, body: String },
    #[error("unreadable answer: {0}")]
    InvalidResponse(String),
    /// The caller could not use what the model said (not JSON, wrong fields, ...).
    #[error("unusable answer: {0}")]
    Unusable(String),
}

impl LlmError {
    /// The `error.type` label of `gen_ai.llm.errors`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Config(_) => "config",
            Self::NotConfigured(_) => "not_configured",
            Self::Timeout(_) => "timeout",
            Self::Unreachable(_) => "unreachable",
            Self::Status { .. } => "http_status",
            Self::InvalidResponse(_) => "invalid_response",
            Self::Unusable(_) => "unusable_output",
        }
    }

    /// The client-facing error: 500 for configuration, 502 for everything the provider did.
    pub fn into_api_error(self, provider: Option<ProviderKind>) -> ApiError {
        match self {
            Self::Config(reason) => ApiError::internal("LLM configuration", reason),
            other => {
                let who = provider.map_or(String::new(), |p| format!(" ({p})"));
                tracing::warn!(error = %other, provider = %who, "LLM call failed");
                let message = match &other {
                    Self::NotConfigured(reason) => {
                        format!("The LLM provider{who} is not configured: {reason}")
                    }
                    Self::Status { status, .. } => {
                        format!("The LLM provider{who} answered HTTP {status}")
                    }
                    _ => format!("The LLM provider{who} failed: {other}"),
                };
                ApiError::new(ErrorKind::BadGateway, message)
            }
        }
    }
}

impl From<LlmError> for ApiError {
    fn from(e: LlmError) -> Self {
        e.into_api_error(None)
    }
}

/// The client: one per cold start, cheap to clone.
#[derive(Clone)]
pub struct Llm {
    http: reqwest::Client,
    config: Arc<LlmConfig>,
    overrides: Arc<dyn ProviderOverride>,
    otel: Otel,
}

impl Llm {
    /// The environment's settings, no override, `http` shared with the function's other
    /// outbound calls (its timeout is set per call).
    pub fn new(http: reqwest::Client, config: LlmConfig, otel: Otel) -> Self {
        Self {
            http,
            config: Arc::new(config),
            overrides: Arc::new(NoOverride),
            otel,
        }
    }

    pub fn with_override(mut self, overrides: Arc<dyn ProviderOverride>) -> Self {
        self.overrides = overrides;
        self
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// The provider this request uses (override first, then the environment).
    pub async fn provider(&self) -> Result<Provider, LlmError> {
        let choice = match self.overrides.current().await {
            Ok(choice) => choice,
            Err(reason) => {
                tracing::warn!(%reason, "provider override unavailable; using the environment's provider");
                None
            }
        };
        self.config.resolve(choice.as_ref())
    }

    /// Asks `provider` for a chat completion, with its timeout, and records the metrics and a
    /// client span.
    pub async fn complete(
        &self,
        provider: &Provider,
        request: &ChatRequest,
    ) -> Result<Completion, LlmError> {
        if provider.kind == ProviderKind::Cloud && provider.api_key.is_none() {
            // Nothing is sent: a keyless call to the cloud provider can only be refused.
            return Err(LlmError::NotConfigured(
                "LLM_API_KEY is empty; set it, or use LLM_PROVIDER=local".into(),
            ));
        }
        let labels = [
            ("endpoint", request.operation),
            ("provider", provider.kind.as_str()),
        ];
        let mut span = self
            .otel
            .span(SpanKind::Client, || format!("chat {}", provider.model));
        span.attr("gen_ai.operation.name", "chat");
        span.attr("gen_ai.request.model", &provider.model);
        span.attr("gen_ai.provider", provider.kind.as_str());
        span.attr("gen_ai.endpoint", request.operation);
        self.otel.add(&REQUESTS, 1, &labels);
        let started = Instant::now();
        let result = self.call(provider, request, span.traceparent()).await;
        self.otel
            .record(&LATENCY, started.elapsed().as_secs_f64(), &labels);
        match &result {
            Ok(completion) => {
                if let Some(usage) = completion.usage {
                    self.otel.add(&PROMPT_TOKENS, usage.prompt_tokens, &labels);
                    self.otel
                        .add(&COMPLETION_TOKENS, usage.completion_tokens, &labels);
                    span.attr_i64("gen_ai.usage.input_tokens", usage.prompt_tokens as i64);
                    span.attr_i64("gen_ai.usage.output_tokens", usage.completion_tokens as i64);
                }
            }
            Err(e) => {
                self.count_error(request.operation, provider.kind, e);
                span.error(&e.to_string());
            }
        }
        span.end();
        result
    }

    /// Counts a failure the caller found in an answer (`LlmError::Unusable`).
    pub fn count_error(&self, operation: &'static str, provider: ProviderKind, error: &LlmError) {
        self.otel.add(
            &ERRORS,
            1,
            &[
                ("endpoint", operation),
                ("provider", provider.as_str()),
                ("error.type", error.kind()),
            ],
        );
    }

    async fn call(
        &self,
        provider: &Provider,
        request: &ChatRequest,
        traceparent: Option<String>,
    ) -> Result<Completion, LlmError> {
        let body = serde_json::json!({
            "model": provider.model,
            "messages": request.messages,
            "temperature": provider.temperature,
            "stream": false,
        });
        let mut builder = self
            .http
            .post(&provider.chat_url)
            .timeout(provider.timeout)
            .header(reqwest::header::ACCEPT, "application/json")
            .json(&body);
        if let Some(key) = &provider.api_key {
            builder = builder.bearer_auth(key);
        }
        if let Some(value) = traceparent {
            builder = builder.header(otel::TRACEPARENT, value);
        }
        let started = Instant::now();
        let timed_out =
            |e: &reqwest::Error| e.is_timeout() || started.elapsed() >= provider.timeout;
        let mut response = builder.send().await.map_err(|e| {
            if timed_out(&e) {
                LlmError::Timeout(provider.timeout)
            } else {
                LlmError::Unreachable(error_chain(&e))
            }
        })?;
        let status = response.status();
        let mut bytes = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
                        return Err(LlmError::InvalidResponse(format!(
                            "the answer is larger than {MAX_RESPONSE_BYTES} bytes"
                        )));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) if timed_out(&e) => return Err(LlmError::Timeout(provider.timeout)),
                Err(e) => return Err(LlmError::Unreachable(error_chain(&e))),
            }
        }
        if !status.is_success() {
            let body = String::from_utf8_lossy(&bytes[..bytes.len().min(500)]).into_owned();
            return Err(LlmError::Status {
                status: status.as_u16(),
                body,
            });
        }
        parse_completion(&bytes)
    }
}

/// Reads an OpenAI chat-completions body.
pub fn parse_completion(bytes: &[u8]) -> Result<Completion, LlmError> {
    #[derive(Deserialize)]
    struct Body {
        choices: Vec<Choice>,
        usage: Option<Value>,
    }
    #[derive(Deserialize)]
    struct Choice {
        message: ChoiceMessage,
    }
    #[derive(Deserialize)]
    struct ChoiceMessage {
        content: Option<String>,
    }
    let body: Body = serde_json::from_slice(bytes)
        .map_err(|e| LlmError::InvalidResponse(format!("not a chat completion: {e}")))?;
    let content = body
        .choices
        .into_iter()
        .next()
        .and_then(|c| c.message.content)
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .ok_or_else(|| LlmError::InvalidResponse("the completion has no content".into()))?;
    // Usage is optional and some servers send partial or null counts: use it only when whole.
    let usage = body.usage.and_then(|u| serde_json::from_value(u).ok());
    Ok(Completion { content, usage })
}

/// The JSON value in a model's answer: the whole answer, the first fenced code block, or the
/// outermost `{...}` / `[...]` span, whichever parses first.
pub fn json_in_answer(answer: &str) -> Option<Value> {
    let trimmed = answer.trim();
    if let Ok(v) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    if let Some(start) = trimmed.find("```") {
        let after = &trimmed[start + 3..];
        // Skip the info string (`json`, `JSON`, ...) up to the end of its line.
        let body_start = after.find('\n').map_or(0, |i| i + 1);
        let body = &after[body_start..];
        let block = body.find("```").map_or(body, |end| &body[..end]);
        if let Ok(v) = serde_json::from_str(block.trim()) {
            return Some(v);
        }
    }
    for (open, close) in [('{', '}'), ('[', ']')] {
        if let (Some(start), Some(end)) = (trimmed.find(open), trimmed.rfind(close)) {
            if start < end {
                if let Ok(v) = serde_json::from_str(&trimmed[start..=end]) {
                    return Some(v);
                }
            }
        }
    }
    None
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_are_the_seeds() {
        let p = LlmConfig::from_env(&env(&[("LLM_API_KEY", "k")]))
            .resolve(None)
            .expect("provider");
        assert_eq!(p.kind, ProviderKind::Cloud);
        assert_eq!(p.chat_url, "https://api.openai.com/v1/chat/completions");
        assert_eq!(p.model, DEFAULT_MODEL);
        assert_eq!(p.temperature, 0.2);
        assert_eq!(p.timeout, Duration::from_secs(60));
        assert_eq!(p.api_key.as_deref(), Some("k"));
        assert!(
            !format!("{p:?}").contains("\"k\""),
            "the key is not printed"
        );
    }

    #[test]
    fn local_provider_uses_its_url_and_no_key() {
        let config = LlmConfig::from_env(&env(&[
            ("LLM_PROVIDER", "Local"),
            ("LOCAL_LLM_BASE_URL", "http://127.0.0.1:9/v1/"),
            ("LLM_API_KEY", "cloud-key"),
            ("LLM_MODEL", "llama3.2"),
            ("LLM_TEMPERATURE", "0.7"),
            ("LLM_TIMEOUT_SECONDS", "1.5"),
        ]));
        let p = config.resolve(None).expect("provider");
        assert_eq!(p.kind, ProviderKind::Local);
        assert_eq!(p.chat_url, "http://127.0.0.1:9/v1/chat/completions");
        assert_eq!(p.api_key, None);
        assert_eq!(p.model, "llama3.2");
        assert_eq!(p.timeout, Duration::from_millis(1500));
    }

    #[test]
    fn bad_settings_fail_at_resolution_not_at_start() {
        for (name, value) in [
            ("LLM_PROVIDER", "openai"),
            ("LLM_TEMPERATURE", "hot"),
            ("LLM_TEMPERATURE", "3"),
            ("LLM_TIMEOUT_SECONDS", "0"),
            ("LLM_TIMEOUT_SECONDS", "soon"),
        ] {
            let config = LlmConfig::from_env(&env(&[(name, value)]));
            let err = config.resolve(None).expect_err(name);
            assert!(
                matches!(&err, LlmError::Config(m) if m.contains(name)),
                "{err}"
            );
            assert_eq!(err.into_api_error(None).status().as_u16(), 500);
        }
    }

    #[test]
    fn an_override_wins_over_the_environment() {
        let config = LlmConfig::from_env(&env(&[("LLM_PROVIDER", "bogus")]));
        let choice = ProviderChoice {
            provider: ProviderKind::Local,
            model: Some("qwen2.5".into()),
        };
        let p = config.resolve(Some(&choice)).expect("override");
        assert_eq!((p.kind, p.model.as_str()), (ProviderKind::Local, "qwen2.5"));
    }

    #[test]
    fn provider_errors_are_502() {
        for e in [
            LlmError::Timeout(Duration::from_secs(1)),
            LlmError::Unreachable("refused".into()),
            LlmError::Status {
                status: 401,
                body: "bad key".into(),
            },
            LlmError::InvalidResponse("x".into()),
            LlmError::Unusable("x".into()),
            LlmError::NotConfigured("no key".into()),
        ] {
            let api = e.into_api_error(Some(ProviderKind::Cloud));
            assert_eq!(api.status().as_u16(), 502);
            assert!(api.message.contains("(cloud)"), "{}", api.message);
            assert!(
                !api.message.contains("bad key"),
                "provider bodies stay in the log"
            );
        }
    }

    #[test]
    fn parses_completions() {
        let c = parse_completion(
            br#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":" Hi. "}}],
                "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#,
        )
        .expect("completion");
        assert_eq!(c.content, "Hi.");
        assert_eq!(
            c.usage,
            Some(Usage {
                prompt_tokens: 12,
                completion_tokens: 3
            })
        );
        let no_usage =
            parse_completion(br#"{"choices":[{"message":{"content":"ok"}}],"usage":null}"#)
                .expect("completion");
        assert_eq!(no_usage.usage, None);
        for bad in [
            &b"not json"[..],
            br#"{"choices":[]}"#,
            br#"{"choices":[{"message":{"content":null}}]}"#,
            br#"{"choices":[{"message":{"content":"  "}}]}"#,
        ] {
            assert!(matches!(
                parse_completion(bad),
                Err(LlmError::InvalidResponse(_))
            ));
        }
    }

    #[test]
    fn finds_json_in_answers() {
        let want = serde_json::json!({"a": 1});
        assert_eq!(json_in_answer(r#" {"a": 1} "#), Some(want.clone()));
        assert_eq!(
            json_in_answer("Here you go:\n```json\n{\"a\": 1}\n```\nDone."),
            Some(want.clone())
        );
        assert_eq!(json_in_answer("```\n{\"a\": 1}\n```"), Some(want.clone()));
        assert_eq!(
            json_in_answer("The result is {\"a\": 1}, as asked."),
            Some(want)
        );
        assert_eq!(json_in_answer("[1, 2]"), Some(serde_json::json!([1, 2])));
        assert_eq!(json_in_answer("no json here"), None);
        assert_eq!(json_in_answer("{broken"), None);
    }
}
