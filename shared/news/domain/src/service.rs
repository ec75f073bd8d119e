//! The content service as one facade: what each route of the news function asks.

use platform::aws::AwsClients;
use platform::cursor::encode_cursor;
use platform::{ApiError, Env, Invalid};

use crate::accounts::{Accounts, AccountsError};
use crate::fetch::FeedFetcher;
use crate::ingest::{
    Delivery, HubMode, Ingest, IngestError, PageQueue, RefreshQueue, Verification,
};
use crate::input::{
    ArticleId, FeedSources, FeedUrl, PageRequest, SavedArticleIds, SourceId, UserId, MAX_PAGE,
};
use crate::model::{Article, DiscoveredFeed, Page, Source, TopicSummary, Unsubscribed};
use crate::store::{ArticleFilter, ArticlePage, ContentStore, StoreError};
use crate::sweep::{SourceSweep, SweepQueue};
use crate::StartError;

/// Why the content service could not answer.
#[derive(Debug, thiserror::Error)]
pub enum NewsError {
    /// The input names its bad fields; for a submission, a URL that cannot be fetched or does
    /// not serve a feed is one too.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// A submitted or discovered address serves no feed, or could not be fetched: a 400
    /// naming `url`, with the kind of refusal for callers that report one per feed (OPML
    /// import, the Google Reader `quickadd`).
    #[error("{1}")]
    Refused(Refusal, Invalid),
    #[error("source not found")]
    SourceNotFound,
    #[error("article not found")]
    ArticleNotFound,
    /// No import of the caller's with that id (another person's included).
    #[error("import not found")]
    ImportNotFound,
    /// The reader was asked about a source the person does not subscribe to.
    #[error("subscription not found")]
    NotSubscribed,
    /// The reader was asked about a label none of the person's subscriptions carries.
    #[error("label not found")]
    LabelNotFound,
    /// Concurrent updates of one source kept conflicting.
    #[error("the source is busy")]
    Busy,
    /// A user token whose account no longer exists asked to write.
    #[error("the account of this token no longer exists")]
    AccountGone,
    /// The users service could not tell whether the caller's account exists.
    #[error(transparent)]
    Accounts(#[from] AccountsError),
    #[error(transparent)]
    Store(StoreError),
}

/// The answer to a failed call on [`News`]: 400 naming the fields, 404, 503 when the
/// table is busy or unreachable (worth a retry), else 500 with the details logged.
impl From<NewsError> for ApiError {
    fn from(error: NewsError) -> Self {
        to_api(error)
    }
}

fn to_api(error: NewsError) -> ApiError {
    match error {
        NewsError::Invalid(invalid) | NewsError::Refused(_, invalid) => invalid.into(),
        NewsError::SourceNotFound => ApiError::not_found("Source not found"),
        NewsError::ArticleNotFound => ApiError::not_found("Article not found"),
        NewsError::ImportNotFound => ApiError::not_found("Import not found"),
        NewsError::NotSubscribed => ApiError::not_found("Subscription not found"),
        NewsError::LabelNotFound => ApiError::not_found("Label not found"),
        NewsError::Busy => ApiError::unavailable("The source is busy, try again"),
        NewsError::AccountGone => {
            ApiError::unauthorized("The account of this token no longer exists")
        }
        NewsError::Accounts(e) => ApiError::bad_gateway("The users service could not be reached")
            .caused_by(format!("users service call failed: {e}")),
        NewsError::Store(e) if e.is_unavailable() => {
            ApiError::unavailable("The content service is unavailable, try again")
                .caused_by(format!("content table unavailable: {e}"))
        }
        NewsError::Store(e) => ApiError::internal("content table", e),
    }
}

impl From<StoreError> for NewsError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::SourceNotFound => Self::SourceNotFound,
            StoreError::Contention => Self::Busy,
            other => Self::Store(other),
        }
    }
}

impl NewsError {
    /// True when the content table could not be reached or is throttling.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::Store(e) if e.is_unavailable())
    }
}

/// The page with its `nextCursor`, and a `totalPages` that counts only the pages that may be
/// asked for by number (up to [`MAX_PAGE`]), so a client paging by it never meets the cap's
/// 400; the cursor goes on past them.
fn reachable(found: ArticlePage) -> Page<Article> {
    let mut page = found.page;
    page.total_pages = page.total_pages.min(u64::from(MAX_PAGE) + 1);
    page.next_cursor = found.next.map(|c| c.encode());
    page
}

/// Why a submitted address was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not a URL that can be fetched (scheme, credentials, malformed).
    InvalidUrl,
    /// It could not be fetched: refused network, no answer in time, an HTTP error, too large.
    Unreachable,
    /// Fetched, but neither a feed nor a page leading to one.
    NotAFeed,
}

/// A submission's or discovery's failure: what is wrong with the URL, named `url`.
fn submission_error(error: IngestError) -> NewsError {
    let refused =
        |refusal, message: String| NewsError::Refused(refusal, Invalid::field("url", message));
    match error {
        IngestError::InvalidUrl(e) => refused(Refusal::InvalidUrl, e.to_string()),
        IngestError::Fetch(e) => refused(Refusal::Unreachable, format!("unreachable: {e}")),
        IngestError::NotAFeed(e) => refused(Refusal::NotAFeed, e.to_string()),
        IngestError::NoFeedFound(_) => refused(Refusal::NotAFeed, error.to_string()),
        IngestError::Store(e) => e.into(),
        // A submission enqueues without failing on the queue: never here.
        IngestError::Queue(_) => NewsError::Busy,
    }
}

/// A WebSub callback's failure: the table's (the callbacks fetch nothing but article pages,
/// whose failures only leave excerpts).
fn push_error(error: IngestError) -> NewsError {
    match error {
        IngestError::Store(e) => e.into(),
        other => Invalid::field("body", other.to_string()).into(),
    }
}

/// A submitted feed: its source, and whether the submission created it.
#[derive(Debug, Clone)]
pub struct Submitted {
    pub source: Source,
    pub created: bool,
}

/// The news reader's content service: shared sources and their subscribers, articles, topics.
#[derive(Clone, Debug)]
pub struct News {
    store: ContentStore,
    ingest: Ingest,
    sweeps: SweepQueue,
}

impl News {
    pub fn new(
        store: ContentStore,
        fetcher: FeedFetcher,
        refreshes: RefreshQueue,
        pages: PageQueue,
        sweeps: SweepQueue,
    ) -> Self {
        Self {
            ingest: Ingest::new(store.clone(), fetcher, refreshes, pages),
            store,
            sweeps,
        }
    }

    /// The content table (`CONTENT_TABLE`), a fetcher configured by the `FEED_*` variables,
    /// the feed queue (`FEED_QUEUE_URL`, where a new source's refreshes start), the page queue
    /// (`PAGE_QUEUE_URL`, its articles' pages) and the sweep queue (`SWEEP_QUEUE_URL`).
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, StartError> {
        let ingest = Ingest::from_env(env, aws)?;
        Ok(Self {
            store: ingest.store().clone(),
            ingest,
            sweeps: SweepQueue::from_env(env, aws.sqs())?,
        })
    }

    /// A page of at most `limit` sources, oldest first, after the sort key `after`, and the
    /// next page's cursor.
    pub async fn sources(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<Source>, Option<String>), NewsError> {
        let (sources, next) = self.store.sources_list(after, limit).await?;
        Ok((sources, next.as_deref().map(encode_cursor)))
    }

    pub async fn source(&self, id: &SourceId) -> Result<Source, NewsError> {
        self.store
            .source(id.as_str())
            .await?
            .ok_or(NewsError::SourceNotFound)
    }

    /// Sets whether the source's new articles get the text of their page.
    pub async fn set_full_text(
        &self,
        id: &SourceId,
        mode: crate::FullTextMode,
    ) -> Result<Source, NewsError> {
        self.store
            .set_full_text(id.as_str(), mode)
            .await?
            .ok_or(NewsError::SourceNotFound)
    }

    /// [`News::submit`] for a user: refused when the caller's account is gone, so a token
    /// that outlives its account cannot add sources.
    pub async fn submit_as_user(
        &self,
        accounts: &impl Accounts,
        url: &FeedUrl,
    ) -> Result<Submitted, NewsError> {
        if !accounts.caller_exists().await? {
            return Err(NewsError::AccountGone);
        }
        self.submit(url).await
    }

    /// The source of a feed URL: the existing one, else a new one fetched, parsed and stored
    /// with its articles before this answers.
    pub async fn submit(&self, url: &FeedUrl) -> Result<Submitted, NewsError> {
        match self.ingest.submit(url.as_str()).await {
            Ok((source, created)) => Ok(Submitted { source, created }),
            Err(e) => Err(submission_error(e)),
        }
    }

    /// The feeds at a site's address (or the feed itself), for a person to choose from;
    /// nothing is stored.
    pub async fn discover(&self, url: &FeedUrl) -> Result<Vec<DiscoveredFeed>, NewsError> {
        self.ingest
            .discover(url.as_str())
            .await
            .map_err(submission_error)
    }

    /// A WebSub hub's verification of intent for source `id`'s callback.
    pub async fn verify_push(
        &self,
        id: &SourceId,
        mode: HubMode,
        topic: &str,
        lease_seconds: Option<i64>,
    ) -> Result<Verification, NewsError> {
        self.ingest
            .verify_push(id.as_str(), mode, topic, lease_seconds)
            .await
            .map_err(push_error)
    }

    /// A WebSub delivery to source `id`'s callback: checked, then stored like a poll's.
    pub async fn deliver(
        &self,
        id: &SourceId,
        signature: Option<&str>,
        body: &[u8],
    ) -> Result<Delivery, NewsError> {
        self.ingest
            .deliver(id.as_str(), signature, body)
            .await
            .map_err(push_error)
    }

    /// Adds a subscriber (a repeat changes nothing); the source with its new count.
    pub async fn subscribe(&self, source: &SourceId, user: &UserId) -> Result<Source, NewsError> {
        Ok(self.store.subscribe(source.as_str(), user.as_str()).await?)
    }

    /// Removes a subscriber (a repeat, or a user who never subscribed, changes nothing); the
    /// last one leaving retires the source (gone from every read at once) and enqueues the
    /// sweep of its rows.
    pub async fn unsubscribe(
        &self,
        source: &SourceId,
        user: &UserId,
    ) -> Result<Unsubscribed, NewsError> {
        let left = self
            .store
            .unsubscribe(source.as_str(), user.as_str())
            .await?;
        if left.source_deleted {
            if let Err(error) = self.sweeps.send(&SourceSweep::new(source.as_str())).await {
                // The scheduler enqueues the sweeps of sources retired for a while again.
                tracing::warn!(source_id = source.as_str(), %error, "sweep not enqueued; the scheduler will");
            }
            return Ok(Unsubscribed::deleted(source.as_str()));
        }
        // The remaining source, so callers can show it without a second request.
        Ok(match self.store.source(source.as_str()).await? {
            Some(remaining) => Unsubscribed::remaining(remaining),
            None => Unsubscribed::without_source(source.as_str(), left.subscriber_count, false),
        })
    }

    /// Takes back a subscription its caller could not record (identity's write failed after
    /// this one): the subscriber goes, and a source left with none stays. A user who is not a
    /// subscriber changes nothing.
    pub async fn take_back(
        &self,
        source: &SourceId,
        user: &UserId,
    ) -> Result<Unsubscribed, NewsError> {
        let left = self.store.take_back(source.as_str(), user.as_str()).await?;
        Ok(match self.store.source(source.as_str()).await? {
            Some(remaining) => Unsubscribed::remaining(remaining),
            None => Unsubscribed::without_source(source.as_str(), left.subscriber_count, false),
        })
    }

    /// A page of at most `limit` topics that have articles, by name, after the name
    /// `after`, and the next page's cursor (a page may be short and still have one).
    pub async fn topics(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<TopicSummary>, Option<String>), NewsError> {
        let (topics, next) = self.store.topics_page(after, limit).await?;
        Ok((topics, next.as_deref().map(encode_cursor)))
    }

    /// A page of articles (without paragraphs), newest first.
    pub async fn articles(
        &self,
        filter: &ArticleFilter,
        page: PageRequest,
    ) -> Result<Page<Article>, NewsError> {
        let found = self
            .store
            .articles_page(filter, &page.window(), page.size)
            .await?;
        Ok(reachable(found))
    }

    /// A page of a personal feed: the articles of `sources`, merged newest first.
    pub async fn feed(
        &self,
        sources: &FeedSources,
        page: PageRequest,
    ) -> Result<Page<Article>, NewsError> {
        let found = self
            .store
            .feed_page(sources.as_slice(), None, &page.window(), page.size)
            .await?;
        Ok(reachable(found))
    }

    /// One article with its paragraphs.
    pub async fn article(&self, id: &ArticleId) -> Result<Article, NewsError> {
        self.store
            .article(id.as_str())
            .await?
            .ok_or(NewsError::ArticleNotFound)
    }

    /// The saved articles still stored (without paragraphs), in the order asked.
    pub async fn saved_articles(&self, ids: &SavedArticleIds) -> Result<Vec<Article>, NewsError> {
        Ok(self.store.articles_by_ids(ids.as_slice(), false).await?)
    }

    /// Whether the content table answers.
    pub async fn health(&self) -> Result<(), NewsError> {
        Ok(self.store.ping().await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    #[test]
    fn refused_submissions_say_why_and_name_url() {
        let unreachable = submission_error(IngestError::Fetch(crate::FetchError::Timeout));
        assert!(matches!(
            unreachable,
            NewsError::Refused(Refusal::Unreachable, _)
        ));
        let api = to_api(unreachable);
        assert_eq!(api.kind, ErrorKind::BadRequest);
        assert_eq!(
            api.details,
            vec!["url: unreachable: the feed server did not respond in time"]
        );
        let nothing = submission_error(IngestError::NoFeedFound(String::new()));
        assert!(matches!(nothing, NewsError::Refused(Refusal::NotAFeed, _)));
        assert_eq!(
            to_api(nothing).details,
            vec!["url: no feed found at this address"]
        );
    }

    #[test]
    fn domain_errors_become_statuses() {
        let invalid = to_api(NewsError::Invalid(platform::Invalid::field(
            "size", "too big",
        )));
        assert_eq!(invalid.kind, ErrorKind::BadRequest);
        assert_eq!(invalid.details, vec!["size: too big"]);
        assert_eq!(to_api(NewsError::SourceNotFound).kind, ErrorKind::NotFound);
        assert_eq!(
            to_api(NewsError::ArticleNotFound).message,
            "Article not found"
        );
        assert_eq!(to_api(NewsError::Busy).kind, ErrorKind::ServiceUnavailable);
        assert_eq!(to_api(NewsError::AccountGone).kind, ErrorKind::Unauthorized);
    }
}
