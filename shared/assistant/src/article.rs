//! Reading an article's text through the platform's public API
//! (`GET {INTERNAL_API_URL}/api/content/articles/{id}`, no token), as Document A says.
//!
//! Not found is the client's 404; an article without body paragraphs is a 400 (nothing to
//! work on); anything else that goes wrong with the content service (unreachable, slow,
//! another status, an unreadable body) is a 502.

use std::time::{Duration, Instant};

use platform::otel::{Otel, SpanKind, TRACEPARENT};
use platform::{ApiError, ErrorKind};
use serde::Deserialize;
use url::Url;

use crate::model::{ArticleId, ArticleText};

/// How long the content service may take for one article.
pub const CONTENT_TIMEOUT: Duration = Duration::from_secs(10);
/// An article body larger than this is not an article.
const MAX_ARTICLE_BYTES: usize = 8 * 1024 * 1024;

/// The fields of the content service's article that the assistant reads.
#[derive(Deserialize)]
struct ArticleBody {
    title: Option<String>,
    paragraphs: Option<Vec<String>>,
}

#[derive(Clone, Debug)]
pub struct ContentClient {
    http: reqwest::Client,
    /// `INTERNAL_API_URL`; `Err` when it is not a URL (a 500 on the requests that need it).
    configured: Option<Result<Url, String>>,
    otel: Otel,
}

impl ContentClient {
    /// `internal_api_url` is `INTERNAL_API_URL`. When it is unset, each request reads the
    /// content service through the API it came through (see [`ContentClient::article_text`]);
    /// a deployed stack sets it because the API cannot be named in its own functions'
    /// environment.
    pub fn new(http: reqwest::Client, internal_api_url: Option<&str>, otel: Otel) -> Self {
        Self {
            http,
            configured: internal_api_url.map(base_url),
            otel,
        }
    }

    /// The URL of article `id` (the id percent-encoded as one path segment) under
    /// `INTERNAL_API_URL`, else under `api_origin` (the API the request came through).
    pub fn article_url(&self, id: &ArticleId, api_origin: Option<&str>) -> Result<Url, ApiError> {
        let base = match (&self.configured, api_origin) {
            (Some(configured), _) => configured.clone(),
            (None, Some(origin)) => base_url(origin),
            (None, None) => Err("INTERNAL_API_URL is not set and the request did not come \
                                 through the API, so the content service cannot be found"
                .to_string()),
        };
        let mut url = base.map_err(|reason| ApiError::internal("configuration", reason))?;
        url.path_segments_mut()
            .map_err(|()| ApiError::internal("configuration", "INTERNAL_API_URL"))?
            .pop_if_empty()
            .extend(["api", "content", "articles", id.as_str()]);
        Ok(url)
    }

    /// The headline and body paragraphs of article `id`; `api_origin` is the public URL of
    /// the API the request came through, if it did.
    pub async fn article_text(
        &self,
        id: &ArticleId,
        api_origin: Option<&str>,
    ) -> Result<ArticleText, ApiError> {
        let url = self.article_url(id, api_origin)?;
        let mut span = self.otel.span(SpanKind::Client, || {
            "GET /api/content/articles/{id}".to_string()
        });
        span.attr("http.request.method", "GET");
        span.attr("url.full", url.as_str());
        let result = self.fetch(url, id, span.traceparent()).await;
        if let Err(e) = &result {
            if e.kind != ErrorKind::NotFound && e.kind != ErrorKind::BadRequest {
                span.error(&e.message);
            }
        }
        span.end();
        result
    }

    async fn fetch(
        &self,
        url: Url,
        id: &ArticleId,
        traceparent: Option<String>,
    ) -> Result<ArticleText, ApiError> {
        let unavailable = |reason: String| {
            tracing::warn!(article = id.as_str(), %reason, "content service failed");
            ApiError::bad_gateway(format!(
                "The content service could not provide article {}: {reason}",
                id.as_str()
            ))
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
            return Err(ApiError::not_found(format!(
                "Article {} not found",
                id.as_str()
            )));
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
        let article: ArticleBody = serde_json::from_slice(&bytes)
            .map_err(|e| unavailable(format!("unreadable article: {e}")))?;
        ArticleText::from_article(
            article.title.as_deref().unwrap_or(""),
            article.paragraphs.as_deref().unwrap_or(&[]),
        )
        .ok_or_else(|| {
            ApiError::bad_request(format!("Article {} has no content", id.as_str())).with_details(
                vec![format!(
                    "articleId: article {} has no body text to work on",
                    id.as_str()
                )],
            )
        })
    }
}

fn base_url(raw: &str) -> Result<Url, String> {
    let url = Url::parse(raw.trim()).map_err(|e| format!("{raw:?} is not a URL: {e}"))?;
    if url.cannot_be_a_base() || !matches!(url.scheme(), "http" | "https") {
        return Err(format!("{raw:?} is not an http(s) base URL"));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(base: &str) -> ContentClient {
        ContentClient::new(reqwest::Client::new(), Some(base), Otel::default())
    }

    #[test]
    fn article_urls_encode_the_id() {
        let id = ArticleId::parse("a b/c?d").expect("id");
        let url = client("https://abc.execute-api.us-east-1.amazonaws.com")
            .article_url(&id, Some("https://ignored.example.com"))
            .expect("url");
        assert_eq!(
            url.as_str(),
            "https://abc.execute-api.us-east-1.amazonaws.com/api/content/articles/a%20b%2Fc%3Fd"
        );
        let x = ArticleId::parse("x").expect("id");
        let prefixed = client("http://127.0.0.1:8080/base/")
            .article_url(&x, None)
            .expect("url");
        assert_eq!(
            prefixed.as_str(),
            "http://127.0.0.1:8080/base/api/content/articles/x"
        );
        let unset = ContentClient::new(reqwest::Client::new(), None, Otel::default());
        let through_api = unset
            .article_url(&x, Some("https://abc.execute-api.eu-west-1.amazonaws.com"))
            .expect("url");
        assert_eq!(
            through_api.as_str(),
            "https://abc.execute-api.eu-west-1.amazonaws.com/api/content/articles/x"
        );
        let err = unset.article_url(&x, None).expect_err("nowhere to ask");
        assert_eq!(err.status().as_u16(), 500);
    }

    #[test]
    fn a_bad_internal_url_is_a_500_when_used() {
        let id = ArticleId::parse("x").expect("id");
        for bad in ["not a url", "mailto:x@example.com", "ftp://host/"] {
            let err = client(bad).article_url(&id, None).expect_err(bad);
            assert_eq!(err.status().as_u16(), 500);
        }
    }

    #[tokio::test]
    async fn an_unreachable_content_service_is_a_502() {
        // A port that was free a moment ago: connecting is refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let err = client(&format!("http://127.0.0.1:{port}"))
            .article_text(&ArticleId::parse("x").expect("id"), None)
            .await
            .expect_err("unreachable");
        assert_eq!(err.status().as_u16(), 502, "{err}");
    }
}
