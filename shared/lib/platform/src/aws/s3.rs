//! S3 over the SDK: what the functions store (PutObject of a whole body) and where a stored
//! object is served (path-style against an endpoint, virtual-hosted on AWS).

use aws_sdk_s3::primitives::ByteStream;
use bytes::Bytes;

use super::{AwsError, LazyClient};

/// The S3 client. Cheap to clone.
#[derive(Clone, Debug)]
pub struct S3 {
    client: LazyClient<aws_sdk_s3::Client>,
    /// The endpoint override (an emulator), addressed path-style.
    endpoint: Option<String>,
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

/// The first bytes of an object (enough to tell its type) and its whole size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectStart {
    pub bytes: Vec<u8>,
    pub size: u64,
}

impl S3 {
    /// `endpoint`: the override the client was built with, if any.
    pub fn new(client: aws_sdk_s3::Client, endpoint: Option<String>) -> Self {
        Self::lazy(LazyClient::ready(client), endpoint)
    }

    /// Over a client built on its first call.
    pub fn lazy(client: LazyClient<aws_sdk_s3::Client>, endpoint: Option<String>) -> Self {
        Self { client, endpoint }
    }

    /// The SDK client underneath (presigning, copies, ranged reads).
    pub fn client(&self) -> &aws_sdk_s3::Client {
        self.client.get()
    }

    /// Stores `object` (replacing any object of that key).
    pub async fn put_object(&self, object: PutObject<'_>) -> Result<(), AwsError> {
        check_location(object.bucket, object.key)?;
        self.client()
            .put_object()
            .bucket(object.bucket)
            .key(object.key)
            .content_type(object.content_type)
            .set_cache_control(object.cache_control.map(str::to_string))
            .body(ByteStream::from(object.body))
            .send()
            .await?;
        Ok(())
    }

    /// The first `n` bytes of `key` in `bucket` (one ranged GET) and the object's size;
    /// `None` when there is no such object, no bytes and size 0 when it is empty.
    pub async fn object_start(
        &self,
        bucket: &str,
        key: &str,
        n: u64,
    ) -> Result<Option<ObjectStart>, AwsError> {
        let answer = self
            .client()
            .get_object()
            .bucket(bucket)
            .key(key)
            .range(format!("bytes=0-{}", n.saturating_sub(1)))
            .send()
            .await;
        let output = match answer {
            Ok(output) => output,
            Err(e) => {
                let error = AwsError::from(e);
                return match (error.status(), error.code()) {
                    (Some(404), _) | (_, Some("NoSuchKey")) => Ok(None),
                    // A range past the end: the object is empty.
                    (Some(416), _) | (_, Some("InvalidRange")) => Ok(Some(ObjectStart {
                        bytes: Vec::new(),
                        size: 0,
                    })),
                    _ => Err(error),
                };
            }
        };
        // `bytes 0-63/9437184`; without a range in the answer, the whole object came back.
        let total = output
            .content_range()
            .and_then(|range| range.rsplit_once('/'))
            .and_then(|(_, total)| total.parse::<u64>().ok());
        let length = output
            .content_length()
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(0);
        let data =
            output.body.collect().await.map_err(|e| {
                AwsError::unreachable(format!("reading the first bytes of {key}: {e}"))
            })?;
        let mut bytes = data.into_bytes().to_vec();
        bytes.truncate(usize::try_from(n).unwrap_or(usize::MAX));
        Ok(Some(ObjectStart {
            size: total.unwrap_or(length),
            bytes,
        }))
    }

    /// The URL of `key` in `bucket`: where it is served when the bucket lets anyone read it.
    /// Path-style against an endpoint (an emulator), virtual-hosted on AWS.
    pub fn object_url(&self, bucket: &str, key: &str) -> Result<String, AwsError> {
        check_location(bucket, key)?;
        let path = encode_key(key);
        match &self.endpoint {
            Some(endpoint) => Ok(format!(
                "{}/{bucket}/{path}",
                endpoint.trim_end_matches('/')
            )),
            None => {
                let region = self
                    .client()
                    .config()
                    .region()
                    .ok_or_else(|| AwsError::invalid("AWS_REGION is not set"))?;
                Ok(format!("https://{bucket}.s3.{region}.amazonaws.com/{path}"))
            }
        }
    }
}

fn check_location(bucket: &str, key: &str) -> Result<(), AwsError> {
    if !valid_bucket(bucket) {
        return Err(AwsError::invalid(format!(
            "{bucket:?} is not a bucket name this client addresses"
        )));
    }
    if key.is_empty() {
        return Err(AwsError::invalid("an object key is required"));
    }
    Ok(())
}

/// CopyObject's source (`x-amz-copy-source`): the bucket and the key, URL-encoded (`/` kept).
pub fn copy_source(bucket: &str, key: &str) -> String {
    format!("{bucket}/{}", encode_key(key))
}

/// A DNS-compatible bucket name (3-63 lowercase letters, digits, dots and hyphens), the only
/// kind virtual-hosted addressing serves.
fn valid_bucket(name: &str) -> bool {
    (3..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric())
}

/// A key as a URL path: unreserved characters and `/` as they are, the rest percent-encoded.
fn encode_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aws::AwsClients;
    use crate::Env;

    fn s3(endpoint: Option<&str>) -> S3 {
        let mut env = Env::new()
            .with("AWS_REGION", "eu-west-1")
            .with("AWS_ACCESS_KEY_ID", "AKID")
            .with("AWS_SECRET_ACCESS_KEY", "secret");
        if let Some(url) = endpoint {
            env = env.with("AWS_ENDPOINT_URL", url);
        }
        AwsClients::from_env_with(&env, |t| t).s3()
    }

    #[test]
    fn objects_are_path_style_on_an_endpoint_and_virtual_hosted_on_aws() {
        assert_eq!(
            s3(Some("http://127.0.0.1:4566/"))
                .object_url("uploads", "images/a b.png")
                .unwrap(),
            "http://127.0.0.1:4566/uploads/images/a%20b.png"
        );
        assert_eq!(
            s3(None).object_url("uploads", "images/x.png").unwrap(),
            "https://uploads.s3.eu-west-1.amazonaws.com/images/x.png"
        );
        assert!(s3(None).object_url("Not_A_Bucket", "k").is_err());
        assert!(s3(None).object_url("uploads", "").is_err());
    }
}
