//! S3's REST protocol, the one call a function makes: PutObject of a whole body (no multipart
//! upload: the platform's objects are at most a few MiB). Path-style (`PUT /{bucket}/{key}`)
//! against `AWS_ENDPOINT_URL` (the emulator), virtual-hosted
//! (`https://{bucket}.s3.{region}.amazonaws.com/{key}`) against AWS. Signed with SigV4 over
//! the payload's SHA-256 (`x-amz-content-sha256`), retried as [`super::json`] retries.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::json::{retrying, AwsError, RetryConfig, ServiceError};
use super::sigv4::{self, Credentials, Scope};
use super::transport::SharedTransport;

/// The signing name of S3.
pub const SERVICE: &str = "s3";

/// Attempts and timeouts of a PutObject: the SDK's standard mode, with room for a body of a
/// few MiB in one attempt, the whole call well inside a function's 15 s.
pub const PUT_RETRY: RetryConfig = RetryConfig {
    attempts: 3,
    base: Duration::from_millis(50),
    max_backoff: Duration::from_secs(20),
    attempt_timeout: Duration::from_secs(5),
    operation_timeout: Duration::from_secs(12),
};

/// Where objects are addressed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Addressing {
    /// `{scheme}://{host}/{bucket}/{key}`: an endpoint override (the emulator).
    Path { scheme: String, host: String },
    /// `https://{bucket}.s3.{region}.amazonaws.com/{key}`.
    VirtualHosted,
}

/// The S3 client. Cheap to clone.
#[derive(Clone, Debug)]
pub struct S3 {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    region: String,
    addressing: Result<Addressing, String>,
    credentials: Option<Credentials>,
    transport: Result<SharedTransport, String>,
    retry: RetryConfig,
}

/// One object to store.
#[derive(Clone, Debug)]
pub struct PutObject<'a> {
    pub bucket: &'a str,
    /// The object key, as stored (`images/1f0c....png`).
    pub key: &'a str,
    pub body: Bytes,
    pub content_type: &'a str,
    /// Sent and kept as the object's `Cache-Control`, when given.
    pub cache_control: Option<&'a str>,
}

/// A request ready to send: its URL and headers, `authorization` last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedPut {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
}

impl S3 {
    /// A client of `region`, path-style against `endpoint_override` (`AWS_ENDPOINT_URL`) when
    /// given. A missing region, endpoint, credentials or transport fails each call, naming it.
    pub fn new(
        region: impl Into<String>,
        endpoint_override: Option<&str>,
        credentials: Option<Credentials>,
        transport: Result<SharedTransport, String>,
        retry: RetryConfig,
    ) -> Self {
        let region = region.into();
        let addressing = match endpoint_override {
            Some(url) => path_style(url),
            None if region.is_empty() => Err("AWS_REGION is not set".to_string()),
            None => Ok(Addressing::VirtualHosted),
        };
        Self {
            inner: Arc::new(Inner {
                region,
                addressing,
                credentials,
                transport,
                retry,
            }),
        }
    }

    /// The URL of `key` in `bucket`: where PutObject sends it and, when the bucket lets
    /// anyone read it, where it is served.
    pub fn object_url(&self, bucket: &str, key: &str) -> Result<String, AwsError> {
        let (url, _) = self.locate(bucket, key)?;
        Ok(url)
    }

    /// `(url, host)` of an object.
    fn locate(&self, bucket: &str, key: &str) -> Result<(String, String), AwsError> {
        if !valid_bucket(bucket) {
            return Err(AwsError::Config(format!(
                "{bucket:?} is not a bucket name this client addresses"
            )));
        }
        if key.is_empty() {
            return Err(AwsError::Config("an object key is required".into()));
        }
        let path = encode_key(key);
        match self
            .inner
            .addressing
            .as_ref()
            .map_err(|e| AwsError::Config(e.clone()))?
        {
            Addressing::Path { scheme, host } => {
                Ok((format!("{scheme}://{host}/{bucket}/{path}"), host.clone()))
            }
            Addressing::VirtualHosted => {
                let host = format!("{bucket}.s3.{}.amazonaws.com", self.inner.region);
                Ok((format!("https://{host}/{path}"), host))
            }
        }
    }

    /// The signed request of `object` at `time`: what [`Self::put_object`] sends.
    pub fn sign_put(
        &self,
        object: &PutObject<'_>,
        time: chrono::DateTime<chrono::Utc>,
    ) -> Result<SignedPut, AwsError> {
        let (url, host) = self.locate(object.bucket, object.key)?;
        let credentials = self.inner.credentials.as_ref().ok_or_else(|| {
            AwsError::Config(
                "no credentials: AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set".into(),
            )
        })?;
        let scope = Scope {
            region: &self.inner.region,
            service: SERVICE,
            time,
        };
        // The canonical URI is the request's path as sent: S3 encodes it once, not twice.
        let path = url
            .find("://")
            .and_then(|scheme_end| {
                let rest = url.get(scheme_end + 3..)?;
                rest.find('/').and_then(|i| rest.get(i..))
            })
            .unwrap_or("/")
            .to_string();
        let mut headers: Vec<(&'static str, String)> = Vec::new();
        if let Some(cache_control) = object.cache_control {
            headers.push(("cache-control", cache_control.to_string()));
        }
        headers.push(("content-type", object.content_type.to_string()));
        headers.push(("host", host));
        headers.push(("x-amz-content-sha256", sigv4::sha256_hex(&object.body)));
        headers.push(("x-amz-date", scope.amz_date()));
        if let Some(token) = &credentials.session_token {
            headers.push(("x-amz-security-token", token.clone()));
        }
        let payload_hash = headers
            .iter()
            .find(|(name, _)| *name == "x-amz-content-sha256")
            .map(|(_, value)| value.clone())
            .unwrap_or_default();
        let signed: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let authorization = sigv4::authorization(
            credentials,
            &scope,
            "PUT",
            &path,
            "",
            &signed,
            &payload_hash,
        );
        headers.push(("authorization", authorization));
        Ok(SignedPut { url, headers })
    }

    /// Stores `object` (replacing any object of that key).
    pub async fn put_object(&self, object: PutObject<'_>) -> Result<(), AwsError> {
        retrying(self.inner.retry, "PutObject", || self.attempt(&object)).await
    }

    async fn attempt(&self, object: &PutObject<'_>) -> Result<(), AwsError> {
        let transport = self
            .inner
            .transport
            .as_ref()
            .map_err(|e| AwsError::Config(e.clone()))?;
        // Signed per attempt: a retry after a backoff carries a fresh date.
        let signed = self.sign_put(object, chrono::Utc::now())?;
        let mut builder = http::Request::builder().method("PUT").uri(&signed.url);
        for (name, value) in signed.headers {
            builder = builder.header(name, value);
        }
        let request = builder
            .body(object.body.clone())
            .map_err(|e| AwsError::Config(format!("PutObject request: {e}")))?;
        let response = transport.send(request).await?;
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(());
        }
        Err(xml_error(status, response.body()))
    }
}

/// `{scheme, host[:port]}` of an endpoint override.
fn path_style(url: &str) -> Result<Addressing, String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("endpoint {url}: {e}"))?;
    let host = parsed
        .host_str()
        .ok_or_else(|| format!("endpoint {url} names no host"))?;
    let host = match parsed.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    };
    Ok(Addressing::Path {
        scheme: parsed.scheme().to_string(),
        host,
    })
}

/// A bucket name as S3 allows it and a virtual-hosted HTTPS name can carry (no dots: they
/// would not match the `*.s3.{region}.amazonaws.com` certificate).
fn valid_bucket(name: &str) -> bool {
    (3..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

/// A key as a URI path: every byte but the unreserved ones and `/` percent-encoded, as S3's
/// canonical URI wants it.
fn encode_key(key: &str) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// S3's error: `<Error><Code>...</Code><Message>...</Message></Error>`, or the status alone
/// (a HEAD-like empty body, a proxy's page).
fn xml_error(status: u16, body: &[u8]) -> AwsError {
    let text = String::from_utf8_lossy(body);
    let element = |name: &str| {
        let open = format!("<{name}>");
        let close = format!("</{name}>");
        let start = text.find(&open)? + open.len();
        let end = text.get(start..)?.find(&close)? + start;
        text.get(start..end).map(str::to_string)
    };
    match element("Code") {
        Some(code) => AwsError::Service(ServiceError {
            status,
            code,
            message: element("Message").unwrap_or_default(),
            cancellation_reasons: Vec::new(),
        }),
        None => AwsError::Response {
            status,
            message: text.chars().take(200).collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(token: Option<&str>) -> Credentials {
        Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: token.map(str::to_string),
        }
    }

    fn client(endpoint: Option<&str>, token: Option<&str>) -> S3 {
        S3::new(
            "eu-west-1",
            endpoint,
            Some(credentials(token)),
            Err("no transport in this test".into()),
            PUT_RETRY,
        )
    }

    #[test]
    fn objects_are_path_style_on_an_endpoint_and_virtual_hosted_on_aws() {
        let local = client(Some("http://127.0.0.1:4566"), None);
        assert_eq!(
            local.object_url("local-uploads", "images/a b.png").unwrap(),
            "http://127.0.0.1:4566/local-uploads/images/a%20b.png"
        );
        let aws = client(None, None);
        assert_eq!(
            aws.object_url("stack-uploadsbucket-1x2y", "images/k.webp")
                .unwrap(),
            "https://stack-uploadsbucket-1x2y.s3.eu-west-1.amazonaws.com/images/k.webp"
        );
        assert!(aws.object_url("Not_A_Bucket", "k").is_err());
        assert!(aws.object_url("with.dots", "k").is_err());
        assert!(aws.object_url("bucket", "").is_err());
        let no_region = S3::new("", None, None, Err("none".into()), PUT_RETRY);
        let error = no_region.object_url("bucket", "k").unwrap_err();
        assert!(error.to_string().contains("AWS_REGION"), "{error}");
    }

    #[test]
    fn s3_errors_name_their_code() {
        let body = b"<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code>\
            <Message>The specified bucket does not exist</Message></Error>";
        let error = xml_error(404, body);
        assert_eq!(error.code(), Some("NoSuchBucket"));
        assert!(!error.is_retryable());
        let slow = xml_error(503, b"<Error><Code>SlowDown</Code></Error>");
        assert!(slow.is_retryable() && slow.is_unavailable());
        let denied = xml_error(403, b"<Error><Code>AccessDenied</Code></Error>");
        assert_eq!(denied.code(), Some("AccessDenied"));
        assert!(!denied.is_retryable());
        assert!(matches!(
            xml_error(502, b"<html>bad gateway</html>"),
            AwsError::Response { status: 502, .. }
        ));
    }

    /// The SDK's signer (`aws-sigv4`, with S3's settings) signs the same PutObject to the same
    /// `Authorization`, path-style and virtual-hosted, with and without a session token.
    #[test]
    fn puts_are_signed_as_the_sdk_signs_them() {
        use aws_sigv4::http_request::{
            sign, PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest,
            SigningSettings, UriPathNormalizationMode,
        };
        use chrono::TimeZone;

        let time = chrono::Utc
            .with_ymd_and_hms(2015, 8, 30, 12, 36, 0)
            .single()
            .unwrap();
        let body = Bytes::from_static(b"\x89PNG\r\n\x1a\n not really an image");
        for (endpoint, token) in [
            (Some("http://127.0.0.1:4566"), None),
            (None, Some("session-token")),
            (None, None),
        ] {
            let s3 = client(endpoint, token);
            let object = PutObject {
                bucket: "uploads-bucket",
                key: "images/0f8fad5b-d9cb-469f-a165-70867728950e.png",
                body: body.clone(),
                content_type: "image/png",
                cache_control: Some("public, max-age=31536000, immutable"),
            };
            let ours = s3.sign_put(&object, time).unwrap();
            let (ours_authorization, unsigned): (Vec<_>, Vec<_>) = ours
                .headers
                .iter()
                .partition(|(name, _)| *name == "authorization");

            let identity = aws_credential_types::Credentials::new(
                "AKIDEXAMPLE",
                "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                token.map(str::to_string),
                None,
                "test",
            )
            .into();
            let mut settings = SigningSettings::default();
            settings.percent_encoding_mode = PercentEncodingMode::Single;
            settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
            settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
            let params: aws_sigv4::http_request::SigningParams<'_> =
                aws_sigv4::sign::v4::SigningParams::builder()
                    .identity(&identity)
                    .region("eu-west-1")
                    .name("s3")
                    .time(time.into())
                    .settings(settings)
                    .build()
                    .unwrap()
                    .into();
            // What the SDK is given: the request's own headers, not the ones signing adds.
            let given: Vec<(&str, &str)> = unsigned
                .iter()
                .filter(|(name, _)| {
                    !matches!(
                        *name,
                        "x-amz-date" | "x-amz-content-sha256" | "x-amz-security-token"
                    )
                })
                .map(|(k, v)| (*k, v.as_str()))
                .collect();
            let signable = SignableRequest::new(
                "PUT",
                &ours.url,
                given.iter().copied(),
                SignableBody::Bytes(&body),
            )
            .unwrap();
            let (instructions, _) = sign(signable, &params).unwrap().into_parts();
            let theirs: Vec<(String, String)> = instructions
                .headers()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let find = |name: &str| {
                theirs
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.clone())
            };
            assert_eq!(
                Some(ours_authorization[0].1.clone()),
                find("authorization"),
                "{endpoint:?} {token:?}"
            );
            assert_eq!(
                find("x-amz-content-sha256").as_deref(),
                Some(sigv4::sha256_hex(&body).as_str())
            );
        }
    }
}
