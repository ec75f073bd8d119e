//! The assistant's [`ArticleSource`] port over the content service's public API
//! (`GET {INTERNAL_API_URL}/api/content/articles/{id}`, no token), as the API says.
//!
//! Not found is the port's [`ArticleError::NotFound`]; anything else that goes wrong with the
//! content service (unreachable, slow, another status, an unreadable body) is
//! [`ArticleError::Unavailable`]; no base URL to call is [`ArticleError::Misconfigured`].

use std::time::{Duration, Instant};

use assistant::{Article, ArticleError, ArticleId, ArticleSource};
use platform::otel::{Otel, SpanKind, TRACEPARENT};
use platform::Env;
use url::Url;

/// How long the content service may take for one article.
pub const CONTENT_TIMEOUT: Duration = Duration::from_secs(10);
/// An article body larger than this is not an article.
const MAX_ARTICLE_BYTES: usize = 8 * 1024 * 1024;

/// A base URL that cannot be called.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
struct BadBaseUrl(String);

/// The content service's API, built once per cold start.
#[derive(Clone, Debug)]
pub struct ContentApi {
    http: reqwest::Client,
    /// `INTERNAL_API_URL`; an error when it is not a URL (reported on the requests that need
    /// it, not at start-up).
    configured: Option<Result<Url, BadBaseUrl>>,
    otel: Otel,
}

impl ContentApi {
    /// `internal_api_url` is `INTERNAL_API_URL`. When it is unset, each request reads the
    /// content service through the API it came through (see [`ContentApi::via`]); a deployed
    /// stack sets it because the API cannot be named in its own functions' environment.
    pub fn new(http: reqwest::Client, internal_api_url: Option<&str>, otel: Otel) -> Self {
        Self {
            http,
            configured: internal_api_url.map(base_url),
            otel,
        }
    }

    pub fn from_env(env: &Env, http: reqwest::Client, otel: Otel) -> Self {
        Self::new(http, env.get("INTERNAL_API_URL"), otel)
    }

    /// The articles as one request reads them: under `INTERNAL_API_URL`, else under
    /// `api_origin`, the public URL of the API the request came through (if it did).
    pub fn via(&self, api_origin: Option<String>) -> ContentReader<'_> {
        ContentReader {
            api: self,
            api_origin,
        }
    }

    /// The URL of article `id` (the id percent-encoded as one path segment).
    fn article_url(&self, id: &ArticleId, api_origin: Option<&str>) -> Result<Url, ArticleError> {
        let base = match (&self.configured, api_origin) {
            (Some(configured), _) => configured.clone(),
            (None, Some(origin)) => base_url(origin),
            (None, None) => Err(BadBaseUrl(
                "INTERNAL_API_URL is not set and the request did not come through the API, so \
                 the content service cannot be found"
                    .into(),
            )),
        };
        let misconfigured = |e: BadBaseUrl| ArticleError::Misconfigured(e.0);
        let mut url = base.map_err(misconfigured)?;
        url.path_segments_mut()
            .map_err(|()| misconfigured(BadBaseUrl("INTERNAL_API_URL".into())))?
            .pop_if_empty()
            .extend(["api", "content", "articles", id.as_str()]);
        Ok(url)
    }

    async fn fetch(
        &self,
        url: Url,
        id: &ArticleId,
        traceparent: Option<String>,
    ) -> Result<Article, ArticleError> {
        let unavailable = |reason: String| {
            tracing::warn!(article = id.as_str(), %reason, "content service failed");
            ArticleError::Unavailable {
                id: id.clone(),
                reason,
            }
        };
        let started = Instant::now();
        let mut request = self
            .http
            .get(url)
            .timeout(CONTENT_TIMEOUT)
            .header(reqwest::header::ACCEPT, "application/json");
        if let Some(value) = traceparent {
            request = request.header(TRACEPARENT, value);
        }
        let describe = |e: reqwest::Error| {
            if e.is_timeout() || started.elapsed() >= CONTENT_TIMEOUT {
                format!("no answer within {} s", CONTENT_TIMEOUT.as_secs())
            } else {
                "unreachable".to_string()
            }
        };
        let mut response = request.send().await.map_err(|e| unavailable(describe(e)))?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Err(ArticleError::NotFound(id.clone()));
        }
        if !status.is_success() {
            return Err(unavailable(format!("it answered HTTP {}", status.as_u16())));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| unavailable(describe(e)))?
        {
            if bytes.len() + chunk.len() > MAX_ARTICLE_BYTES {
                return Err(unavailable("the article is too large".into()));
            }
            bytes.extend_from_slice(&chunk);
        }
        let article: news_client::Article = serde_json::from_slice(&bytes)
            .map_err(|e| unavailable(format!("unreadable article: {e}")))?;
        Ok(Article {
            title: article.title,
            paragraphs: article.paragraphs.unwrap_or_default(),
        })
    }
}

/// [`ContentApi`] for one request.
pub struct ContentReader<'a> {
    api: &'a ContentApi,
    api_origin: Option<String>,
}

impl ArticleSource for ContentReader<'_> {
    async fn article(&self, id: &ArticleId) -> Result<Article, ArticleError> {
        let url = self.api.article_url(id, self.api_origin.as_deref())?;
        let mut span = self.api.otel.span(SpanKind::Client, || {
            "GET /api/content/articles/{id}".to_string()
        });
        span.attr("http.request.method", "GET");
        span.attr("url.full", url.as_str());
        let result = self.api.fetch(url, id, span.traceparent()).await;
        if let Err(e @ ArticleError::Unavailable { .. }) = &result {
            span.error(&e.to_string());
        }
        span.end();
        result
    }
}

fn base_url(raw: &str) -> Result<Url, BadBaseUrl> {
    let url =
        Url::parse(raw.trim()).map_err(|e| BadBaseUrl(format!("{raw:?} is not a URL: {e}")))?;
    if url.cannot_be_a_base() || !matches!(url.scheme(), "http" | "https") {
        return Err(BadBaseUrl(format!("{raw:?} is not an http(s) base URL")));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(base: &str) -> ContentApi {
        ContentApi::new(
            platform::tls::http_client().build().expect("client"),
            Some(base),
            Otel::default(),
        )
    }

    fn id(raw: &str) -> ArticleId {
        ArticleId::parse(raw).expect("id")
    }

    #[test]
    fn article_urls_encode_the_id() {
        let url = api("https://abc.execute-api.us-east-1.amazonaws.com")
            .article_url(&id("a b/c?d"), Some("https://ignored.example.com"))
            .expect("url");
        assert_eq!(
            url.as_str(),
            "https://abc.execute-api.us-east-1.amazonaws.com/api/content/articles/a%20b%2Fc%3Fd"
        );
        let prefixed = api("http://127.0.0.1:8080/base/")
            .article_url(&id("x"), None)
            .expect("url");
        assert_eq!(
            prefixed.as_str(),
            "http://127.0.0.1:8080/base/api/content/articles/x"
        );
        let unset = ContentApi::new(
            platform::tls::http_client().build().expect("client"),
            None,
            Otel::default(),
        );
        let through_api = unset
            .article_url(
                &id("x"),
                Some("https://abc.execute-api.eu-west-1.amazonaws.com"),
            )
            .expect("url");
        assert_eq!(
            through_api.as_str(),
            "https://abc.execute-api.eu-west-1.amazonaws.com/api/content/articles/x"
        );
        let err = unset
            .article_url(&id("x"), None)
            .expect_err("nowhere to ask");
        assert!(matches!(err, ArticleError::Misconfigured(_)), "{err}");
    }

    #[test]
    fn a_bad_internal_url_is_a_configuration_error_when_used() {
        for bad in ["not a url", "mailto:x@example.com", "ftp://host/"] {
            let err = api(bad).article_url(&id("x"), None).expect_err(bad);
            assert!(matches!(err, ArticleError::Misconfigured(_)), "{err}");
        }
    }

    #[tokio::test]
    async fn an_unreachable_content_service_is_unavailable() {
        // A port that was free a moment ago: connecting is refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let err = api(&format!("http://127.0.0.1:{port}"))
            .via(None)
            .article(&id("x"))
            .await
            .expect_err("unreachable");
        assert!(matches!(err, ArticleError::Unavailable { .. }), "{err}");
    }
}
