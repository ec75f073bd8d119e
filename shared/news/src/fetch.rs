//! Fetching feed documents from URLs that users submit, safely.
//!
//! Anyone can submit a feed URL, so the fetcher treats every URL as hostile:
//!
//! - one total deadline for the whole fetch (every redirect hop and the body);
//! - the body is read as a stream and abandoned as soon as it passes the size cap;
//! - redirects are followed by hand, at most [`MAX_REDIRECTS`], and every hop is checked again
//!   (scheme, credentials, address);
//! - server-side request forgery guard: unless private networks are allowed, the host must not
//!   be or resolve to a loopback, private, link-local (cloud metadata), shared (CGNAT),
//!   multicast, broadcast, documentation or otherwise reserved address.
//!
//! The address check happens inside the HTTP client's DNS resolver: the addresses that pass
//! the check are the very addresses the connection is made to, so a DNS answer that changes
//! between check and connect (DNS rebinding) cannot slip a private address through. IP-literal
//! hosts never reach a resolver and are checked before each request. No proxy is used.

use std::error::Error as StdError;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use reqwest::header::{
    HeaderValue, ACCEPT, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED, LOCATION,
};
use reqwest::StatusCode;
use url::{Host, Url};

/// Most redirects followed for one fetch.
pub const MAX_REDIRECTS: usize = 5;
/// Default total time for one fetch.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default largest body accepted, in bytes (5 MiB).
pub const DEFAULT_MAX_BYTES: usize = 5 * 1024 * 1024;
/// Default `User-Agent`.
pub const DEFAULT_USER_AGENT: &str =
    concat!("NewsReader/", env!("CARGO_PKG_VERSION"), " (feed fetcher)");

const ACCEPT_FEEDS: &str = "application/rss+xml, application/atom+xml, application/feed+json, \
                            application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, \
                            application/json;q=0.8, */*;q=0.5";

/// How feeds are fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchConfig {
    /// Total time for one fetch, redirects and body included.
    pub timeout: Duration,
    /// Largest body accepted, in bytes.
    pub max_bytes: usize,
    /// Whether loopback, private and other reserved addresses may be fetched (local stacks and
    /// tests only).
    pub allow_private_networks: bool,
    pub user_agent: String,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
            max_bytes: DEFAULT_MAX_BYTES,
            allow_private_networks: false,
            user_agent: DEFAULT_USER_AGENT.to_string(),
        }
    }
}

impl FetchConfig {
    /// Reads `FEED_FETCH_TIMEOUT_SECONDS` (seconds, fractions allowed; default 10),
    /// `FEED_MAX_BYTES` (default 5 MiB), `FEED_ALLOW_PRIVATE_NETWORKS` (`true`/`false`, default
    /// false) and `FEED_USER_AGENT` (optional).
    pub fn from_env(env: &platform::Env) -> Result<Self, platform::ConfigError> {
        let invalid = |name: &str, reason: &str| platform::ConfigError::Invalid {
            name: name.to_string(),
            reason: reason.to_string(),
        };
        let defaults = Self::default();

        let timeout = match env.get("FEED_FETCH_TIMEOUT_SECONDS") {
            None => defaults.timeout,
            Some(raw) => {
                let secs: f64 = raw
                    .trim()
                    .parse()
                    .map_err(|_| invalid("FEED_FETCH_TIMEOUT_SECONDS", "not a number"))?;
                if !(secs > 0.0 && secs <= 3600.0) {
                    return Err(invalid(
                        "FEED_FETCH_TIMEOUT_SECONDS",
                        "must be more than 0 and at most 3600",
                    ));
                }
                Duration::from_secs_f64(secs)
            }
        };

        let max_bytes: usize = env.parse_or("FEED_MAX_BYTES", defaults.max_bytes)?;
        if max_bytes == 0 {
            return Err(invalid("FEED_MAX_BYTES", "must be more than 0"));
        }

        let allow_private_networks = match env.get("FEED_ALLOW_PRIVATE_NETWORKS") {
            None => false,
            Some(raw) => match raw.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => true,
                "false" | "0" | "no" => false,
                _ => {
                    return Err(invalid(
                        "FEED_ALLOW_PRIVATE_NETWORKS",
                        "must be true or false",
                    ))
                }
            },
        };

        let user_agent = env
            .get("FEED_USER_AGENT")
            .map(str::to_string)
            .unwrap_or(defaults.user_agent);

        Ok(Self {
            timeout,
            max_bytes,
            allow_private_networks,
            user_agent,
        })
    }
}

/// Cache validators from an earlier fetch, sent as `If-None-Match` and `If-Modified-Since`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// What a fetch produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// The server answered 304: the feed has not changed since the validators were issued.
    NotModified,
    /// The server answered 2xx with the feed document.
    Fetched {
        /// The raw body, undecoded (feed parsers read the encoding from the document).
        body: Bytes,
        /// Validators for the next fetch.
        etag: Option<String>,
        last_modified: Option<String>,
        /// The URL the body came from, after redirects.
        final_url: String,
    },
}

/// Why a fetch failed. The messages are written for the user who submitted the URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The URL (or a redirect target) is not a fetchable http(s) URL.
    #[error("the feed URL is invalid: {0}")]
    InvalidUrl(String),
    /// The host is, or resolves to, a private or reserved address.
    #[error("{0} is on a private or reserved network and cannot be fetched")]
    Blocked(String),
    /// The fetch did not finish within the configured time.
    #[error("the feed server did not respond in time")]
    Timeout,
    /// The body is larger than the configured cap.
    #[error("the feed is larger than the allowed size")]
    TooLarge,
    /// The server answered with a status that is neither success, redirect nor 304.
    #[error("the feed server answered with HTTP status {0}")]
    Status(u16),
    /// Connection, TLS or protocol failure, or too many redirects.
    #[error("could not fetch the feed: {0}")]
    Network(String),
}

/// Fetches feed documents; cheap to share (one connection pool).
#[derive(Debug, Clone)]
pub struct FeedFetcher {
    client: reqwest::Client,
    config: FetchConfig,
}

impl FeedFetcher {
    pub fn new(config: FetchConfig) -> Result<Self, FetchError> {
        let resolver = GuardedResolver {
            allow_private_networks: config.allow_private_networks,
        };
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .user_agent(config.user_agent.clone())
            .dns_resolver(Arc::new(resolver))
            .no_proxy()
            .build()
            .map_err(|e| FetchError::Network(format!("the HTTP client could not start: {e}")))?;
        Ok(Self { client, config })
    }

    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// Fetches `url`, sending `validators` as conditional headers.
    pub async fn fetch(
        &self,
        url: &str,
        validators: &Validators,
    ) -> Result<FetchOutcome, FetchError> {
        let start = Url::parse(url.trim()).map_err(|e| FetchError::InvalidUrl(e.to_string()))?;
        match tokio::time::timeout(self.config.timeout, self.fetch_hops(start, validators)).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout),
        }
    }

    async fn fetch_hops(
        &self,
        mut current: Url,
        validators: &Validators,
    ) -> Result<FetchOutcome, FetchError> {
        for hop in 0..=MAX_REDIRECTS {
            current.set_fragment(None);
            self.check_target(&current)?;

            let mut request = self
                .client
                .get(current.clone())
                .header(ACCEPT, HeaderValue::from_static(ACCEPT_FEEDS));
            if let Some(v) = header_value(validators.etag.as_deref()) {
                request = request.header(IF_NONE_MATCH, v);
            }
            if let Some(v) = header_value(validators.last_modified.as_deref()) {
                request = request.header(IF_MODIFIED_SINCE, v);
            }
            let mut response = request.send().await.map_err(map_reqwest_error)?;
            let status = response.status();

            if status == StatusCode::NOT_MODIFIED {
                return Ok(FetchOutcome::NotModified);
            }
            if is_followed_redirect(status) {
                let location = response
                    .headers()
                    .get(LOCATION)
                    .ok_or(FetchError::Status(status.as_u16()))?
                    .to_str()
                    .map_err(|_| {
                        FetchError::InvalidUrl("the redirect target is not a valid URL".into())
                    })?
                    .trim()
                    .to_string();
                if hop == MAX_REDIRECTS {
                    break;
                }
                current = current.join(&location).map_err(|e| {
                    FetchError::InvalidUrl(format!("the redirect target is not a valid URL ({e})"))
                })?;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Status(status.as_u16()));
            }

            let max = self.config.max_bytes;
            if response
                .content_length()
                .is_some_and(|len| len > max as u64)
            {
                return Err(FetchError::TooLarge);
            }
            let capacity = response
                .content_length()
                .map(|len| len as usize)
                .unwrap_or(64 * 1024)
                .min(max);
            let etag = header_string(response.headers().get(ETAG));
            let last_modified = header_string(response.headers().get(LAST_MODIFIED));
            let mut body = BytesMut::with_capacity(capacity);
            while let Some(chunk) = response.chunk().await.map_err(map_reqwest_error)? {
                if body.len() + chunk.len() > max {
                    return Err(FetchError::TooLarge);
                }
                body.extend_from_slice(&chunk);
            }
            return Ok(FetchOutcome::Fetched {
                body: body.freeze(),
                etag,
                last_modified,
                final_url: current.to_string(),
            });
        }
        Err(FetchError::Network(format!(
            "too many redirects (more than {MAX_REDIRECTS})"
        )))
    }

    /// Checks one hop's URL: http(s), no credentials, and no blocked IP literal (host names
    /// are checked by the resolver when the connection is made).
    fn check_target(&self, url: &Url) -> Result<(), FetchError> {
        crate::url::check_url(url).map_err(|e| FetchError::InvalidUrl(format!("the URL {e}")))?;
        if self.config.allow_private_networks {
            return Ok(());
        }
        let ip = match url.host() {
            Some(Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(Host::Ipv6(ip)) => IpAddr::V6(ip),
            _ => return Ok(()),
        };
        if is_blocked_ip(ip) {
            return Err(FetchError::Blocked(ip.to_string()));
        }
        Ok(())
    }
}

fn is_followed_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

fn header_value(value: Option<&str>) -> Option<HeaderValue> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .and_then(|v| HeaderValue::from_str(v).ok())
}

fn header_string(value: Option<&HeaderValue>) -> Option<String> {
    value
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

fn map_reqwest_error(error: reqwest::Error) -> FetchError {
    let mut source: Option<&(dyn StdError + 'static)> = Some(&error);
    let mut innermost = String::new();
    while let Some(e) = source {
        if let Some(blocked) = e.downcast_ref::<BlockedAddress>() {
            return FetchError::Blocked(blocked.host.clone());
        }
        innermost = e.to_string();
        source = e.source();
    }
    if error.is_timeout() {
        return FetchError::Timeout;
    }
    let what = if error.is_connect() {
        "could not connect to the server"
    } else if error.is_body() || error.is_decode() {
        "the response body could not be read"
    } else {
        "the request failed"
    };
    if innermost.is_empty() || innermost == error.to_string() {
        FetchError::Network(what.to_string())
    } else {
        FetchError::Network(format!("{what} ({innermost})"))
    }
}

/// Raised by [`GuardedResolver`] when a host resolves to a blocked address.
#[derive(Debug)]
struct BlockedAddress {
    host: String,
    ip: IpAddr,
}

impl std::fmt::Display for BlockedAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} resolves to the blocked address {}",
            self.host, self.ip
        )
    }
}

impl StdError for BlockedAddress {}

/// The HTTP client's resolver: system DNS through `tokio::net::lookup_host`, refusing hosts
/// with any blocked address unless private networks are allowed.
#[derive(Debug)]
struct GuardedResolver {
    allow_private_networks: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_string();
        let allow = self.allow_private_networks;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if addrs.is_empty() {
                return Err(format!("{host} has no address").into());
            }
            if !allow {
                if let Some(bad) = addrs.iter().find(|a| is_blocked_ip(a.ip())) {
                    return Err(Box::new(BlockedAddress { host, ip: bad.ip() })
                        as Box<dyn StdError + Send + Sync>);
                }
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Whether an address is refused when private networks are not allowed: anything that is not
/// an ordinary public unicast address.
pub fn is_blocked_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_blocked_v4(v4),
        IpAddr::V6(v6) => is_blocked_v6(v6),
    }
}

fn is_blocked_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    a == 0 // "this network", includes the unspecified address
        || a == 10 // private
        || a == 127 // loopback
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 169 && b == 254) // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b)) // private
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 192 && b == 168) // private
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation
        || (a == 203 && b == 0 && c == 113) // documentation
        || a >= 224 // multicast, reserved, broadcast
}

fn is_blocked_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    if ip.is_unspecified() || ip.is_loopback() {
        return true;
    }
    // Addresses that embed an IPv4 address are judged by it.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_blocked_v4(v4);
    }
    if segments[..6] == [0, 0, 0, 0, 0, 0] {
        // IPv4-compatible (deprecated): ::a.b.c.d
        return is_blocked_v4(embedded_v4(segments[6], segments[7]));
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        // NAT64
        return is_blocked_v4(embedded_v4(segments[6], segments[7]));
    }
    if segments[0] == 0x2002 {
        // 6to4
        return is_blocked_v4(embedded_v4(segments[1], segments[2]));
    }
    let first = segments[0];
    (first & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (first & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated)
        || (first & 0xff00) == 0xff00 // multicast
        || (first == 0x2001 && segments[1] == 0x0db8) // documentation
        || (first == 0x0100 && segments[1..4] == [0, 0, 0]) // discard-only 100::/64
}

fn embedded_v4(high: u16, low: u16) -> Ipv4Addr {
    let [a, b] = high.to_be_bytes();
    let [c, d] = low.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_address_table() {
        let blocked = [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.8.9.10",
            "169.254.169.254",
            "169.254.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456:789a::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:192.168.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:0101::1",
            "2001:db8::1",
        ];
        for ip in blocked {
            assert!(is_blocked_ip(ip.parse().unwrap()), "{ip} should be blocked");
        }
        let allowed = [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "169.253.1.1",
            "192.169.0.1",
            "11.0.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:80b::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
        ];
        for ip in allowed {
            assert!(
                !is_blocked_ip(ip.parse().unwrap()),
                "{ip} should be allowed"
            );
        }
    }

    #[tokio::test]
    async fn every_hop_is_checked() {
        let guarded = FeedFetcher::new(FetchConfig::default()).unwrap();
        let open = FeedFetcher::new(FetchConfig {
            allow_private_networks: true,
            ..FetchConfig::default()
        })
        .unwrap();
        let check = |f: &FeedFetcher, raw: &str| f.check_target(&Url::parse(raw).unwrap());

        for raw in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:10.0.0.1]/",
            "http://[fd00::1]/",
            "http://0x7f.1/",
            "http://2130706433/",
        ] {
            assert!(
                matches!(check(&guarded, raw), Err(FetchError::Blocked(_))),
                "{raw}"
            );
            assert_eq!(check(&open, raw), Ok(()), "{raw}");
        }
        assert_eq!(check(&guarded, "https://93.184.216.34/feed"), Ok(()));
        assert_eq!(check(&guarded, "https://news.example.com/feed"), Ok(()));
        for raw in [
            "ftp://example.com/",
            "http://u:p@example.com/",
            "data:text/plain,x",
        ] {
            assert!(
                matches!(check(&open, raw), Err(FetchError::InvalidUrl(_))),
                "{raw}"
            );
        }
    }

    #[test]
    fn config_from_env() {
        let env = platform::Env::new();
        assert_eq!(FetchConfig::from_env(&env).unwrap(), FetchConfig::default());

        let env = platform::Env::new()
            .with("FEED_FETCH_TIMEOUT_SECONDS", "2.5")
            .with("FEED_MAX_BYTES", "1024")
            .with("FEED_ALLOW_PRIVATE_NETWORKS", "TRUE")
            .with("FEED_USER_AGENT", "test-agent");
        let config = FetchConfig::from_env(&env).unwrap();
        assert_eq!(config.timeout, Duration::from_millis(2500));
        assert_eq!(config.max_bytes, 1024);
        assert!(config.allow_private_networks);
        assert_eq!(config.user_agent, "test-agent");

        for (key, value) in [
            ("FEED_FETCH_TIMEOUT_SECONDS", "0"),
            ("FEED_FETCH_TIMEOUT_SECONDS", "-1"),
            ("FEED_FETCH_TIMEOUT_SECONDS", "soon"),
            ("FEED_FETCH_TIMEOUT_SECONDS", "NaN"),
            ("FEED_MAX_BYTES", "0"),
            ("FEED_MAX_BYTES", "lots"),
            ("FEED_ALLOW_PRIVATE_NETWORKS", "maybe"),
        ] {
            let env = platform::Env::new().with(key, value);
            assert!(
                FetchConfig::from_env(&env).is_err(),
                "{key}={value} should be refused"
            );
        }
    }

    #[test]
    fn error_messages_are_for_users() {
        assert_eq!(
            FetchError::Status(404).to_string(),
            "the feed server answered with HTTP status 404"
        );
        assert_eq!(
            FetchError::Blocked("127.0.0.1".into()).to_string(),
            "127.0.0.1 is on a private or reserved network and cannot be fetched"
        );
    }
}
