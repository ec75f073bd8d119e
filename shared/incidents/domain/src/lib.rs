//! The incident platform, first half: log ingestion (the ingest queue's
//! messages and how a batch of logs is packed into them), the log timeline, alert rules,
//! alerts, incidents grouped by fingerprint, and the logbook.
//!
//! - [`input`]: every client input parsed and bounded (a 400 names each bad field);
//! - [`fingerprint`]: what makes two logs "the same problem";
//! - [`groups`]: grouping once per fingerprint per batch (the store counts, windows, samples);
//! - [`queue`]: the ingest queue's messages, packed under SQS's limits;
//! - `store` (the crate's own): the incidents table, its keys and every access pattern;
//! - [`objects`]: raw logs, one S3 object per processor batch, service bucket and minute;
//! - [`service`]: the facade the functions call ([`Incidents`]), with [`IncidentsError`];
//! - [`channels`]: notification channels (webhooks), their routing and delivery logs;
//! - [`escalation`]: unacknowledged incidents escalated to the next channel, by due time;
//! - [`events`]: incident events on the bus, through an outbox written with each change;
//! - [`keys`]: ingest keys, issued and revoked by admins, stored hashed;
//! - [`silences`]: silences and maintenance windows holding back notifications.

pub mod channels;
pub mod email;
pub mod escalation;
pub mod events;
pub mod fingerprint;
pub mod grouping_quality;
pub mod groups;
pub mod input;
pub mod keys;
pub mod model;
pub mod objects;
pub mod queue;
pub mod service;
pub mod silences;
pub(crate) mod store;

/// The incidents table's key of a log and a timeline page's bounds: for the product's parts
/// that look its logs up themselves (the intelligence) and the timeline's tests.
pub mod timeline {
    pub use crate::store::{log_key, page_bounds};
}

pub use queue::{IngestMessage, IngestQueue, QueueError};
pub use service::{Incidents, IncidentsError};
pub use store::{StatusCounts, COUNT_SHARDS};
