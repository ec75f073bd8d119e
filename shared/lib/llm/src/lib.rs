//! The LLM client every AI feature shares: an OpenAI-compatible chat-completions API, either
//! the cloud provider (`LLM_BASE_URL` with `LLM_API_KEY` as a bearer key) or the local one
//! (`LOCAL_LLM_BASE_URL`: Ollama, llama.cpp server, vLLM all speak it).
//!
//! The provider is resolved per request, not at start-up: a wrong `LLM_PROVIDER` (or
//! temperature, or timeout) fails the request that needs it, while the function starts and
//! serves its other routes. Resolution asks a [`ProviderOverride`] first, the seam for
//! The community's admin setting (`GET/PUT /api/v1/admin/ai/provider`, stored per deployment:
//! [`provider_override::StoredOverride`]).
//!
//! Every call has a timeout, and every failure is an [`LlmError`]: a configuration problem
//! ([`LlmError::Config`], the edge answers 500) or a provider that gave no usable answer
//! ([`LlmError::Provider`]: unreachable, slow, non-2xx, unreadable body, empty or unusable
//! answer; the edge answers 502). With telemetry on, each call counts the [`metrics`].
//!
//! - [`config`]: the settings, the providers and the override seam;
//! - [`message`]: what is sent and what comes back;
//! - [`client`]: the calls themselves ([`Llm`]): chat completions, and embeddings at the same
//!   server's `/embeddings`;
//! - [`stream`]: a chat completion read as the provider streams it (`stream: true`);
//! - [`json`]: finding the JSON in a model's answer;
//! - [`metrics`]: the instruments recorded through `platform::otel`;
//! - [`provider_override`]: the admin's choice, stored per deployment in DynamoDB.

pub mod client;
pub mod config;
pub mod error;
pub mod json;
pub mod message;
pub mod metrics;
pub mod provider_kind;
pub mod provider_override;

pub use client::stream::CompletionStream;
pub use client::Llm;
pub use config::{
    LlmConfig, NoOverride, OverrideError, Provider, ProviderChoice, ProviderKind, ProviderOverride,
    UnknownProvider,
};
pub use error::{InvalidSetting, LlmError, ProviderFailure};
pub use json::json_in_answer;
pub use message::{
    parse_completion, parse_embeddings, ChatRequest, Completion, Message, Role, Usage,
    MAX_EMBEDDING_DIMENSIONS,
};
