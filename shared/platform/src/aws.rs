//! AWS clients, built once per cold start from a function's environment.

use std::sync::OnceLock;
use std::time::Duration;

use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, Region, SdkConfig};

use crate::config::Env;

/// Adjusts a function's AWS config before it is loaded.
pub type ConfigHook = fn(&Env, aws_config::ConfigLoader) -> aws_config::ConfigLoader;

// Process-wide: the local stack runs all functions in one process and enforces their IAM policies.
static CONFIG_HOOK: OnceLock<ConfigHook> = OnceLock::new();

/// Installs the hook every later `AwsClients::from_env` applies; the first one installed stays.
pub fn set_config_hook(hook: ConfigHook) -> bool {
    CONFIG_HOOK.set(hook).is_ok()
}

/// The clients a function may use. Constructing a client is cheap; the connection pool and
/// credentials are shared through the one `SdkConfig`.
#[derive(Clone, Debug)]
pub struct AwsClients {
    pub config: SdkConfig,
    pub dynamodb: aws_sdk_dynamodb::Client,
    pub s3: aws_sdk_s3::Client,
    pub sqs: aws_sdk_sqs::Client,
    pub eventbridge: aws_sdk_eventbridge::Client,
}

impl AwsClients {
    /// Region and endpoint come from `env` (`AWS_REGION`, `AWS_ENDPOINT_URL`), credentials from
    /// the default chain. With an endpoint set (an emulator), S3 uses path-style addressing.
    pub async fn from_env(env: &Env) -> Self {
        let mut loader = aws_config::defaults(BehaviorVersion::latest()).timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(Duration::from_secs(3))
                .operation_attempt_timeout(Duration::from_secs(5))
                .operation_timeout(Duration::from_secs(12))
                .build(),
        );
        if let Some(region) = env.get("AWS_REGION").or(env.get("AWS_DEFAULT_REGION")) {
            loader = loader.region(Region::new(region.to_string()));
        }
        let endpoint = env.get("AWS_ENDPOINT_URL");
        if let Some(url) = endpoint {
            loader = loader.endpoint_url(url);
        }
        if let Some(hook) = CONFIG_HOOK.get() {
            loader = hook(env, loader);
        }
        let config = loader.load().await;
        let s3_config = aws_sdk_s3::config::Builder::from(&config)
            .force_path_style(endpoint.is_some())
            .build();
        Self {
            dynamodb: aws_sdk_dynamodb::Client::new(&config),
            s3: aws_sdk_s3::Client::from_conf(s3_config),
            sqs: aws_sdk_sqs::Client::new(&config),
            eventbridge: aws_sdk_eventbridge::Client::new(&config),
            config,
        }
    }
}

/// The full text of an SDK error (its `Display` says only "service error").
pub fn describe<E: std::error::Error>(err: &E) -> String {
    aws_smithy_types::error::display::DisplayErrorContext(err).to_string()
}
