//! The community's admin provider setting, stored per deployment: the [`ProviderOverride`] the
//! assistant function (and the community's summary worker) resolves its provider through.
//!
//! API.md: "Set provider config keeps the override in memory only; it resets on GenAI
//! restart". A Lambda function has many short-lived instances, so the override is stored in
//! DynamoDB where every instance sees it, keyed by the deployment (the function and its
//! published version, `AWS_LAMBDA_FUNCTION_VERSION`): a new deployment reads another key,
//! which holds nothing, so the environment's provider applies again.
//!
//! One item in the GenAI answer cache table (`GENAI_CACHE_TABLE`; its `pk` values are hex
//! hashes, so the `CONFIG#` prefix cannot collide), no `expiresAt`:
//!
//! | attribute | value |
//! |---|---|
//! | `pk` | `CONFIG#llm-provider#{function}#{version}` |
//! | `provider` | `cloud` or `local` |
//! | `model` | the chosen model |
//! | `deployment` | `{function}:{version}` |
//! | `updatedAt` | RFC 3339 UTC, milliseconds |
//! | `updatedBy` | the admin's user id |
//!
//! Access patterns: read the override (GetItem on `pk`), set it (PutItem, last writer wins).
//! Each instance keeps what it read for [`CACHE_FOR`]: without it every model call would pay
//! one more DynamoDB read (and its latency) for a setting that changes a few times a
//! deployment. The instance that sets the override keeps the new value at once, so its next
//! request uses it; other instances follow within [`CACHE_FOR`].

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use platform::dynamo::{s, DynamoError, Item, Table};
use platform::validation::{FieldError, FieldErrors, Invalid};
use platform::{Clock, Env};

use crate::config::{LlmConfig, OverrideError, ProviderChoice, ProviderKind, ProviderOverride};

/// How long an instance trusts the override it read.
pub const CACHE_FOR: Duration = Duration::from_secs(5);
/// The longest model name accepted.
pub const MAX_MODEL_CHARS: usize = 200;
/// The deployment outside Lambda (a router built in a test), which sets neither variable.
const DEFAULT_FUNCTION: &str = "genai";
const DEFAULT_VERSION: &str = "$LATEST";

/// One deployment of the assistant function: its name and published version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deployment {
    function: String,
    version: String,
}

impl Deployment {
    pub fn new(function: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            function: function.into(),
            version: version.into(),
        }
    }

    /// The running function's own deployment: `AWS_LAMBDA_FUNCTION_NAME` and
    /// `AWS_LAMBDA_FUNCTION_VERSION` (a number behind `AutoPublishAlias`; the local stack
    /// gives `local-{startMillis}`, so each start is a new deployment).
    pub fn from_env(env: &Env) -> Self {
        Self::new(
            env.get_or("AWS_LAMBDA_FUNCTION_NAME", DEFAULT_FUNCTION),
            env.get_or("AWS_LAMBDA_FUNCTION_VERSION", DEFAULT_VERSION),
        )
    }

    /// Another function's view of the GenAI deployment: a published version's ARN
    /// (`!Ref AssistantFunction.Version`, `arn:aws:lambda:{region}:{account}:function:{name}:{version}`).
    pub fn from_version_arn(arn: &str) -> Option<Self> {
        let mut parts = arn.trim().rsplitn(3, ':');
        let version = parts.next().filter(|v| !v.is_empty())?;
        let function = parts.next().filter(|f| !f.is_empty())?;
        let rest = parts.next()?;
        (rest.starts_with("arn:") && rest.ends_with(":function"))
            .then(|| Self::new(function, version))
    }

    /// `{function}:{version}`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.function, self.version)
    }

    fn item_key(&self) -> Item {
        Item::from([(
            "pk".to_string(),
            s(format!(
                "CONFIG#llm-provider#{}#{}",
                self.function, self.version
            )),
        )])
    }
}

/// Reads a provider setting (the body of `PUT /api/v1/admin/ai/provider`): `provider` is
/// `cloud` or `local` and must have what it needs to be called (the cloud provider a key);
/// `model` is 1 to [`MAX_MODEL_CHARS`] characters, trimmed. Every problem names its field.
pub fn parse_choice(
    provider: Option<&str>,
    model: Option<&str>,
    config: &LlmConfig,
) -> Result<ProviderChoice, Invalid> {
    let mut errors = FieldErrors::new();
    let provider = errors.check(parse_provider(provider, config));
    let model = errors.check(parse_model(model));
    errors.finish()?;
    match (provider, model) {
        (Some(provider), Some(model)) => Ok(ProviderChoice {
            provider,
            model: Some(model),
        }),
        // `finish` refused any input that left one of them unread.
        _ => Err(Invalid::field("body", "provider and model are required")),
    }
}

fn parse_provider(raw: Option<&str>, config: &LlmConfig) -> Result<ProviderKind, FieldError> {
    let raw = raw.map(str::trim).filter(|p| !p.is_empty());
    let Some(raw) = raw else {
        return Err(FieldError::new("provider", "must not be blank"));
    };
    let kind = raw
        .parse::<ProviderKind>()
        .map_err(|_| FieldError::new("provider", "must be cloud or local"))?;
    if config.configured(kind) {
        Ok(kind)
    } else {
        Err(FieldError::new(
            "provider",
            format!("{kind} has no API key configured (LLM_API_KEY)"),
        ))
    }
}

fn parse_model(raw: Option<&str>) -> Result<String, FieldError> {
    let model = raw.map(str::trim).unwrap_or_default();
    let chars = model.chars().count();
    if chars == 0 {
        Err(FieldError::new("model", "must not be blank"))
    } else if chars > MAX_MODEL_CHARS {
        Err(FieldError::new(
            "model",
            format!("must be at most {MAX_MODEL_CHARS} characters"),
        ))
    } else {
        Ok(model.to_string())
    }
}

/// What this instance last read, and when.
struct Cached {
    read_at: Instant,
    choice: Option<ProviderChoice>,
}

/// The override of one deployment, in DynamoDB.
pub struct StoredOverride {
    table: Table,
    deployment: Deployment,
    clock: Clock,
    cached: Mutex<CacheState>,
}

#[derive(Default)]
struct CacheState {
    cached: Option<Cached>,
    /// Bumped by every write, so a read that started before it does not cache an old value.
    generation: u64,
}

impl StoredOverride {
    pub fn new(table: Table, deployment: Deployment, clock: Clock) -> Self {
        Self {
            table,
            deployment,
            clock,
            cached: Mutex::new(CacheState::default()),
        }
    }

    pub fn deployment(&self) -> &Deployment {
        &self.deployment
    }

    /// The override as stored now (a consistent read), which also refreshes this instance's
    /// copy.
    pub async fn read(&self) -> Result<Option<ProviderChoice>, DynamoError> {
        let generation = self.state().generation;
        let item = self.table.get(self.deployment.item_key()).await?;
        let choice = item.map(|item| self.choice_in(&item)).transpose()?;
        let mut state = self.state();
        if state.generation == generation {
            state.cached = Some(Cached {
                read_at: Instant::now(),
                choice: choice.clone(),
            });
        }
        Ok(choice)
    }

    /// Stores `choice` for this deployment, set by user `by`; this instance uses it from its
    /// next request on.
    pub async fn set(&self, choice: &ProviderChoice, by: &str) -> Result<(), DynamoError> {
        let mut item = self.deployment.item_key();
        item.extend([
            ("provider".to_string(), s(choice.provider.as_str())),
            ("deployment".to_string(), s(self.deployment.id())),
            ("updatedAt".to_string(), s(self.clock.timestamp())),
            ("updatedBy".to_string(), s(by)),
        ]);
        if let Some(model) = &choice.model {
            item.insert("model".to_string(), s(model));
        }
        self.state().generation += 1;
        let written = self.table.put_item().set_item(Some(item)).send().await;
        let mut state = self.state();
        state.generation += 1;
        match written {
            Ok(_) => {
                state.cached = Some(Cached {
                    read_at: Instant::now(),
                    choice: Some(choice.clone()),
                });
                Ok(())
            }
            Err(e) => {
                // The write may have happened: read again next time.
                state.cached = None;
                Err(self.table.fail("PutItem", &e))
            }
        }
    }

    /// The cached override while it is fresh, else a new read.
    async fn current_choice(&self) -> Result<Option<ProviderChoice>, DynamoError> {
        if let Some(cached) = &self.state().cached {
            if cached.read_at.elapsed() < CACHE_FOR {
                return Ok(cached.choice.clone());
            }
        }
        self.read().await
    }

    fn state(&self) -> std::sync::MutexGuard<'_, CacheState> {
        self.cached.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn choice_in(&self, item: &Item) -> Result<ProviderChoice, DynamoError> {
        use platform::dynamo::Attributes;
        let provider = item
            .string(self.table.name(), "provider")?
            .parse::<ProviderKind>()
            .map_err(|e| self.table.corrupt(format!("provider override: {e}")))?;
        Ok(ProviderChoice {
            provider,
            model: item.opt_string("model"),
        })
    }
}

impl ProviderOverride for StoredOverride {
    fn current(&self) -> BoxFuture<'_, Result<Option<ProviderChoice>, OverrideError>> {
        Box::pin(async move { self.current_choice().await.map_err(OverrideError::from) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> LlmConfig {
        LlmConfig::from_env(
            &pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn a_choice_needs_a_known_provider_with_its_key_and_a_model() {
        let keyed = config(&[("LLM_API_KEY", "k")]);
        let keyless = config(&[]);
        let choice = parse_choice(Some(" Cloud "), Some("  gpt-4o  "), &keyed).expect("valid");
        assert_eq!(choice.provider, ProviderKind::Cloud);
        assert_eq!(choice.model.as_deref(), Some("gpt-4o"));
        let local = parse_choice(Some("local"), Some("llama3.2"), &keyless).expect("no key needed");
        assert_eq!(local.provider, ProviderKind::Local);
        let long = "m".repeat(MAX_MODEL_CHARS);
        assert!(parse_choice(Some("local"), Some(&long), &keyless).is_ok());

        let fields = |provider, model, config: &LlmConfig| {
            parse_choice(provider, model, config)
                .expect_err("invalid")
                .errors()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            fields(Some("cloud"), Some("m"), &keyless),
            ["provider: cloud has no API key configured (LLM_API_KEY)"]
        );
        assert_eq!(
            fields(Some("openai"), Some("m"), &keyed),
            ["provider: must be cloud or local"]
        );
        assert_eq!(
            fields(None, Some("   "), &keyed),
            ["provider: must not be blank", "model: must not be blank"]
        );
        let too_long = "m".repeat(MAX_MODEL_CHARS + 1);
        assert_eq!(
            fields(Some("local"), Some(&too_long), &keyed),
            ["model: must be at most 200 characters"]
        );
        assert_eq!(
            fields(Some("local"), None, &keyed),
            ["model: must not be blank"]
        );
    }

    #[test]
    fn deployments_come_from_the_lambda_environment_or_a_version_arn() {
        let env: Env = [
            ("AWS_LAMBDA_FUNCTION_NAME", "stack-GenAi-1"),
            ("AWS_LAMBDA_FUNCTION_VERSION", "7"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let running = Deployment::from_env(&env);
        assert_eq!(running.id(), "stack-GenAi-1:7");
        assert_eq!(
            Deployment::from_version_arn(
                "arn:aws:lambda:eu-west-1:123456789012:function:stack-GenAi-1:7"
            ),
            Some(running.clone())
        );
        assert_eq!(
            running.item_key()["pk"],
            s("CONFIG#llm-provider#stack-GenAi-1#7")
        );
        assert_eq!(Deployment::from_env(&Env::default()).id(), "genai:$LATEST");
        for bad in [
            "",
            "7",
            "arn:aws:lambda:r:a:function:name:",
            "arn:aws:sqs:r:a:q:1",
        ] {
            assert_eq!(Deployment::from_version_arn(bad), None, "{bad}");
        }
    }
}
