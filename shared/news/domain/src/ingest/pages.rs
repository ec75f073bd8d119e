//! Article pages a refresh or a submission fetches for their full text.

use std::collections::HashSet;
use std::sync::Mutex;

use futures::StreamExt;

use super::Ingest;
use crate::fulltext::MAX_PAGES_PER_REFRESH;
use crate::model::FullTextMode;
use crate::model::Source;
use crate::store::{NewArticle, PendingPage, StoreError};

/// A page a refresh fetches: of a new article (its index), or one an earlier refresh left.
enum PageJob {
    New(usize, String),
    Pending(PendingPage),
}

/// What a [`PageJob`] did: a new article's text, or whether a stored article got its text.
enum PageDone {
    New(usize, Option<Vec<String>>),
    Stored(bool),
}

/// Article pages fetched at once in one refresh (the per-host gap still spaces one host's).
const PAGE_CONCURRENCY: usize = 4;

impl Ingest {
    /// Fetches the pages a refresh has room for (`MAX_PAGES_PER_REFRESH`, within `budget`):
    /// first those earlier refreshes left (when `take_pending`), each claimed before its
    /// fetch and its text written into the stored article; then the new articles that the
    /// source's [`FullTextMode`] wants, whose text replaces their feed text before they are
    /// stored. New articles left without a turn are listed for later refreshes; articles
    /// already stored are never fetched as new. Returns how many got their text and how many
    /// were left for later.
    pub(super) async fn add_full_text(
        &self,
        source: &Source,
        articles: &mut [NewArticle],
        budget: std::time::Duration,
        take_pending: bool,
    ) -> Result<(usize, usize), StoreError> {
        if source.full_text == FullTextMode::Off {
            return Ok((0, 0));
        }
        let pending = if take_pending {
            self.store
                .pending_pages(&source.id, MAX_PAGES_PER_REFRESH)
                .await?
        } else {
            Vec::new()
        };
        let wanted: Vec<&str> = articles
            .iter()
            .filter(|a| a.link.is_some() && crate::fulltext::wants(source.full_text, &a.paragraphs))
            .map(|a| a.id.as_str())
            .collect();
        let stored = if wanted.is_empty() {
            HashSet::new()
        } else {
            self.store.existing_article_ids(&wanted).await?
        };
        // A feed may repeat an entry: its page is fetched once.
        let mut seen = HashSet::new();
        let fresh: Vec<(usize, String)> = articles
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                crate::fulltext::wants(source.full_text, &a.paragraphs) && !stored.contains(&a.id)
            })
            .filter(|(_, a)| seen.insert(a.id.clone()))
            .filter_map(|(i, a)| a.link.clone().map(|link| (i, link)))
            .collect();
        let room = MAX_PAGES_PER_REFRESH.saturating_sub(pending.len());
        let jobs = pending.into_iter().map(PageJob::Pending).chain(
            fresh
                .iter()
                .take(room)
                .map(|(i, link)| PageJob::New(*i, link.clone())),
        );
        let started: Mutex<HashSet<usize>> = Mutex::default();
        let work: Vec<_> = jobs
            .map(|job| self.page_job(&source.id, job, &started))
            .collect();
        let outcomes: Vec<Result<PageDone, StoreError>> = futures::stream::iter(work)
            .buffer_unordered(PAGE_CONCURRENCY)
            .take_until(tokio::time::sleep(budget))
            .collect()
            .await;
        let mut added = 0;
        for outcome in outcomes {
            match outcome? {
                PageDone::New(i, Some(paragraphs)) => {
                    if let Some(article) = articles.get_mut(i) {
                        article.paragraphs = paragraphs;
                        added += 1;
                    }
                }
                PageDone::Stored(true) => added += 1,
                PageDone::New(_, None) | PageDone::Stored(false) => {}
            }
        }
        // A page asked for once is not asked for again, even when the budget cut it short.
        let started = started.into_inner().unwrap_or_default();
        let later: Vec<&NewArticle> = fresh
            .iter()
            .filter(|(i, _)| !started.contains(i))
            .filter_map(|(i, _)| articles.get(*i))
            .collect();
        self.store.add_pending_pages(&later).await?;
        Ok((added, later.len()))
    }

    /// Lists the pages of the new articles the source's [`FullTextMode`] wants, for the feed
    /// worker to fetch ([`Ingest::add_full_text`] takes them); returns how many.
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

    /// Fetches one page of `source_id`; a left one is claimed first and its text written into
    /// the stored article.
    async fn page_job(
        &self,
        source_id: &str,
        job: PageJob,
        started: &Mutex<HashSet<usize>>,
    ) -> Result<PageDone, StoreError> {
        match job {
            PageJob::New(i, link) => {
                if let Ok(mut started) = started.lock() {
                    started.insert(i);
                }
                Ok(PageDone::New(i, self.pages.full_text(&link).await))
            }
            PageJob::Pending(page) => {
                if !self.store.claim_pending_page(source_id, &page).await? {
                    return Ok(PageDone::Stored(false));
                }
                let Some(paragraphs) = self.pages.full_text(&page.link).await else {
                    return Ok(PageDone::Stored(false));
                };
                let stored = self
                    .store
                    .set_article_paragraphs(&page.article_id, &paragraphs)
                    .await?;
                Ok(PageDone::Stored(stored))
            }
        }
    }
}
