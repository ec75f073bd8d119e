//! The incident platform: who may do what (operators, admins, ingest keys),
//! ingestion (secrets scrubbed), the timeline, incidents grouped by
//! fingerprint, alert rules and alerts, the logbook, the metrics, and the intelligence
//! (analyses, retrieval documents and search); black-box through the local stack against the emulator
//! (the processor and the sweeper are the stack's real queue pollers, the models loopback
//! doubles), plus the processor called directly with redelivered batches.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

mod access;
mod alertmanager;
mod batching;
mod chat;
mod console;
mod cursors;
mod errors;
mod events;
mod grouping;
mod ingest;
mod intelligence;
mod keys;
mod logbook;
mod logs_filters;
mod loki;
mod metrics;
mod notifications;
mod objects;
mod otlp;
mod pagerduty;
mod rag;
mod rules;
mod secrets;
mod silences;
mod state;
mod steering;
