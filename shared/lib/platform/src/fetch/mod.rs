//! Fetching documents from URLs that users submit, safely: news feeds and their article
//! pages, and recipe pages to import (moved here from the news domain so both use one guard).
//!
//! Anyone can submit a URL, so the fetcher treats every URL as hostile:
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
//!
//! The settings are in [`config`], the address guard in [`guard`].

mod config;
pub mod guard;
pub mod robots;

use std::error::Error as StdError;
use std::net::IpAddr;
use std::sync::Arc;

use bytes::BytesMut;
use reqwest::header::{
    HeaderValue, ACCEPT, CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED, LINK,
    LOCATION,
};
use reqwest::StatusCode;
use url::{Host, Url};

pub use self::config::FetchConfig;
pub use self::guard::is_blocked_ip;
use self::guard::{BlockedAddress, GuardedResolver};

/// Most redirects followed for one fetch.
pub const MAX_REDIRECTS: usize = 5;
pub use self::config::{
    DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, DEFAULT_TIMEOUT, DEFAULT_USER_AGENT,
};

/// What a fetch of an HTML page accepts.
pub const ACCEPT_HTML: &str = "text/html, application/xhtml+xml;q=0.9, */*;q=0.5";

const ACCEPT_FEEDS: &str = "application/rss+xml, application/atom+xml, application/feed+json, \
                            application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, \
                            application/json;q=0.8, */*;q=0.5";

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
        body: bytes::Bytes,
        /// Validators for the next fetch.
        etag: Option<String>,
        last_modified: Option<String>,
        /// The URL the body came from, after redirects.
        final_url: String,
        /// The response's `Content-Type`.
        content_type: Option<String>,
        /// The response's `Link` header values (WebSub names hubs there).
        links: Vec<String>,
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
        let client = crate::tls::http_client()
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

    /// Fetches `url` (a feed), sending `validators` as conditional headers.
    pub async fn fetch(
        &self,
        url: &str,
        validators: &Validators,
    ) -> Result<FetchOutcome, FetchError> {
        self.fetch_accepting(url, validators, ACCEPT_FEEDS).await
    }

    /// Fetches `url` with the `Accept` header `accept` ([`ACCEPT_HTML`] for a page), under the
    /// same guard, deadline, size cap and redirects as a feed.
    pub async fn fetch_accepting(
        &self,
        url: &str,
        validators: &Validators,
        accept: &'static str,
    ) -> Result<FetchOutcome, FetchError> {
        let start = Url::parse(url.trim()).map_err(|e| FetchError::InvalidUrl(e.to_string()))?;
        let hops = self.fetch_hops(start, validators, accept);
        match tokio::time::timeout(self.config.timeout, hops).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout),
        }
    }

    async fn fetch_hops(
        &self,
        mut current: Url,
        validators: &Validators,
        accept: &'static str,
    ) -> Result<FetchOutcome, FetchError> {
        for hop in 0..=MAX_REDIRECTS {
            current.set_fragment(None);
            self.check_target(&current)?;

            let mut request = self
                .client
                .get(current.clone())
                .header(ACCEPT, HeaderValue::from_static(accept));
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
                .is_some_and(|len| usize::try_from(len).map_or(true, |len| len > max))
            {
                return Err(FetchError::TooLarge);
            }
            let capacity = response
                .content_length()
                .and_then(|len| usize::try_from(len).ok())
                .unwrap_or(64 * 1024)
                .min(max);
            let etag = header_string(response.headers().get(ETAG));
            let last_modified = header_string(response.headers().get(LAST_MODIFIED));
            let content_type = header_string(response.headers().get(CONTENT_TYPE));
            let links = response
                .headers()
                .get_all(LINK)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .map(str::to_string)
                .collect();
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
                content_type,
                links,
            });
        }
        Err(FetchError::Network(format!(
            "too many redirects (more than {MAX_REDIRECTS})"
        )))
    }

    /// POSTs `form` (`application/x-www-form-urlencoded`) to `url` through the same guard and
    /// deadline as a fetch, redirects not followed; the answer's status. For WebSub hubs.
    pub async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        timeout: std::time::Duration,
    ) -> Result<u16, FetchError> {
        let target = Url::parse(url.trim()).map_err(|e| FetchError::InvalidUrl(e.to_string()))?;
        self.check_target(&target)?;
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let send = self
            .client
            .post(target)
            .header(
                CONTENT_TYPE,
                HeaderValue::from_static("application/x-www-form-urlencoded"),
            )
            .body(body)
            .send();
        let timeout = timeout.min(self.config.timeout);
        match tokio::time::timeout(timeout, send).await {
            Ok(Ok(response)) => Ok(response.status().as_u16()),
            Ok(Err(e)) => Err(map_reqwest_error(e)),
            Err(_) => Err(FetchError::Timeout),
        }
    }

    /// Whether `url` may be fetched as far as can be told without connecting: http(s), no
    /// credentials, not an IP literal of a blocked network (host names are judged by the
    /// resolver when connecting).
    pub fn check(&self, url: &str) -> Result<(), FetchError> {
        let url = Url::parse(url.trim()).map_err(|e| FetchError::InvalidUrl(e.to_string()))?;
        self.check_target(&url)
    }

    /// Checks one hop's URL: http(s), no credentials, and no blocked IP literal (host names
    /// are checked by the resolver when the connection is made).
    fn check_target(&self, url: &Url) -> Result<(), FetchError> {
        check_url(url).map_err(|e| FetchError::InvalidUrl(format!("the URL {e}")))?;
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

/// What a fetchable URL must be: http or https, with a host, without credentials (the
/// message follows "the URL ").
pub fn check_url(url: &Url) -> Result<(), String> {
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(format!("must use http or https, not {other}")),
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("must include a host name".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not contain a user name or password".into());
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

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
