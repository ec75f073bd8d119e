//! The news reader's content service and the users side of subscriptions, black-box through the
//! local stack against the emulator, with feeds served by the test on loopback.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

mod articles;
mod backfill;
mod cursors;
mod discovery;
mod feed;
mod fulltext;
mod limits;
mod opml;
mod reader;
mod refresh;
mod sources;
mod subscriptions;
mod sweep;
mod websub;
