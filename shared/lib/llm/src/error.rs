//! Why a call produced no answer.

use std::time::Duration;

use crate::provider_kind::ProviderKind;

/// An LLM setting of the environment that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{variable}: {reason}")]
pub struct InvalidSetting {
    /// The environment variable.
    pub variable: &'static str,
    pub reason: String,
}

/// A call that produced no answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// The environment's LLM settings are wrong: the operator's problem, not the provider's.
    #[error("LLM configuration: {0}")]
    Config(#[from] InvalidSetting),
    /// The provider gave no usable answer.
    #[error("the LLM provider ({provider}) failed: {failure}")]
    Provider {
        provider: ProviderKind,
        failure: ProviderFailure,
    },
}

/// What the provider did wrong.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProviderFailure {
    /// The provider cannot be called as configured (the cloud provider without a key).
    #[error("not configured: {0}")]
    NotConfigured(String),
    #[error("no answer within {} s", seconds(.0))]
    Timeout(Duration),
    #[error("unreachable: {0}")]
    Unreachable(String),
    /// A non-2xx answer; `body` is its start, for the log only.
    #[error("answered HTTP {status}")]
    Status { status: u16, body: String },
    #[error("unreadable answer: {0}")]
    InvalidResponse(String),
    /// The caller could not use what the model said (not JSON, wrong fields, ...).
    #[error("unusable answer: {0}")]
    Unusable(String),
}

impl ProviderFailure {
    /// The `error.type` label of `gen_ai.llm.errors`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::NotConfigured(_) => "not_configured",
            Self::Timeout(_) => "timeout",
            Self::Unreachable(_) => "unreachable",
            Self::Status { .. } => "http_status",
            Self::InvalidResponse(_) => "invalid_response",
            Self::Unusable(_) => "unusable_output",
        }
    }
}

/// Seconds to a tenth, without a trailing `.0` (`1`, `2.5`).
fn seconds(d: &Duration) -> String {
    let text = format!("{:.1}", d.as_secs_f64());
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
