//! Discovery: from a site's address to its feeds. The page's `<link rel="alternate">` feeds
//! first, then the usual paths at its origin; every fetch through the fetcher (SSRF guard,
//! size cap, deadline), at most [`MAX_DISCOVERY_FETCHES`] per discovery, all of them within
//! one fetch timeout after the page.

use super::{Document, FetchedFeed, Ingest, IngestError};
use crate::model::{DiscoveredFeed, FeedKind, Source};
use crate::parse::discover::{feed_links, is_html, page_text, usual_feed_urls};
use crate::parse::{parse_feed, ParseError};
use crate::url::{normalise_feed_url, source_id};

/// Most fetches one discovery makes: the page, then up to seven candidates.
pub const MAX_DISCOVERY_FETCHES: usize = 8;

/// Where a page led.
pub(super) enum Followed {
    /// To a feed that is already a source.
    Known(Source),
    /// To a feed not stored yet: its normalised URL, fetched and parsed.
    Feed(String, Box<FetchedFeed>),
}

/// The name of a format, for a feed whose page gives it no title.
fn kind_name(kind: FeedKind) -> &'static str {
    match kind {
        FeedKind::Rss => "RSS feed",
        FeedKind::Atom => "Atom feed",
        FeedKind::Json => "JSON Feed",
    }
}

/// The candidates a page offers, in order, without repeats nor the page itself, each with
/// whether the page links to it (else it is a usual path).
fn candidates(page: &Document) -> Vec<(String, bool)> {
    let text = page_text(&page.body);
    let mut out: Vec<(String, bool)> = Vec::new();
    let linked = feed_links(&text, &page.final_url)
        .into_iter()
        .map(|l| (l.url, true));
    let usual = usual_feed_urls(&page.final_url)
        .into_iter()
        .map(|u| (u, false));
    for (url, is_linked) in linked.chain(usual) {
        if url != page.final_url && !out.iter().any(|(u, _)| *u == url) {
            out.push((url, is_linked));
        }
    }
    out
}

impl Ingest {
    /// The feed a page (not a feed: `not_a_feed`) leads to: the first of its candidates that
    /// is a known source or serves a feed. A document that is not HTML is not followed.
    pub(super) async fn follow_page(
        &self,
        page: &Document,
        not_a_feed: ParseError,
    ) -> Result<Followed, IngestError> {
        if !is_html(&page.body, page.content_type.as_deref()) {
            return Err(not_a_feed.into());
        }
        let candidates = candidates(page);
        let budget = self.fetcher.config().timeout;
        let mut first_failure: Option<String> = None;
        let walk = async {
            let mut fetches = 1;
            for (candidate, is_linked) in candidates {
                if fetches >= MAX_DISCOVERY_FETCHES {
                    break;
                }
                let Ok(url) = normalise_feed_url(&candidate) else {
                    continue;
                };
                // A link to a private network is refused before any read or fetch.
                if let Err(e) = self.fetcher.check(&url) {
                    if is_linked {
                        first_failure.get_or_insert_with(|| format!("{candidate}: {e}"));
                    }
                    continue;
                }
                if let Some(known) = self.store.source(&source_id(&url)).await? {
                    return Ok(Some(Followed::Known(known)));
                }
                fetches += 1;
                match self.fetch_document(&url).await {
                    Ok(document) => match parse_feed(&document.body, &document.final_url) {
                        Ok(feed) => {
                            return Ok(Some(Followed::Feed(
                                url,
                                Box::new(document.into_feed(feed)),
                            )))
                        }
                        Err(e) if is_linked => {
                            first_failure.get_or_insert_with(|| format!("{candidate}: {e}"));
                        }
                        Err(_) => {}
                    },
                    // Why a feed the page links to could not be read is worth telling; a usual
                    // path that is missing is not.
                    Err(e) if is_linked => {
                        first_failure.get_or_insert_with(|| format!("{candidate}: {e}"));
                    }
                    Err(_) => {}
                }
            }
            Ok::<_, IngestError>(None)
        };
        let found = match tokio::time::timeout(budget, walk).await {
            Ok(found) => found?,
            Err(_) => None,
        };
        found.ok_or_else(|| {
            IngestError::NoFeedFound(
                first_failure
                    .map(|f| format!(" (the page links to {f})"))
                    .unwrap_or_default(),
            )
        })
    }

    /// The feeds at `raw_url`, for a person to choose from: the feed itself when it is one;
    /// for a page, the feeds its links name (as named, not fetched), else the first usual
    /// path that serves a feed. Never stores anything.
    pub async fn discover(&self, raw_url: &str) -> Result<Vec<DiscoveredFeed>, IngestError> {
        let url = normalise_feed_url(raw_url)?;
        let page = self.fetch_document(&url).await?;
        let not_a_feed = match parse_feed(&page.body, &page.final_url) {
            Ok(feed) => {
                return Ok(vec![DiscoveredFeed {
                    url,
                    title: feed.title,
                    kind: feed.kind,
                }])
            }
            Err(e) => e,
        };
        if !is_html(&page.body, page.content_type.as_deref()) {
            return Err(not_a_feed.into());
        }
        let text = page_text(&page.body);
        let linked: Vec<DiscoveredFeed> = feed_links(&text, &page.final_url)
            .into_iter()
            .filter_map(|link| {
                let url = normalise_feed_url(&link.url).ok()?;
                Some(DiscoveredFeed {
                    url,
                    title: link
                        .title
                        .unwrap_or_else(|| kind_name(link.kind).to_string()),
                    kind: link.kind,
                })
            })
            .collect();
        if !linked.is_empty() {
            return Ok(linked);
        }
        let budget = self.fetcher.config().timeout;
        let probe = async {
            let paths = usual_feed_urls(&page.final_url);
            for candidate in paths.iter().take(MAX_DISCOVERY_FETCHES - 1) {
                let Ok(url) = normalise_feed_url(candidate) else {
                    continue;
                };
                let Ok(document) = self.fetch_document(&url).await else {
                    continue;
                };
                if let Ok(feed) = parse_feed(&document.body, &document.final_url) {
                    return Some(DiscoveredFeed {
                        url,
                        title: feed.title,
                        kind: feed.kind,
                    });
                }
            }
            None
        };
        match tokio::time::timeout(budget, probe).await {
            Ok(Some(found)) => Ok(vec![found]),
            _ => Err(IngestError::NoFeedFound(String::new())),
        }
    }
}

#[cfg(test)]
mod tests {
    use platform::aws::Sqs;
    use platform::dynamo::Table;
    use platform::Clock;

    use super::*;
    use crate::fetch::{FeedFetcher, FetchConfig, Validators};
    use crate::ingest::{PageQueue, RefreshQueue};
    use crate::store::ContentStore;

    /// An ingest that cannot reach any table or queue, fetching as deployed (private networks
    /// refused).
    fn offline_ingest() -> Ingest {
        let sqs = aws_sdk_sqs::Client::from_conf(
            aws_sdk_sqs::Config::builder()
                .behavior_version(aws_sdk_sqs::config::BehaviorVersion::latest())
                .region(aws_sdk_sqs::config::Region::new("us-east-1"))
                .build(),
        );
        Ingest::new(
            ContentStore::new(Table::offline("content"), Clock::system()),
            FeedFetcher::new(FetchConfig::default()).unwrap(),
            RefreshQueue::new(Sqs::new(sqs.clone()), "https://sqs.invalid/feeds"),
            PageQueue::new(Sqs::new(sqs), "https://sqs.invalid/pages"),
        )
    }

    #[tokio::test]
    async fn links_to_private_networks_are_refused_without_a_fetch() {
        let html = r#"<html><head>
            <link rel="alternate" type="application/rss+xml" href="http://10.0.0.1/feed.xml">
            <link rel="alternate" type="application/atom+xml" href="http://169.254.169.254/latest/meta-data/">
            <link rel="alternate" type="application/rss+xml" href="http://[::1]/rss">
            </head></html>"#;
        let page = Document {
            body: bytes::Bytes::from(html),
            validators: Validators::default(),
            // The usual paths at this origin are refused the same way.
            final_url: "http://192.168.1.20/blog/".into(),
            content_type: Some("text/html".into()),
            links: Vec::new(),
        };
        let started = std::time::Instant::now();
        let outcome = offline_ingest()
            .follow_page(&page, ParseError::NotAFeed("an HTML page".into()))
            .await;
        let Err(IngestError::NoFeedFound(reason)) = outcome else {
            panic!("expected no feed found");
        };
        assert_eq!(
            reason,
            " (the page links to http://10.0.0.1/feed.xml: 10.0.0.1 is on a private or reserved network and cannot be fetched)"
        );
        // Refused before connecting: no fetch, no table read (the table is offline).
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[tokio::test]
    async fn a_document_that_is_neither_feed_nor_page_is_not_followed() {
        let page = Document {
            body: bytes::Bytes::from_static(b"{\"not\": \"a feed\"}"),
            validators: Validators::default(),
            final_url: "https://example.org/data.json".into(),
            content_type: Some("application/json".into()),
            links: Vec::new(),
        };
        let outcome = offline_ingest()
            .follow_page(&page, ParseError::NotAFeed("other JSON".into()))
            .await;
        assert!(matches!(outcome, Err(IngestError::NotAFeed(_))));
    }
}
