//! The recipe service, black-box through the local stack against the emulator:
//! recipe accounts (the platform's one identity), recipes, and the AI features with the fake
//! model.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

mod accounts;
mod ai;
mod cleanup;
mod import;
mod outage;
mod recipebox;
mod recipes;
