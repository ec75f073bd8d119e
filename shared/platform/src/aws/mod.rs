//! AWS clients, built once per cold start from a function's environment.
//!
//! Not the AWS SDK: the functions call two JSON-protocol services (DynamoDB, SQS), which a
//! signed POST ([`sigv4`], [`json`]) covers for a fraction of the SDK's size and per-call
//! CPU, and S3's PutObject, one signed PUT ([`s3`]). In Lambda the region and credentials are environment variables, so no provider chain
//! (profile files, SSO, STS, IMDS) is needed either. The HTTPS client ([`AwsHttpClient`])
//! trusts the Amazon root CAs compiled in instead of reading the system certificate store
//! (~150 files, most of a cold start's CPU before this), over rustls with ring.

mod http;
pub mod json;
pub mod s3;
#[cfg(feature = "sdk-http")]
mod sdk_http;
pub mod sigv4;
pub mod sqs;
mod transport;

use std::sync::{Arc, OnceLock};

use crate::config::Env;

pub use http::{AwsHttpClient, AwsHttpError};
pub use json::{AwsError, JsonClient, ServiceError};
pub use s3::S3;
#[cfg(feature = "sdk-http")]
pub use sdk_http::sdk_config;
pub use sigv4::Credentials;
pub use sqs::Sqs;
pub use transport::{SharedTransport, Transport, TransportError, TransportFuture};

/// Wraps the transport of a function's AWS clients as they are built (the local stack
/// enforces IAM policies with it, the warm bench records calls).
pub type TransportHook = fn(&Env, SharedTransport) -> SharedTransport;

// Process-wide: the local stack runs all functions in one process and enforces their IAM policies.
static TRANSPORT_HOOK: OnceLock<TransportHook> = OnceLock::new();

/// Installs the hook every later `AwsClients::from_env` applies; the first one installed stays.
pub fn set_transport_hook(hook: TransportHook) -> bool {
    TRANSPORT_HOOK.set(hook).is_ok()
}

/// The clients a function may use, sharing one transport (connection pool) and credentials.
/// Building them does no I/O; a missing setting fails each call, naming it.
#[derive(Clone, Debug)]
pub struct AwsClients {
    pub dynamodb: JsonClient,
    sqs: JsonClient,
    s3: S3,
}

impl AwsClients {
    /// Region (`AWS_REGION`, `AWS_DEFAULT_REGION`), endpoint (`AWS_ENDPOINT_URL`) and
    /// credentials (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, which
    /// Lambda sets) come from `env`. Without credentials every call fails as unauthorised.
    pub async fn from_env(env: &Env) -> Self {
        Self::from_env_with(env, |transport| match TRANSPORT_HOOK.get() {
            Some(hook) => hook(env, transport),
            None => transport,
        })
    }

    /// [`Self::from_env`] with the transport wrapped by `wrap` instead of the installed hook
    /// (a bench counting calls, say).
    pub fn from_env_with(env: &Env, wrap: impl FnOnce(SharedTransport) -> SharedTransport) -> Self {
        let region = env
            .get("AWS_REGION")
            .or(env.get("AWS_DEFAULT_REGION"))
            .filter(|v| !v.is_empty());
        let credentials = credentials(env);
        if credentials.is_none() {
            tracing::warn!(
                "AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set: AWS calls will fail"
            );
        }
        let transport: Result<SharedTransport, String> = match https_client(env) {
            Ok(client) => Ok(wrap(Arc::new(client))),
            Err(e) => {
                // Every call then fails naming the missing client; the cause is in this line.
                tracing::error!(error = %e, "the AWS HTTP client could not be built");
                Err(format!("no AWS HTTP client: {e}"))
            }
        };
        let endpoint_url = env.get("AWS_ENDPOINT_URL").filter(|v| !v.is_empty());
        let client = |service: json::Service| {
            let endpoint = match region {
                Some(region) => json::Endpoint::new(service, region, endpoint_url),
                None => Err("AWS_REGION is not set".to_string()),
            };
            JsonClient::new(
                service,
                region.unwrap_or_default(),
                endpoint,
                credentials.clone(),
                transport.clone(),
                json::RetryConfig::STANDARD,
            )
        };
        let s3 = S3::new(
            region.unwrap_or_default(),
            endpoint_url,
            credentials.clone(),
            transport.clone(),
            s3::PUT_RETRY,
        );
        Self {
            dynamodb: client(json::DYNAMODB),
            sqs: client(json::SQS),
            s3,
        }
    }

    /// The SQS client.
    pub fn sqs(&self) -> Sqs {
        Sqs::new(self.sqs.clone())
    }

    /// The S3 client (path-style when `AWS_ENDPOINT_URL` is set).
    pub fn s3(&self) -> S3 {
        self.s3.clone()
    }
}

fn credentials(env: &Env) -> Option<Credentials> {
    let id = env.get("AWS_ACCESS_KEY_ID").filter(|v| !v.is_empty())?;
    let secret = env.get("AWS_SECRET_ACCESS_KEY").filter(|v| !v.is_empty())?;
    let token = env
        .get("AWS_SESSION_TOKEN")
        .filter(|v| !v.is_empty())
        .map(str::to_string);
    Some(Credentials {
        access_key_id: id.to_string(),
        secret_access_key: secret.to_string(),
        session_token: token,
    })
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
        sent: std::sync::Mutex<Vec<(String, String)>>,
    }

    impl Transport for Canned {
        fn send(&self, request: ::http::Request<bytes::Bytes>) -> TransportFuture {
            let target = request
                .headers()
                .get("x-amz-target")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            self.sent
                .lock()
                .unwrap()
                .push((request.uri().to_string(), target));
            Box::pin(std::future::ready(Ok(::http::Response::new(
                bytes::Bytes::from_static(br#"{"MessageId":"m-1"}"#),
            ))))
        }
    }

    #[tokio::test]
    async fn clients_send_through_the_wrapped_transport_to_the_environments_endpoint() {
        let env = Env::new()
            .with("AWS_REGION", "eu-west-1")
            .with("AWS_ACCESS_KEY_ID", "AKID")
            .with("AWS_SECRET_ACCESS_KEY", "secret");
        let canned = Arc::new(Canned::default());
        let shared: SharedTransport = canned.clone();
        let aws = AwsClients::from_env_with(&env, |_| shared);
        let id = aws.sqs().send_message("https://queue", "hello").await;
        assert_eq!(id.ok().as_deref(), Some("m-1"));
        let local = env
            .clone()
            .with("AWS_ENDPOINT_URL", "http://127.0.0.1:4566");
        let shared: SharedTransport = canned.clone();
        let aws = AwsClients::from_env_with(&local, |_| shared);
        let _ = aws
            .dynamodb
            .call::<_, serde_json::Value>("GetItem", &serde_json::json!({}))
            .await;
        assert_eq!(
            *canned.sent.lock().unwrap(),
            [
                (
                    "https://sqs.eu-west-1.amazonaws.com/".to_string(),
                    "AmazonSQS.SendMessage".to_string()
                ),
                (
                    "http://127.0.0.1:4566/".to_string(),
                    "DynamoDB_20120810.GetItem".to_string()
                ),
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
        assert!(error.to_string().contains("AWS_REGION"), "{error}");
        assert!(canned.sent.lock().unwrap().is_empty());
    }

    #[test]
    fn credentials_come_from_the_environment() {
        let env = Env::new()
            .with("AWS_ACCESS_KEY_ID", "AKID")
            .with("AWS_SECRET_ACCESS_KEY", "secret")
            .with("AWS_SESSION_TOKEN", "token");
        let found = credentials(&env).expect("credentials");
        assert_eq!(found.access_key_id, "AKID");
        assert_eq!(found.session_token.as_deref(), Some("token"));
        assert!(credentials(&Env::new().with("AWS_ACCESS_KEY_ID", "AKID")).is_none());
    }
}
