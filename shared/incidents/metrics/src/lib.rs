//! The incident-log platform's metrics: durable counters and histograms in their own
//! DynamoDB table, updated in the same transactions as the state they count, and read by
//! `GET /prometheus` and the dashboard (`functions/incidents/metrics`).
//!
//! Lambda instances keep nothing between requests, so no figure lives in memory: every count
//! is a DynamoDB write that commits with the change it counts (exactly once, however often a
//! message is delivered or a request retried), spread over [`store::SHARDS`] items per
//! series so that no key is hot under a burst, and every scrape reads the same committed
//! totals.
//!
//! - [`catalog`]: the families, their labels and fixed buckets;
//! - [`series`]: series names and the exposition's escaping;
//! - [`store`]: the table, its keys, the updates that count ([`Metrics`]) and the scrape;
//! - [`exposition`]: the text format 0.0.4 and the dashboard's JSON, from one snapshot.
//!
//! Why a table of its own and not a key space in `IncidentsTable`: the scrape's function
//! reads only this table (its IAM policy cannot reach a log), markers expire by TTL without
//! giving the incidents table one, and the counts stay out of the incidents table's
//! partitions. DynamoDB transactions span tables, so a count still commits with the change.

pub mod catalog;
pub mod exposition;
pub mod series;
pub mod store;

pub use store::{Analysis, Figure, Metrics, Outcome, Snapshot};
