//! OPML import and export.
//!
//! An import ([`Opml::start_import`]) reads the file ([`document::parse_opml`]), records the
//! import (its `total` feeds) and puts one [`ImportFeed`] per feed on the import queue
//! (`OPML_QUEUE_URL`), then answers at once. The OPML worker takes each feed
//! ([`ImportWorker::import_feed`]): it submits the feed as `POST /sources` does (the same
//! fetcher, its SSRF guard and limits), subscribes the person through identity's internal
//! subscribe-for-user route (identity's record of the subscription and the content side's
//! are written by identity's normal flow), then sets the feed's labels, and records the
//! feed's [`FeedOutcome`] once (`store::imports`): a redelivered message changes nothing, so
//! `done` counts each feed exactly once. [`Opml::import_progress`] shows it, a page of
//! results at a time. Export ([`document::write_opml`]) writes the person's subscriptions
//! with their labels as OPML 2.0, which the import reads back to the same.

pub mod document;

use identity_client::{IdentityClient, SubscriptionAnswer};
use platform::aws::AwsClients;
use platform::queue::{Queue, QueueMessage};
use platform::{Env, Invalid};
use serde::{Deserialize, Serialize};

pub use self::document::{
    parse_opml, write_opml, ExportFeed, OpmlDocument, OpmlFeed, MAX_FEED_OUTLINES,
    MAX_LABELS_PER_FEED, MAX_OPML_BYTES,
};
use crate::accounts::Accounts;
use crate::ingest::{Ingest, IngestError};
use crate::input::reader::{Labels, MAX_LABELS_PER_SUBSCRIPTION};
use crate::input::{SourceId, UserId};
use crate::reader::{Reader, ReaderImport};
use crate::service::NewsError;
use crate::store::{ContentStore, ImportRecord, ImportResultRecord, StoreError};
use crate::StartError;

/// Results one page of an import's progress holds at most, and by default.
pub const MAX_RESULTS_PAGE: usize = 500;
pub const DEFAULT_RESULTS_PAGE: usize = 100;
/// Sources read at once for an export.
const EXPORT_READS_IN_FLIGHT: usize = 16;
/// Messages sent at once when an import starts (each call sends ten).
const SENDS_IN_FLIGHT: usize = 10;

/// Whether an import has results for all its feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum ImportStatus {
    Running,
    Done,
}

/// What became of one feed of an import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum FeedOutcome {
    /// Subscribed now.
    Subscribed,
    /// The person subscribed to it before the import (its labels are set all the same).
    AlreadySubscribed,
    /// The address answers, but with something that is not a feed.
    NotAFeed,
    /// The address could not be fetched: no answer, an error status, too slow, too large,
    /// or on a private network.
    Unreachable,
    /// The address is not an http(s) URL that can be fetched.
    Invalid,
    /// The platform could not subscribe the person (its users service kept failing); trying
    /// the import again may work.
    Failed,
}

impl FeedOutcome {
    fn as_str(self) -> &'static str {
        match self {
            Self::Subscribed => "subscribed",
            Self::AlreadySubscribed => "alreadySubscribed",
            Self::NotAFeed => "notAFeed",
            Self::Unreachable => "unreachable",
            Self::Invalid => "invalid",
            Self::Failed => "failed",
        }
    }

    fn parse(raw: &str) -> Option<Self> {
        [
            Self::Subscribed,
            Self::AlreadySubscribed,
            Self::NotAFeed,
            Self::Unreachable,
            Self::Invalid,
            Self::Failed,
        ]
        .into_iter()
        .find(|o| o.as_str() == raw)
    }
}

/// An import just started.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportStarted {
    /// The import's id: `GET /reader/imports/{id}` shows its progress.
    #[schema(pattern = "^[0-9a-f]{32}$")]
    pub id: String,
    pub status: ImportStatus,
    /// Feeds to import (each feed once, however many outlines name it).
    #[schema(minimum = 1, maximum = 1000)]
    pub total: u32,
    #[schema(minimum = 0, maximum = 1000)]
    pub done: u32,
}

/// One feed's result.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedResult {
    /// The feed's address as the file gives it.
    pub url: String,
    /// Its title in the file (may be empty).
    pub title: String,
    /// The labels it was given: its folders and categories in the file.
    pub labels: Vec<String>,
    pub outcome: FeedOutcome,
    /// The source subscribed to (subscribed, alreadySubscribed).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[0-9a-f]{32}$")]
    pub source_id: Option<String>,
    /// Why, for the other outcomes; or what was left out (labels past the cap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// An import's progress, with a page of its results in the file's order.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportProgress {
    #[schema(pattern = "^[0-9a-f]{32}$")]
    pub id: String,
    /// `done` once every feed has its result.
    pub status: ImportStatus,
    #[schema(minimum = 1, maximum = 1000)]
    pub total: u32,
    /// Feeds with a result so far.
    #[schema(minimum = 0, maximum = 1000)]
    pub done: u32,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Results after the page's `cursor`, in the file's order (only feeds already done).
    pub results: Vec<FeedResult>,
    /// The cursor of the next page of results; absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The import queue's message: import this feed of this import for this person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportFeed {
    pub import_id: String,
    pub user_id: String,
    /// The feed's place among the import's feeds.
    pub index: u32,
    pub url: String,
    pub title: String,
    pub labels: Vec<String>,
    #[serde(default)]
    pub labels_left_out: usize,
}

impl QueueMessage for ImportFeed {
    const URL_VARIABLE: &'static str = "OPML_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        let feed: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        if !is_import_id(&feed.import_id) {
            return Err("importId must be 32 hex digits".into());
        }
        if feed.user_id.trim().is_empty() {
            return Err("userId must not be blank".into());
        }
        Ok(feed)
    }
}

/// The import queue (`OPML_QUEUE_URL`).
pub type ImportQueue = Queue<ImportFeed>;

fn is_import_id(raw: &str) -> bool {
    raw.len() == 32
        && raw
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A new import's id: 128 random bits as 32 hex digits.
fn new_import_id() -> Result<String, NewsError> {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 16];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| NewsError::Busy)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Which page of an import's results to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultsPage {
    after: Option<u32>,
    size: usize,
}

impl ResultsPage {
    /// `cursor` (a `nextCursor`) and `size` (1 to [`MAX_RESULTS_PAGE`]) as a client sends them.
    pub fn parse(cursor: Option<&str>, size: Option<&str>) -> Result<Self, Invalid> {
        let size = match size.map(str::trim) {
            None => DEFAULT_RESULTS_PAGE,
            Some(raw) => raw
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_RESULTS_PAGE).contains(n))
                .ok_or_else(|| {
                    Invalid::field(
                        "size",
                        format!("must be an integer from 1 to {MAX_RESULTS_PAGE}"),
                    )
                })?,
        };
        let after = match cursor {
            None => None,
            // The index of the last result shown, in hex: every string of 1 to 8 hex digits
            // is one (past the end, the page is empty), as the contract states.
            Some(c) => Some(
                (!c.is_empty()
                    && c.len() <= 8
                    && c.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
                .then(|| u32::from_str_radix(c, 16).ok())
                .flatten()
                .ok_or_else(|| Invalid::field("cursor", "is not a cursor this service gave out"))?,
            ),
        };
        Ok(Self { after, size })
    }
}

/// OPML import and export for the news function: starting imports and showing them.
#[derive(Clone, Debug)]
pub struct Opml {
    store: ContentStore,
    queue: ImportQueue,
    reader: Reader,
}

impl Opml {
    pub fn new(reader: Reader, store: ContentStore, queue: ImportQueue) -> Self {
        Self {
            reader,
            store,
            queue,
        }
    }

    /// The content table (`CONTENT_TABLE`), the reader (`READ_HORIZON_DAYS`) and the import
    /// queue (`OPML_QUEUE_URL`).
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, StartError> {
        Ok(Self::new(
            Reader::from_env(env, aws)?,
            ContentStore::from_env(env, aws)?,
            ImportQueue::from_env(env, aws.sqs())?,
        ))
    }

    /// The person's subscriptions with their labels as an OPML 2.0 document (what identity
    /// held before the reader brought over first, as every reader route does).
    pub async fn export(
        &self,
        user: &UserId,
        from: &impl ReaderImport,
    ) -> Result<String, NewsError> {
        self.reader.import_once(user, from).await?;
        let state = self.store.reader_state(user.as_str()).await?;
        let mut feeds = Vec::with_capacity(state.subscriptions.len());
        // A few sources read at once; the futures are collected first so the answer's future
        // holds no closure (axum needs it Send for every lifetime).
        for rows in state.subscriptions.chunks(EXPORT_READS_IN_FLIGHT) {
            let reads: Vec<_> = rows
                .iter()
                .map(|r| self.store.source(&r.source_id))
                .collect();
            for (row, source) in rows.iter().zip(futures::future::join_all(reads).await) {
                // A source retired since is no longer a subscription.
                if let Some(source) = source? {
                    feeds.push(ExportFeed {
                        title: source.title,
                        xml_url: source.url,
                        html_url: source.site_url,
                        labels: row.labels.clone(),
                    });
                }
            }
        }
        Ok(write_opml(
            "News reader subscriptions",
            self.store.clock().now(),
            &feeds,
        ))
    }

    /// Starts importing `document`'s feeds for `user`: records the import, enqueues each feed,
    /// and answers before any is fetched. Refused when the caller's account is gone.
    pub async fn start_import(
        &self,
        accounts: &impl Accounts,
        user: &UserId,
        document: OpmlDocument,
    ) -> Result<ImportStarted, NewsError> {
        if !accounts.caller_exists().await? {
            return Err(NewsError::AccountGone);
        }
        let id = new_import_id()?;
        let total = u32::try_from(document.feeds.len()).unwrap_or(u32::MAX);
        self.store.create_import(&id, user.as_str(), total).await?;
        let messages: Vec<ImportFeed> = document
            .feeds
            .into_iter()
            .zip(0u32..)
            .map(|(feed, index)| ImportFeed {
                import_id: id.clone(),
                user_id: user.as_str().to_string(),
                index,
                url: feed.url,
                title: feed.title,
                labels: feed.labels,
                labels_left_out: feed.labels_left_out,
            })
            .collect();
        let chunk = messages.len().div_ceil(SENDS_IN_FLIGHT).max(1);
        let sent = futures::future::join_all(
            messages
                .chunks(chunk)
                .map(|messages| self.queue.send_all(messages)),
        )
        .await;
        if let Some(Err(error)) = sent.into_iter().find(Result::is_err) {
            // The worker drops the feeds of an import it cannot find: none is half-counted.
            if let Err(e) = self.store.delete_import(&id).await {
                tracing::warn!(import_id = %id, error = %e, "unsent import not deleted");
            }
            tracing::warn!(import_id = %id, %error, "import not enqueued");
            return Err(NewsError::Busy);
        }
        tracing::info!(import_id = %id, user_id = user.as_str(), total, "import started");
        Ok(ImportStarted {
            id,
            status: ImportStatus::Running,
            total,
            done: 0,
        })
    }

    /// An import of `user` with a page of its results; another person's is not found.
    pub async fn import_progress(
        &self,
        user: &UserId,
        import_id: &str,
        page: ResultsPage,
    ) -> Result<ImportProgress, NewsError> {
        if !is_import_id(import_id) {
            return Err(NewsError::ImportNotFound);
        }
        let record = match self.store.import(import_id).await? {
            Some(record) if record.user_id == user.as_str() => record,
            _ => return Err(NewsError::ImportNotFound),
        };
        let (rows, next) = self
            .store
            .import_results(import_id, page.after, page.size)
            .await?;
        let results = rows.into_iter().filter_map(feed_result).collect();
        Ok(progress(import_id, record, results, next))
    }
}

fn progress(
    id: &str,
    record: ImportRecord,
    results: Vec<FeedResult>,
    next: Option<u32>,
) -> ImportProgress {
    ImportProgress {
        id: id.to_string(),
        status: if record.done >= record.total {
            ImportStatus::Done
        } else {
            ImportStatus::Running
        },
        total: record.total,
        done: record.done.min(record.total),
        created_at: record.created_at,
        results,
        next_cursor: next.map(|index| format!("{index:x}")),
    }
}

fn feed_result(row: ImportResultRecord) -> Option<FeedResult> {
    Some(FeedResult {
        outcome: FeedOutcome::parse(&row.outcome)?,
        url: row.url,
        title: row.title,
        labels: row.labels,
        source_id: row.source_id,
        message: row.message,
    })
}

/// Why a feed is to be tried again (its message redelivered).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the users service failed: {0}")]
    Users(String),
    #[error("labels not set: {0}")]
    Labels(String),
    #[error(transparent)]
    Queue(#[from] platform::queue::QueueError),
}

/// Identity's subscribe-for-user route, with the internal service token.
#[derive(Clone, Debug)]
pub struct IdentitySubscriptions {
    client: IdentityClient,
    base: Option<String>,
}

impl IdentitySubscriptions {
    /// How long identity may take to subscribe one person.
    const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    pub fn new(client: IdentityClient, base: Option<String>) -> Self {
        Self { client, base }
    }

    /// `INTERNAL_API_URL` and `INTERNAL_SERVICE_TOKEN`.
    pub fn from_env(env: &Env) -> Result<Self, StartError> {
        let client = IdentityClient::new(
            Self::TIMEOUT,
            env.get("INTERNAL_SERVICE_TOKEN").map(str::to_string),
        )
        .map_err(|e| StartError::Client(e.to_string()))?;
        Ok(Self::new(
            client,
            env.get("INTERNAL_API_URL").map(str::to_string),
        ))
    }

    /// `true` once subscribed (a repeat included); `false` when identity knows no such person
    /// or source.
    async fn subscribe(&self, user_id: &str, source_id: &str) -> Result<bool, ImportError> {
        match self
            .client
            .at(self.base.clone())
            .subscribe_user(user_id, source_id)
            .await
        {
            Ok(SubscriptionAnswer::Source(_)) => Ok(true),
            Ok(SubscriptionAnswer::NotFound | SubscriptionAnswer::SourceDeleted) => Ok(false),
            Err(e) => Err(ImportError::Users(e.to_string())),
        }
    }
}

/// The OPML worker's side: one feed of an import at a time.
#[derive(Clone, Debug)]
pub struct ImportWorker {
    store: ContentStore,
    ingest: Ingest,
    identity: IdentitySubscriptions,
    reader: Reader,
}

impl ImportWorker {
    pub fn new(ingest: Ingest, identity: IdentitySubscriptions, reader: Reader) -> Self {
        Self {
            store: ingest.store().clone(),
            ingest,
            identity,
            reader,
        }
    }

    /// The content table, the fetcher (`FEED_*`) and the feed queue (a new source's refreshes
    /// start with its submission), and identity (`INTERNAL_API_URL`, `INTERNAL_SERVICE_TOKEN`).
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, StartError> {
        Ok(Self::new(
            Ingest::from_env(env, aws)?,
            IdentitySubscriptions::from_env(env)?,
            Reader::from_env(env, aws)?,
        ))
    }

    /// Imports one feed and records its outcome once. `Err` asks for the message again: the
    /// content table or the users service failed. On the `last_attempt` a failing users
    /// service is recorded as [`FeedOutcome::Failed`] instead, so the import still finishes.
    pub async fn import_feed(
        &self,
        feed: &ImportFeed,
        last_attempt: bool,
    ) -> Result<(), ImportError> {
        let import_id = feed.import_id.as_str();
        let Some(import) = self.store.import(import_id).await? else {
            tracing::info!(import_id, "import gone; feed dropped");
            return Ok(());
        };
        if import.user_id != feed.user_id {
            tracing::warn!(import_id, "feed of another person's import; dropped");
            return Ok(());
        }
        if self
            .store
            .import_result_exists(import_id, feed.index)
            .await?
        {
            return Ok(());
        }
        let (outcome, source_id, message) = match self.subscribe(feed).await {
            Ok(done) => done,
            Err(ImportError::Users(reason)) if last_attempt => (
                FeedOutcome::Failed,
                None,
                Some(format!("could not subscribe: {reason}")),
            ),
            Err(e) => return Err(e),
        };
        let message = message.or_else(|| {
            (feed.labels_left_out > 0).then(|| {
                format!(
                    "{} labels left out: a subscription has at most {MAX_LABELS_PER_FEED}",
                    feed.labels_left_out
                )
            })
        });
        let record = ImportResultRecord {
            index: feed.index,
            url: feed.url.clone(),
            title: feed.title.clone(),
            labels: if matches!(
                outcome,
                FeedOutcome::Subscribed | FeedOutcome::AlreadySubscribed
            ) {
                feed.labels.clone()
            } else {
                Vec::new()
            },
            outcome: outcome.as_str().to_string(),
            source_id,
            message,
        };
        let counted = self.store.record_import_result(import_id, &record).await?;
        tracing::info!(
            import_id,
            index = feed.index,
            outcome = outcome.as_str(),
            counted,
            "feed imported"
        );
        Ok(())
    }

    /// Submits, subscribes and labels: the outcome, the source and a message.
    async fn subscribe(
        &self,
        feed: &ImportFeed,
    ) -> Result<(FeedOutcome, Option<String>, Option<String>), ImportError> {
        let (source, _) = match self.ingest.submit(&feed.url).await {
            Ok(submitted) => submitted,
            Err(IngestError::InvalidUrl(e)) => {
                return Ok((FeedOutcome::Invalid, None, Some(e.to_string())))
            }
            Err(IngestError::Fetch(crate::FetchError::InvalidUrl(e))) => {
                return Ok((FeedOutcome::Invalid, None, Some(e)))
            }
            Err(IngestError::Fetch(e)) => {
                return Ok((FeedOutcome::Unreachable, None, Some(e.to_string())))
            }
            Err(IngestError::NotAFeed(e)) => {
                return Ok((FeedOutcome::NotAFeed, None, Some(e.to_string())))
            }
            Err(error @ IngestError::NoFeedFound(_)) => {
                return Ok((FeedOutcome::NotAFeed, None, Some(error.to_string())))
            }
            Err(IngestError::Store(e)) => return Err(e.into()),
            // A submission enqueues without failing on the queue: never here.
            Err(IngestError::Queue(e)) => return Err(ImportError::Queue(e)),
        };
        let was_subscribed = self.store.is_subscriber(&source.id, &feed.user_id).await?;
        let was_subscribed = self
            .store
            .claim_import_feed(&feed.import_id, feed.index, was_subscribed)
            .await?;
        if !self.identity.subscribe(&feed.user_id, &source.id).await? {
            return Ok((
                FeedOutcome::Failed,
                Some(source.id),
                Some("the account or the source no longer exists".into()),
            ));
        }
        let message = self.set_labels(feed, &source.id, was_subscribed).await?;
        let outcome = if was_subscribed {
            FeedOutcome::AlreadySubscribed
        } else {
            FeedOutcome::Subscribed
        };
        Ok((outcome, Some(source.id), message))
    }

    /// Gives the subscription the file's labels; one the person had before keeps its own
    /// first (at most [`MAX_LABELS_PER_SUBSCRIPTION`] in all). A message when they cannot be
    /// set (past the person's cap of labels).
    async fn set_labels(
        &self,
        feed: &ImportFeed,
        source_id: &str,
        was_subscribed: bool,
    ) -> Result<Option<String>, ImportError> {
        let mut labels = Vec::new();
        if was_subscribed {
            let state = self.store.reader_state(&feed.user_id).await?;
            if let Some(row) = state
                .subscriptions
                .into_iter()
                .find(|r| r.source_id == source_id)
            {
                labels = row.labels;
            }
        }
        let before = labels.len();
        for label in &feed.labels {
            if !labels.contains(label) && labels.len() < MAX_LABELS_PER_SUBSCRIPTION {
                labels.push(label.clone());
            }
        }
        if labels.len() == before {
            return Ok(None);
        }
        let labels = match Labels::parse("labels", labels) {
            Ok(labels) => labels,
            Err(invalid) => return Ok(Some(format!("labels not set: {invalid}"))),
        };
        let user = UserId::new(&feed.user_id);
        match self
            .reader
            .set_labels(&user, &SourceId::new(source_id), &labels)
            .await
        {
            Ok(_) => Ok(None),
            Err(NewsError::Invalid(invalid)) => Ok(Some(format!("labels not set: {invalid}"))),
            Err(e) => Err(ImportError::Labels(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn messages_are_read_back_and_checked() {
        let feed = ImportFeed {
            import_id: "0123456789abcdef0123456789abcdef".into(),
            user_id: "u1".into(),
            index: 7,
            url: "https://e.org/feed".into(),
            title: "E".into(),
            labels: vec!["Tech".into()],
            labels_left_out: 0,
        };
        let body = feed.to_body().unwrap();
        assert_eq!(<ImportFeed as QueueMessage>::parse(&body).unwrap(), feed);
        let bad = body.replace("0123456789abcdef0123456789abcdef", "../x");
        assert!(<ImportFeed as QueueMessage>::parse(&bad).is_err());
    }

    #[test]
    fn result_pages_parse_their_cursor_and_size() {
        let page = ResultsPage::parse(Some("29"), Some("20")).unwrap();
        assert_eq!(
            page,
            ResultsPage {
                after: Some(41),
                size: 20
            }
        );
        assert_eq!(
            ResultsPage::parse(None, Some("0")).unwrap_err().errors()[0].field,
            "size"
        );
        assert_eq!(
            ResultsPage::parse(Some("zz"), None).unwrap_err().errors()[0].field,
            "cursor"
        );
        assert_eq!(
            ResultsPage::parse(Some("ffffffff"), None).unwrap().after,
            Some(u32::MAX)
        );
        assert_eq!(
            ResultsPage::parse(Some("1ffffffff"), None)
                .unwrap_err()
                .errors()[0]
                .field,
            "cursor"
        );
        for outcome in [FeedOutcome::NotAFeed, FeedOutcome::AlreadySubscribed] {
            assert_eq!(FeedOutcome::parse(outcome.as_str()), Some(outcome));
        }
    }
}
