//! Document C's incident-log platform (first half): ingestion, the timeline, incidents
//! grouped by fingerprint, alert rules and alerts, the logbook, the metrics; black-box
//! through the local stack against the emulator (the processor is the stack's real queue
//! poller), plus the processor called directly with redelivered batches.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

mod errors;
mod grouping;
mod ingest;
mod logbook;
mod metrics;
mod rules;
