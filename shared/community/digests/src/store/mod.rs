//! `DigestsTable`: digests, who was given which digest on which day, generation jobs and the
//! daily schedule's progress. Keys `pk`/`sk`, one index `gsi1` (keys only).
//!
//! | pk | sk | holds | access pattern |
//! |---|---|---|---|
//! | `DIGEST#{id}` | `DIGEST` | the whole digest: `summaryJson` (the Digest summary), `eventsJson`, `model`, `digestType`, `digestDate`, `targetUserId`; PUBLIC ones also `gsi1pk = PUBLIC`, `gsi1sk = {date}#{createdAt}` | by id: GetItem; lists: BatchGetItem projecting `summaryJson` (never the events) |
//! | `USER#{u}` | `DAY#{date}` | the digest user `u` has for that day (`digestId`, `digestType`) | skip check: GetItem; "my digests": Query newest first, `(page+1)*size+1` rows at most by number (page 0-49, size 1-20: 1,001), `size+2` by cursor (the days before the cursor's) |
//! | `USER#{u}` | `META` | `days`: how many day rows `u` has | the page envelope's total: GetItem |
//! | `JOB#{id}` | `JOB` | a generation job | GetItem; claim and finish: conditional UpdateItem |
//! | `SCHEDULE#{date}` | `RUN` | the daily schedule's progress over the users (`cursor`, `done`, `jobs`) | GetItem, PutItem |
//! | `PUBLICCLAIM#{date}` | `CLAIM` | which worker generates the day's PUBLIC digest (`claimId`, `claimedAt`; one small row a day, kept) | conditional PutItem (absent or stale), DeleteItem when it wrote no digest (a failure, a day without news) |
//! | gsi1 `PUBLIC` | `{date}#{createdAt}` | every PUBLIC digest | latest public: Query newest first dated up to tomorrow (`gsi1sk < {tomorrow}$`), limit 1, then GetItem |
//!
//! A PUBLIC digest's id is name-based on its day ([`crate::input::DigestId::named`]), so the
//! day's one PUBLIC digest is a conditional put (`attribute_not_exists`): two concurrent
//! generations store one, the loser reads the winner's. A generation writes the digest, the
//! user's day row and the `days` counter in one transaction, conditional on the day row being
//! as read (absent, or naming the digest it replaces), so concurrent runs for one user and
//! day leave one row and an exact count; a forced PERSONAL digest deletes the one it replaces
//! in the same transaction. No Scan anywhere.
//!
//! Item size: a digest item is measured as DynamoDB does (`platform::dynamo::item_size`) and
//! its last events are dropped (counts recomputed) until it is at most
//! [`MAX_DIGEST_ITEM_BYTES`], under DynamoDB's 400 KB.
mod days;
mod digests;
mod jobs;

use platform::dynamo::{key, DynamoError, Item, Table, TransactionError};
use platform::Clock;

use crate::input::{DigestDate, DigestId, DigestType};
use crate::model::{DigestDetail, DigestSummary, Event};

/// The largest digest item written: DynamoDB allows 400 KB (409,600 bytes); the margin
/// covers the attributes' overhead estimates.
pub const MAX_DIGEST_ITEM_BYTES: usize = 380_000;
const PUBLIC_INDEX: &str = "PUBLIC";
/// The summary attributes read by lists (the events stay on the item).
const SUMMARY_PROJECTION: &str = "summaryJson, targetUserId";

fn digest_key(id: &str) -> Item {
    key(format!("DIGEST#{id}"), "DIGEST")
}

fn day_key(user: &str, date: &str) -> Item {
    key(format!("USER#{user}"), format!("DAY#{date}"))
}

fn meta_key(user: &str) -> Item {
    key(format!("USER#{user}"), "META")
}

fn job_key(id: &str) -> Item {
    key(format!("JOB#{id}"), "JOB")
}

fn public_claim_key(date: &str) -> Item {
    key(format!("PUBLICCLAIM#{date}"), "CLAIM")
}

/// A claim older than this is taken to have died with its worker (the worker's timeout is
/// 3 minutes).
pub const PUBLIC_CLAIM_STALE_SECONDS: i64 = 300;

fn schedule_key(date: &str) -> Item {
    key(format!("SCHEDULE#{date}"), "RUN")
}

/// The digest a user has for a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayRow {
    pub digest_id: String,
    pub digest_type: String,
}

/// A stored digest and who it belongs to.
#[derive(Debug, Clone)]
pub struct StoredDigest {
    pub detail: DigestDetail,
    /// The PERSONAL digest's user.
    pub target_user_id: Option<String>,
}

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A condition failed: the day row or the digest changed since it was read.
    #[error("changed since read")]
    Changed,
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
}

impl From<TransactionError> for WriteError {
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Dynamo(d) => Self::Dynamo(d),
            TransactionError::Conflict | TransactionError::Condition { .. } => Self::Changed,
        }
    }
}

/// The schedule's progress for one day.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScheduleRun {
    pub cursor: Option<String>,
    pub done: bool,
    pub jobs: i64,
}

/// The digests table and the clock.
#[derive(Clone, Debug)]
pub struct DigestStore {
    table: Table,
    clock: Clock,
}

/// Event count, distinct sources, reading time and preview headlines of `events`.
pub fn recount(summary: &mut DigestSummary, events: &[Event]) {
    summary.event_count = i64::try_from(events.len()).unwrap_or(i64::MAX);
    let mut sources: Vec<(&str, &str)> = Vec::new();
    for source in events.iter().flat_map(|e| e.sources.iter()) {
        let k = (source.source_name.as_str(), source.provider.as_str());
        if !sources.contains(&k) {
            sources.push(k);
        }
    }
    summary.source_count = i64::try_from(sources.len()).unwrap_or(i64::MAX);
    let words: usize = events
        .iter()
        .map(|e| {
            e.headline.split_whitespace().count()
                + e.summary_bullets
                    .iter()
                    .map(|b| b.split_whitespace().count())
                    .sum::<usize>()
        })
        .sum::<usize>()
        + summary
            .summary
            .as_deref()
            .map_or(0, |s| s.split_whitespace().count());
    // 200 words a minute, at least one minute.
    summary.read_time_minutes = i64::try_from(words.div_ceil(200).max(1)).unwrap_or(1);
    summary.preview_headlines = events.iter().take(3).map(|e| e.headline.clone()).collect();
}

impl DigestStore {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self { table, clock }
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

/// A new id for a PERSONAL digest, or the day's PUBLIC id.
pub fn digest_id_for(kind: DigestType, date: DigestDate) -> DigestId {
    match kind {
        DigestType::Personal => DigestId::generate(),
        DigestType::Public => DigestId::named(&format!("digest:public:{date}")),
    }
}
