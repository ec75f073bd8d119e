//! The platform's text analysis, shared by every index built over DynamoDB: community post
//! search (`community-search`) and the incident platform's runbook and analysis retrieval
//! (`incidents-intelligence`). Pure code, no I/O.
//!
//! - [`mod@analyze`]: lowercase, accent folding by our own table ([`analyze::fold`]; Latin-1,
//!   Latin Extended A/B and Additional, ß→ss, æ→ae, ø→o, ...), alphanumeric tokens of 2-32
//!   bytes (apostrophes dropped, trailing `'s` removed, numbers ≤12 digits), the Snowball
//!   English stop list, and our own Porter2 stemmer ([`porter2`], checked against the
//!   official Snowball fixture). "Café Running" → `cafe`, `run`. English stemming only;
//!   other scripts are folded and matched exactly.
//! - [`bm25`]: Okapi BM25's inverse document frequency and term saturation.
//! - [`mod@redact`]: secrets (tokens, passwords, keys, private key blocks, credentials in
//!   URLs) replaced in a text before it is stored or sent to a model.

pub mod analyze;
pub mod bm25;
mod fold_table;
pub mod porter2;
pub mod redact;

pub use analyze::{fold, terms, tokens, Tokenizer};
