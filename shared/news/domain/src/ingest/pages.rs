//! Article pages for the full text of excerpt-only feeds: the ingest lists the pages its new
//! articles want and sends the page queue a [`ReadPages`]; the page reader
//! ([`PageReading`], the page reader function's side) claims and reads them. The readability
//! extractor and its HTML tree are linked into the page reader function alone.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::StreamExt;

use super::queue::{PageQueue, ReadPages};
use super::Ingest;
use crate::fetch::{FeedFetcher, FetchConfig};
use crate::fulltext::{PageReader, MAX_PAGES_PER_REFRESH};
use crate::model::FullTextMode;
use crate::model::Source;
use crate::store::{ContentStore, NewArticle, PendingPage, StoreError};

/// Article pages fetched at once for one source (the per-host gap still spaces one host's).
const PAGE_CONCURRENCY: usize = 4;

/// The longest one pages message waits for article pages; those not started by then stay
/// listed for the next message.
pub const PAGES_BUDGET: std::time::Duration = std::time::Duration::from_secs(8);

impl Ingest {
    /// Lists the pages of the new articles the source's [`FullTextMode`] wants, for the page
    /// reader to fetch ([`PageReading::read`] takes them); returns how many.
    pub(super) async fn defer_full_text(
        &self,
        source: &Source,
        articles: &[NewArticle],
    ) -> Result<usize, StoreError> {
        if source.full_text == FullTextMode::Off {
            return Ok(0);
        }
        let wanted: Vec<&str> = articles
            .iter()
            .filter(|a| a.link.is_some() && crate::fulltext::wants(source.full_text, &a.paragraphs))
            .map(|a| a.id.as_str())
            .collect();
        if wanted.is_empty() {
            return Ok(0);
        }
        let stored = self.store.existing_article_ids(&wanted).await?;
        let mut seen = HashSet::new();
        let later: Vec<&NewArticle> = articles
            .iter()
            .filter(|a| wanted.contains(&a.id.as_str()) && !stored.contains(&a.id))
            .filter(|a| seen.insert(a.id.clone()))
            .collect();
        self.store.add_pending_pages(&later).await?;
        Ok(later.len())
    }

    /// Whether the source has listed pages left (one Query); a source set to `off` has none
    /// to read.
    pub(super) async fn has_pending_pages(&self, source: &Source) -> Result<bool, StoreError> {
        if source.full_text == FullTextMode::Off {
            return Ok(false);
        }
        // Up to a full message's worth: rows past their time are skipped, not counted.
        let pending = self
            .store
            .pending_pages(&source.id, MAX_PAGES_PER_REFRESH)
            .await?;
        Ok(!pending.is_empty())
    }

    /// Sends the page queue the source's pages message; `false` when it could not be sent
    /// (logged: the pages stay listed, and the source's next refresh sends again).
    pub(super) async fn enqueue_pages(&self, source_id: &str) -> bool {
        match self.pages.send(&ReadPages::new(source_id)).await {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!(source_id, %error, "article pages not enqueued; the next refresh sends again");
                false
            }
        }
    }
}

/// What one pages message did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PagesReport {
    /// The source is gone or retired: nothing read.
    pub gone: bool,
    /// The source's `fullText` is `off`: nothing read (its list expires).
    pub off: bool,
    /// Listed pages claimed (each fetched at most once, by this message alone).
    pub claimed: usize,
    /// Articles given the text of their page.
    pub full_text: usize,
    /// Pages are still listed after this message (past its 10 pages or its budget).
    pub more: bool,
    /// One more pages message was sent for them.
    pub enqueued: bool,
}

/// Reads the article pages listed for a source: what the page reader function does with
/// each [`ReadPages`]. Only the content table, the page reader and the page queue: the feed
/// queue and the WebSub hub of an [`Ingest`] are not needed here.
#[derive(Clone, Debug)]
pub struct PageReading {
    store: ContentStore,
    reader: PageReader,
    queue: PageQueue,
    budget: std::time::Duration,
}

impl PageReading {
    pub fn new(store: ContentStore, reader: PageReader, queue: PageQueue) -> Self {
        Self {
            store,
            reader,
            queue,
            budget: PAGES_BUDGET,
        }
    }

    /// The same reading with another time budget per message.
    pub fn with_budget(mut self, budget: std::time::Duration) -> Self {
        self.budget = budget;
        self
    }

    /// The content table (`CONTENT_TABLE`), a page reader fetching with the `FEED_*`
    /// settings, and the page queue (`PAGE_QUEUE_URL`).
    pub fn from_env(
        env: &platform::Env,
        aws: &platform::aws::AwsClients,
    ) -> Result<Self, crate::StartError> {
        Ok(Self::new(
            ContentStore::from_env(env, aws)?,
            PageReader::new(FeedFetcher::new(FetchConfig::from_env(env)?)?),
            PageQueue::from_env(env, aws.sqs())?,
        ))
    }

    /// Claims and reads up to `MAX_PAGES_PER_REFRESH` of the source's listed pages within
    /// the budget, writing each page's text into its stored article; when pages are still
    /// listed afterwards, sends one more pages message (each page is claimed once, so the
    /// chain ends). `Err` only when the content table fails.
    pub async fn read(&self, source_id: &str) -> Result<PagesReport, StoreError> {
        match self.store.pages_mode(source_id).await? {
            None => {
                return Ok(PagesReport {
                    gone: true,
                    ..Default::default()
                })
            }
            Some(FullTextMode::Off) => {
                return Ok(PagesReport {
                    off: true,
                    ..Default::default()
                })
            }
            Some(_) => {}
        }
        // One row past this message's room says whether more wait.
        let mut pending = self
            .store
            .pending_pages(source_id, MAX_PAGES_PER_REFRESH + 1)
            .await?;
        let past_room = pending.len() > MAX_PAGES_PER_REFRESH;
        pending.truncate(MAX_PAGES_PER_REFRESH);
        let listed = pending.len();
        let started = AtomicUsize::new(0);
        let work: Vec<_> = pending
            .into_iter()
            .map(|page| self.page(source_id, page, &started))
            .collect();
        let outcomes: Vec<Result<PageDone, StoreError>> = futures::stream::iter(work)
            .buffer_unordered(PAGE_CONCURRENCY)
            .take_until(tokio::time::sleep(self.budget))
            .collect()
            .await;
        let mut report = PagesReport::default();
        for outcome in outcomes {
            match outcome? {
                PageDone::Read => {
                    report.claimed += 1;
                    report.full_text += 1;
                }
                PageDone::Unread => report.claimed += 1,
                PageDone::Taken => {}
            }
        }
        let started = started.into_inner();
        // Pages not started keep their rows; a claimed page is never listed again.
        report.more = past_room || started < listed;
        // Only after progress: a message that started nothing does not chain another.
        if report.more && started > 0 {
            match self.queue.send(&ReadPages::new(source_id)).await {
                Ok(()) => report.enqueued = true,
                Err(error) => {
                    tracing::warn!(source_id, %error, "next pages message not enqueued; the next refresh sends one");
                }
            }
        }
        Ok(report)
    }

    /// Claims one listed page, then fetches it and writes its text into the stored article.
    async fn page(
        &self,
        source_id: &str,
        page: PendingPage,
        started: &AtomicUsize,
    ) -> Result<PageDone, StoreError> {
        started.fetch_add(1, Ordering::Relaxed);
        if !self.store.claim_pending_page(source_id, &page).await? {
            return Ok(PageDone::Taken);
        }
        let Some(paragraphs) = self.reader.full_text(&page.link).await else {
            return Ok(PageDone::Unread);
        };
        if self
            .store
            .set_article_paragraphs(&page.article_id, &paragraphs)
            .await?
        {
            Ok(PageDone::Read)
        } else {
            Ok(PageDone::Unread)
        }
    }
}

/// What one listed page came to.
enum PageDone {
    /// Claimed, and its text written into the article.
    Read,
    /// Claimed, but no text (unreadable, refused, or the article is gone).
    Unread,
    /// Another reader claimed it first.
    Taken,
}
