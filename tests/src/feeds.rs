//! Feed servers for tests: an HTTP server on loopback that serves feed documents with ETag
//! and Last-Modified validators, answers conditional requests with 304, can stall, and counts
//! what it was asked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::server::{self, FakeServer};

/// The RSS 2.0 fixture: six items, categories, `content:encoded` HTML with scripts and styles.
pub const RSS2: &str = include_str!("../../shared/news/domain/tests/fixtures/rss2.xml");
/// The Atom fixture: four entries with HTML content.
pub const ATOM: &str = include_str!("../../shared/news/domain/tests/fixtures/atom.xml");
/// An HTML page that is not a feed.
pub const HTML_PAGE: &str = include_str!("../../shared/news/domain/tests/fixtures/page.html");

/// One document the server serves at a path.
#[derive(Clone, Debug)]
pub struct FeedDocument {
    pub body: String,
    pub content_type: &'static str,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Wait this long before answering (to make a fetch time out).
    pub delay: Option<Duration>,
}

impl FeedDocument {
    pub fn rss(body: impl Into<String>) -> Self {
        let body = body.into();
        Self {
            etag: Some(format!("\"{:x}\"", fnv(&body))),
            last_modified: Some("Tue, 04 Mar 2025 18:00:00 GMT".into()),
            body,
            content_type: "application/rss+xml; charset=utf-8",
            delay: None,
        }
    }

    pub fn atom(body: impl Into<String>) -> Self {
        Self {
            content_type: "application/atom+xml; charset=utf-8",
            ..Self::rss(body)
        }
    }

    pub fn html(body: impl Into<String>) -> Self {
        Self {
            content_type: "text/html; charset=utf-8",
            etag: None,
            last_modified: None,
            ..Self::rss(body)
        }
    }

    pub fn stalled(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }
}

/// What the server saw for one path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hits {
    pub full: usize,
    pub not_modified: usize,
}

#[derive(Default)]
struct Inner {
    documents: HashMap<String, FeedDocument>,
    hits: HashMap<String, Hits>,
}

/// A feed server on `127.0.0.1` and a random port; stops when dropped.
pub struct FeedServer {
    server: FakeServer<Inner>,
}

impl FeedServer {
    pub async fn start() -> Self {
        Self {
            server: FakeServer::start(Inner::default(), serve).await,
        }
    }

    /// The URL of `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// Serves `document` at `path` from now on.
    pub fn put(&self, path: &str, document: FeedDocument) -> String {
        self.lock().documents.insert(path.to_string(), document);
        self.url(path)
    }

    pub fn hits(&self, path: &str) -> Hits {
        self.lock().hits.get(path).cloned().unwrap_or_default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.server.lock()
    }
}

async fn serve(State(inner): State<Arc<Mutex<Inner>>>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let document = server::lock(&inner).documents.get(&path).cloned();
    let Some(document) = document else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if let Some(delay) = document.delay {
        tokio::time::sleep(delay).await;
    }
    let if_none_match = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    let unchanged = match (&document.etag, if_none_match) {
        (Some(etag), Some(asked)) => asked.split(',').any(|a| a.trim() == etag),
        _ => false,
    };
    {
        let mut guard = server::lock(&inner);
        let hits = guard.hits.entry(path).or_default();
        if unchanged {
            hits.not_modified += 1;
        } else {
            hits.full += 1;
        }
    }
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = document.body.clone().into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(document.content_type),
        );
        r
    };
    let headers = response.headers_mut();
    if let Some(etag) = document
        .etag
        .as_deref()
        .and_then(|e| HeaderValue::from_str(e).ok())
    {
        headers.insert(header::ETAG, etag);
    }
    if let Some(lm) = document
        .last_modified
        .as_deref()
        .and_then(|e| HeaderValue::from_str(e).ok())
    {
        headers.insert(header::LAST_MODIFIED, lm);
    }
    response
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

/// An RSS 2.0 feed of `items` items, newest first, each with two categories and an HTML body
/// of a few paragraphs; `first` numbers the first item (to make later editions of a feed).
pub fn generated_rss(title: &str, first: usize, items: usize) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" \
         xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">\n<channel>\n\
         <title>{title}</title>\n<link>https://news.example.com/</link>\n\
         <description>Generated test feed</description>\n"
    );
    let topics = ["World", "Science", "Tech", "Business", "Culture", "Sport"];
    for i in first..first + items {
        let minute = i % 60;
        let hour = (i / 60) % 24;
        let day = 1 + (i / 1440) % 28;
        out.push_str(&format!(
            "<item>\n<title>Story number {i} &amp; its follow-up</title>\n\
             <link>https://news.example.com/stories/{i}</link>\n\
             <guid isPermaLink=\"false\">story-{i}</guid>\n\
             <pubDate>Mon, {day:02} Sep 2025 {hour:02}:{minute:02}:00 +0000</pubDate>\n\
             <category>{}</category>\n<category>{}</category>\n\
             <description>Summary of story {i}.</description>\n\
             <content:encoded><![CDATA[<p>First paragraph of story {i}, with <b>bold</b> \
             text &amp; an entity.</p><script>track({i})</script><p>Second paragraph: \
             what happened next.</p><p>Third paragraph, quoting &ldquo;a source&rdquo;.</p>]]>\
             </content:encoded>\n</item>\n",
            topics[i % topics.len()],
            topics[(i + 1) % topics.len()],
        ));
    }
    out.push_str("</channel>\n</rss>\n");
    out
}
