//! The client page's Content-Security-Policy, with the two extra sources uploads need: where
//! uploaded images (post covers) are served, and where the browser sends a presigned upload.
//!
//! The uploads function answers each image's URL under `UPLOADS_PUBLIC_BASE_URL` when that
//! is set (a CDN), else under the bucket's own URL: path-style on the emulator
//! (`{AWS_ENDPOINT_URL}/{bucket}/images/...`, plain http locally), virtual-hosted deployed
//! (`https://{bucket}.s3.{region}.amazonaws.com/images/...`). This module finds the same
//! base from the same variables and allows exactly its `images/` path, so a plain-http
//! emulator or CDN does not open `img-src` to every `http:` host.
//!
//! A presigned upload is a `PUT` straight to the bucket, never to the CDN: `connect-src` also
//! allows exactly the bucket's `incoming/` path, addressed as the uploads function's S3 client
//! signs it (`AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` path-style, else virtual-hosted).

use platform::config::ConfigError;
use platform::Env;

/// The client's policy without the uploads source: its own scripts and styles only (no
/// inline ones); article images from https hosts; API calls to this origin only.
pub const CLIENT_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data: https:; connect-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// The client's policy with `uploads` (a CSP source expression) allowed for images too, and
/// `upload_puts` (one too) for requests.
pub fn client_csp(uploads: Option<&str>, upload_puts: Option<&str>) -> String {
    let mut policy = CLIENT_CSP.to_string();
    if let Some(source) = uploads {
        policy = policy.replacen(
            "img-src 'self' data: https:;",
            &format!("img-src 'self' data: https: {source};"),
            1,
        );
    }
    if let Some(source) = upload_puts {
        policy = policy.replacen(
            "connect-src 'self';",
            &format!("connect-src 'self' {source};"),
            1,
        );
    }
    policy
}

/// The CSP source of presigned uploads: `{bucket}/incoming/` where the uploads function's S3
/// client addresses `UPLOADS_BUCKET` (path-style on `AWS_ENDPOINT_URL_S3` or
/// `AWS_ENDPOINT_URL`, else `https://{bucket}.s3.{region}.amazonaws.com`), whatever
/// `UPLOADS_PUBLIC_BASE_URL` says. `None` when no bucket (or no region) is configured.
pub fn uploads_put_source(env: &Env) -> Result<Option<String>, ConfigError> {
    let set = |name: &str| env.get(name).map(str::trim).filter(|v| !v.is_empty());
    let Some(bucket) = set("UPLOADS_BUCKET") else {
        return Ok(None);
    };
    let base = if let Some(endpoint) = set("AWS_ENDPOINT_URL_S3") {
        format!("{}/{bucket}", origin_of(endpoint, "AWS_ENDPOINT_URL_S3")?)
    } else if let Some(endpoint) = set("AWS_ENDPOINT_URL") {
        format!("{}/{bucket}", origin_of(endpoint, "AWS_ENDPOINT_URL")?)
    } else if let Some(region) = set("AWS_REGION") {
        format!("https://{bucket}.s3.{region}.amazonaws.com")
    } else {
        return Ok(None);
    };
    let source = format!("{base}/incoming/");
    check_source(&source).map_err(|reason| ConfigError::Invalid {
        name: "UPLOADS_BUCKET".into(),
        reason,
    })?;
    Ok(Some(source))
}

/// The CSP source of recipe photos: `{bucket}/recipes/`, where the recipes function presigns
/// their GETs (path-style on `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`, else
/// `https://{bucket}.s3.{region}.amazonaws.com`, which `https:` already allows). `None`
/// when no bucket (or no region) is configured.
pub fn recipe_photo_source(env: &Env) -> Result<Option<String>, ConfigError> {
    Ok(uploads_put_source(env)?.and_then(|incoming| {
        incoming
            .strip_suffix("incoming/")
            .map(|base| format!("{base}recipes/"))
    }))
}

/// The CSP source of uploaded images: `{base}/images/` (a path ending in `/` matches every
/// file below it), from `UPLOADS_PUBLIC_BASE_URL`, else `UPLOADS_BUCKET` with
/// `AWS_ENDPOINT_URL` or `AWS_REGION` as the uploads function addresses it. `None` when no
/// bucket is configured. A value that cannot be a CSP source (not http(s), or holding
/// spaces, quotes, `;` or `,`) is a configuration error, as it is for the uploads function.
pub fn uploads_image_source(env: &Env) -> Result<Option<String>, ConfigError> {
    let set = |name: &str| env.get(name).map(str::trim).filter(|v| !v.is_empty());
    let base = if let Some(url) = set("UPLOADS_PUBLIC_BASE_URL") {
        url.trim_end_matches('/').to_string()
    } else if let Some(bucket) = set("UPLOADS_BUCKET") {
        if let Some(endpoint) = set("AWS_ENDPOINT_URL") {
            format!("{}/{bucket}", origin_of(endpoint, "AWS_ENDPOINT_URL")?)
        } else if let Some(region) = set("AWS_REGION") {
            format!("https://{bucket}.s3.{region}.amazonaws.com")
        } else {
            return Ok(None);
        }
    } else {
        return Ok(None);
    };
    let source = format!("{base}/images/");
    check_source(&source).map_err(|reason| ConfigError::Invalid {
        name: "UPLOADS_PUBLIC_BASE_URL".into(),
        reason,
    })?;
    Ok(Some(source))
}

/// The CSP source of the AI panel's streamed answers: `{GENAI_FUNCTION_URL}/stream/`, the
/// assistant function URL that streams (API Gateway buffers). `None` when the URL is unset.
pub fn genai_stream_source(env: &Env) -> Result<Option<String>, ConfigError> {
    let Some(url) = env
        .get("GENAI_FUNCTION_URL")
        .map(str::trim)
        .filter(|v| !v.is_empty())
    else {
        return Ok(None);
    };
    let source = format!("{}/stream/", url.trim_end_matches('/'));
    check_source(&source).map_err(|reason| ConfigError::Invalid {
        name: "GENAI_FUNCTION_URL".into(),
        reason,
    })?;
    Ok(Some(source))
}

/// `scheme://host[:port]` of an endpoint URL (S3 path-style addressing drops its path).
fn origin_of(url: &str, name: &str) -> Result<String, ConfigError> {
    let invalid = |reason: &str| ConfigError::Invalid {
        name: name.into(),
        reason: reason.into(),
    };
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| invalid("must be an http(s) URL"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    if host.is_empty() {
        return Err(invalid("names no host"));
    }
    Ok(format!("{}://{host}", scheme.to_ascii_lowercase()))
}

/// Whether `source` can stand in a CSP source list as one http(s) host source.
fn check_source(source: &str) -> Result<(), String> {
    let lower = source.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return Err("must be an http(s) URL".into());
    };
    if rest.starts_with('/') {
        return Err("names no host".into());
    }
    if let Some(bad) = source
        .chars()
        .find(|c| !c.is_ascii_graphic() || matches!(c, ';' | ',' | '\'' | '"' | '\\'))
    {
        return Err(format!(
            "holds {bad:?}, which a Content-Security-Policy source cannot"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        let mut env = Env::new();
        for (k, v) in pairs {
            env.set(*k, *v);
        }
        env
    }

    #[test]
    fn the_public_base_url_wins() {
        let e = env(&[
            ("UPLOADS_PUBLIC_BASE_URL", "http://img.example.com/cdn/"),
            ("UPLOADS_BUCKET", "b-1"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"),
        ]);
        assert_eq!(
            uploads_image_source(&e).unwrap().as_deref(),
            Some("http://img.example.com/cdn/images/")
        );
    }

    #[test]
    fn the_emulator_serves_path_style_and_aws_virtual_hosted() {
        let local = env(&[
            ("UPLOADS_PUBLIC_BASE_URL", ""),
            ("UPLOADS_BUCKET", "local-uploadsbucket"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:4566/"),
            ("AWS_REGION", "us-east-1"),
        ]);
        assert_eq!(
            uploads_image_source(&local).unwrap().as_deref(),
            Some("http://127.0.0.1:4566/local-uploadsbucket/images/")
        );
        let aws = env(&[("UPLOADS_BUCKET", "up-1"), ("AWS_REGION", "eu-west-1")]);
        assert_eq!(
            uploads_image_source(&aws).unwrap().as_deref(),
            Some("https://up-1.s3.eu-west-1.amazonaws.com/images/")
        );
        assert_eq!(uploads_image_source(&env(&[])).unwrap(), None);
    }

    #[test]
    fn recipe_photos_come_from_the_bucket_where_their_gets_are_signed() {
        let local = env(&[
            ("UPLOADS_PUBLIC_BASE_URL", "http://img.example.com/cdn/"),
            ("UPLOADS_BUCKET", "local-uploadsbucket"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:4566/"),
        ]);
        assert_eq!(
            recipe_photo_source(&local).unwrap().as_deref(),
            Some("http://127.0.0.1:4566/local-uploadsbucket/recipes/")
        );
        assert_eq!(recipe_photo_source(&env(&[])).unwrap(), None);
    }

    #[test]
    fn a_base_that_cannot_be_a_source_is_refused() {
        for bad in [
            "ftp://x.example",
            "http://x.example/a b",
            "http://x.example/;script-src *",
            "https://x.example/a,b",
            "http:///x",
        ] {
            let e = env(&[("UPLOADS_PUBLIC_BASE_URL", bad)]);
            assert!(uploads_image_source(&e).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_genai_function_url_allows_exactly_its_stream_path() {
        let deployed = env(&[(
            "GENAI_FUNCTION_URL",
            "https://abc123.lambda-url.eu-west-1.on.aws/",
        )]);
        let source = genai_stream_source(&deployed).unwrap();
        assert_eq!(
            source.as_deref(),
            Some("https://abc123.lambda-url.eu-west-1.on.aws/stream/")
        );
        let csp = client_csp(None, source.as_deref());
        assert!(
            csp.contains("connect-src 'self' https://abc123.lambda-url.eu-west-1.on.aws/stream/;")
        );
        let local = env(&[(
            "GENAI_FUNCTION_URL",
            "http://127.0.0.1:4000/lambda-url/assistant/",
        )]);
        assert_eq!(
            genai_stream_source(&local).unwrap().as_deref(),
            Some("http://127.0.0.1:4000/lambda-url/assistant/stream/")
        );
        assert_eq!(genai_stream_source(&env(&[])).unwrap(), None);
        assert_eq!(
            genai_stream_source(&env(&[("GENAI_FUNCTION_URL", "  ")])).unwrap(),
            None
        );
        for bad in ["ftp://x.example/", "https://x.example/a;b", "https:///"] {
            let err = genai_stream_source(&env(&[("GENAI_FUNCTION_URL", bad)])).unwrap_err();
            assert!(
                err.to_string().contains("GENAI_FUNCTION_URL"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn the_policy_adds_exactly_the_source() {
        let csp = client_csp(Some("http://127.0.0.1:4566/b/images/"), None);
        assert!(csp.contains("img-src 'self' data: https: http://127.0.0.1:4566/b/images/;"));
        assert!(csp.contains("connect-src 'self';"));
        assert!(!csp.contains("http:;") && !csp.contains(" http: "));
        assert_eq!(client_csp(None, None), CLIENT_CSP);
        let both = client_csp(
            Some("http://127.0.0.1:4566/b/images/"),
            Some("http://127.0.0.1:4566/b/incoming/"),
        );
        assert!(both.contains("connect-src 'self' http://127.0.0.1:4566/b/incoming/;"));
        assert!(both.contains("img-src 'self' data: https: http://127.0.0.1:4566/b/images/;"));
    }

    #[test]
    fn presigned_uploads_go_to_the_bucket_itself_never_the_cdn() {
        let local = env(&[
            ("UPLOADS_PUBLIC_BASE_URL", "https://img.example.com"),
            ("UPLOADS_BUCKET", "local-uploadsbucket"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:4566/"),
            ("AWS_REGION", "us-east-1"),
        ]);
        assert_eq!(
            uploads_put_source(&local).unwrap().as_deref(),
            Some("http://127.0.0.1:4566/local-uploadsbucket/incoming/")
        );
        let s3_only = env(&[
            ("UPLOADS_BUCKET", "b"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"),
            ("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000"),
        ]);
        assert_eq!(
            uploads_put_source(&s3_only).unwrap().as_deref(),
            Some("http://127.0.0.1:9000/b/incoming/")
        );
        let aws = env(&[("UPLOADS_BUCKET", "up-1"), ("AWS_REGION", "eu-west-1")]);
        assert_eq!(
            uploads_put_source(&aws).unwrap().as_deref(),
            Some("https://up-1.s3.eu-west-1.amazonaws.com/incoming/")
        );
        assert_eq!(
            uploads_put_source(&env(&[("AWS_REGION", "eu-west-1")])).unwrap(),
            None
        );
    }
}
