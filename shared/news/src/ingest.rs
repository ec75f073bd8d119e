//! Feed ingestion: what happens when a feed is submitted and whenever it is refreshed.

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
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a feed queue message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    #[error("not a feed refresh message: {0}")]
    Malformed(#[from] serde_json::Error),
    #[error("sourceId must not be blank")]
    BlankSourceId,
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
}

/// The feed queue's message: refresh this source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedRefresh {
    pub source_id: String,
}

impl FeedRefresh {
    pub fn new(source_id: impl Into<String>) -> Self {
        Self {
            source_id: source_id.into(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({ "sourceId": self.source_id }).to_string()
    }

    /// Reads a message body; the source id must be present and not blank.
    pub fn parse(body: &str) -> Result<Self, MessageError> {
        let refresh: Self = serde_json::from_str(body)?;
        if refresh.source_id.trim().is_empty() {
            return Err(MessageError::BlankSourceId);
        }
        Ok(refresh)
    }
}

/// Fetching, parsing and storing feeds: for a submitted URL and for each refresh.
#[derive(Clone, Debug)]
pub struct Ingest {
    store: ContentStore,
    fetcher: FeedFetcher,
    clock: Clock,
}

/// Whether a source with this fetch state should be refreshed at `now`.
pub fn is_due(state: &FetchState, now: DateTime<Utc>) -> bool {
    match state
        .next_fetch_at
        .as_deref()
        .map(DateTime::parse_from_rfc3339)
    {
        Some(Ok(next)) => next <= now,
        // Never fetched, or an unreadable time: fetch rather than let the source go stale.
        _ => true,
    }
}

/// The scheduler's side of ingestion: which sources are due for a refresh.
#[derive(Clone, Debug)]
pub struct RefreshSchedule {
    store: ContentStore,
}

impl RefreshSchedule {
    pub fn new(store: ContentStore) -> Self {
        Self { store }
    }

    /// The ids of the sources due at `now` (see [`is_due`]) that someone subscribes to,
    /// oldest source first.
    pub async fn due_sources(&self, now: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        Ok(self
            .store
            .sources_for_fetch()
            .await?
            .into_iter()
            .filter(|(source, state)| source.subscriber_count > 0 && is_due(state, now))
            .map(|(source, _)| source.id)
            .collect())
    }
}

/// A stable article id: the same entry of the same source always gets the same id, so a
/// refetch or a redelivered message cannot duplicate it.
pub fn article_id(source_id: &str, guid: &str) -> String {
    crate::url::source_id(&format!("{source_id}\n{guid}"))
}

impl Ingest {
    /// Stores with `store` and tells the time by its clock.
    pub fn new(store: ContentStore, fetcher: FeedFetcher) -> Self {
        let clock = store.clock().clone();
        Self {
            store,
            fetcher,
            clock,
        }
    }

    /// The content table (`CONTENT_TABLE`) and a fetcher configured by the `FEED_*` variables.
    pub fn from_env(
        env: &platform::Env,
        aws: &platform::aws::AwsClients,
    ) -> Result<Self, crate::StartError> {
        Ok(Self::new(
            ContentStore::from_env(env, aws)?,
            FeedFetcher::new(crate::fetch::FetchConfig::from_env(env)?)?,
        ))
    }

    pub fn store(&self) -> &ContentStore {
        &self.store
    }

    /// Submits a feed URL: the existing source when the URL is known (`false`), else fetches,
    /// parses and stores a new source with its articles (`true`).
    pub async fn submit(&self, raw_url: &str) -> Result<(Source, bool), IngestError> {
        let url = normalise_feed_url(raw_url)?;
        let id = source_id(&url);
        if let Some(existing) = self.store.source(&id).await? {
            return Ok((existing, false));
        }
        let (feed, validators) = match self.fetcher.fetch(&url, &Validators::default()).await? {
            FetchOutcome::Fetched {
                body,
                etag,
                last_modified,
                final_url,
            } => (
                parse_feed(&body, &final_url)?,
                Validators {
                    etag,
                    last_modified,
                },
            ),
            FetchOutcome::NotModified => {
                return Err(FetchError::Network("unexpected 304 without validators".into()).into())
            }
        };
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
            self.store_entries(&source, &feed).await?;
            let state = self.healthy_state(validators);
            self.store.record_fetch(&id, &state, true, None).await?;
        }
        let source = self.store.source(&id).await?.unwrap_or(source);
        Ok((source, created))
    }

    /// Refreshes one source with a conditional GET; a failure to fetch, parse or store the
    /// feed backs the source off. A source without subscribers is not fetched.
    pub async fn refresh(&self, source_id: &str) -> Result<RefreshReport, IngestError> {
        let Some((source, state)) = self.store.source_for_fetch(source_id).await? else {
            return Ok(RefreshReport::default());
        };
        if source.subscriber_count <= 0 {
            return Ok(RefreshReport {
                unsubscribed: true,
                ..Default::default()
            });
        }
        let validators = Validators {
            etag: state.etag.clone(),
            last_modified: state.last_modified.clone(),
        };
        let outcome = self.fetcher.fetch(&source.url, &validators).await;
        let parsed = match outcome {
            Ok(FetchOutcome::NotModified) => {
                self.store
                    .record_fetch(source_id, &self.healthy_state(validators), true, None)
                    .await?;
                return Ok(RefreshReport {
                    not_modified: true,
                    ..Default::default()
                });
            }
            Ok(FetchOutcome::Fetched {
                body,
                etag,
                last_modified,
                final_url,
            }) => parse_feed(&body, &final_url)
                .map(|feed| {
                    (
                        feed,
                        Validators {
                            etag,
                            last_modified,
                        },
                    )
                })
                .map_err(IngestError::from),
            Err(e) => Err(e.into()),
        };
        let error = match parsed {
            Ok((feed, validators)) => match self.store_entries(&source, &feed).await {
                Ok(report) => {
                    let mut title = feed.title.clone();
                    cut_to_bytes(&mut title, MAX_TITLE_BYTES);
                    self.store
                        .record_fetch(
                            source_id,
                            &self.healthy_state(validators),
                            true,
                            Some(&title),
                        )
                        .await?;
                    return Ok(report);
                }
                // A feed whose entries cannot be stored is backed off like one that cannot be
                // fetched, or it would be tried again on every run.
                Err(e) => IngestError::Store(e),
            },
            Err(error) => error,
        };
        let failures = state.failures.saturating_add(1);
        let backoff = (REFRESH_INTERVAL_MINUTES << failures.min(7)).min(MAX_BACKOFF_MINUTES);
        let failed = FetchState {
            failures,
            next_fetch_at: Some(rfc3339(self.clock.now() + Duration::minutes(backoff))),
            ..state
        };
        tracing::warn!(source_id, failures, backoff_minutes = backoff, error = %error, "feed refresh failed");
        self.store
            .record_fetch(source_id, &failed, false, None)
            .await?;
        Err(error)
    }

    async fn store_entries(
        &self,
        source: &Source,
        feed: &ParsedFeed,
    ) -> Result<RefreshReport, StoreError> {
        let mut report = RefreshReport::default();
        // Entries without a date count as published now.
        let fallback_time: DateTime<Utc> = self.clock.now();
        let mut entries: Vec<_> = feed.entries.iter().collect();
        // The newest first (a stable sort keeps the feed's order among equals), then the cap.
        entries.sort_by_key(|e| std::cmp::Reverse(e.published_at.unwrap_or(fallback_time)));
        let max_entries = self.fetcher.config().max_entries;
        report.left_out = entries.len().saturating_sub(max_entries);
        entries.truncate(max_entries);
        let mut articles: Vec<NewArticle> = entries
            .into_iter()
            .map(|entry| NewArticle {
                id: article_id(&source.id, &entry.guid),
                source_id: source.id.clone(),
                source_title: source.title.clone(),
                title: entry.title.clone(),
                link: entry.link.clone(),
                author: entry.author.clone(),
                published_at: rfc3339(entry.published_at.unwrap_or(fallback_time)),
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

    /// The state after a successful fetch: these validators, due again after the interval.
    fn healthy_state(&self, validators: Validators) -> FetchState {
        FetchState {
            etag: validators.etag,
            last_modified: validators.last_modified,
            failures: 0,
            next_fetch_at: Some(rfc3339(
                self.clock.now() + Duration::minutes(REFRESH_INTERVAL_MINUTES),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_refresh_round_trips_and_refuses_junk() {
        let body = FeedRefresh::new("abc").to_json();
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
