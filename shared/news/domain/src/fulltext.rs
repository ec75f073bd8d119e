//! The full text of excerpt-only feeds: each new article's page fetched once, under the feed
//! fetcher's guard (private networks refused, deadline, size cap, bounded redirects), after
//! the host's robots.txt allows it and at most one page per host per [`HOST_GAP`], and reduced
//! to its main text by a readability extractor (dom_smoothie; docs/news-full-text.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use url::Url;

use crate::fetch::{FeedFetcher, FetchOutcome, Validators};
use crate::html::html_to_paragraphs;
use crate::store::cut_to_bytes;
pub use platform::fetch::robots::Robots;

use crate::model::FullTextMode;

/// Whether an entry whose feed text is `paragraphs` gets its page's text under `mode`.
pub fn wants(mode: FullTextMode, paragraphs: &[String]) -> bool {
    match mode {
        FullTextMode::On => true,
        FullTextMode::Off => false,
        FullTextMode::Auto => paragraphs.iter().map(String::len).sum::<usize>() < SHORT_ENTRY_BYTES,
    }
}

/// An entry with less text than this is an excerpt (`auto` fetches its page).
pub const SHORT_ENTRY_BYTES: usize = 600;
/// The most text an article keeps from its page: far inside the 400 KB item.
pub const MAX_FULL_TEXT_BYTES: usize = 128 * 1024;
/// Pages fetched in one refresh; the newer entries come first, the rest keep the excerpt.
pub const MAX_PAGES_PER_REFRESH: usize = 10;
/// The least time between two requests to one host (pages and robots.txt).
pub const HOST_GAP: Duration = Duration::from_millis(500);
/// How long a host's robots.txt is trusted.
const ROBOTS_TTL: Duration = Duration::from_secs(3600);
/// Hosts whose robots.txt one worker remembers; past it the cache starts over.
const ROBOTS_HOSTS: usize = 1000;
/// The token our robots.txt group is found by.
const ROBOTS_AGENT: &str = "newsreader";
/// Elements a page may have before the extractor gives up (bounds the work of a huge page).
const MAX_ELEMENTS: usize = 50_000;
/// Extracted text shorter than this is not an article (a paywall, an error page).
const MIN_ARTICLE_BYTES: usize = 200;

/// The main text of an article page as plain-text paragraphs, at most
/// [`MAX_FULL_TEXT_BYTES`]; empty when the page has no article text.
pub fn extract_paragraphs(html: &str, page_url: &str) -> Vec<String> {
    let config = dom_smoothie::Config {
        max_elements_to_parse: MAX_ELEMENTS,
        ..dom_smoothie::Config::default()
    };
    let url = Url::parse(page_url).ok().map(|u| u.to_string());
    let Ok(mut readability) = dom_smoothie::Readability::new(html, url.as_deref(), Some(config))
    else {
        return Vec::new();
    };
    let Ok(article) = readability.parse() else {
        return Vec::new();
    };
    let paragraphs = html_to_paragraphs(&article.content);
    if paragraphs.iter().map(String::len).sum::<usize>() < MIN_ARTICLE_BYTES {
        return Vec::new();
    }
    cap_paragraphs(paragraphs, MAX_FULL_TEXT_BYTES)
}

/// The paragraphs in order while they fit `max` bytes, the first that does not cut.
fn cap_paragraphs(paragraphs: Vec<String>, max: usize) -> Vec<String> {
    let mut room = max;
    let mut kept = Vec::new();
    for mut paragraph in paragraphs {
        if paragraph.len() <= room {
            room -= paragraph.len();
            kept.push(paragraph);
            continue;
        }
        cut_to_bytes(&mut paragraph, room);
        if !paragraph.is_empty() {
            kept.push(paragraph);
        }
        break;
    }
    kept
}

type RobotsCell = Arc<tokio::sync::OnceCell<Arc<Robots>>>;

/// Fetches article pages for their text: robots.txt cached per host, a gap per host.
#[derive(Debug, Clone)]
pub struct PageReader {
    fetcher: FeedFetcher,
    /// Per origin, when its robots.txt was asked for and the rules once read (one fetch
    /// however many pages of the origin ask at once).
    robots: Arc<Mutex<HashMap<String, (Instant, RobotsCell)>>>,
    /// When each host may next be asked.
    next_slot: Arc<Mutex<HashMap<String, Instant>>>,
    gap: Duration,
}

impl PageReader {
    pub fn new(fetcher: FeedFetcher) -> Self {
        Self::with_gap(fetcher, HOST_GAP)
    }

    pub fn with_gap(fetcher: FeedFetcher, gap: Duration) -> Self {
        Self {
            fetcher,
            robots: Arc::default(),
            next_slot: Arc::default(),
            gap,
        }
    }

    /// The main text of the page at `link`, or `None` when it cannot be had (refused by
    /// robots.txt or the guard, unreachable, not HTML, no article text in it).
    pub async fn full_text(&self, link: &str) -> Option<Vec<String>> {
        let url = Url::parse(link).ok()?;
        let host = url.host_str()?.to_ascii_lowercase();
        let origin = url.origin().ascii_serialization();
        let robots = self.robots_for(&origin).await;
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        if !robots.allows(&path) {
            tracing::info!(%host, %path, "robots.txt refuses the article page");
            return None;
        }
        self.wait_turn(&host).await;
        let outcome = self.fetcher.fetch(link, &Validators::default()).await;
        let (body, final_url) = match outcome {
            Ok(FetchOutcome::Fetched {
                body, final_url, ..
            }) => (body, final_url),
            Ok(FetchOutcome::NotModified) => return None,
            Err(error) => {
                tracing::info!(%host, %error, "article page not fetched");
                return None;
            }
        };
        let html = String::from_utf8_lossy(&body);
        let paragraphs = extract_paragraphs(&html, &final_url);
        (!paragraphs.is_empty()).then_some(paragraphs)
    }

    /// The rules of `origin`'s robots.txt, fetched at most once per [`ROBOTS_TTL`].
    async fn robots_for(&self, origin: &str) -> Arc<Robots> {
        let now = Instant::now();
        let cell = match self.robots.lock() {
            Ok(mut cache) => match cache.get(origin) {
                Some((at, cell)) if now.duration_since(*at) < ROBOTS_TTL => Arc::clone(cell),
                _ => {
                    if cache.len() >= ROBOTS_HOSTS {
                        cache.clear();
                    }
                    let cell = RobotsCell::default();
                    cache.insert(origin.to_string(), (now, Arc::clone(&cell)));
                    cell
                }
            },
            Err(_) => RobotsCell::default(),
        };
        Arc::clone(cell.get_or_init(|| self.read_robots(origin)).await)
    }

    /// Fetches and reads `origin`'s robots.txt.
    async fn read_robots(&self, origin: &str) -> Arc<Robots> {
        let host = Url::parse(origin)
            .ok()
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
            .unwrap_or_default();
        self.wait_turn(&host).await;
        let robots = match self
            .fetcher
            .fetch(&format!("{origin}/robots.txt"), &Validators::default())
            .await
        {
            Ok(FetchOutcome::Fetched { body, .. }) => {
                Robots::parse(&String::from_utf8_lossy(&body), ROBOTS_AGENT)
            }
            // No robots.txt (4xx): everything allowed.
            Err(crate::FetchError::Status(status)) if (400..500).contains(&status) => {
                Robots::default()
            }
            // Unreachable or a server error: nothing fetched until it can be read.
            _ => Robots::deny_all(),
        };
        Arc::new(robots)
    }

    /// Waits until `host` may be asked again, and takes that turn.
    async fn wait_turn(&self, host: &str) {
        let now = Instant::now();
        let at = match self.next_slot.lock() {
            Ok(mut slots) => {
                if slots.len() >= ROBOTS_HOSTS {
                    slots.retain(|_, at| *at > now);
                }
                let at = slots
                    .get(host)
                    .copied()
                    .filter(|at| *at > now)
                    .unwrap_or(now);
                slots.insert(host.to_string(), at + self.gap);
                at
            }
            Err(_) => now,
        };
        tokio::time::sleep_until(at.into()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_fetches_short_entries_only() {
        let short = vec!["A teaser of the story.".to_string()];
        let long = vec!["x".repeat(SHORT_ENTRY_BYTES)];
        assert!(wants(FullTextMode::Auto, &short));
        assert!(!wants(FullTextMode::Auto, &long));
        assert!(wants(FullTextMode::On, &long));
        assert!(!wants(FullTextMode::Off, &short));
        assert_eq!(FullTextMode::from_stored(None), FullTextMode::Auto);
        assert_eq!(FullTextMode::from_stored(Some("off")), FullTextMode::Off);
    }

    #[test]
    fn the_text_is_capped_on_a_paragraph_or_a_character() {
        let kept = cap_paragraphs(vec!["ab".into(), "cdé".into(), "fg".into()], 5);
        assert_eq!(kept, vec!["ab".to_string(), "cd".to_string()]);
    }
}
