//! WebSub (W3C Recommendation, 2018): a feed that names a hub is subscribed through it, so the
//! publisher's hub pushes new entries to the callback instead of waiting for the next poll.
//!
//! - Discovery: the hub and the topic come from the HTTP `Link` header (`rel="hub"`,
//!   `rel="self"`), else from the document (`<link rel="hub">` in Atom, `atom:link` in RSS);
//!   the topic is the `self` URL, else the URL the feed was fetched from ([`PushTarget::of`]).
//! - Subscribing: a form POST to the hub with `hub.mode`, `hub.topic`, `hub.callback`
//!   (`{PUBLIC_BASE_URL}/api/content/websub/{sourceId}`), `hub.secret` (per source, random,
//!   stored) and `hub.lease_seconds` ([`Hub`]), through the fetcher's SSRF guard.
//! - Deliveries are authenticated by `X-Hub-Signature: {sha1|sha256|sha384|sha512}={hex}`, an
//!   HMAC of the raw body with the secret, compared in constant time ([`check_signature`]).
//!
//! What is stored and when it is renewed is the ingest's (`ingest/push.rs`); this module is
//! free of AWS calls.

use std::time::Duration;

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};
use url::Url;

use crate::fetch::{FeedFetcher, FetchError};
use crate::parse::ParsedFeed;

/// The lease asked of hubs (7 days); hubs may grant another, which the verification says.
pub const LEASE_SECONDS: i64 = 7 * 24 * 3600;
/// A lease ending within this long is renewed at the source's next refresh.
pub const RENEW_WITHIN_SECONDS: i64 = 24 * 3600;
/// A subscription a hub has not verified within this long is asked for again.
pub const RETRY_PENDING_SECONDS: i64 = 3600;
/// How often a source with a live push subscription is still polled (the fallback), in
/// minutes: slower than the 15 of other sources, since the hub brings new entries at once.
pub const PUSHED_REFRESH_MINUTES: i64 = 60;
/// The largest delivery body read (4 MiB: under Lambda's 6 MB request once base64-encoded).
pub const MAX_DELIVERY_BYTES: usize = 4 * 1024 * 1024;
/// The longest `hub.challenge` echoed.
pub const MAX_CHALLENGE_CHARS: usize = 1024;
/// The route of a source's callback, after the public base URL.
pub const CALLBACK_PATH: &str = "/api/content/websub/";

/// Where a feed is pushed from: its hub and its topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushTarget {
    pub hub: String,
    pub topic: String,
}

impl PushTarget {
    /// The hub and topic of a feed fetched from `final_url` with these `Link` header values:
    /// the header's first, else the document's; `None` when neither names a hub.
    pub fn of(feed: &ParsedFeed, links: &[String], final_url: &str) -> Option<Self> {
        let base = Url::parse(final_url).ok();
        let header = header_links(links, base.as_ref());
        let hub = header
            .hubs
            .into_iter()
            .next()
            .or_else(|| feed.hubs.first().cloned())?;
        let topic = header
            .self_url
            .or_else(|| feed.self_url.clone())
            .unwrap_or_else(|| final_url.to_string());
        Some(Self { hub, topic })
    }
}

/// What a `Link` header names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderLinks {
    pub hubs: Vec<String>,
    pub self_url: Option<String>,
}

/// Reads `Link` header values (RFC 8288: `<uri>; rel="a b"; ...`, comma separated), keeping
/// the http(s) targets of `rel` `hub` and `self`, resolved against `base`.
pub fn header_links(values: &[String], base: Option<&Url>) -> HeaderLinks {
    let mut out = HeaderLinks::default();
    for value in values {
        let mut rest = value.as_str();
        while let Some(open) = rest.find('<') {
            let Some(close) = rest.get(open..).and_then(|r| r.find('>')).map(|c| open + c) else {
                break;
            };
            let target = rest.get(open + 1..close).unwrap_or_default().trim();
            let after = rest.get(close + 1..).unwrap_or_default();
            // The parameters run to the next link (a comma outside quotes).
            let mut end = after.len();
            let mut quoted = false;
            for (i, c) in after.char_indices() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => {
                        end = i;
                        break;
                    }
                    _ => {}
                }
            }
            let params = after.get(..end).unwrap_or_default();
            rest = after.get(end..).unwrap_or_default();
            let rels = link_rels(params);
            let url = match base {
                Some(base) => base.join(target).ok(),
                None => Url::parse(target).ok(),
            }
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .map(|u| u.to_string());
            let Some(url) = url else { continue };
            if rels.iter().any(|r| r == "hub") && !out.hubs.contains(&url) {
                out.hubs.push(url.clone());
            }
            if rels.iter().any(|r| r == "self") && out.self_url.is_none() {
                out.self_url = Some(url);
            }
        }
    }
    out
}

/// The lowercased relation types of a link's parameters.
fn link_rels(params: &str) -> Vec<String> {
    for param in params.split(';') {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("rel") {
            return value
                .trim()
                .trim_matches('"')
                .split_ascii_whitespace()
                .map(str::to_ascii_lowercase)
                .collect();
        }
    }
    Vec::new()
}

/// A new subscription's secret: 32 random bytes as hex (the spec allows up to 200 bytes).
pub fn new_secret() -> Option<String> {
    let mut bytes = [0u8; 32];
    SystemRandom::new().fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Why a delivery's signature does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("no X-Hub-Signature")]
    Missing,
    #[error("X-Hub-Signature is not method=hex, or names an unknown method")]
    Malformed,
    #[error("X-Hub-Signature does not match the body")]
    Mismatch,
}

/// Checks `X-Hub-Signature` (`sha1=`, `sha256=`, `sha384=` or `sha512=` and the hex HMAC of
/// `body` with `secret`), in constant time.
pub fn check_signature(
    header: Option<&str>,
    secret: &str,
    body: &[u8],
) -> Result<(), SignatureError> {
    let header = header.map(str::trim).filter(|h| !h.is_empty());
    let (method, hex) = header
        .ok_or(SignatureError::Missing)?
        .split_once('=')
        .ok_or(SignatureError::Malformed)?;
    let algorithm = match method.trim().to_ascii_lowercase().as_str() {
        "sha1" => hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY,
        "sha256" => hmac::HMAC_SHA256,
        "sha384" => hmac::HMAC_SHA384,
        "sha512" => hmac::HMAC_SHA512,
        _ => return Err(SignatureError::Malformed),
    };
    let tag = decode_hex(hex.trim()).ok_or(SignatureError::Malformed)?;
    let key = hmac::Key::new(algorithm, secret.as_bytes());
    hmac::verify(&key, body, &tag).map_err(|_| SignatureError::Mismatch)
}

/// The `X-Hub-Signature` a hub sends for `body` (sha256): for tests and fake hubs.
pub fn sign(secret: &str, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    let tag = hmac::sign(&key, body);
    let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) || hex.len() > 256 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Why a hub did not take a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HubError {
    /// No public base URL is configured: no callback to give.
    #[error("no public base URL (PUBLIC_BASE_URL) to give hubs a callback")]
    NoCallback,
    #[error("the hub could not be reached: {0}")]
    Unreachable(#[from] FetchError),
    #[error("the hub answered with HTTP status {0}")]
    Refused(u16),
}

/// Subscription requests to hubs: the callback this deployment gives them, and the fetcher
/// (SSRF guard, deadline) the requests go through.
#[derive(Debug, Clone)]
pub struct Hub {
    fetcher: FeedFetcher,
    callback_base: Option<String>,
}

impl Hub {
    /// `callback_base` is the API's public base URL (`PUBLIC_BASE_URL`); without it nothing
    /// is subscribed and feeds are polled only.
    pub fn new(fetcher: FeedFetcher, callback_base: Option<String>) -> Self {
        let callback_base = callback_base
            .map(|b| b.trim().trim_end_matches('/').to_string())
            .filter(|b| !b.is_empty());
        Self {
            fetcher,
            callback_base,
        }
    }

    /// The public base URL from `PUBLIC_BASE_URL` (unset or blank: none).
    pub fn from_env(env: &platform::Env, fetcher: FeedFetcher) -> Self {
        Self::new(fetcher, env.get("PUBLIC_BASE_URL").map(str::to_string))
    }

    /// Whether subscriptions can be made (a public base URL is known).
    pub fn enabled(&self) -> bool {
        self.callback_base.is_some()
    }

    /// The callback of a source.
    pub fn callback(&self, source_id: &str) -> Option<String> {
        self.callback_base
            .as_ref()
            .map(|base| format!("{base}{CALLBACK_PATH}{source_id}"))
    }

    /// Asks `target`'s hub to push its topic to the source's callback, signed with `secret`.
    pub async fn subscribe(
        &self,
        source_id: &str,
        target: &PushTarget,
        secret: &str,
        timeout: Duration,
    ) -> Result<(), HubError> {
        let lease = LEASE_SECONDS.to_string();
        self.request(
            source_id,
            target,
            &[
                ("hub.mode", "subscribe"),
                ("hub.secret", secret),
                ("hub.lease_seconds", &lease),
            ],
            timeout,
        )
        .await
    }

    /// Asks `target`'s hub to stop pushing to the source's callback.
    pub async fn unsubscribe(
        &self,
        source_id: &str,
        target: &PushTarget,
        timeout: Duration,
    ) -> Result<(), HubError> {
        self.request(source_id, target, &[("hub.mode", "unsubscribe")], timeout)
            .await
    }

    async fn request(
        &self,
        source_id: &str,
        target: &PushTarget,
        params: &[(&str, &str)],
        timeout: Duration,
    ) -> Result<(), HubError> {
        let callback = self.callback(source_id).ok_or(HubError::NoCallback)?;
        let mut form: Vec<(&str, &str)> = vec![
            ("hub.callback", callback.as_str()),
            ("hub.topic", target.topic.as_str()),
        ];
        form.extend_from_slice(params);
        let status = self.fetcher.post_form(&target.hub, &form, timeout).await?;
        // 202 Accepted is the spec's answer; some hubs verify first and answer 204 or 200.
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(HubError::Refused(status))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_header_names_hub_and_self() {
        let base = Url::parse("https://example.org/feed.xml").ok();
        let links = header_links(
            &[
                r#"<https://hub.example.com/>; rel="hub", </feed.xml?x=1>; rel=self"#.into(),
                r#"<https://other.example/, odd>; title="a, b"; rel="preload hub""#.into(),
            ],
            base.as_ref(),
        );
        assert_eq!(
            links.hubs,
            vec![
                "https://hub.example.com/".to_string(),
                "https://other.example/,%20odd".to_string()
            ]
        );
        assert_eq!(
            links.self_url.as_deref(),
            Some("https://example.org/feed.xml?x=1")
        );
        assert_eq!(
            header_links(&["garbage".into()], None),
            HeaderLinks::default()
        );
    }

    #[test]
    fn the_link_header_wins_over_the_document() {
        let atom = br#"<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><id>x</id>
            <link rel="hub" href="https://doc-hub.example/"/><link rel="self" href="/self.xml"/></feed>"#;
        let feed = crate::parse_feed(atom, "https://example.org/feed.xml").unwrap();
        assert_eq!(feed.hubs, vec!["https://doc-hub.example/".to_string()]);
        let from_document = PushTarget::of(&feed, &[], "https://example.org/feed.xml").unwrap();
        assert_eq!(from_document.hub, "https://doc-hub.example/");
        assert_eq!(from_document.topic, "https://example.org/self.xml");
        let header = [r#"<https://header-hub.example/>; rel="hub""#.to_string()];
        let from_header = PushTarget::of(&feed, &header, "https://example.org/feed.xml").unwrap();
        assert_eq!(from_header.hub, "https://header-hub.example/");
        assert_eq!(from_header.topic, "https://example.org/self.xml");

        let rss = br#"<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
            <title>R</title><link>https://example.org/</link>
            <atom:link rel="hub" href="https://rss-hub.example/"/></channel></rss>"#;
        let feed = crate::parse_feed(rss, "https://example.org/rss").unwrap();
        let target = PushTarget::of(&feed, &[], "https://example.org/rss").unwrap();
        assert_eq!(target.hub, "https://rss-hub.example/");
        // No self link: the URL fetched is the topic.
        assert_eq!(target.topic, "https://example.org/rss");

        let plain = crate::parse_feed(
            b"<rss version=\"2.0\"><channel><title>P</title></channel></rss>",
            "https://example.org/p",
        )
        .unwrap();
        assert_eq!(PushTarget::of(&plain, &[], "https://example.org/p"), None);
    }

    #[test]
    fn signatures_of_every_method_and_refusals() {
        let secret = "s3cret";
        let body = b"<feed/>";
        assert_eq!(
            check_signature(Some(&sign(secret, body)), secret, body),
            Ok(())
        );
        for (algorithm, method) in [
            (hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, "sha1"),
            (hmac::HMAC_SHA384, "sha384"),
            (hmac::HMAC_SHA512, "sha512"),
        ] {
            let tag = hmac::sign(&hmac::Key::new(algorithm, secret.as_bytes()), body);
            let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
            let header = format!("{method}={hex}");
            assert_eq!(
                check_signature(Some(&header), secret, body),
                Ok(()),
                "{method}"
            );
        }
        assert_eq!(
            check_signature(None, secret, body),
            Err(SignatureError::Missing)
        );
        assert_eq!(
            check_signature(Some("md5=00"), secret, body),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            check_signature(Some("sha256=zz"), secret, body),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            check_signature(Some(&sign("other", body)), secret, body),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            check_signature(Some(&sign(secret, b"<feed/> ")), secret, body),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn secrets_are_random_hex() {
        let (a, b) = (new_secret().unwrap(), new_secret().unwrap());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn callbacks_name_the_source() {
        let fetcher = FeedFetcher::new(crate::FetchConfig::default()).unwrap();
        let hub = Hub::new(fetcher.clone(), Some("https://api.example.com/ ".into()));
        assert_eq!(
            hub.callback("abc").as_deref(),
            Some("https://api.example.com/api/content/websub/abc")
        );
        assert!(!Hub::new(fetcher, Some(" ".into())).enabled());
    }
}
