//! AWS clients, built once per cold start from a function's environment.
//!
//! Built without `aws-config`: in Lambda the region and credentials are environment variables,
//! so the default provider chain (profile files, SSO, web identity with its STS client, IMDS)
//! is neither needed nor linked. The HTTPS client ([`AwsHttpClient`]) trusts the Amazon root
//! CAs compiled in instead of reading the system certificate store (~150 files, most of a cold
//! start's CPU before this), over rustls with ring.

mod http;

use std::sync::OnceLock;
use std::time::Duration;

use aws_credential_types::provider::SharedCredentialsProvider;
use aws_credential_types::Credentials;
use aws_smithy_async::rt::sleep::default_async_sleep;
use aws_smithy_async::time::SystemTimeSource;
use aws_smithy_runtime_api::client::behavior_version::BehaviorVersion;
use aws_smithy_runtime_api::client::stalled_stream_protection::StalledStreamProtectionConfig;
use aws_smithy_types::retry::RetryConfig;
use aws_smithy_types::timeout::TimeoutConfig;
use aws_types::region::Region;
use aws_types::sdk_config::SdkConfig;

use crate::config::Env;

pub use aws_types::sdk_config::Builder as ConfigBuilder;
pub use http::{AwsHttpClient, AwsHttpError};

/// Adjusts a function's AWS config before it is built (the local stack swaps the HTTP client).
pub type ConfigHook = fn(&Env, ConfigBuilder) -> ConfigBuilder;

// Process-wide: the local stack runs all functions in one process and enforces their IAM policies.
static CONFIG_HOOK: OnceLock<ConfigHook> = OnceLock::new();

/// Installs the hook every later `AwsClients::from_env` applies; the first one installed stays.
pub fn set_config_hook(hook: ConfigHook) -> bool {
    CONFIG_HOOK.set(hook).is_ok()
}

/// The clients a function may use. DynamoDB, which every function with AWS calls uses, is
/// built with the config; the others only when asked for ([`Self::sqs`], ...), so a function
/// neither pays for nor links a client it does not call. All share the one `SdkConfig`
/// (connection pool, credentials).
#[derive(Clone, Debug)]
pub struct AwsClients {
    pub config: SdkConfig,
    pub dynamodb: aws_sdk_dynamodb::Client,
}

impl AwsClients {
    /// Region (`AWS_REGION`, `AWS_DEFAULT_REGION`), endpoint (`AWS_ENDPOINT_URL`) and
    /// credentials (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, which
    /// Lambda sets) come from `env`. Without credentials every call fails as unauthorised.
    pub async fn from_env(env: &Env) -> Self {
        let config = sdk_config(env);
        Self {
            dynamodb: aws_sdk_dynamodb::Client::new(&config),
            config,
        }
    }

    /// An SQS client (built on each call: keep the one you need).
    pub fn sqs(&self) -> aws_sdk_sqs::Client {
        aws_sdk_sqs::Client::new(&self.config)
    }

    /// An S3 client; with an endpoint set (an emulator), path-style addressing.
    pub fn s3(&self) -> aws_sdk_s3::Client {
        let config = aws_sdk_s3::config::Builder::from(&self.config)
            .force_path_style(self.config.endpoint_url().is_some())
            .build();
        aws_sdk_s3::Client::from_conf(config)
    }

    /// An EventBridge client.
    pub fn eventbridge(&self) -> aws_sdk_eventbridge::Client {
        aws_sdk_eventbridge::Client::new(&self.config)
    }
}

/// The shared config of every client: what `aws_config::load()` would give a Lambda function.
pub fn sdk_config(env: &Env) -> SdkConfig {
    let endpoint = env.get("AWS_ENDPOINT_URL");
    let mut builder = SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .retry_config(RetryConfig::standard())
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(Duration::from_secs(3))
                .operation_attempt_timeout(Duration::from_secs(5))
                .operation_timeout(Duration::from_secs(12))
                .build(),
        )
        .time_source(SystemTimeSource::new())
        // The attempt and operation timeouts above already end a stalled call; the stream
        // monitor would add a timer and a wrapped body to every call for nothing.
        .stalled_stream_protection(StalledStreamProtectionConfig::disabled());
    builder.set_sleep_impl(default_async_sleep());
    match https_client(env) {
        Ok(client) => builder = builder.http_client(client),
        // Every call then fails naming the missing client; the cause is in this line.
        Err(e) => tracing::error!(error = %e, "the AWS HTTP client could not be built"),
    }
    if let Some(region) = env.get("AWS_REGION").or(env.get("AWS_DEFAULT_REGION")) {
        builder = builder.region(Region::new(region.to_string()));
    }
    if let Some(url) = endpoint {
        builder = builder.endpoint_url(url);
    }
    match credentials(env) {
        Some(credentials) => {
            builder = builder.credentials_provider(SharedCredentialsProvider::new(credentials));
        }
        None => tracing::warn!(
            "AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set: AWS calls will fail"
        ),
    }
    if let Some(hook) = CONFIG_HOOK.get() {
        builder = hook(env, builder);
    }
    builder.build()
}

fn credentials(env: &Env) -> Option<Credentials> {
    let id = env.get("AWS_ACCESS_KEY_ID").filter(|v| !v.is_empty())?;
    let secret = env.get("AWS_SECRET_ACCESS_KEY").filter(|v| !v.is_empty())?;
    let token = env
        .get("AWS_SESSION_TOKEN")
        .filter(|v| !v.is_empty())
        .map(str::to_string);
    Some(Credentials::new(id, secret, token, None, "environment"))
}

/// The SDK's HTTPS client: rustls over ring trusting the Amazon roots, and the certificates of
/// the PEM file `AWS_CA_BUNDLE` names (the SDKs' variable for an endpoint behind a private CA).
pub fn https_client(env: &Env) -> Result<AwsHttpClient, AwsHttpError> {
    match env.get("AWS_CA_BUNDLE").filter(|v| !v.is_empty()) {
        None => AwsHttpClient::new(None),
        Some(path) => {
            let pem = std::fs::read(path)
                .map_err(|e| AwsHttpError::Pem(format!("AWS_CA_BUNDLE {path}: {e}")))?;
            AwsHttpClient::new(Some(&pem))
        }
    }
}

/// The full text of an SDK error (its `Display` says only "service error").
pub fn describe<E: std::error::Error>(err: &E) -> String {
    aws_smithy_types::error::display::DisplayErrorContext(err).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_bundle_that_cannot_be_read_is_reported() {
        let env = Env::new().with("AWS_CA_BUNDLE", "/nonexistent/bundle.pem");
        let error = https_client(&env).expect_err("unreadable bundle");
        assert!(error.to_string().contains("AWS_CA_BUNDLE"), "{error}");
        assert!(https_client(&Env::new()).is_ok());
    }

    #[test]
    fn credentials_come_from_the_environment() {
        let env = Env::new()
            .with("AWS_ACCESS_KEY_ID", "AKID")
            .with("AWS_SECRET_ACCESS_KEY", "secret")
            .with("AWS_SESSION_TOKEN", "token");
        let found = credentials(&env).expect("credentials");
        assert_eq!(found.access_key_id(), "AKID");
        assert_eq!(found.session_token(), Some("token"));
        assert!(credentials(&Env::new().with("AWS_ACCESS_KEY_ID", "AKID")).is_none());
    }
}
