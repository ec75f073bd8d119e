//! The chat-completions call: one provider, one request, a timeout, the metrics and a client
//! span.

pub mod stream;

use std::sync::Arc;
use std::time::Instant;

use platform::otel::{Otel, SpanKind, TRACEPARENT};

use crate::config::{LlmConfig, NoOverride, Provider, ProviderKind, ProviderOverride};
use crate::error::{error_chain, LlmError, ProviderFailure};
use crate::message::{parse_completion, parse_embeddings, ChatRequest, Completion};
use crate::metrics::{COMPLETION_TOKENS, ERRORS, LATENCY, PROMPT_TOKENS, REQUESTS};
use stream::CompletionStream;

/// A chat completion (or a batch of embeddings) larger than this is not an answer but a fault.
const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;
/// How much of a refusal's body is kept for the log.
const LOGGED_BODY_BYTES: usize = 500;

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

    pub(crate) fn otel(&self) -> &Otel {
        &self.otel
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
        let failed = |failure| LlmError::Provider {
            provider: provider.kind,
            failure,
        };
        refuse_keyless_cloud(provider)?;
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
                    span.attr_i64(
                        "gen_ai.usage.input_tokens",
                        saturating_i64(usage.prompt_tokens),
                    );
                    span.attr_i64(
                        "gen_ai.usage.output_tokens",
                        saturating_i64(usage.completion_tokens),
                    );
                }
            }
            Err(failure) => {
                self.count_failure(request.operation, provider.kind, failure);
                span.error(&failure.to_string());
            }
        }
        span.end();
        result.map_err(failed)
    }

    /// The error of an answer the caller cannot use (`reason` says why), counted in
    /// `gen_ai.llm.errors` like the provider's own failures.
    pub fn unusable_answer(
        &self,
        operation: &'static str,
        provider: &Provider,
        reason: impl Into<String>,
    ) -> LlmError {
        let failure = ProviderFailure::Unusable(reason.into());
        self.count_failure(operation, provider.kind, &failure);
        LlmError::Provider {
            provider: provider.kind,
            failure,
        }
    }

    pub(crate) fn count_failure(
        &self,
        operation: &'static str,
        provider: ProviderKind,
        failure: &ProviderFailure,
    ) {
        self.otel.add(
            &ERRORS,
            1,
            &[
                ("endpoint", operation),
                ("provider", provider.as_str()),
                ("error.type", failure.kind()),
            ],
        );
    }

    async fn call(
        &self,
        provider: &Provider,
        request: &ChatRequest,
        traceparent: Option<String>,
    ) -> Result<Completion, ProviderFailure> {
        let body = chat_body(provider, request, false);
        let bytes = self
            .post(provider, &provider.chat_url, &body, traceparent)
            .await?;
        parse_completion(&bytes)
    }

    /// Asks `provider` for a chat completion with `stream: true`: once the provider has
    /// accepted the request (a 2xx), the answer is read piece by piece from the returned
    /// stream, all of it within the provider's timeout.
    pub async fn stream(
        &self,
        provider: &Provider,
        request: &ChatRequest,
    ) -> Result<CompletionStream, LlmError> {
        refuse_keyless_cloud(provider)?;
        let labels = [
            ("endpoint", request.operation),
            ("provider", provider.kind.as_str()),
        ];
        self.otel.add(&REQUESTS, 1, &labels);
        let started = Instant::now();
        let body = chat_body(provider, request, true);
        let accepted = match self
            .send(
                provider,
                &provider.chat_url,
                &body,
                None,
                "text/event-stream",
            )
            .await
        {
            Ok(response) if response.status().is_success() => Ok(response),
            Ok(refusal) => Err(refused(provider, refusal, started).await),
            Err(failure) => Err(failure),
        };
        match accepted {
            Ok(response) => Ok(CompletionStream::new(
                self.clone(),
                provider.clone(),
                request.operation,
                response,
                started,
            )),
            Err(failure) => {
                self.otel
                    .record(&LATENCY, started.elapsed().as_secs_f64(), &labels);
                self.count_failure(request.operation, provider.kind, &failure);
                Err(LlmError::Provider {
                    provider: provider.kind,
                    failure,
                })
            }
        }
    }

    /// Embeds `inputs` with `model` at `provider`'s OpenAI-compatible `/embeddings`
    /// endpoint: one vector per input, in order, all of one dimension. `operation` labels
    /// the metrics as a chat call's does.
    pub async fn embed(
        &self,
        operation: &'static str,
        provider: &Provider,
        model: &str,
        inputs: &[String],
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        let failed = |failure| LlmError::Provider {
            provider: provider.kind,
            failure,
        };
        refuse_keyless_cloud(provider)?;
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let labels = [
            ("endpoint", operation),
            ("provider", provider.kind.as_str()),
        ];
        self.otel.add(&REQUESTS, 1, &labels);
        let started = Instant::now();
        let body = serde_json::json!({"model": model, "input": inputs});
        let result = match self
            .post(provider, &provider.embeddings_url, &body, None)
            .await
        {
            Ok(bytes) => parse_embeddings(&bytes, inputs.len()),
            Err(failure) => Err(failure),
        };
        self.otel
            .record(&LATENCY, started.elapsed().as_secs_f64(), &labels);
        if let Err(failure) = &result {
            self.count_failure(operation, provider.kind, failure);
        }
        result.map_err(failed)
    }

    /// POSTs `body` to `url` with `provider`'s key and timeout; the body of a 2xx answer.
    async fn post(
        &self,
        provider: &Provider,
        url: &str,
        body: &serde_json::Value,
        traceparent: Option<String>,
    ) -> Result<Vec<u8>, ProviderFailure> {
        let started = Instant::now();
        let response = self
            .send(provider, url, body, traceparent, "application/json")
            .await?;
        if !response.status().is_success() {
            return Err(refused(provider, response, started).await);
        }
        read_bounded(provider, response, started).await
    }

    /// POSTs `body` to `url` with `provider`'s key and a timeout that covers the body too.
    async fn send(
        &self,
        provider: &Provider,
        url: &str,
        body: &serde_json::Value,
        traceparent: Option<String>,
        accept: &'static str,
    ) -> Result<reqwest::Response, ProviderFailure> {
        let mut builder = self
            .http
            .post(url)
            .timeout(provider.timeout)
            .header(reqwest::header::ACCEPT, accept)
            .json(body);
        if let Some(key) = &provider.api_key {
            builder = builder.bearer_auth(key);
        }
        if let Some(value) = traceparent {
            builder = builder.header(TRACEPARENT, value);
        }
        let started = Instant::now();
        builder
            .send()
            .await
            .map_err(|e| transport_failure(provider, &e, started))
    }
}

/// The chat-completions body for `request`.
fn chat_body(provider: &Provider, request: &ChatRequest, stream: bool) -> serde_json::Value {
    let mut body = serde_json::json!({
        "model": provider.model,
        "messages": request.messages,
        "temperature": provider.temperature,
        "stream": stream,
    });
    if let (Some(max_tokens), Some(fields)) = (request.max_tokens, body.as_object_mut()) {
        fields.insert("max_tokens".into(), max_tokens.into());
    }
    if stream {
        if let Some(fields) = body.as_object_mut() {
            fields.insert(
                "stream_options".into(),
                serde_json::json!({"include_usage": true}),
            );
        }
    }
    body
}

fn transport_failure(provider: &Provider, e: &reqwest::Error, started: Instant) -> ProviderFailure {
    if e.is_timeout() || started.elapsed() >= provider.timeout {
        ProviderFailure::Timeout(provider.timeout)
    } else {
        ProviderFailure::Unreachable(error_chain(e))
    }
}

/// A response's body, up to [`MAX_RESPONSE_BYTES`].
async fn read_bounded(
    provider: &Provider,
    mut response: reqwest::Response,
    started: Instant,
) -> Result<Vec<u8>, ProviderFailure> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| transport_failure(provider, &e, started))?
    {
        if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(ProviderFailure::InvalidResponse(format!(
                "the answer is larger than {MAX_RESPONSE_BYTES} bytes"
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// A non-2xx answer as a failure, the start of its body kept for the log.
async fn refused(
    provider: &Provider,
    response: reqwest::Response,
    started: Instant,
) -> ProviderFailure {
    let status = response.status().as_u16();
    match read_bounded(provider, response, started).await {
        Ok(bytes) => {
            let start = bytes.get(..LOGGED_BODY_BYTES).unwrap_or(&bytes);
            ProviderFailure::Status {
                status,
                body: String::from_utf8_lossy(start).into_owned(),
            }
        }
        Err(failure) => failure,
    }
}

/// Nothing is sent to the cloud provider without its key: such a call can only be refused.
fn refuse_keyless_cloud(provider: &Provider) -> Result<(), LlmError> {
    if provider.kind == ProviderKind::Cloud && provider.api_key.is_none() {
        return Err(LlmError::Provider {
            provider: provider.kind,
            failure: ProviderFailure::NotConfigured(
                "LLM_API_KEY is empty; set it, or use LLM_PROVIDER=local".into(),
            ),
        });
    }
    Ok(())
}

fn saturating_i64(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Message;
    use platform::Env;

    fn llm(pairs: &[(&str, &str)]) -> Llm {
        let env: Env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Llm::new(
            platform::tls::http_client().build().expect("client"),
            LlmConfig::from_env(&env),
            Otel::default(),
        )
    }

    fn request() -> ChatRequest {
        ChatRequest {
            operation: "test",
            messages: vec![Message::user("Hi")],
            max_tokens: Some(16),
        }
    }

    #[tokio::test]
    async fn the_cloud_provider_without_a_key_is_not_called() {
        let llm = llm(&[("LLM_BASE_URL", "http://127.0.0.1:9/v1")]);
        let provider = llm.provider().await.expect("provider");
        let err = llm
            .complete(&provider, &request())
            .await
            .expect_err("no key");
        assert!(
            matches!(
                &err,
                LlmError::Provider {
                    provider: ProviderKind::Cloud,
                    failure: ProviderFailure::NotConfigured(reason)
                } if reason.contains("LLM_API_KEY")
            ),
            "{err}"
        );
    }

    #[tokio::test]
    async fn an_unreachable_provider_is_a_provider_failure() {
        // A port that was free a moment ago: connecting is refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let llm = llm(&[
            ("LLM_PROVIDER", "local"),
            ("LOCAL_LLM_BASE_URL", &format!("http://127.0.0.1:{port}/v1")),
        ]);
        let provider = llm.provider().await.expect("provider");
        let err = llm
            .complete(&provider, &request())
            .await
            .expect_err("refused");
        assert!(
            matches!(
                &err,
                LlmError::Provider {
                    provider: ProviderKind::Local,
                    failure: ProviderFailure::Unreachable(_)
                }
            ),
            "{err}"
        );
        let unusable = llm.unusable_answer("test", &provider, "no JSON");
        assert_eq!(
            unusable.to_string(),
            "the LLM provider (local) failed: unusable answer: no JSON"
        );
    }
}
