//! The scheduler's side of ingestion: which sources are due, and the walk that finds lost
//! chains and sources to sweep.

use chrono::{DateTime, Duration, Utc};

use crate::store::{ContentStore, FetchState, StoreError};

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

/// How long past its next fetch time a source's chain of refreshes counts as lost (a healthy
/// chain is never more than a queue's backlog late).
pub const LOST_AFTER_MINUTES: i64 = 60;

/// The scheduler's side of ingestion: a bounded walk over the sources, a page per run, that
/// starts the chain of refreshes of a source that has none (its message dead-lettered, or
/// the source written before chains) and finds the sources to sweep.
#[derive(Clone, Debug)]
pub struct RefreshSchedule {
    store: ContentStore,
}

/// What one step of the walk found.
#[derive(Debug, Clone, Default)]
pub struct WalkStep {
    /// Sources whose chain of refreshes is lost: each to be enqueued (without `due`).
    pub lost: Vec<String>,
    /// Sources nobody subscribed to within the grace period.
    pub abandoned: Vec<String>,
    /// Sources whose rows of each topic are not all written yet: each to be backfilled.
    pub backfills: Vec<String>,
    /// Where the next step starts; `None` once the walk reached the end of the list.
    pub next: Option<String>,
    /// Sources looked at.
    pub walked: usize,
}

impl RefreshSchedule {
    pub fn new(store: ContentStore) -> Self {
        Self { store }
    }

    /// One page of at most `limit` sources after `after`, at `now`.
    pub async fn walk(
        &self,
        after: Option<&str>,
        limit: usize,
        now: DateTime<Utc>,
        grace: Duration,
    ) -> Result<WalkStep, StoreError> {
        let page = self.store.sources_page(after, limit).await?;
        let older_than = |time: &str, age: Duration| {
            DateTime::parse_from_rfc3339(time).is_ok_and(|t| t.with_timezone(&Utc) + age <= now)
        };
        let mut step = WalkStep {
            next: page.next,
            walked: page.sources.len(),
            backfills: page.backfills,
            ..WalkStep::default()
        };
        for (source, state) in page.sources {
            let lost = match state.next_fetch_at.as_deref() {
                Some(next) => older_than(next, Duration::minutes(LOST_AFTER_MINUTES)),
                None => true,
            };
            if lost {
                step.lost.push(source.id.clone());
            }
            if source.subscriber_count <= 0 && older_than(&source.created_at, grace) {
                step.abandoned.push(source.id);
            }
        }
        Ok(step)
    }
}
