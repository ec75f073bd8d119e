//! Feed ingestion: what happens when a feed is submitted and whenever it is refreshed.

mod discover;
mod pages;
mod push;
mod queue;
mod schedule;

use chrono::{DateTime, Duration, Utc};
use platform::clock::rfc3339;
use platform::Clock;

use crate::fetch::{FeedFetcher, FetchError, FetchOutcome, Validators};
use crate::model::{Source, TopicRef};
use crate::parse::{parse_feed, ParseError, ParsedFeed};
use crate::store::{
    cut_to_bytes, fit_article, ContentStore, FetchState, NewArticle, NewSource, StoreError, Upsert,
    MAX_TEXT_FIELD_BYTES, MAX_TITLE_BYTES,
};
use crate::url::{normalise_feed_url, source_id, FeedUrlError};
use crate::websub::{Hub, PushTarget};

/// How often a healthy source is refreshed, and the longest back-off for a failing one.
pub const REFRESH_INTERVAL_MINUTES: i64 = 15;
pub const MAX_BACKOFF_MINUTES: i64 = 24 * 60;

/// Why a submission or a refresh failed.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("{0}")]
    InvalidUrl(#[from] FeedUrlError),
    #[error("{0}")]
    Fetch(#[from] FetchError),
    #[error("{0}")]
    NotAFeed(#[from] ParseError),
    /// The address is a page, and neither its links nor the usual paths serve a feed.
    #[error("no feed found at this address{0}")]
    NoFeedFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The source's next refresh could not be enqueued: the refresh is to be tried again.
    #[error(transparent)]
    Queue(#[from] platform::queue::QueueError),
}

/// What one refresh did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RefreshReport {
    pub not_modified: bool,
    /// The source has no subscriber: not fetched.
    pub unsubscribed: bool,
    pub inserted: usize,
    pub already_stored: usize,
    /// Entries older than the newest `FEED_MAX_ENTRIES`, not stored.
    pub left_out: usize,
    /// Articles whose text was cut to fit an item.
    pub cut: usize,
    /// New articles whose page is listed for the page reader.
    pub pages_pending: usize,
    /// The page queue was sent the source's pages message: pages are listed (new ones, or
    /// left by earlier messages).
    pub pages_enqueued: bool,
    /// A pages message that arrived on the feed queue (sent before the page queue), forwarded
    /// to the page queue unread.
    pub pages_forwarded: bool,
    /// Not refreshed: the message was a repeat of one already handled (its `due` is not the
    /// source's next fetch time), or the source is not due yet (a long back-off takes
    /// several delayed hops, one enqueued again).
    pub skipped: bool,
    /// The source is gone or retired: its chain of refreshes ends.
    pub gone: bool,
}

/// Fetching, parsing and storing feeds: for a submitted URL and for each refresh.
#[derive(Clone, Debug)]
pub struct Ingest {
    store: ContentStore,
    fetcher: FeedFetcher,
    queue: RefreshQueue,
    /// Where the article pages new articles want are sent: the page reader reads them.
    pages: PageQueue,
    hub: Hub,
    clock: Clock,
}
/// The longest a submission waits for a WebSub hub to take its subscription request.
const SUBMIT_HUB_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// A fetched document, before it is known to be a feed.
#[derive(Debug)]
struct Document {
    body: bytes::Bytes,
    validators: Validators,
    final_url: String,
    content_type: Option<String>,
    links: Vec<String>,
}

impl Document {
    /// The document as the feed `feed` (its WebSub hub read from it and its `Link` header).
    fn into_feed(self, feed: ParsedFeed) -> FetchedFeed {
        let push = PushTarget::of(&feed, &self.links, &self.final_url);
        FetchedFeed {
            feed,
            validators: self.validators,
            push,
        }
    }
}

/// A fetched and parsed feed.
#[derive(Debug)]
struct FetchedFeed {
    feed: ParsedFeed,
    validators: Validators,
    /// The hub and topic it names, if any.
    push: Option<PushTarget>,
}

pub use self::discover::MAX_DISCOVERY_FETCHES;
pub use self::pages::{PageReading, PagesReport, PAGES_BUDGET};
pub use self::push::{Delivery, HubMode, Verification};
pub use self::queue::{
    FeedRefresh, MessageError, PageQueue, ReadPages, RefreshQueue, MAX_DELAY_SECONDS,
};
pub use self::schedule::{is_due, RefreshSchedule, WalkStep, LOST_AFTER_MINUTES};

/// A stable article id: the same entry of the same source always gets the same id, so a
/// refetch or a redelivered message cannot duplicate it.
pub fn article_id(source_id: &str, guid: &str) -> String {
    crate::url::source_id(&format!("{source_id}\n{guid}"))
}

impl Ingest {
    /// Stores with `store`, enqueues next refreshes on `queue` and article pages on `pages`,
    /// and tells the time by the store's clock.
    pub fn new(
        store: ContentStore,
        fetcher: FeedFetcher,
        queue: RefreshQueue,
        pages: PageQueue,
    ) -> Self {
        let clock = store.clock().clone();
        Self {
            store,
            pages,
            hub: Hub::new(fetcher.clone(), None),
            fetcher,
            queue,
            clock,
        }
    }

    /// The same ingest subscribing feeds that name a WebSub hub, with callbacks under
    /// `public_base_url` (none: feeds are polled only).
    pub fn with_public_base_url(mut self, public_base_url: Option<String>) -> Self {
        self.hub = Hub::new(self.fetcher.clone(), public_base_url);
        self
    }

    /// The content table (`CONTENT_TABLE`), a fetcher configured by the `FEED_*` variables,
    /// the feed queue (`FEED_QUEUE_URL`), the page queue (`PAGE_QUEUE_URL`) and the public base
    /// URL WebSub callbacks are under (`PUBLIC_BASE_URL`, optional).
    pub fn from_env(
        env: &platform::Env,
        aws: &platform::aws::AwsClients,
    ) -> Result<Self, crate::StartError> {
        Ok(Self::new(
            ContentStore::from_env(env, aws)?,
            FeedFetcher::new(crate::fetch::FetchConfig::from_env(env)?)?,
            RefreshQueue::from_env(env, aws.sqs())?,
            PageQueue::from_env(env, aws.sqs())?,
        )
        .with_public_base_url(env.get("PUBLIC_BASE_URL").map(str::to_string)))
    }

    /// The WebSub hub client (its callback base included), for the sweeper's unsubscribes.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    pub fn store(&self) -> &ContentStore {
        &self.store
    }

    /// Submits a feed URL, or a site's address: the existing source when the URL (or the feed
    /// the page leads to) is known (`false`), else fetches, parses and stores a new source with
    /// its articles (`true`). A page (HTML) is followed to its first feed: its
    /// `<link rel="alternate">` feeds, then the usual paths ([`MAX_DISCOVERY_FETCHES`] fetches
    /// at most). A feed naming a WebSub hub is subscribed through it once stored.
    pub async fn submit(&self, raw_url: &str) -> Result<(Source, bool), IngestError> {
        let url = normalise_feed_url(raw_url)?;
        let id = source_id(&url);
        if let Some(existing) = self.store.source(&id).await? {
            return Ok((existing, false));
        }
        let page = self.fetch_document(&url).await?;
        let (url, id, fetched) = match parse_feed(&page.body, &page.final_url) {
            Ok(feed) => {
                let fetched = page.into_feed(feed);
                (url, id, fetched)
            }
            Err(not_a_feed) => match self.follow_page(&page, not_a_feed).await? {
                discover::Followed::Known(source) => return Ok((source, false)),
                discover::Followed::Feed(url, fetched) => {
                    let id = source_id(&url);
                    (url, id, *fetched)
                }
            },
        };
        let FetchedFeed {
            feed,
            validators,
            push,
        } = fetched;
        let mut new = NewSource {
            id: id.clone(),
            url,
            title: feed.title.clone(),
            site_url: feed.site_url.clone(),
            description: feed.description.clone(),
        };
        cut_to_bytes(&mut new.title, MAX_TITLE_BYTES);
        if let Some(description) = new.description.as_mut() {
            cut_to_bytes(description, MAX_TEXT_FIELD_BYTES);
        }
        let (source, created) = self.store.create_source(new).await?;
        if created {
            self.take_entries(&source, &feed).await?;
            let state = self.healthy_state(validators, false);
            // The source's chain of refreshes starts here; lost, the scheduler's walk starts it.
            if let Some(due) = &state.next_fetch_at {
                let first = FeedRefresh::due(&id, due);
                if let Err(error) = self
                    .queue
                    .send_delayed(&first, first.delay_seconds(self.clock.now()))
                    .await
                {
                    tracing::warn!(source_id = %id, %error, "first refresh not enqueued; the scheduler will");
                }
            }
            self.store
                .record_fetch(&id, &state, None, true, None)
                .await?;
            // The user waits: a hub slower than this is asked again by the first refresh.
            self.keep_push(&id, push::Named::from(push), None, SUBMIT_HUB_TIMEOUT)
                .await;
        }
        let source = self.store.source(&id).await?.unwrap_or(source);
        Ok((source, created))
    }

    /// Refreshes one source with a conditional GET (the message `refresh` asks), then
    /// enqueues its next refresh and records the fetch; a failure to fetch, parse or store the
    /// feed backs the source off. A source without subscribers is not fetched, but stays on
    /// its chain until it is swept. Article pages are never read here: they are listed and
    /// the page queue is sent the source's pages message. A pages message (the feed queue's
    /// before the page queue) is forwarded to the page queue as it is.
    pub async fn refresh(&self, refresh: &FeedRefresh) -> Result<RefreshReport, IngestError> {
        let source_id = refresh.source_id.as_str();
        if refresh.pages {
            self.pages.send(&ReadPages::new(source_id)).await?;
            return Ok(RefreshReport {
                pages_forwarded: true,
                ..Default::default()
            });
        }
        let Some((source, state)) = self.store.source_for_fetch(source_id).await? else {
            return Ok(RefreshReport {
                gone: true,
                ..Default::default()
            });
        };
        let claimed = state.next_fetch_at.clone();
        let now = self.clock.now();
        if self.skips(refresh, &state, now).await? {
            return Ok(RefreshReport {
                skipped: true,
                ..Default::default()
            });
        }
        if source.subscriber_count <= 0 {
            let waiting = FetchState {
                next_fetch_at: Some(rfc3339(now + Duration::minutes(REFRESH_INTERVAL_MINUTES))),
                ..state
            };
            self.record(source_id, &waiting, claimed.as_deref(), false, None)
                .await?;
            return Ok(RefreshReport {
                unsubscribed: true,
                ..Default::default()
            });
        }
        let validators = Validators {
            etag: state.etag.clone(),
            last_modified: state.last_modified.clone(),
        };
        let pushed = push::is_live(state.push_until.as_deref(), now);
        let hub_timeout = self.fetcher.config().timeout;
        let error = match self.fetch_feed(&source.url, &validators).await {
            Ok(None) => {
                // Pages still listed do not wait for the feed to change.
                let pages_enqueued =
                    self.has_pending_pages(&source).await? && self.enqueue_pages(source_id).await;
                let healthy = self.healthy_state(validators, pushed);
                self.record(source_id, &healthy, claimed.as_deref(), true, None)
                    .await?;
                self.keep_push(
                    source_id,
                    push::Named::Unchanged,
                    state.push_until.as_deref(),
                    hub_timeout,
                )
                .await;
                return Ok(RefreshReport {
                    not_modified: true,
                    pages_enqueued,
                    ..Default::default()
                });
            }
            Ok(Some(FetchedFeed {
                feed,
                validators,
                push,
            })) => {
                match self.refresh_entries(&source, &feed).await {
                    Ok(report) => {
                        let mut title = feed.title.clone();
                        cut_to_bytes(&mut title, MAX_TITLE_BYTES);
                        let healthy = self.healthy_state(validators, pushed);
                        self.record(
                            source_id,
                            &healthy,
                            claimed.as_deref(),
                            true,
                            Some((&title, &source.title)),
                        )
                        .await?;
                        self.keep_push(
                            source_id,
                            push::Named::from(push),
                            state.push_until.as_deref(),
                            hub_timeout,
                        )
                        .await;
                        return Ok(report);
                    }
                    // A feed whose entries cannot be stored is backed off like one that cannot be
                    // fetched, or it would be tried again on every run.
                    Err(e) => IngestError::Store(e),
                }
            }
            Err(error) => error,
        };
        self.back_off(source_id, state, claimed.as_deref(), &error)
            .await?;
        Err(error)
    }

    /// Whether the message `refresh` is dropped at `now`: a repeat (its `due` is not the
    /// source's next fetch time), or a source not due yet, whose hop is enqueued again.
    async fn skips(
        &self,
        refresh: &FeedRefresh,
        state: &FetchState,
        now: DateTime<Utc>,
    ) -> Result<bool, IngestError> {
        if refresh.due.is_some() && refresh.due != state.next_fetch_at {
            return Ok(true);
        }
        if !is_due(state, now) {
            // A hop of a longer wait, or a rescue of a chain that is not lost after all.
            if refresh.due.is_some() {
                self.queue
                    .send_delayed(refresh, refresh.delay_seconds(now))
                    .await?;
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// Fetches the feed at `url` with a conditional GET and parses it, with the validators
    /// it came with; `None` when it is not modified.
    async fn fetch_feed(
        &self,
        url: &str,
        validators: &Validators,
    ) -> Result<Option<FetchedFeed>, IngestError> {
        match self.fetcher.fetch(url, validators).await? {
            FetchOutcome::NotModified => Ok(None),
            FetchOutcome::Fetched {
                body,
                etag,
                last_modified,
                final_url,
                content_type,
                links,
            } => {
                let feed = parse_feed(&body, &final_url)?;
                let document = Document {
                    body,
                    validators: Validators {
                        etag,
                        last_modified,
                    },
                    final_url,
                    content_type,
                    links,
                };
                Ok(Some(document.into_feed(feed)))
            }
        }
    }

    /// Fetches the document at `url` (unconditionally).
    async fn fetch_document(&self, url: &str) -> Result<Document, IngestError> {
        match self.fetcher.fetch(url, &Validators::default()).await? {
            FetchOutcome::Fetched {
                body,
                etag,
                last_modified,
                final_url,
                content_type,
                links,
            } => Ok(Document {
                body,
                validators: Validators {
                    etag,
                    last_modified,
                },
                final_url,
                content_type,
                links,
            }),
            FetchOutcome::NotModified => {
                Err(FetchError::Network("unexpected 304 without validators".into()).into())
            }
        }
    }

    /// Backs the source off after a failed refresh: one more failure, its next fetch
    /// doubling the interval per failure (up to a day), recorded like any refresh.
    async fn back_off(
        &self,
        source_id: &str,
        state: FetchState,
        claimed: Option<&str>,
        error: &IngestError,
    ) -> Result<(), IngestError> {
        let failures = state.failures.saturating_add(1);
        let backoff = (REFRESH_INTERVAL_MINUTES << failures.min(7)).min(MAX_BACKOFF_MINUTES);
        let failed = FetchState {
            failures,
            next_fetch_at: Some(rfc3339(self.clock.now() + Duration::minutes(backoff))),
            ..state
        };
        tracing::warn!(source_id, failures, backoff_minutes = backoff, error = %error, "feed refresh failed");
        self.record(source_id, &failed, claimed, false, None).await
    }
    /// Enqueues the source's next refresh (due at `state`'s next fetch time), then records
    /// `state` conditional on the next fetch time still being `claimed`. A second delivery of
    /// the same refresh loses that race and records nothing; the message it enqueued carries
    /// a `due` that was never recorded, and is dropped when it arrives.
    async fn record(
        &self,
        source_id: &str,
        state: &FetchState,
        claimed: Option<&str>,
        fetched: bool,
        title: Option<(&str, &str)>,
    ) -> Result<(), IngestError> {
        if let Some(due) = &state.next_fetch_at {
            let next = FeedRefresh::due(source_id, due);
            self.queue
                .send_delayed(&next, next.delay_seconds(self.clock.now()))
                .await?;
        }
        match self
            .store
            .record_fetch(source_id, state, claimed, fetched, title)
            .await
        {
            Ok(()) => Ok(()),
            Err(StoreError::Contention) => {
                tracing::info!(source_id, "refresh recorded by another delivery");
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Stores a refresh's new entries with their feed text and lists the pages they want,
    /// then sends the page queue the source's pages message when any page is listed (new
    /// ones, or ones an earlier message or a lost send left: one Query).
    async fn refresh_entries(
        &self,
        source: &Source,
        feed: &ParsedFeed,
    ) -> Result<RefreshReport, StoreError> {
        let (mut report, articles) = self.feed_articles(source, feed);
        report.pages_pending = self.defer_full_text(source, &articles).await?;
        let mut report = self.save_articles(source, report, articles).await?;
        if report.pages_pending > 0 || self.has_pending_pages(source).await? {
            report.pages_enqueued = self.enqueue_pages(&source.id).await;
        }
        Ok(report)
    }

    /// Stores a submission's or a WebSub delivery's entries with their feed text, lists the
    /// pages their full text needs and sends the page queue a [`ReadPages`]: the page reader
    /// (a readability extractor and its HTML tree) is linked into the page reader function
    /// alone, and nobody waits for pages.
    async fn take_entries(
        &self,
        source: &Source,
        feed: &ParsedFeed,
    ) -> Result<RefreshReport, StoreError> {
        let (mut report, articles) = self.feed_articles(source, feed);
        report.pages_pending = self.defer_full_text(source, &articles).await?;
        let mut report = self.save_articles(source, report, articles).await?;
        if report.pages_pending > 0 {
            report.pages_enqueued = self.enqueue_pages(&source.id).await;
        }
        Ok(report)
    }

    /// Fits and stores `articles`, counting what was new.
    async fn save_articles(
        &self,
        source: &Source,
        mut report: RefreshReport,
        mut articles: Vec<NewArticle>,
    ) -> Result<RefreshReport, StoreError> {
        for article in &mut articles {
            if fit_article(article) {
                report.cut += 1;
            }
        }
        if report.left_out > 0 || report.cut > 0 {
            tracing::info!(source_id = %source.id, left_out = report.left_out, cut = report.cut, "feed entries capped");
        }
        for outcome in self.store.upsert_articles(&articles).await? {
            match outcome {
                Upsert::Inserted => report.inserted += 1,
                Upsert::AlreadyStored => report.already_stored += 1,
                Upsert::SourceGone => break,
            }
        }
        Ok(report)
    }

    /// The feed's entries as articles, newest first, capped at `FEED_MAX_ENTRIES`.
    fn feed_articles(
        &self,
        source: &Source,
        feed: &ParsedFeed,
    ) -> (RefreshReport, Vec<NewArticle>) {
        let mut report = RefreshReport::default();
        // Entries without a date count as published now.
        let fallback_time: DateTime<Utc> = self.clock.now();
        let mut entries: Vec<_> = feed.entries.iter().collect();
        // The newest first (a stable sort keeps the feed's order among equals), then the cap.
        entries.sort_by_key(|e| std::cmp::Reverse(e.published_at.unwrap_or(fallback_time)));
        let max_entries = self.fetcher.config().max_entries;
        report.left_out = entries.len().saturating_sub(max_entries);
        entries.truncate(max_entries);
        let articles: Vec<NewArticle> = entries
            .into_iter()
            .map(|entry| NewArticle {
                id: article_id(&source.id, &entry.guid),
                source_id: source.id.clone(),
                source_title: source.title.clone(),
                title: entry.title.clone(),
                link: entry.link.clone(),
                author: entry.author.clone(),
                // A date in the future counts as now: lists are bucketed by publication year.
                published_at: rfc3339(
                    entry
                        .published_at
                        .unwrap_or(fallback_time)
                        .min(fallback_time),
                ),
                summary: entry.summary.clone(),
                paragraphs: entry.paragraphs.clone(),
                topics: entry
                    .topics
                    .iter()
                    .map(|t| TopicRef {
                        id: t.id.clone(),
                        name: t.name.clone(),
                    })
                    .collect(),
                image_url: entry.image_url.clone(),
            })
            .collect();
        (report, articles)
    }

    /// The state after a successful fetch: these validators, due again after the interval
    /// (longer for a source its hub pushes: polling is then only the fallback).
    fn healthy_state(&self, validators: Validators, pushed: bool) -> FetchState {
        let interval = if pushed {
            crate::websub::PUSHED_REFRESH_MINUTES
        } else {
            REFRESH_INTERVAL_MINUTES
        };
        FetchState {
            etag: validators.etag,
            last_modified: validators.last_modified,
            failures: 0,
            next_fetch_at: Some(rfc3339(self.clock.now() + Duration::minutes(interval))),
            push_until: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use platform::queue::QueueMessage;

    use super::*;

    #[test]
    fn feed_refresh_round_trips_and_refuses_junk() {
        let body = FeedRefresh::new("abc").to_json();
        assert_eq!(FeedRefresh::new("abc").to_body().ok(), Some(body.clone()));
        assert_eq!(
            FeedRefresh::parse(&body).ok(),
            Some(FeedRefresh::new("abc"))
        );
        assert!(FeedRefresh::parse("{}").is_err());
        assert!(FeedRefresh::parse(r#"{"sourceId": " "}"#).is_err());
        assert!(FeedRefresh::parse("not json").is_err());
    }

    fn state(next: Option<&str>) -> FetchState {
        FetchState {
            next_fetch_at: next.map(str::to_string),
            ..FetchState::default()
        }
    }

    #[test]
    fn refreshes_wait_until_due_at_most_fifteen_minutes() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        assert_eq!(FeedRefresh::new("a").delay_seconds(now), 0);
        let soon = FeedRefresh::due("a", "2026-01-01T12:01:30Z");
        assert_eq!(soon.delay_seconds(now), 90);
        let late = FeedRefresh::due("a", "2026-01-01T11:00:00Z");
        assert_eq!(late.delay_seconds(now), 0);
        let far = FeedRefresh::due("a", "2026-01-02T12:00:00Z");
        assert_eq!(far.delay_seconds(now), 900);
        assert_eq!(FeedRefresh::due("a", "garbage").delay_seconds(now), 0);
    }

    #[test]
    fn due_when_never_fetched_or_time_passed() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        assert!(is_due(&state(None), now));
        assert!(is_due(&state(Some("2026-01-01T11:59:59.000Z")), now));
        assert!(is_due(&state(Some("2026-01-01T12:00:00.000Z")), now));
        assert!(!is_due(&state(Some("2026-01-01T12:00:00.001Z")), now));
        assert!(is_due(&state(Some("garbage")), now));
    }

    #[test]
    fn article_ids_are_stable_per_source_and_guid() {
        assert_eq!(article_id("s1", "g"), article_id("s1", "g"));
        assert_ne!(article_id("s1", "g"), article_id("s2", "g"));
        assert_eq!(article_id("s1", "g").len(), 32);
    }
}
