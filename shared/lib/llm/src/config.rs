//! The provider settings of the environment, the two providers, and the seam through which a
//! deployment's own choice overrides the environment's.

use std::fmt;
use std::time::Duration;

use futures::future::BoxFuture;
use platform::Env;

use crate::error::{InvalidSetting, LlmError};
pub use crate::provider_kind::{ProviderKind, UnknownProvider};

/// The cloud provider's default base URL (`LLM_BASE_URL`).
pub const DEFAULT_CLOUD_BASE_URL: &str = "https://api.openai.com/v1";
/// The local provider's default base URL (`LOCAL_LLM_BASE_URL`): Ollama's OpenAI endpoint.
pub const DEFAULT_LOCAL_BASE_URL: &str = "http://localhost:11434/v1";
/// `LLM_MODEL` when unset.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
pub const DEFAULT_TEMPERATURE: f64 = 0.2;
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// A provider choice made outside the environment (the admin override of the community).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderChoice {
    pub provider: ProviderKind,
    /// A model for this provider; `None` keeps `LLM_MODEL`.
    pub model: Option<String>,
}

/// Why an override store could not answer (its own error, boxed).
pub type OverrideError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Where a deployment's provider override lives. The environment's choice applies when this
/// answers `None`; when it fails, the environment's choice applies too (logged), so a
/// broken override store never takes the AI features down.
pub trait ProviderOverride: Send + Sync + 'static {
    fn current(&self) -> BoxFuture<'_, Result<Option<ProviderChoice>, OverrideError>>;
}

/// No override: the environment decides. What every function uses until the admin setting
/// exists.
pub struct NoOverride;

impl ProviderOverride for NoOverride {
    fn current(&self) -> BoxFuture<'_, Result<Option<ProviderChoice>, OverrideError>> {
        Box::pin(async { Ok(None) })
    }
}

/// The provider settings read from the environment. Problems are kept, not raised: they
/// surface as [`LlmError::Config`] on the first request that needs the provider.
#[derive(Clone, Debug)]
pub struct LlmConfig {
    provider: Result<ProviderKind, InvalidSetting>,
    cloud_base_url: String,
    local_base_url: String,
    api_key: Option<String>,
    model: String,
    temperature: Result<f64, InvalidSetting>,
    timeout: Result<Duration, InvalidSetting>,
}

impl LlmConfig {
    /// `LLM_PROVIDER` (cloud), `LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`, `LLM_TEMPERATURE`
    /// (0.2), `LLM_TIMEOUT_SECONDS` (60), `LOCAL_LLM_BASE_URL`.
    pub fn from_env(env: &Env) -> Self {
        let provider = env
            .get("LLM_PROVIDER")
            .map_or(Ok(ProviderKind::Cloud), str::parse)
            .map_err(|e| InvalidSetting {
                variable: "LLM_PROVIDER",
                reason: e.to_string(),
            });
        let temperature = match env.get("LLM_TEMPERATURE") {
            None => Ok(DEFAULT_TEMPERATURE),
            Some(raw) => match raw.trim().parse::<f64>() {
                Ok(t) if (0.0..=2.0).contains(&t) => Ok(t),
                _ => Err(InvalidSetting {
                    variable: "LLM_TEMPERATURE",
                    reason: format!("{raw:?} is not a number from 0 to 2"),
                }),
            },
        };
        let timeout = match env.get("LLM_TIMEOUT_SECONDS") {
            None => Ok(DEFAULT_TIMEOUT),
            Some(raw) => match raw.trim().parse::<f64>() {
                Ok(s) if s > 0.0 && s <= 900.0 => Ok(Duration::from_secs_f64(s)),
                _ => Err(InvalidSetting {
                    variable: "LLM_TIMEOUT_SECONDS",
                    reason: format!("{raw:?} is not a number of seconds from 0 to 900"),
                }),
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

    /// Whether `kind` has what it needs to be called: the cloud provider a key
    /// (`LLM_API_KEY`); the local one only its URL, which has a default.
    pub fn configured(&self, kind: ProviderKind) -> bool {
        match kind {
            ProviderKind::Cloud => self.api_key.is_some(),
            ProviderKind::Local => !self.local_base_url.trim().is_empty(),
        }
    }

    /// The provider a request uses: `choice` when given, else `LLM_PROVIDER`.
    pub fn resolve(&self, choice: Option<&ProviderChoice>) -> Result<Provider, LlmError> {
        let kind = match choice {
            Some(c) => c.provider,
            None => self.provider.clone()?,
        };
        let temperature = self.temperature.clone()?;
        let timeout = self.timeout.clone()?;
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
            chat_url: endpoint(&base_url, "chat/completions"),
            embeddings_url: endpoint(&base_url, "embeddings"),
            api_key,
            model,
            temperature,
            timeout,
        })
    }
}

/// `path` under an OpenAI-compatible base URL.
fn endpoint(base_url: &str, path: &str) -> String {
    format!("{}/{path}", base_url.trim().trim_end_matches('/'))
}

/// A resolved provider: where to send, with what, and how long to wait.
#[derive(Clone)]
pub struct Provider {
    pub kind: ProviderKind,
    pub chat_url: String,
    /// The OpenAI-compatible `/embeddings` endpoint of the same server.
    pub embeddings_url: String,
    pub(crate) api_key: Option<String>,
    pub model: String,
    pub temperature: f64,
    pub timeout: Duration,
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("kind", &self.kind)
            .field("chat_url", &self.chat_url)
            .field("embeddings_url", &self.embeddings_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("temperature", &self.temperature)
            .field("timeout", &self.timeout)
            .finish()
    }
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
        assert_eq!(p.embeddings_url, "http://127.0.0.1:9/v1/embeddings");
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
                matches!(&err, LlmError::Config(setting) if setting.variable == name),
                "{err}"
            );
            assert!(err.to_string().contains(value), "{err}");
        }
    }

    #[test]
    fn the_cloud_provider_is_configured_only_with_a_key() {
        let keyless = LlmConfig::from_env(&env(&[("LLM_API_KEY", "")]));
        assert!(!keyless.configured(ProviderKind::Cloud));
        assert!(keyless.configured(ProviderKind::Local));
        let keyed = LlmConfig::from_env(&env(&[("LLM_API_KEY", "k")]));
        assert!(keyed.configured(ProviderKind::Cloud));
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
}
