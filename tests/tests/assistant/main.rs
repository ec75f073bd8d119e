//! The GenAI function through the local stack, against the emulator, with a fake
//! OpenAI-compatible model server and an OTLP receiver started by the tests: the four
//! operations under `/api/ai` and on the function URL, every status of the error
//! table, both providers, the shared answer cache, the `articleId` path through the content
//! service, the telemetry export, the router's own routes, and the community's admin provider
//! configuration on the same function, and which browser origins the function URL answers.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

mod articles;
mod cache;
mod cors;
mod errors;
mod fulltext;
mod limits;
mod operations;
mod provider;
mod routes;
mod streaming;
mod telemetry;
