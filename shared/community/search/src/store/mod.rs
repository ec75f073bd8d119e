//! [`DynamoSearchIndex`]: the term index in `SearchIndexTable` (`pk`/`sk`).
//!
//! | pk | sk | holds |
//! |---|---|---|
//! | `T#{term}` | `{firstPublishedAt}#{postId}` | posting: `w` = 1000·tfTitle + tfBody, `l` = post length |
//! | `T#{term}` | `#DF` | `df`: posts holding the term |
//! | `GLOBAL` | `#STATS` | `docs`, `totalLen` |
//! | `P#{postId}` | `#FWD` | `v` (applied version), `terms` M{term: code}, `at`, `len`; while a version is applied also `targetV`, `target`, `targetAt`, `targetLen` |
//! | `P#{postId}` | `#PROG` | `pending` (version being applied), `done` NS (chunks applied) |
//!
//! `#DF` and `#STATS` sort before every posting (`#` < digits), and postings are read with
//! `sk BETWEEN "0" AND "~"`, so they never mix.

//!
//! By the data they own: [`forward`] (a post's `#FWD` and `#PROG` items, where a version
//! starts and finishes), [`apply`] (the chunks of postings and `df` moves in between),
//! [`search`] (the query: `df`, `#STATS` and the postings read), [`planned`] (a transaction
//! counted against DynamoDB's limits).

mod apply;
mod forward;
mod planned;
mod search;

use platform::dynamo::{key, Attributes, Item, Table};

use crate::analyze::QueryTerms;
use crate::index::{
    Applied, Hits, IndexDoc, Resume, SearchError, SearchIndex, Window, MAX_MATCHES,
};
use planned::Planned;

/// The postings of the rarest term read per step of the merge-join.
pub const DRIVER_CHUNK: usize = 1_000;
/// The most postings one query reads (~1.5 MB, ≤190 eventually consistent RRU).
pub const MAX_POSTINGS_READ: usize = 20_000;
/// The most Query calls one search makes.
pub const MAX_QUERY_CALLS: usize = 24;
/// A query's read budget and match cap; [`SearchLimits::default`] is what production uses,
/// tests lower them to reach the edges with a few posts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// Postings of the rarest term per merge-join step.
    pub driver_chunk: usize,
    /// Postings read per query.
    pub max_postings: usize,
    /// Query calls per query.
    pub max_queries: usize,
    /// Matches collected (the newest).
    pub max_matches: usize,
}

impl Default for SearchLimits {
    fn default() -> Self {
        Self {
            driver_chunk: DRIVER_CHUNK,
            max_postings: MAX_POSTINGS_READ,
            max_queries: MAX_QUERY_CALLS,
            max_matches: MAX_MATCHES,
        }
    }
}

/// DynamoDB's limits on key attributes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2_048;
pub const MAX_SORT_KEY_BYTES: usize = 1_024;
/// DynamoDB's limit on the keys of one BatchGetItem.
pub const MAX_BATCH_GET_KEYS: usize = 100;
/// The version [`SearchIndex::remove`] applies: above any real one, so it is final.
const REMOVED: u64 = i64::MAX as u64;
/// Rounds of re-reading after another indexer moved the same post.
const ROUNDS: usize = 100;
/// Posting keys sort between these (timestamps start with a digit).
const POSTINGS_FROM: &str = "0";
const POSTINGS_TO: &str = "~";

const DF: &str = "#DF";
const FWD: &str = "#FWD";
const PROG: &str = "#PROG";

fn term_pk(term: &str) -> String {
    format!("T#{term}")
}

fn post_pk(post: &str) -> String {
    format!("P#{post}")
}

fn posting_sk(at: &str, post: &str) -> String {
    format!("{at}#{post}")
}

fn global_key() -> Item {
    key("GLOBAL", "#STATS")
}

/// A key within DynamoDB's limits, or [`SearchError::Limit`].
fn checked_key(pk: String, sk: String) -> Result<Item, SearchError> {
    if pk.len() > MAX_PARTITION_KEY_BYTES || sk.len() > MAX_SORT_KEY_BYTES {
        return Err(SearchError::Limit(format!(
            "key of {} + {} bytes",
            pk.len(),
            sk.len()
        )));
    }
    Ok(key(pk, sk))
}

/// The search index over `SearchIndexTable`.
#[derive(Clone, Debug)]
pub struct DynamoSearchIndex {
    table: Table,
    limits: SearchLimits,
}

impl DynamoSearchIndex {
    pub fn new(table: Table) -> Self {
        Self {
            table,
            limits: SearchLimits::default(),
        }
    }

    /// The same index with other query limits (at most the defaults' match cap).
    pub fn with_limits(mut self, limits: SearchLimits) -> Self {
        self.limits = SearchLimits {
            max_matches: limits.max_matches.min(MAX_MATCHES),
            ..limits
        };
        self
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    fn corrupt(&self, reason: impl Into<String>) -> SearchError {
        SearchError::Dynamo(self.table.corrupt(reason))
    }

    fn version(&self, item: &Item, name: &str) -> Result<Option<u64>, SearchError> {
        match item.opt_int(self.table.name(), name)? {
            None => Ok(None),
            Some(v) => u64::try_from(v)
                .map(Some)
                .map_err(|_| self.corrupt(format!("{name} is negative"))),
        }
    }
}

fn as_number(v: u64) -> Result<i64, SearchError> {
    i64::try_from(v).map_err(|_| SearchError::InvalidDoc(format!("version {v} is too large")))
}

impl SearchIndex for DynamoSearchIndex {
    async fn apply_within(
        &self,
        doc: &IndexDoc,
        max_transactions: usize,
    ) -> Result<Applied, SearchError> {
        self.apply_doc_within(doc, max_transactions).await
    }

    async fn remove(&self, post_id: &str) -> Result<Applied, SearchError> {
        self.apply(&IndexDoc {
            post_id: post_id.to_string(),
            version: REMOVED,
            title: String::new(),
            body: String::new(),
            published_live: false,
            first_published_at: None,
        })
        .await
    }

    async fn search_from(
        &self,
        query: &QueryTerms,
        from: Resume,
        window: Window,
    ) -> Result<Hits, SearchError> {
        self.search_postings(query, from, window).await
    }
}
