//! Identity end to end through the local stack, over HTTP against the emulator: accounts,
//! settings, tokens and client credentials, and the service's own routes.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

mod accounts;
mod app_passwords;
mod brake;
mod refresh_race;
mod roles;
mod saved;
mod service;
mod sessions;
mod settings;
mod tokens;
