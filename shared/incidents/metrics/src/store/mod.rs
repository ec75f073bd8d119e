//! The metrics table (`INCIDENT_METRICS_TABLE`): keys `pk`/`sk`, no index, TTL on
//! `expiresAt`. Every access pattern is a Query on a known partition or a conditional write.
//!
//! | Item | pk | sk | attributes |
//! |---|---|---|---|
//! | a series' shard | `SHARD#{0..SHARDS}` | the series, `name{label="value",...}` | `metric`, `labels` (a map), and `value` (counters, gauges) or `b0`..`bN` and `sumMs` (histograms) |
//! | "counted" marker | `COUNTED#{sha256 of the counted thing's id}` | `-` | `expiresAt` |
//! | a service with its own series | `SERVICES` | `{serviceName}` | - |
//! | how many services have their own series | `SERVICECOUNT` | `-` | `n` |
//!
//! **No hot key.** A series is spread over [`SHARDS`] items, one per shard partition: each
//! write adds to one shard, chosen by hashing what it counts (a message, an incident change,
//! an alert; a processor batch's logs, with the series), and a scrape sums the shards. Under
//! a burst the writes of one series spread over [`SHARDS`] items and partitions, and the
//! series of one batch over all of them. At 1M logs/s (80 batches/s of 12,500 logs, each
//! touching ~200 service/severity series: 80 x 200 x 2 units = 32,000 write units/s) that is
//! 125 units/s per shard, an eighth of a partition (64 shards were half of one).
//!
//! **Exactly once.** Every write here is an `Update` that joins the transaction of the state
//! change it counts (an incident opening, changing or reopening, an alert raised), whose own
//! condition makes a retry a no-op; what has no such transaction (a message of logs, stored by
//! BatchWriteItem; an analysis) commits its counters with a conditional put of a "counted"
//! marker, so a redelivery or a retry counts nothing twice. Markers expire after
//! [`MARKER_TTL_DAYS`], longer than a message can live in the ingest queue and its DLQ.
//!
//! **A scrape** reads the [`SHARDS`] series partitions with one strongly consistent Query
//! each, in parallel (the series are bounded, so each answers in one page, far below 1 MB):
//! every scrape sees every committed count, and a counter never reads lower than before.
//!
//! **Bounded cardinality.** Services are client-chosen names: the first [`MAX_SERVICES`] seen
//! get their own series (registered once, in `SERVICES`, guarded by the count in
//! `SERVICECOUNT`); the logs of any later service are counted as `service="other"` (as are
//! those of a service named `other`). Severities, statuses, modes and outcomes are closed
//! sets; a provider name outside `[A-Za-z0-9._:-]{1,64}` is counted as `other`.
//!
//! One file per item kind: `shards` (the series' updates), `markers`, `services`; then what
//! is counted (`logs`, `incidents`, `analyses`) and the scrape (`snapshot`).

use std::sync::{Arc, Mutex};

use platform::dynamo::{DynamoError, RetryPolicy, Table, Transaction, TransactionError};
use platform::{Clock, Env};
use ring::digest::{digest, SHA256};

mod analyses;
mod incidents;
mod logs;
mod markers;
mod services;
mod shards;
mod snapshot;

pub use analyses::{Analysis, Outcome};
pub use logs::batch_key;
pub use snapshot::{Figure, Snapshot};

use services::Services;

/// The partitions every series is spread over; a scrape makes this many Queries (in
/// parallel). Raise it, never lower it (a scrape reads shards `0..SHARDS` only).
pub const SHARDS: u32 = 256;
/// Services with series of their own; the logs of later ones are counted as [`OTHER`].
pub const MAX_SERVICES: usize = 100;
/// The label value that collects what the bounds fold away.
pub const OTHER: &str = "other";
/// How long a "counted" marker is kept: longer than the ingest queue (4 days) and its DLQ
/// (14 days from the first send) can hold a message.
pub const MARKER_TTL_DAYS: i64 = 15;
/// The longest provider name kept as a label value.
pub const MAX_PROVIDER_CHARS: usize = 64;

const SHARD_PK: &str = "SHARD#";
const MARKER_PK: &str = "COUNTED#";
const SERVICES_PK: &str = "SERVICES";
const SERVICE_COUNT_PK: &str = "SERVICECOUNT";
const NO_SORT: &str = "-";

/// The shard of whatever `seed` names (a message, an incident change): spread evenly, and
/// the same on every retry.
pub fn shard_for(seed: &str) -> u32 {
    let hash = digest(&SHA256, seed.as_bytes());
    let mut first = [0u8; 4];
    for (slot, byte) in first.iter_mut().zip(hash.as_ref()) {
        *slot = *byte;
    }
    u32::from_be_bytes(first) % SHARDS
}

/// Hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    digest(&SHA256, text.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Commits the transaction `build` makes of `pending`, whose first items are a conditional
/// marker of each, in order: one whose marker fails (counted before) is left out and the
/// transaction built again. Returns those committed (none when all were counted before).
pub async fn commit_uncounted<T>(
    mut pending: Vec<T>,
    build: impl Fn(&[T]) -> Result<Transaction, DynamoError>,
    conflict: impl Fn() -> DynamoError,
) -> Result<Vec<T>, DynamoError> {
    // Each round commits, or leaves out at least one.
    for _ in 0..=pending.len() {
        if pending.is_empty() {
            break;
        }
        match build(&pending)?.commit_retrying().await {
            Ok(()) => return Ok(pending),
            Err(TransactionError::Condition { failed }) => {
                let before = pending.len();
                pending = pending
                    .into_iter()
                    .enumerate()
                    .filter(|(at, _)| !failed.contains(at))
                    .map(|(_, p)| p)
                    .collect();
                if pending.len() == before {
                    return Err(conflict());
                }
            }
            Err(TransactionError::Dynamo(e)) => return Err(e),
            Err(TransactionError::Conflict) => return Err(conflict()),
        }
    }
    Ok(Vec::new())
}

/// The metrics table: the updates that count, and the scrape that reads them.
#[derive(Clone, Debug)]
pub struct Metrics {
    table: Table,
    clock: Clock,
    services: Arc<Mutex<Services>>,
}

impl Metrics {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self {
            table,
            clock,
            services: Arc::default(),
        }
    }

    /// Over `INCIDENT_METRICS_TABLE`, on the system clock.
    pub fn from_env(
        env: &Env,
        aws: &platform::aws::AwsClients,
    ) -> Result<Self, platform::ConfigError> {
        Ok(Self::new(
            Table::from_env(env, aws, "INCIDENT_METRICS_TABLE")?,
            Clock::system(),
        ))
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    fn conflict(&self) -> DynamoError {
        DynamoError::Conflict {
            table: self.table.name().to_string(),
            attempts: RetryPolicy::CONFLICTS.attempts,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Metrics over an offline table, for tests that only build updates.
    pub(super) fn metrics() -> Metrics {
        Metrics::new(Table::offline("m"), Clock::system())
    }

    #[test]
    fn shards_spread_and_repeat() {
        let mut seen = HashSet::new();
        for i in 0..2_000 {
            let shard = shard_for(&format!("message {i}"));
            assert!(shard < SHARDS);
            assert_eq!(shard, shard_for(&format!("message {i}")));
            seen.insert(shard);
        }
        assert_eq!(
            seen.len(),
            usize::try_from(SHARDS).unwrap(),
            "every shard used"
        );
    }
}
