//! AWS clients, built once per cold start from a function's environment: the AWS SDK
//! (`aws-sdk-dynamodb`, `aws-sdk-sqs`, `aws-sdk-s3`) over the functions' one HTTPS client.
//!
//! What keeps starts fast: no `aws-config` (in Lambda the region and credentials are
//! environment variables, so the provider chain's profile files, SSO, STS and IMDS are neither
//! needed nor linked); the HTTPS client ([`AwsHttpClient`]) is the reqwest of every other
//! outbound call, over rustls with ring, trusting the Amazon roots compiled in instead of
//! reading the system certificate store; SQS and S3 clients are built on first use. The SDK
//! brings the rest: SigV4, its standard retry mode with a retry quota, clock-skew correction,
//! endpoint rules (partitions, FIPS, dual-stack), and the `X-Amzn-Trace-Id` header that links
//! X-Ray traces and lets Lambda see recursive loops.

mod error;
mod http;
mod lazy;
pub mod s3;
pub mod sqs;
mod transport;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_credential_types::provider::SharedCredentialsProvider;
use aws_smithy_async::rt::sleep::default_async_sleep;
use aws_smithy_async::time::SystemTimeSource;
use aws_smithy_runtime_api::client::behavior_version::BehaviorVersion;
use aws_smithy_runtime_api::client::stalled_stream_protection::StalledStreamProtectionConfig;
use aws_smithy_types::retry::RetryConfig;
use aws_smithy_types::timeout::TimeoutConfig;
use aws_types::region::Region;
use aws_types::sdk_config::SdkConfig;

use crate::config::Env;

pub use error::AwsError;
pub use http::{AwsHttpClient, AwsHttpError};
pub use lazy::LazyClient;
pub use s3::S3;
pub use sqs::Sqs;
pub use transport::{SharedTransport, Transport, TransportError, TransportFuture};

/// The app name in the User-Agent of every function's AWS call.
pub const APP_NAME: &str = "platform-function";

/// Wraps the transport of a function's AWS clients as they are built (the local stack
/// enforces IAM policies with it, the warm bench records calls).
pub type TransportHook = fn(&Env, SharedTransport) -> SharedTransport;

// Process-wide: the local stack runs all functions in one process and enforces their IAM policies.
static TRANSPORT_HOOK: OnceLock<TransportHook> = OnceLock::new();

/// Installs the hook every later `AwsClients::from_env` applies; the first one installed stays.
pub fn set_transport_hook(hook: TransportHook) -> bool {
    TRANSPORT_HOOK.set(hook).is_ok()
}

/// The clients a function may use, sharing one config: transport (connection pool),
/// credentials, retry quota. Building them does no I/O; a missing setting fails each call,
/// naming it.
#[derive(Clone, Debug)]
pub struct AwsClients {
    config: SdkConfig,
    /// What the clients send through (none when it could not be built).
    transport: Option<SharedTransport>,
    /// `AWS_ENDPOINT_URL_DYNAMODB`, else `AWS_ENDPOINT_URL`.
    dynamodb_endpoint: Option<String>,
    /// Service-specific endpoints (`AWS_ENDPOINT_URL_SQS`, `AWS_ENDPOINT_URL_S3`).
    sqs_endpoint: Option<String>,
    s3_endpoint: Option<String>,
    pub dynamodb: aws_sdk_dynamodb::Client,
    /// Handles made on request (so that a function that never asks links no client code),
    /// whose clients are built on their first call (most requests need neither).
    sqs: OnceLock<Sqs>,
    s3: OnceLock<S3>,
}

impl AwsClients {
    /// Region (`AWS_REGION`, `AWS_DEFAULT_REGION`), endpoints (`AWS_ENDPOINT_URL`, or per
    /// service `AWS_ENDPOINT_URL_DYNAMODB`, `_SQS`, `_S3`), FIPS and dual-stack
    /// (`AWS_USE_FIPS_ENDPOINT`, `AWS_USE_DUALSTACK_ENDPOINT`) and credentials
    /// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, which Lambda sets)
    /// come from `env`. Without credentials every call fails as unauthorised.
    ///
    /// In Lambda (`AWS_LAMBDA_RUNTIME_API` set) it also starts opening the connection to
    /// DynamoDB, which nearly every first request needs ([`Self::open_dynamodb_connection`]),
    /// beside the rest of init: the handshake overlaps the runtime's wait for the first event
    /// instead of adding to init or to the first answer.
    pub async fn from_env(env: &Env) -> Self {
        let clients = Self::from_env_with(env, |transport| match TRANSPORT_HOOK.get() {
            Some(hook) => hook(env, transport),
            None => transport,
        });
        if env.get("AWS_LAMBDA_RUNTIME_API").is_some() {
            let opening = clients.clone();
            tokio::spawn(async move { opening.open_dynamodb_connection().await });
        }
        clients
    }

    /// Opens the HTTPS connection to DynamoDB's endpoint now (an unsigned `GET /`, DynamoDB's
    /// health check), so that the first request finds it in the pool: during init the
    /// handshake runs before the first event arrives instead of inside its answer. Bounded to
    /// one second; a failure only means the first call connects itself.
    pub async fn open_dynamodb_connection(&self) {
        use aws_sdk_dynamodb::config::endpoint::{DefaultResolver, Params, ResolveEndpoint};
        let Some(transport) = &self.transport else {
            return;
        };
        let params = Params::builder()
            .set_region(self.config.region().map(|r| r.to_string()))
            .set_use_fips(self.config.use_fips())
            .set_use_dual_stack(self.config.use_dual_stack())
            .set_endpoint(self.dynamodb_endpoint.clone())
            .build();
        let Ok(params) = params else {
            return;
        };
        let Ok(endpoint) = DefaultResolver::new().resolve_endpoint(&params).await else {
            return;
        };
        let Ok(request) = ::http::Request::get(endpoint.url()).body(bytes::Bytes::new()) else {
            return;
        };
        let opened = tokio::time::timeout(Duration::from_secs(1), transport.send(request)).await;
        if !matches!(opened, Ok(Ok(_))) {
            tracing::debug!("the DynamoDB connection could not be opened ahead of the first call");
        }
    }

    /// [`Self::from_env`] with the transport wrapped by `wrap` instead of the installed hook
    /// (a bench counting calls, say).
    pub fn from_env_with(env: &Env, wrap: impl FnOnce(SharedTransport) -> SharedTransport) -> Self {
        let transport = match https_client(env) {
            Ok(client) => Some(wrap(Arc::new(client))),
            Err(e) => {
                // Every call then fails naming the missing client; the cause is in this line.
                tracing::error!(error = %e, "the AWS HTTP client could not be built");
                None
            }
        };
        // The functions' calls say so in their User-Agent (`app/platform-function`): the
        // emulator's request counts tell them from the stack's and the tests' own.
        let config = config_on(env, transport.clone(), Some(APP_NAME));
        let service_endpoint = |service: &str| {
            env.get(&format!("AWS_ENDPOINT_URL_{service}"))
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        let mut dynamodb = aws_sdk_dynamodb::config::Builder::from(&config);
        let dynamodb_endpoint = service_endpoint("DYNAMODB");
        if let Some(url) = &dynamodb_endpoint {
            dynamodb = dynamodb.endpoint_url(url);
        }
        Self {
            transport,
            dynamodb_endpoint: dynamodb_endpoint.or(config.endpoint_url().map(str::to_string)),
            dynamodb: aws_sdk_dynamodb::Client::from_conf(dynamodb.build()),
            sqs_endpoint: service_endpoint("SQS"),
            s3_endpoint: service_endpoint("S3"),
            config,
            sqs: OnceLock::new(),
            s3: OnceLock::new(),
        }
    }

    /// The config every client is built from.
    pub fn config(&self) -> &SdkConfig {
        &self.config
    }

    /// The SQS client (built on its first call).
    pub fn sqs(&self) -> Sqs {
        self.sqs
            .get_or_init(|| lazy_sqs(self.config.clone(), self.sqs_endpoint.clone()))
            .clone()
    }

    /// The S3 client (built on its first call); path-style when an endpoint is set (an
    /// emulator).
    pub fn s3(&self) -> S3 {
        self.s3
            .get_or_init(|| lazy_s3(self.config.clone(), self.s3_endpoint.clone()))
            .clone()
    }
}

/// An SQS client on `config`, built on its first call.
fn lazy_sqs(config: SdkConfig, endpoint: Option<String>) -> Sqs {
    Sqs::lazy(LazyClient::new(move || {
        let mut builder = aws_sdk_sqs::config::Builder::from(&config);
        if let Some(url) = &endpoint {
            builder = builder.endpoint_url(url);
        }
        aws_sdk_sqs::Client::from_conf(builder.build())
    }))
}

/// An S3 client on `config`, built on its first call.
fn lazy_s3(config: SdkConfig, s3_endpoint: Option<String>) -> S3 {
    let endpoint = s3_endpoint
        .clone()
        .or(config.endpoint_url().map(str::to_string));
    let path_style = endpoint.is_some();
    S3::lazy(
        LazyClient::new(move || {
            let mut builder = aws_sdk_s3::config::Builder::from(&config)
                .force_path_style(path_style)
                // Checksums only where S3 requires them: a presigned upload signs no
                // checksum the browser could not send.
                .request_checksum_calculation(
                    aws_sdk_s3::config::RequestChecksumCalculation::WhenRequired,
                )
                .response_checksum_validation(
                    aws_sdk_s3::config::ResponseChecksumValidation::WhenRequired,
                );
            if let Some(url) = &s3_endpoint {
                builder = builder.endpoint_url(url);
            }
            aws_sdk_s3::Client::from_conf(builder.build())
        }),
        endpoint,
    )
}

/// The config of [`AwsClients`] on the plain HTTPS client, without the transport hook: for
/// an independent SDK client (the tests' and the local stack's own calls).
pub fn sdk_config(env: &Env) -> SdkConfig {
    let transport = match https_client(env) {
        Ok(client) => Some(Arc::new(client) as SharedTransport),
        Err(e) => {
            tracing::error!(error = %e, "the AWS HTTP client could not be built");
            None
        }
    };
    config_on(env, transport, None)
}

/// The config of every client: what `aws_config::load()` would give a Lambda function, on
/// `transport` (none: every call fails naming the missing HTTP client).
fn config_on(
    env: &Env,
    transport: Option<SharedTransport>,
    app: Option<&'static str>,
) -> SdkConfig {
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
    if let Some(transport) = transport {
        builder = builder.http_client(transport::SdkTransport(transport));
    }
    builder.set_app_name(app.and_then(|name| aws_types::app_name::AppName::new(name).ok()));
    if let Some(region) = env
        .get("AWS_REGION")
        .or(env.get("AWS_DEFAULT_REGION"))
        .filter(|v| !v.is_empty())
    {
        builder = builder.region(Region::new(region.to_string()));
    }
    if let Some(url) = env.get("AWS_ENDPOINT_URL").filter(|v| !v.is_empty()) {
        builder = builder.endpoint_url(url);
    }
    let flag = |name: &str| env.get(name).map(|v| v.eq_ignore_ascii_case("true"));
    builder.set_use_fips(flag("AWS_USE_FIPS_ENDPOINT"));
    builder.set_use_dual_stack(flag("AWS_USE_DUALSTACK_ENDPOINT"));
    match credentials(env) {
        Some(credentials) => {
            builder = builder.credentials_provider(SharedCredentialsProvider::new(credentials));
        }
        None => tracing::warn!(
            "AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set: AWS calls will fail"
        ),
    }
    builder.build()
}

fn credentials(env: &Env) -> Option<aws_credential_types::Credentials> {
    let id = env.get("AWS_ACCESS_KEY_ID").filter(|v| !v.is_empty())?;
    let secret = env.get("AWS_SECRET_ACCESS_KEY").filter(|v| !v.is_empty())?;
    let token = env
        .get("AWS_SESSION_TOKEN")
        .filter(|v| !v.is_empty())
        .map(str::to_string);
    Some(aws_credential_types::Credentials::new(
        id,
        secret,
        token,
        None,
        "environment",
    ))
}

/// The AWS HTTPS client: rustls over ring trusting the Amazon roots, and the certificates of
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

    /// Answers every request with `body`, keeping what was sent.
    #[derive(Debug, Default)]
    struct Canned {
        sent: std::sync::Mutex<Vec<(String, String, Option<String>)>>,
    }

    impl Transport for Canned {
        fn send(&self, request: ::http::Request<bytes::Bytes>) -> TransportFuture {
            let header = |name: &str| {
                request
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            self.sent.lock().unwrap().push((
                request.uri().to_string(),
                header("x-amz-target").unwrap_or_default(),
                header("x-amzn-trace-id"),
            ));
            let mut response = ::http::Response::new(bytes::Bytes::from_static(
                br#"{"MessageId":"m-1","MD5OfMessageBody":"5d41402abc4b2a76b9719d911017c592"}"#,
            ));
            response.headers_mut().insert(
                "content-type",
                ::http::HeaderValue::from_static("application/x-amz-json-1.0"),
            );
            Box::pin(std::future::ready(Ok(response)))
        }
    }

    fn env() -> Env {
        Env::new()
            .with("AWS_REGION", "eu-west-1")
            .with("AWS_ACCESS_KEY_ID", "AKID")
            .with("AWS_SECRET_ACCESS_KEY", "secret")
    }

    #[tokio::test]
    async fn clients_send_through_the_wrapped_transport_to_the_environments_endpoints() {
        let canned = Arc::new(Canned::default());
        let shared: SharedTransport = canned.clone();
        let aws = AwsClients::from_env_with(&env(), |_| shared);
        let id = aws.sqs().send_message("https://queue", "hello").await;
        assert_eq!(id.ok().as_deref(), Some("m-1"));
        let local = env()
            .with("AWS_ENDPOINT_URL", "http://127.0.0.1:4566")
            .with("AWS_ENDPOINT_URL_SQS", "http://127.0.0.1:4577");
        let shared: SharedTransport = canned.clone();
        let aws = AwsClients::from_env_with(&local, |_| shared);
        let _ = aws.dynamodb.list_tables().send().await;
        let _ = aws.sqs().send_message("https://queue", "hello").await;
        let sent: Vec<(String, String)> = canned
            .sent
            .lock()
            .unwrap()
            .iter()
            .map(|(uri, target, _)| (uri.clone(), target.clone()))
            .collect();
        assert_eq!(
            sent,
            [
                (
                    "https://sqs.eu-west-1.amazonaws.com/".to_string(),
                    "AmazonSQS.SendMessage".to_string()
                ),
                (
                    "http://127.0.0.1:4566/".to_string(),
                    "DynamoDB_20120810.ListTables".to_string()
                ),
                (
                    "http://127.0.0.1:4577/".to_string(),
                    "AmazonSQS.SendMessage".to_string()
                ),
            ]
        );
    }

    #[tokio::test]
    async fn fips_and_dual_stack_endpoints_come_from_the_environment() {
        let canned = Arc::new(Canned::default());
        let shared: SharedTransport = canned.clone();
        let fips = env()
            .with("AWS_REGION", "us-east-1")
            .with("AWS_USE_FIPS_ENDPOINT", "true");
        let aws = AwsClients::from_env_with(&fips, |_| shared);
        let _ = aws.dynamodb.list_tables().send().await;
        let sent = canned.sent.lock().unwrap();
        assert_eq!(sent[0].0, "https://dynamodb-fips.us-east-1.amazonaws.com/");
    }

    #[tokio::test]
    async fn the_dynamodb_connection_is_opened_at_its_endpoint() {
        let canned = Arc::new(Canned::default());
        let shared: SharedTransport = canned.clone();
        let aws = AwsClients::from_env_with(&env(), |_| shared);
        aws.open_dynamodb_connection().await;
        let local = env().with("AWS_ENDPOINT_URL", "http://127.0.0.1:4566");
        let shared: SharedTransport = canned.clone();
        AwsClients::from_env_with(&local, |_| shared)
            .open_dynamodb_connection()
            .await;
        let sent: Vec<String> = canned
            .sent
            .lock()
            .unwrap()
            .iter()
            .map(|(uri, _, _)| uri.clone())
            .collect();
        assert_eq!(
            sent,
            [
                "https://dynamodb.eu-west-1.amazonaws.com/",
                "http://127.0.0.1:4566/"
            ]
        );
    }

    #[tokio::test]
    async fn a_missing_region_fails_each_call_naming_it() {
        let env = Env::new()
            .with("AWS_ACCESS_KEY_ID", "AKID")
            .with("AWS_SECRET_ACCESS_KEY", "secret");
        let canned = Arc::new(Canned::default());
        let shared: SharedTransport = canned.clone();
        let aws = AwsClients::from_env_with(&env, |_| shared);
        let error = aws
            .sqs()
            .send_message("https://queue", "hello")
            .await
            .expect_err("no region");
        assert!(
            error.to_string().to_lowercase().contains("region"),
            "{error}"
        );
        assert!(canned.sent.lock().unwrap().is_empty());
    }

    #[test]
    fn credentials_come_from_the_environment() {
        let env = env().with("AWS_SESSION_TOKEN", "token");
        let found = credentials(&env).expect("credentials");
        assert_eq!(found.access_key_id(), "AKID");
        assert_eq!(found.session_token(), Some("token"));
        assert!(credentials(&Env::new().with("AWS_ACCESS_KEY_ID", "AKID")).is_none());
    }
}
