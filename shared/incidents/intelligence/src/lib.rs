//! The incident platform's intelligence: AI analysis of log text, with retrieval from the
//! team's runbooks and from earlier analyses, and the retrieval corpus itself.
//!
//! - [`mod@redact`]: every text's secrets (tokens, passwords, keys, private key blocks,
//!   credentials in URLs) replaced before a model, an embeddings call or the table sees it
//!   (`text_analysis::redact`, which ingestion applies too);
//! - [`input`]: every client input parsed and bounded (a 400 names each bad field);
//! - [`chunk`]: runbooks into chunks (paragraphs packed to ~1,200 characters);
//! - [`index`]: BM25 over the chunks as an inverted index in DynamoDB, behind the
//!   [`index::TermIndex`] port, exactly-once under retries and interruptions;
//! - [`embed`]: hybrid ranking (BM25 fused with cosine similarity) when an embeddings model is
//!   configured;
//! - [`prompt`]: what the model is asked and how its JSON answer is validated;
//! - [`store`]: documents, chunks and analyses in the intelligence table (its module docs list
//!   the items; nothing scans);
//! - [`logs`]: the port that names a log's service;
//! - [`queue`]: the sweep queue that deletes analyses in bounded steps;
//! - [`service`]: the facade the functions call ([`Intelligence`]), with
//!   [`IntelligenceError`].
//!
//! # Calls per request
//!
//! - Analyze without retrieval: one GetItem on the incidents table when `log_id` is given, one
//!   model call, one embeddings call when configured, then storing: a GetItem and a PutItem
//!   for the record, and the index's put of one unit (a GetItem, a PutItem, ⌈terms/50⌉
//!   transactions and a final one; a typical log and analysis have 50 to 150 terms, so 2 to 4).
//!   Replacing the author's earlier analysis of the same log removes its unit too.
//! - Deleting a log's analyses: 1 GetItem of the purge mark, 1 consistent Query of the log's
//!   partition (one analysis per author), then per analysis deleted the index's remove and a
//!   conditional DeleteItem.
//! - Retrieval (analyze with `use_rag`, a search, a query by text): 1 BatchGet of df items
//!   and corpus figures (2 for the 48 terms of a long log across both kinds), at most 12
//!   Queries of postings (concurrent), 1 GetItem of the analyses' purge mark (when analyses
//!   are searched), 1 BatchGet of the candidates' records (at most 100 keys), and with
//!   embeddings one embeddings call for the query.
//! - A runbook: embeddings calls of 64 chunks, 1 transaction for the record and count,
//!   ⌈chunks/100⌉ for the chunks, the index's put (at most 60 posting transactions for the
//!   3,000 terms a unit keeps), 1 UpdateItem to READY.
//! - Deleting a runbook: 1 GetItem, 1 UpdateItem, the index's remove (as many transactions
//!   as its put), ⌈chunks/100⌉ + 1 transactions.

pub mod chunk;
pub mod embed;
pub mod index;
pub mod input;
pub mod logs;
pub mod model;
pub mod prompt;
pub mod queue;
pub use text_analysis::redact;
pub mod service;
pub mod store;

pub use queue::{SweepMessage, SweepQueue};
pub use service::{Actor, Intelligence, IntelligenceError, Sweeper};
