//! The AWS JSON protocol (DynamoDB, SQS): one signed POST per call, `X-Amz-Target` naming the
//! operation, retried as the SDK's standard mode retries (3 attempts, exponential backoff
//! with full jitter) within the SDK's timeouts (5 s an attempt, 12 s the whole call).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rand::Rng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::sigv4::{self, Credentials, Scope};
use super::transport::{SharedTransport, TransportError};

/// The content type of both JSON-protocol services the functions call.
pub const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

/// One JSON-protocol service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Service {
    /// The SigV4 signing name and endpoint prefix (`dynamodb`).
    pub name: &'static str,
    /// What `X-Amz-Target` starts with (`DynamoDB_20120810`).
    pub target_prefix: &'static str,
}

pub const DYNAMODB: Service = Service {
    name: "dynamodb",
    target_prefix: "DynamoDB_20120810",
};

pub const SQS: Service = Service {
    name: "sqs",
    target_prefix: "AmazonSQS",
};

/// Attempts, backoff and timeouts of every call.
#[derive(Clone, Copy, Debug)]
pub struct RetryConfig {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The backoff ceiling before the second attempt; it doubles for each further one.
    pub base: Duration,
    /// The longest single backoff.
    pub max_backoff: Duration,
    /// How long one attempt (request and whole response) may take.
    pub attempt_timeout: Duration,
    /// How long the call, retries included, may take.
    pub operation_timeout: Duration,
}

impl RetryConfig {
    /// The SDK's standard mode with DynamoDB's base delay and the functions' timeouts.
    pub const STANDARD: Self = Self {
        attempts: 3,
        base: Duration::from_millis(25),
        max_backoff: Duration::from_secs(20),
        attempt_timeout: Duration::from_secs(5),
        operation_timeout: Duration::from_secs(12),
    };

    /// The wait before attempt `attempt + 1` (attempt counts from 1): a random wait up to
    /// the exponential ceiling ("full jitter").
    pub fn backoff(&self, attempt: u32) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16))
            .min(self.max_backoff);
        ceiling.mul_f64(rand::rng().random_range(0.0..=1.0))
    }
}

/// A failed call: the service's error, or no (usable) answer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum AwsError {
    /// The service answered with an error.
    #[error("{}", .0)]
    Service(ServiceError),
    /// No answer: timeouts, broken connections (after the retries).
    #[error("{0}")]
    Transport(#[from] TransportError),
    /// An answer that is not the operation's JSON (a proxy's page, say).
    #[error("unreadable response (HTTP {status}): {message}")]
    Response { status: u16, message: String },
    /// The call could not be made: no credentials, an invalid endpoint or request.
    #[error("{0}")]
    Config(String),
}

/// An error the service answered, as the JSON protocol carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceError {
    pub status: u16,
    /// The error's name (`ConditionalCheckFailedException`), without its namespace.
    pub code: String,
    pub message: String,
    /// A cancelled transaction's reasons, one per item in order (`None` when it did not fail).
    pub cancellation_reasons: Vec<CancellationReason>,
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (HTTP {}): {}", self.code, self.status, self.message)
    }
}

/// Why one item of a cancelled transaction failed.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CancellationReason {
    /// `ConditionalCheckFailed`, `TransactionConflict`, `None` (this item was fine), ...
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// Throttling and transient errors the SDK's standard mode retries.
const RETRIED_CODES: &[&str] = &[
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException",
    "RequestTimeout",
    "RequestTimeoutException",
    "InternalError",
    "InternalServerError",
    "ServiceUnavailable",
];

impl AwsError {
    /// The service's error name, when it answered one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::Service(e) => Some(&e.code),
            _ => None,
        }
    }

    /// The service's error, when it answered one.
    pub fn service_error(&self) -> Option<&ServiceError> {
        match self {
            Self::Service(e) => Some(e),
            _ => None,
        }
    }

    /// Worth another attempt: throttling, 5xx, timeouts, broken connections.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Service(e) => {
                matches!(e.status, 500 | 502 | 503 | 504)
                    || RETRIED_CODES.contains(&e.code.as_str())
            }
            Self::Transport(e) => e.is_transient(),
            Self::Response { status, .. } => *status >= 500,
            Self::Config(_) => false,
        }
    }

    /// The service could not be reached, or asked us to back off: a 503, not a 500.
    pub fn is_unavailable(&self) -> bool {
        match self {
            Self::Service(e) => e.status >= 500 || RETRIED_CODES.contains(&e.code.as_str()),
            Self::Transport(_) => true,
            // A 5xx page of a proxy, or a success whose body broke off; a 4xx is our fault.
            Self::Response { status, .. } => *status >= 500 || *status < 300,
            Self::Config(_) => false,
        }
    }
}

/// Where and as whom a service is called.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The URL requests are POSTed to (`https://dynamodb.eu-west-1.amazonaws.com/`).
    pub url: String,
    /// `host[:port]` as signed.
    pub host: String,
}

impl Endpoint {
    /// `override_url` (`AWS_ENDPOINT_URL`), else the service's regional endpoint. Only its
    /// scheme, host and port are used: the JSON protocols POST to `/`. (No FIPS or dual-stack
    /// variants: no function is configured for them.)
    pub fn new(service: Service, region: &str, override_url: Option<&str>) -> Result<Self, String> {
        let text = match override_url {
            Some(url) => url.to_string(),
            None => format!("https://{}.{region}.amazonaws.com", service.name),
        };
        let url = reqwest::Url::parse(&text).map_err(|e| format!("endpoint {text}: {e}"))?;
        let host = url
            .host_str()
            .ok_or_else(|| format!("endpoint {text} names no host"))?;
        let host = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        Ok(Self {
            url: format!("{}://{host}/", url.scheme()),
            host,
        })
    }
}

/// A client of one JSON-protocol service. Cheap to clone.
#[derive(Clone, Debug)]
pub struct JsonClient {
    inner: Arc<Inner>,
}

#[derive(Clone, Debug)]
struct Inner {
    service: Service,
    region: String,
    endpoint: Result<Endpoint, String>,
    credentials: Option<Credentials>,
    transport: Result<SharedTransport, String>,
    retry: RetryConfig,
}

impl JsonClient {
    /// A client of `service`. A missing endpoint, credentials or transport fails each call
    /// (naming what is missing) rather than the cold start.
    pub fn new(
        service: Service,
        region: impl Into<String>,
        endpoint: Result<Endpoint, String>,
        credentials: Option<Credentials>,
        transport: Result<SharedTransport, String>,
        retry: RetryConfig,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                service,
                region: region.into(),
                endpoint,
                credentials,
                transport,
                retry,
            }),
        }
    }

    /// A client whose every call fails (no endpoint, credentials or transport): for tests of
    /// what is built before a call.
    pub fn disconnected(service: Service) -> Self {
        let missing = || "a disconnected client".to_string();
        Self::new(
            service,
            "",
            Err(missing()),
            None,
            Err(missing()),
            RetryConfig::STANDARD,
        )
    }

    pub fn service(&self) -> Service {
        self.inner.service
    }

    /// The same client with other retries and timeouts (a benchmark's long reads).
    pub fn with_retry(&self, retry: RetryConfig) -> Self {
        let mut inner = (*self.inner).clone();
        inner.retry = retry;
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Calls `operation` with `input` and reads its output.
    pub async fn call<I: Serialize, O: DeserializeOwned>(
        &self,
        operation: &str,
        input: &I,
    ) -> Result<O, AwsError> {
        let body = serde_json::to_vec(input)
            .map_err(|e| AwsError::Config(format!("{operation} request: {e}")))?;
        let (status, bytes) = self.call_raw(operation, Bytes::from(body)).await?;
        serde_json::from_slice(&bytes).map_err(|e| AwsError::Response {
            status,
            message: format!("{operation} response: {e}"),
        })
    }

    /// Calls `operation` with a JSON body; the successful response's status and body.
    pub async fn call_raw(&self, operation: &str, body: Bytes) -> Result<(u16, Bytes), AwsError> {
        retrying(self.inner.retry, operation, || {
            self.attempt(operation, body.clone())
        })
        .await
    }

    async fn attempt(&self, operation: &str, body: Bytes) -> Result<(u16, Bytes), AwsError> {
        let inner = &self.inner;
        let endpoint = inner
            .endpoint
            .as_ref()
            .map_err(|e| AwsError::Config(e.clone()))?;
        let transport = inner
            .transport
            .as_ref()
            .map_err(|e| AwsError::Config(e.clone()))?;
        let credentials = inner.credentials.as_ref().ok_or_else(|| {
            AwsError::Config(
                "no credentials: AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set".into(),
            )
        })?;
        let scope = Scope {
            region: &inner.region,
            service: inner.service.name,
            time: chrono::Utc::now(),
        };
        let target = format!("{}.{operation}", inner.service.target_prefix);
        let headers = sigv4::sign_json_post(
            credentials,
            &scope,
            &endpoint.host,
            &target,
            CONTENT_TYPE,
            &body,
        );
        let mut builder = http::Request::builder().method("POST").uri(&endpoint.url);
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        let request = builder
            .body(body)
            .map_err(|e| AwsError::Config(format!("{operation} request: {e}")))?;
        let response = transport.send(request).await?;
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok((status, response.into_body()));
        }
        Err(service_error(status, response.headers(), response.body()))
    }
}

/// Runs `attempt` under `retry`: each attempt within its timeout, retryable failures
/// (throttling, 5xx, timeouts, broken connections) tried again after a jittered backoff, the
/// whole call within the operation's timeout. Shared by every protocol's client.
pub(crate) async fn retrying<T, F, Fut>(
    retry: RetryConfig,
    operation: &str,
    mut attempt: F,
) -> Result<T, AwsError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, AwsError>>,
{
    let attempts = async {
        let mut number = 1;
        loop {
            let outcome = match tokio::time::timeout(retry.attempt_timeout, attempt()).await {
                Ok(outcome) => outcome,
                Err(_) => Err(AwsError::Transport(TransportError::Timeout(format!(
                    "{operation} attempt took longer than {:?}",
                    retry.attempt_timeout
                )))),
            };
            match outcome {
                Err(e) if e.is_retryable() && number < retry.attempts => {
                    tracing::debug!(operation, attempt = number, error = %e, "AWS call retried");
                    tokio::time::sleep(retry.backoff(number)).await;
                    number += 1;
                }
                other => return other,
            }
        }
    };
    match tokio::time::timeout(retry.operation_timeout, attempts).await {
        Ok(result) => result,
        Err(_) => Err(AwsError::Transport(TransportError::Timeout(format!(
            "{operation} took longer than {:?}",
            retry.operation_timeout
        )))),
    }
}

/// The error of a non-2xx answer: `__type` (after its namespace's `#`) and `message` (or
/// `Message`) of the body, else the `x-amzn-errortype` header.
pub fn service_error(status: u16, headers: &http::HeaderMap, body: &[u8]) -> AwsError {
    #[derive(Deserialize)]
    struct Body {
        #[serde(rename = "__type", default)]
        kind: Option<String>,
        #[serde(alias = "Message", default)]
        message: Option<String>,
        #[serde(rename = "CancellationReasons", default)]
        cancellation_reasons: Vec<CancellationReason>,
    }
    let parsed: Option<Body> = serde_json::from_slice(body).ok();
    let header = headers
        .get("x-amzn-errortype")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let Some((kind, message, reasons)) =
        parsed.map(|b| (b.kind.or(header.clone()), b.message, b.cancellation_reasons))
    else {
        return match header {
            Some(kind) => AwsError::Service(ServiceError {
                status,
                code: error_code(&kind),
                message: String::from_utf8_lossy(body).into_owned(),
                cancellation_reasons: Vec::new(),
            }),
            None => AwsError::Response {
                status,
                message: String::from_utf8_lossy(body).chars().take(200).collect(),
            },
        };
    };
    AwsError::Service(ServiceError {
        status,
        code: kind
            .as_deref()
            .map(error_code)
            .unwrap_or_else(|| format!("HTTP{status}")),
        message: message.unwrap_or_default(),
        cancellation_reasons: reasons,
    })
}

/// `com.amazonaws.dynamodb.v20120810#ResourceNotFoundException` → the name after `#`; the
/// header form `Name:http://...` → the name before `:`.
fn error_code(kind: &str) -> String {
    let name = kind.rsplit_once('#').map_or(kind, |(_, name)| name);
    name.split(':').next().unwrap_or(name).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_errors_name_their_code_message_and_reasons() {
        let body = br#"{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
            "Message":"Transaction cancelled",
            "CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"}]}"#;
        let error = service_error(400, &http::HeaderMap::new(), body);
        let service = error.service_error().expect("a service error");
        assert_eq!(service.code, "TransactionCanceledException");
        assert_eq!(service.message, "Transaction cancelled");
        let codes: Vec<_> = service
            .cancellation_reasons
            .iter()
            .map(|r| r.code.as_deref())
            .collect();
        assert_eq!(codes, [Some("None"), Some("ConditionalCheckFailed")]);
        assert!(!error.is_retryable() && !error.is_unavailable());

        let throttled = service_error(
            400,
            &http::HeaderMap::new(),
            br#"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}"#,
        );
        assert_eq!(
            throttled.code(),
            Some("ProvisionedThroughputExceededException")
        );
        assert!(throttled.is_retryable() && throttled.is_unavailable());

        let mut headers = http::HeaderMap::new();
        headers.insert(
            "x-amzn-errortype",
            http::HeaderValue::from_static("AccessDeniedException:http://internal.amazon.com/"),
        );
        let denied = service_error(400, &headers, b"not json");
        assert_eq!(denied.code(), Some("AccessDeniedException"));

        let proxy = service_error(502, &http::HeaderMap::new(), b"<html>bad gateway</html>");
        assert!(matches!(proxy, AwsError::Response { status: 502, .. }));
        assert!(proxy.is_retryable() && proxy.is_unavailable());
    }

    #[test]
    fn endpoints_come_from_the_override_or_the_region() {
        let local = Endpoint::new(DYNAMODB, "us-east-1", Some("http://127.0.0.1:4566"))
            .expect("an endpoint");
        assert_eq!(local.url, "http://127.0.0.1:4566/");
        assert_eq!(local.host, "127.0.0.1:4566");
        let aws = Endpoint::new(SQS, "eu-west-1", None).expect("an endpoint");
        assert_eq!(aws.url, "https://sqs.eu-west-1.amazonaws.com/");
        assert_eq!(aws.host, "sqs.eu-west-1.amazonaws.com");
        assert!(Endpoint::new(SQS, "eu-west-1", Some("not a url")).is_err());
    }

    /// A loopback endpoint answering the `n`th request with `answers[n]` (the last one
    /// again when they run out; `None`: never answer), one request per connection. It
    /// records each request's head.
    struct Loopback {
        url: String,
        requests: Arc<std::sync::Mutex<Vec<String>>>,
    }

    async fn loopback(answers: Vec<Option<(u16, &'static str)>>) -> Loopback {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut buf = Vec::new();
                let head = loop {
                    let mut chunk = [0u8; 4096];
                    let n = socket.read(&mut chunk).await.unwrap();
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf).to_string();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let length = head
                            .lines()
                            .find_map(|l| {
                                let (k, v) = l.split_once(':')?;
                                k.eq_ignore_ascii_case("content-length")
                                    .then(|| v.trim().parse::<usize>().unwrap())
                            })
                            .unwrap_or(0);
                        if body.len() >= length {
                            break head.to_string();
                        }
                    }
                    assert!(n > 0, "the client closed mid-request");
                };
                let index = {
                    let mut seen = seen.lock().unwrap();
                    seen.push(head);
                    seen.len() - 1
                };
                match answers.get(index).or(answers.last()).copied().flatten() {
                    Some((status, body)) => {
                        let response = format!(
                            "HTTP/1.1 {status} X\r\ncontent-type: application/x-amz-json-1.0\r\n\
                             content-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        );
                        socket.write_all(response.as_bytes()).await.unwrap();
                    }
                    // Hold the connection open and never answer.
                    None => held.push(socket),
                }
            }
        });
        Loopback { url, requests }
    }

    fn client(url: &str, retry: RetryConfig) -> JsonClient {
        let transport: SharedTransport =
            Arc::new(crate::aws::AwsHttpClient::new(None).expect("client"));
        JsonClient::new(
            DYNAMODB,
            "us-east-1",
            Endpoint::new(DYNAMODB, "us-east-1", Some(url)),
            Some(Credentials {
                access_key_id: "AKID".into(),
                secret_access_key: "secret".into(),
                session_token: Some("token".into()),
            }),
            Ok(transport),
            retry,
        )
    }

    const FAST: RetryConfig = RetryConfig {
        attempts: 3,
        base: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        attempt_timeout: Duration::from_millis(300),
        operation_timeout: Duration::from_secs(5),
    };

    #[tokio::test]
    async fn a_server_error_is_retried_and_the_request_is_signed() {
        let server = loopback(vec![
            Some((500, r#"{"__type":"InternalServerError","message":"oops"}"#)),
            Some((200, r#"{"Item":{"pk":{"S":"a"}}}"#)),
        ])
        .await;
        let out: serde_json::Value = client(&server.url, FAST)
            .call("GetItem", &serde_json::json!({"TableName": "t"}))
            .await
            .expect("the second attempt succeeds");
        assert_eq!(out["Item"]["pk"]["S"], "a");
        let requests = server.requests.lock().unwrap().clone();
        assert_eq!(requests.len(), 2);
        let head = requests[0].to_ascii_lowercase();
        assert!(head.starts_with("post / http/1.1"), "{head}");
        assert!(
            head.contains("x-amz-target: dynamodb_20120810.getitem"),
            "{head}"
        );
        assert!(
            head.contains("content-type: application/x-amz-json-1.0"),
            "{head}"
        );
        assert!(head.contains("x-amz-security-token: token"), "{head}");
        assert!(
            head.contains("authorization: aws4-hmac-sha256 credential=akid/")
                && head.contains("/us-east-1/dynamodb/aws4_request, signedheaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, signature="),
            "{head}"
        );
    }

    #[tokio::test]
    async fn throttling_is_retried_three_times_then_reported_as_unavailable() {
        let server = loopback(vec![Some((
            400,
            r#"{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"slow"}"#,
        ))])
        .await;
        let error = client(&server.url, FAST)
            .call::<_, serde_json::Value>("GetItem", &serde_json::json!({}))
            .await
            .expect_err("throttled throughout");
        assert_eq!(error.code(), Some("ThrottlingException"));
        assert!(error.is_unavailable());
        assert_eq!(server.requests.lock().unwrap().len(), 3);
    }

    #[tokio::test]
    async fn a_failed_condition_is_not_retried() {
        let server = loopback(vec![Some((
            400,
            r#"{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed"}"#,
        ))])
        .await;
        let error = client(&server.url, FAST)
            .call::<_, serde_json::Value>("PutItem", &serde_json::json!({}))
            .await
            .expect_err("condition failed");
        assert_eq!(error.code(), Some("ConditionalCheckFailedException"));
        assert!(!error.is_unavailable());
        assert_eq!(server.requests.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_silent_server_times_each_attempt_out() {
        let server = loopback(vec![None]).await;
        let started = std::time::Instant::now();
        let error = client(&server.url, FAST)
            .call::<_, serde_json::Value>("GetItem", &serde_json::json!({}))
            .await
            .expect_err("no answer");
        assert!(
            matches!(error, AwsError::Transport(TransportError::Timeout(_))),
            "{error:?}"
        );
        assert!(error.is_unavailable());
        assert_eq!(server.requests.lock().unwrap().len(), 3);
        assert!(started.elapsed() < Duration::from_secs(3));

        // The operation's own limit ends the retries too.
        let impatient = RetryConfig {
            operation_timeout: Duration::from_millis(400),
            ..FAST
        };
        let error = client(&server.url, impatient)
            .call::<_, serde_json::Value>("GetItem", &serde_json::json!({}))
            .await
            .expect_err("no answer");
        assert!(
            error.to_string().contains("took longer than 400ms"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn missing_credentials_fail_the_call_not_the_build() {
        let server = loopback(vec![Some((200, "{}"))]).await;
        let mut client = client(&server.url, FAST);
        client = JsonClient::new(
            DYNAMODB,
            "us-east-1",
            Endpoint::new(DYNAMODB, "us-east-1", Some(&server.url)),
            None,
            client.inner.transport.clone(),
            FAST,
        );
        let error = client
            .call::<_, serde_json::Value>("GetItem", &serde_json::json!({}))
            .await
            .expect_err("unsigned");
        assert!(error.to_string().contains("AWS_ACCESS_KEY_ID"), "{error}");
        assert!(server.requests.lock().unwrap().is_empty());
    }

    #[test]
    fn backoff_is_jittered_below_a_doubling_ceiling() {
        let retry = RetryConfig::STANDARD;
        assert!((0..100).all(|_| retry.backoff(1) <= Duration::from_millis(25)));
        assert!((0..100).all(|_| retry.backoff(2) <= Duration::from_millis(50)));
        assert!(retry.backoff(40) <= retry.max_backoff);
    }
}
