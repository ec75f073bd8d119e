//! News feeds: from a URL a user submits to plain-text articles, and the content service that
//! shows them.
//!
//! [`News`] is the content service's facade: the news function's handlers each make one
//! call on it, with inputs already parsed into the types of [`input`]; [`FeedIntake`] is the
//! intake function's (submissions, discoveries, WebSub callbacks). Beneath them, in the
//! order a feed travels:
//!
//! 1. [`url`](mod@crate::url): [`normalise_feed_url`] gives every feed URL one canonical
//!    spelling (refusing what cannot be fetched), and [`source_id`] derives the source's
//!    stable id from it, so the same feed submitted twice is the same source.
//! 2. [`fetch`]: [`FeedFetcher`] downloads the document with a total deadline, a size cap,
//!    hand-followed redirects, conditional requests ([`Validators`] → [`FetchOutcome::NotModified`])
//!    and a guard against fetching private or reserved addresses (SSRF, [`fetch::guard`]).
//! 3. [`parse`]: [`parse_feed`] reads RSS 0.9x/1.0/2.0, Atom and JSON Feed (with feed-rs) into a
//!    [`ParsedFeed`] of [`ParsedEntry`]s with absolute links, dates, plain-text summaries and
//!    paragraphs, topics and an image; anything else is [`ParseError::NotAFeed`].
//! 4. [`html`]: the forgiving HTML-to-text conversion behind the titles, summaries and
//!    paragraphs (html5gum's tokenizer; scripts, styles and the like dropped, entities decoded).
//! 5. [`topic`]: [`normalise_topic`] folds category labels onto stable topic ids
//!    ("Tech", "TECH" → `tech`).
//! 6. [`store`]: the content table (sources, subscribers, articles, topics); its access
//!    patterns are documented there. [`sweep`] removes retired sources' rows in bounded
//!    steps driven by the sweep queue. [`ingest`] ties fetching, parsing and storage together
//!    for a submitted feed, for each refresh ([`Ingest`], the feed worker's side), for the
//!    article pages of excerpt-only feeds ([`PageReading`], the page reader's side) and for
//!    the schedule ([`RefreshSchedule`], the scheduler's side).
//!
//! 7. [`websub`]: feeds that name a WebSub hub are subscribed through it; its deliveries go
//!    through the same ingest as a poll. Submitting a site's address finds its feeds
//!    ([`parse::discover`], followed by the ingest).
//!
//! Everything but [`store`], [`ingest`], [`News`] and [`FeedIntake`] is free of AWS calls. Errors are this
//! crate's own enums; the function crates map them to HTTP answers or queue outcomes.

pub mod accounts;
pub mod fetch;
pub mod fulltext;
pub mod html;
pub mod ingest;
pub mod input;
mod intake;
pub mod model;
pub mod opml;
pub mod parse;
pub mod reader;
pub mod responses;
mod service;
pub mod store;
pub mod sweep;
pub mod topic;
pub mod url;
pub mod websub;

pub use self::accounts::{Accounts, AccountsError};
pub use self::fetch::{
    is_blocked_ip, FeedFetcher, FetchConfig, FetchError, FetchOutcome, Validators,
};
pub use self::fulltext::PageReader;
pub use self::html::{html_to_paragraphs, html_to_text};
pub use self::ingest::{
    Delivery, FeedRefresh, HubMode, Ingest, PageQueue, PageReading, ReadPages, RefreshQueue,
    RefreshSchedule, Verification, WalkStep,
};
pub use self::input::{
    ArticleId, FeedSources, FeedUrl, PageRequest, SavedArticleIds, SourceId, UserId,
    MAX_FEED_SOURCES,
};
pub use self::intake::{FeedIntake, Submitted};
pub use self::model::{DiscoveredFeed, FeedKind, FullTextMode};
pub use self::opml::{ImportWorker, Opml};
pub use self::parse::{parse_feed, ParseError, ParsedEntry, ParsedFeed};
pub use self::reader::{Reader, ReaderImport};
pub use self::service::{News, NewsError, Refusal};
pub use self::sweep::{SourceSweep, SweepQueue, Sweeper};
pub use self::topic::{normalise_topic, normalise_topics, Topic};
pub use self::url::{normalise_feed_url, source_id, FeedUrlError};

/// Why a function could not build its part of the news service at a cold start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] platform::ConfigError),
    #[error("the feed fetcher could not start: {0}")]
    Fetcher(#[from] FetchError),
    #[error("the users service's client could not start: {0}")]
    Client(String),
}
