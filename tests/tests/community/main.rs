//! The community's community service (posts and topics), black-box through the local stack
//! against the emulator, plus store tests on the stack's table with a fixed clock.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

mod aws_limits;
mod bookmarks;
mod cleanup;
mod comments;
mod counts;
mod cursors;
mod digests;
mod errors;
mod feeds;
mod follows;
mod identity;
mod markdown;
mod moderation;
mod notifications;
mod posts;
mod reactions;
mod reports;
mod search;
mod summaries;
mod topics;
mod uploads;
mod views;
mod write_limits;
mod writing;
