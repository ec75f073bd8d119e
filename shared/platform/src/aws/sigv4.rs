//! AWS Signature Version 4 for the requests the functions send: JSON-protocol POSTs to `/`,
//! signed in the `Authorization` header. The canonical request is built as the SigV4
//! specification says for any path-less, query-less request, so AWS's published test vectors
//! (GET and POST alike) check it.

use std::fmt;

use chrono::{DateTime, Utc};
use ring::{digest, hmac};

const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// The keys a request is signed with (Lambda's: `AWS_ACCESS_KEY_ID`, ...).
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    /// Temporary credentials' token, sent (and signed) as `x-amz-security-token`.
    pub session_token: Option<String>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secret or the token: this type ends up in logged structs.
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

/// Where and when a signature is valid: region, service signing name (`dynamodb`, `sqs`) and
/// the request's time.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'a> {
    pub region: &'a str,
    pub service: &'a str,
    pub time: DateTime<Utc>,
}

impl Scope<'_> {
    /// `x-amz-date`: `20150830T123600Z`.
    pub fn amz_date(&self) -> String {
        self.time.format("%Y%m%dT%H%M%SZ").to_string()
    }

    fn date(&self) -> String {
        self.time.format("%Y%m%d").to_string()
    }

    fn credential_scope(&self) -> String {
        format!(
            "{}/{}/{}/aws4_request",
            self.date(),
            self.region,
            self.service
        )
    }
}

/// The lowercase hex SHA-256 of `data` (the payload hash of the canonical request).
pub fn sha256_hex(data: &[u8]) -> String {
    hex(digest::digest(&digest::SHA256, data).as_ref())
}

/// The `Authorization` header value of a request to `path` (already URI-encoded; `/` for the
/// JSON protocols) with canonical query string `query` (empty for the JSON protocols),
/// signing every header of `headers` (they must include `host` and `x-amz-date`, and
/// `x-amz-security-token` when the credentials carry a token).
pub fn authorization(
    credentials: &Credentials,
    scope: &Scope<'_>,
    method: &str,
    path: &str,
    query: &str,
    headers: &[(&str, &str)],
    payload_sha256: &str,
) -> String {
    let (canonical_headers, signed_headers) = canonical_headers(headers);
    let canonical_request = format!(
        "{method}\n{path}\n{query}\n{canonical_headers}\n{signed_headers}\n{payload_sha256}"
    );
    let string_to_sign = format!(
        "{ALGORITHM}\n{}\n{}\n{}",
        scope.amz_date(),
        scope.credential_scope(),
        sha256_hex(canonical_request.as_bytes())
    );
    let key = signing_key(&credentials.secret_access_key, scope);
    let signature = hex(hmac::sign(&key, string_to_sign.as_bytes()).as_ref());
    format!(
        "{ALGORITHM} Credential={}/{}, SignedHeaders={signed_headers}, Signature={signature}",
        credentials.access_key_id,
        scope.credential_scope()
    )
}

/// The headers of a signed JSON-protocol POST to `/` of `host` (`host[:port]` as in the URL),
/// `Authorization` last: what [`super::json`] sends.
pub fn sign_json_post(
    credentials: &Credentials,
    scope: &Scope<'_>,
    host: &str,
    target: &str,
    content_type: &str,
    body: &[u8],
) -> Vec<(&'static str, String)> {
    let mut headers: Vec<(&'static str, String)> = vec![
        ("content-type", content_type.to_string()),
        ("host", host.to_string()),
        ("x-amz-date", scope.amz_date()),
    ];
    if let Some(token) = &credentials.session_token {
        headers.push(("x-amz-security-token", token.clone()));
    }
    headers.push(("x-amz-target", target.to_string()));
    let signed: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let authorization = authorization(
        credentials,
        scope,
        "POST",
        "/",
        "",
        &signed,
        &sha256_hex(body),
    );
    headers.push(("authorization", authorization));
    headers
}

/// Canonical headers (lowercase names, sorted, values trimmed with inner runs of spaces
/// collapsed, repeated names joined with commas) and the signed-headers list.
fn canonical_headers(headers: &[(&str, &str)]) -> (String, String) {
    let mut sorted: Vec<(String, String)> = headers
        .iter()
        .map(|(name, value)| {
            (
                name.to_ascii_lowercase(),
                value.split_whitespace().collect::<Vec<_>>().join(" "),
            )
        })
        .collect();
    // Stable: repeated names keep their order, as the specification requires.
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut canonical = String::new();
    let mut names: Vec<&str> = Vec::new();
    for (name, value) in &sorted {
        if names.last() == Some(&name.as_str()) {
            canonical.pop();
            canonical.push(',');
        } else {
            canonical.push_str(name);
            canonical.push(':');
            names.push(name);
        }
        canonical.push_str(value);
        canonical.push('\n');
    }
    (canonical, names.join(";"))
}

fn signing_key(secret: &str, scope: &Scope<'_>) -> hmac::Key {
    let step = |key: &[u8], data: &str| {
        hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), data.as_bytes())
    };
    let date = step(format!("AWS4{secret}").as_bytes(), &scope.date());
    let region = step(date.as_ref(), scope.region);
    let service = step(region.as_ref(), scope.service);
    let signing = step(service.as_ref(), "aws4_request");
    hmac::Key::new(hmac::HMAC_SHA256, signing.as_ref())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing to a String cannot fail.
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    /// The credentials, region, service and time of AWS's SigV4 test suite.
    fn suite() -> (Credentials, DateTime<Utc>) {
        let credentials = Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: None,
        };
        let time = Utc
            .with_ymd_and_hms(2015, 8, 30, 12, 36, 0)
            .single()
            .expect("a valid time");
        (credentials, time)
    }

    const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    /// Signs one request of the suite and returns its signature.
    fn suite_signature(
        credentials: &Credentials,
        method: &str,
        extra: &[(&str, &str)],
        payload: &str,
    ) -> String {
        let (_, time) = suite();
        let scope = Scope {
            region: "us-east-1",
            service: "service",
            time,
        };
        let mut headers = vec![
            ("Host", "example.amazonaws.com"),
            ("X-Amz-Date", "20150830T123600Z"),
        ];
        headers.extend_from_slice(extra);
        let header = authorization(credentials, &scope, method, "/", "", &headers, payload);
        header
            .rsplit_once("Signature=")
            .map(|(_, s)| s.to_string())
            .expect("a signature")
    }

    #[test]
    fn the_sigv4_test_suite_signatures_match() {
        let (credentials, _) = suite();
        // get-vanilla
        assert_eq!(
            suite_signature(&credentials, "GET", &[], EMPTY_SHA256),
            "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
        // post-vanilla
        assert_eq!(
            suite_signature(&credentials, "POST", &[], EMPTY_SHA256),
            "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        );
        // post-header-key-sort, post-header-value-case
        assert_eq!(
            suite_signature(
                &credentials,
                "POST",
                &[("My-Header1", "value1")],
                EMPTY_SHA256
            ),
            "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"
        );
        assert_eq!(
            suite_signature(
                &credentials,
                "POST",
                &[("My-Header1", "VALUE1")],
                EMPTY_SHA256
            ),
            "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"
        );
        // get-header-value-trim
        assert_eq!(
            suite_signature(
                &credentials,
                "GET",
                &[("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
                EMPTY_SHA256
            ),
            "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"
        );
        // post-x-www-form-urlencoded (the body signed and its hash sent)
        let body_hash = sha256_hex(b"Param1=value1");
        assert_eq!(
            body_hash,
            "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e"
        );
        assert_eq!(
            suite_signature(
                &credentials,
                "POST",
                &[
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Content-Length", "13"),
                    ("x-amz-content-sha256", body_hash.as_str()),
                ],
                &body_hash
            ),
            "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"
        );
    }

    #[test]
    fn a_session_token_is_signed() {
        let (mut credentials, _) = suite();
        let token = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267";
        credentials.session_token = Some(token.into());
        // get-vanilla-with-session-token
        assert_eq!(
            suite_signature(
                &credentials,
                "GET",
                &[("X-Amz-Security-Token", token)],
                EMPTY_SHA256
            ),
            "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"
        );
    }

    #[test]
    fn the_full_authorization_header_names_the_scope_and_headers() {
        let (credentials, time) = suite();
        let scope = Scope {
            region: "us-east-1",
            service: "service",
            time,
        };
        let headers = [
            ("host", "example.amazonaws.com"),
            ("x-amz-date", "20150830T123600Z"),
        ];
        assert_eq!(
            authorization(&credentials, &scope, "GET", "/", "", &headers, EMPTY_SHA256),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
             SignedHeaders=host;x-amz-date, \
             Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
        assert!(!format!("{credentials:?}").contains("EXAMPLEKEY"));
    }

    /// The SDK's signer (`aws-sigv4`) signs the same DynamoDB request to the same header.
    #[test]
    fn json_posts_are_signed_as_the_sdk_signs_them() {
        use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};

        let body = br#"{"TableName":"users","Key":{"pk":{"S":"USER#1"}}}"#;
        for token in [None, Some("session-token")] {
            let (mut credentials, time) = suite();
            credentials.session_token = token.map(str::to_string);
            let scope = Scope {
                region: "eu-west-1",
                service: "dynamodb",
                time,
            };
            let ours = sign_json_post(
                &credentials,
                &scope,
                "127.0.0.1:4566",
                "DynamoDB_20120810.GetItem",
                "application/x-amz-json-1.0",
                body,
            );
            let ours_authorization = ours
                .iter()
                .find(|(k, _)| *k == "authorization")
                .map(|(_, v)| v.clone())
                .expect("authorization");

            let identity = aws_credential_types::Credentials::new(
                &credentials.access_key_id,
                &credentials.secret_access_key,
                credentials.session_token.clone(),
                None,
                "test",
            )
            .into();
            let params: aws_sigv4::http_request::SigningParams<'_> =
                aws_sigv4::sign::v4::SigningParams::builder()
                    .identity(&identity)
                    .region("eu-west-1")
                    .name("dynamodb")
                    .time(time.into())
                    .settings(SigningSettings::default())
                    .build()
                    .expect("params")
                    .into();
            let unsigned = [
                ("content-type", "application/x-amz-json-1.0"),
                ("host", "127.0.0.1:4566"),
                ("x-amz-target", "DynamoDB_20120810.GetItem"),
            ];
            let signable = SignableRequest::new(
                "POST",
                "http://127.0.0.1:4566/",
                unsigned.iter().copied(),
                SignableBody::Bytes(body),
            )
            .expect("signable");
            let (instructions, _) = sign(signable, &params).expect("signed").into_parts();
            let theirs: Vec<(String, String)> = instructions
                .headers()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let theirs_authorization = theirs
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
                .map(|(_, v)| v.clone())
                .expect("the SDK's authorization");
            assert_eq!(ours_authorization, theirs_authorization, "token {token:?}");
        }
    }
}
