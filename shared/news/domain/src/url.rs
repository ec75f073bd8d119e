//! Feed URLs: one canonical spelling per feed, and a stable source id derived from it.

use url::Url;

/// Longest feed URL accepted, in bytes, before and after normalisation.
pub const MAX_FEED_URL_LEN: usize = 2048;

/// Why a feed URL was refused. The message is meant to follow `url: ` in a 400 response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeedUrlError {
    #[error("must not be blank")]
    Blank,
    #[error("must be at most {MAX_FEED_URL_LEN} characters")]
    TooLong,
    #[error("is not a valid absolute URL ({0})")]
    Malformed(String),
    #[error("must use http or https, not {0}")]
    UnsupportedScheme(String),
    #[error("must include a host name")]
    MissingHost,
    #[error("must not contain a user name or password")]
    Credentials,
}

/// The canonical form of a feed URL: trimmed; http or https only; scheme and host lowercased
/// (international host names in their ASCII form); default port, fragment and `.`/`..` path
/// segments removed; an empty path becomes `/`; the query is kept as given. URLs carrying a
/// user name or password are refused.
pub fn normalise_feed_url(raw: &str) -> Result<String, FeedUrlError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(FeedUrlError::Blank);
    }
    if trimmed.len() > MAX_FEED_URL_LEN {
        return Err(FeedUrlError::TooLong);
    }
    let mut url = Url::parse(trimmed).map_err(|e| FeedUrlError::Malformed(e.to_string()))?;
    check_url(&url)?;
    url.set_fragment(None);
    let normalised = String::from(url);
    if normalised.len() > MAX_FEED_URL_LEN {
        return Err(FeedUrlError::TooLong);
    }
    Ok(normalised)
}

/// Checks the parts of an already parsed URL that a fetchable feed URL must satisfy.
pub(crate) fn check_url(url: &Url) -> Result<(), FeedUrlError> {
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(FeedUrlError::UnsupportedScheme(other.to_string())),
    }
    match url.host_str() {
        None | Some("") => return Err(FeedUrlError::MissingHost),
        Some(_) => {}
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(FeedUrlError::Credentials);
    }
    Ok(())
}

/// A stable id for a source: the first 16 bytes of the SHA-256 of its normalised URL, as 32
/// lowercase hex characters.
pub fn source_id(normalised: &str) -> String {
    short_hash(normalised.as_bytes())
}

/// The first 16 bytes of the SHA-256 of `data`, as 32 lowercase hex characters.
pub(crate) fn short_hash(data: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, data);
    digest
        .as_ref()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_table() {
        let ok = [
            (
                "https://example.com/feed.xml",
                "https://example.com/feed.xml",
            ),
            (
                "  https://example.com/feed.xml\n",
                "https://example.com/feed.xml",
            ),
            (
                "HTTPS://Example.COM/Feed.xml",
                "https://example.com/Feed.xml",
            ),
            ("http://example.com", "http://example.com/"),
            ("http://example.com:80/rss", "http://example.com/rss"),
            ("https://example.com:443/rss", "https://example.com/rss"),
            (
                "https://example.com:8443/rss",
                "https://example.com:8443/rss",
            ),
            ("http://example.com:443/rss", "http://example.com:443/rss"),
            ("https://example.com/rss#top", "https://example.com/rss"),
            (
                "https://example.com/rss?b=2&a=1#x",
                "https://example.com/rss?b=2&a=1",
            ),
            (
                "https://example.com/a/../b/./rss",
                "https://example.com/b/rss",
            ),
            (
                "https://bücher.example/feed",
                "https://xn--bcher-kva.example/feed",
            ),
            ("http://127.0.0.1:8080/feed", "http://127.0.0.1:8080/feed"),
            ("http://[::1]/feed", "http://[::1]/feed"),
        ];
        for (raw, expected) in ok {
            assert_eq!(
                normalise_feed_url(raw).as_deref(),
                Ok(expected),
                "raw {raw:?}"
            );
        }

        type Check = fn(&FeedUrlError) -> bool;
        let bad: [(&str, Check); 10] = [
            ("", |e| *e == FeedUrlError::Blank),
            ("   ", |e| *e == FeedUrlError::Blank),
            ("example.com/feed", |e| {
                matches!(e, FeedUrlError::Malformed(_))
            }),
            ("/feed.xml", |e| matches!(e, FeedUrlError::Malformed(_))),
            ("ftp://example.com/feed", |e| {
                *e == FeedUrlError::UnsupportedScheme("ftp".into())
            }),
            ("file:///etc/passwd", |e| {
                matches!(e, FeedUrlError::UnsupportedScheme(_))
            }),
            ("javascript:alert(1)", |e| {
                matches!(e, FeedUrlError::UnsupportedScheme(_))
            }),
            ("https://user:pass@example.com/", |e| {
                *e == FeedUrlError::Credentials
            }),
            ("https://user@example.com/", |e| {
                *e == FeedUrlError::Credentials
            }),
            ("http://exa mple.com/", |e| {
                matches!(e, FeedUrlError::Malformed(_))
            }),
        ];
        for (raw, check) in bad {
            let err = normalise_feed_url(raw).expect_err(raw);
            assert!(check(&err), "raw {raw:?} gave {err:?}");
        }

        let long = format!("https://example.com/{}", "a".repeat(MAX_FEED_URL_LEN));
        assert_eq!(normalise_feed_url(&long), Err(FeedUrlError::TooLong));
    }

    #[test]
    fn errors_read_as_field_reasons() {
        assert_eq!(
            normalise_feed_url("ftp://x/").unwrap_err().to_string(),
            "must use http or https, not ftp"
        );
        assert_eq!(
            FeedUrlError::Credentials.to_string(),
            "must not contain a user name or password"
        );
    }

    #[test]
    fn source_ids_are_stable_hex() {
        let a = source_id("https://example.com/feed.xml");
        assert_eq!(a.len(), 32);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_eq!(a, source_id("https://example.com/feed.xml"));
        assert_ne!(a, source_id("https://example.com/feed.xml?x=1"));
        // SHA-256("abc") starts ba7816bf8f01cfea414140de5dae2223.
        assert_eq!(source_id("abc"), "ba7816bf8f01cfea414140de5dae2223");
    }
}
