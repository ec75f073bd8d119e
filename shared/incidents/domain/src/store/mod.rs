//! The incidents table (`INCIDENTS_TABLE`): keys `pk`/`sk`, one index `gsi1` (`gsi1pk`/`gsi1sk`,
//! all attributes projected). Every access pattern is a GetItem, a Query or a conditional
//! write; nothing scans.
//!
//! | Item | pk | sk | gsi1pk / gsi1sk |
//! |---|---|---|---|
//! | log | `LOG#{hour}#{shard}` | `{id}` | `SVC#{service}#{hour}#{shard}` / `{id}` |
//! | hour with logs | `LOGHOURS` | `{hour}` | - |
//! | deleted log (tombstone) | `LOGDEL#{minute}` | `{id}` | - |
//! | alert rule | `RULES` | `{ruleId}` | - |
//! | rule count (the cap's) | `RULECOUNT` | `META` | - |
//! | incident | `INC#{id}` | `META` | `INCIDENTS#{status}` / `{openedAt}#{id}` (once opened) |
//! | incident count, window rows, samples, grouped markers | see [`crate::groups`] | | - |
//! | incident change | `INC#{id}` | `EVT#{at}#{n}` | - |
//! | alert | `ALERT#{id}` | `META` | `ALERTS#{status}` / `{raisedAt}#{id}` |
//! | logbook entry | `LB#{id}` | `META` | `LOGBOOK` / `{createdAt}#{id}` |
//! | ingest key (hashed; `crate::keys`) | `IKEY#{id}` | `META` | `INGESTKEYS` / `{createdAt}#{id}` |
//! | incidents by status ([`counts`]) | `INCCOUNTS` | `SHARD#{0..16}`, `SEED` | - |
//! | operator seen by the console | `OPERATOR#{username lowercase}` | `META` | `OPERATORS` / `{username lowercase}` |
//!
//! A log id is its time in milliseconds (13 digits), `-`, 32 hex digits, so ids sort by time
//! and name their own key: `{hour}` is the log's UTC hour (`2026-11-24T22`) and `{shard}` one
//! of [`SHARDS`] taken from the id's last hex digit. A burst of logs within one hour spreads
//! over [`SHARDS`] partitions of the table and of the index (per service), so no key is hot;
//! a reader merges the shards of each hour (newest first) and walks the hours that hold logs
//! (`LOGHOURS`, one row per hour, written once per hour by each processor instance), never
//! the empty ones.
//!
//! Retention: logs, the hours holding them and grouped-log samples carry `expiresAt` (epoch
//! seconds: the log's own time, or the hour's end, plus the retention, `LOG_RETENTION_DAYS`,
//! 30 by default), the table's TTL attribute, so DynamoDB deletes them without a write of
//! ours (within about two days of expiry) and the table stops growing with time; window rows
//! and grouped markers expire too (`crate::groups`). Incidents, their counts, history,
//! alerts, rules, the logbook and keys are kept.
//!
//! The platform's metrics live in their own table (`incidents_metrics`): the transactions here
//! that open, change or reopen an incident, or raise an alert, carry the metric updates that
//! count them, so a count commits with its change or not at all.
//!
//! The access patterns live by the data they serve: [`logs`] (the timeline's table rows and
//! deletions), [`rules`], [`incidents`], [`alerts`] and [`logbook`], each an `impl Store`.

mod alerts;
mod counts;
mod groups;
mod incidents;
mod logbook;
mod logs;
mod merge;
mod rules;

pub use alerts::RaisedAlerts;
pub use counts::{StatusCounts, COUNT_SHARDS};
pub use logs::{log_key, log_millis, page_bounds};
pub use merge::{check as merge_check, MergeCheck};

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use incidents_metrics::Metrics;
use platform::dynamo::request::Update;
use platform::dynamo::{s, DynamoError, Item, Table, Transaction, TransactionError};

/// Days logs are kept when `LOG_RETENTION_DAYS` is not set.
pub const DEFAULT_LOG_RETENTION_DAYS: i64 = 30;
/// The table's TTL attribute (template.yaml): epoch seconds.
pub(crate) const EXPIRES_AT: &str = "expiresAt";
const META: &str = "META";

/// One page of a status's list: each row with its index key, and whether more follow.
pub struct Listed<T> {
    pub rows: Vec<(String, T)>,
    pub more: bool,
}

/// A store error: the table's, or a failed condition the caller cares about.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
    #[error("not found")]
    NotFound,
    /// The item changed between the read and the write.
    #[error("changed concurrently")]
    Changed,
}

impl From<TransactionError> for StoreError {
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Dynamo(d) => Self::Dynamo(d),
            TransactionError::Condition { .. } => Self::Changed,
            TransactionError::Conflict => Self::Changed,
        }
    }
}

pub(crate) fn incident_pk(id: &str) -> String {
    format!("INC#{id}")
}

/// The incidents table, and the metrics its changes count in.
#[derive(Clone, Debug)]
pub struct Store {
    table: Table,
    metrics: Metrics,
    /// How long logs are kept, in seconds; `None`: for good.
    retention_seconds: Option<i64>,
}

impl Store {
    /// Over `table`, keeping logs [`DEFAULT_LOG_RETENTION_DAYS`].
    pub fn new(table: Table, metrics: Metrics) -> Self {
        Self {
            table,
            metrics,
            retention_seconds: Some(DEFAULT_LOG_RETENTION_DAYS * 86_400),
        }
    }

    /// Keeps logs `days` days (0: for good).
    pub fn with_log_retention_days(self, days: i64) -> Self {
        Self {
            retention_seconds: (days > 0).then(|| days.saturating_mul(86_400)),
            ..self
        }
    }

    /// When something of millisecond `millis` expires (epoch seconds), if it does.
    pub(crate) fn expires_at(&self, millis: i64) -> Option<i64> {
        self.retention_seconds
            .map(|keep| millis.div_euclid(1000).saturating_add(keep))
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    pub(crate) fn count_in(tx: &mut Transaction, updates: Vec<Update>) -> Result<(), DynamoError> {
        for update in updates {
            tx.update(update)?;
        }
        Ok(())
    }

    fn corrupt(&self, reason: impl Into<String>) -> DynamoError {
        self.table.corrupt(reason)
    }

    /// At most `limit` items of the `gsi1` partition `gsi1pk`, newest first, below `after`
    /// when given, and whether more follow (one item past the page tells).
    async fn by_status(
        &self,
        gsi1pk: &str,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<Item>, bool), DynamoError> {
        let wanted = limit.saturating_add(1);
        let query = self
            .gsi1_below(gsi1pk, after)
            .limit(i32::try_from(wanted).unwrap_or(i32::MAX));
        let mut items = self.table.query_all(query, Some(wanted)).await?;
        let more = items.len() > limit;
        items.truncate(limit);
        Ok((items, more))
    }

    /// A newest-first Query of the `gsi1` partition `gsi1pk`, below `after` when given.
    fn gsi1_below(&self, gsi1pk: &str, after: Option<&str>) -> QueryFluentBuilder {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .expression_attribute_values(":pk", s(gsi1pk))
            .scan_index_forward(false);
        match after {
            Some(after) => query
                .key_condition_expression("gsi1pk = :pk AND gsi1sk < :after")
                .expression_attribute_values(":after", s(after)),
            None => query.key_condition_expression("gsi1pk = :pk"),
        }
    }
}
