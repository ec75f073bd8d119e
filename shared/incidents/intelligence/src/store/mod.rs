//! The intelligence table's records (`INTELLIGENCE_TABLE`): runbook documents, their chunks,
//! stored analyses. Keys `pk`/`sk`; `gsi1` (`gsi1pk`/`gsi1sk`) lists documents and analyses
//! newest first, `gsi2` (`gsi2pk`/`gsi2sk`) a service's analyses; both project everything. The
//! retrieval index shares the table ([`crate::index`] lists its items). Every access is a
//! GetItem, a BatchGetItem, a Query or a conditional write; nothing scans.
//!
//! | Item | pk | sk | gsi1pk / gsi1sk | gsi2pk / gsi2sk |
//! |---|---|---|---|---|
//! | document | `DOC#{id}` | `META` | `DOCS` / `{createdAt}#{id}` | - |
//! | document chunk | `DOC#{id}` | `CHUNK#{nnnn}` (text, embedding) | - | - |
//! | document count | `DOCS` | `COUNT` | - | - |
//! | analysis | `AN#{key}` | `BY#{author}` | `ANALYSES` / `{createdAt}#{key}` | `ASVC#{service}` / `{createdAt}#{key}` |
//! | analyses deleted before | `ANALYSES` | `PURGE` | - | - |
//!
//! An analysis's key is its log id, or its own id when it has no log; `{author}` is the user id
//! of whoever asked for it. Each operator keeps one analysis per log, a new one replacing
//! their own earlier one and never anyone else's: a log's analyses are one Query of its
//! partition. It holds the analysis as JSON (`body`), the redacted log (`content`), the text
//! it is retrieved by (`text`) and its embedding. `DELETE
//! /api/v1/analyses` writes `ANALYSES`/`PURGE` (`before`: the moment): every analysis older
//! is invisible at once (reads filter by it, lists start at it) and the sweeper deletes them
//! in steps. Times are RFC 3339 UTC with milliseconds, so they sort as strings.
//!
//! `documents` holds the runbooks' records, chunks and count; `analyses` the analyses and
//! the purge mark.

use platform::dynamo::{
    key, s, AttributeValue, Attributes, Blob, DynamoError, Item, Table, TransactionError,
    MAX_TRANSACTION_BYTES,
};

use crate::model::Analysis;

mod analyses;
mod documents;

const META: &str = "META";
const DOCS_PK: &str = "DOCS";
const ANALYSES_PK: &str = "ANALYSES";
/// The part of a transaction's 4 MB a batch of chunk writes fills (room for overhead).
const TRANSACTION_FILL: usize = MAX_TRANSACTION_BYTES * 7 / 8;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
    /// The item changed (or went) between the read and the write.
    #[error("changed concurrently")]
    Changed,
    /// The corpus holds the most documents it may.
    #[error("the corpus is full")]
    Full,
}

impl From<TransactionError> for StoreError {
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Dynamo(d) => Self::Dynamo(d),
            TransactionError::Condition { .. } | TransactionError::Conflict => Self::Changed,
        }
    }
}

/// An embedding and the model that made it.
#[derive(Clone, Debug, PartialEq)]
pub struct Embedding {
    pub model: String,
    pub vector: Vec<f32>,
}

/// A runbook chunk as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredChunk {
    pub document_id: String,
    pub index: u32,
    pub text: String,
    pub embedding: Option<Embedding>,
}

/// An analysis as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredAnalysis {
    pub key: String,
    pub analysis: Analysis,
    /// The log text, redacted.
    pub content: String,
    /// What it is retrieved by: summary, root cause and recommendations.
    pub text: String,
    pub embedding: Option<Embedding>,
    /// An earlier analysis of the same key whose index entry may still need removing.
    pub stale: Option<String>,
}

/// The key of document `id`'s record.
pub fn document_key(id: &str) -> Item {
    key(format!("DOC#{id}"), META)
}

/// The key of chunk `index` of document `id`.
pub fn chunk_key(id: &str, index: u32) -> Item {
    key(format!("DOC#{id}"), format!("CHUNK#{index:04}"))
}

/// The key of `author`'s analysis stored under `key` (a log id, or the analysis's own id).
pub fn analysis_key(key_: &str, author: &str) -> Item {
    key(format!("AN#{key_}"), format!("{AUTHOR_PREFIX}{author}"))
}

/// The sort keys of analyses start with it, followed by the author's user id.
const AUTHOR_PREFIX: &str = "BY#";
/// The most analyses one log's partition is read for (one per operator who analysed it).
pub const MAX_ANALYSES_PER_LOG: usize = 100;

/// An embedding's bytes: f32 little-endian.
pub fn encode_vector(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn decode_vector(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    bytes
        .chunks_exact(4)
        .map(|b| <[u8; 4]>::try_from(b).ok().map(f32::from_le_bytes))
        .collect()
}

fn embedding_of(item: &Item) -> Option<Embedding> {
    let model = item.opt_string("vecModel")?;
    let vector = match item.get("vec") {
        Some(AttributeValue::B(bytes)) => decode_vector(bytes.as_ref())?,
        _ => return None,
    };
    Some(Embedding { model, vector })
}

fn put_embedding(item: &mut Item, embedding: Option<&Embedding>) {
    if let Some(e) = embedding {
        item.insert(
            "vec".into(),
            AttributeValue::B(Blob::new(encode_vector(&e.vector))),
        );
        item.insert("vecModel".into(), s(e.model.as_str()));
    }
}

/// The intelligence table's records.
#[derive(Clone, Debug)]
pub struct Store {
    table: Table,
}

impl Store {
    pub fn new(table: Table) -> Self {
        Self { table }
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    fn name(&self) -> &str {
        self.table.name()
    }

    /// The items with these keys (absent ones skipped): BatchGetItem, 100 keys a call.
    pub async fn items(&self, keys: Vec<Item>) -> Result<Vec<Item>, DynamoError> {
        self.table.batch_get_all(keys, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip() {
        let v = vec![0.5, -1.25, 3.0e-8, f32::MAX];
        assert_eq!(decode_vector(&encode_vector(&v)), Some(v));
        assert_eq!(decode_vector(&[1, 2, 3]), None);
        assert_eq!(decode_vector(&[]), Some(vec![]));
    }

    #[test]
    fn keys_sort_chunks_in_order() {
        let sk = |i| chunk_key("d", i)["sk"].as_s().cloned().unwrap_or_default();
        assert_eq!(sk(7), "CHUNK#0007");
        assert!(sk(9) < sk(10) && sk(99) < sk(100));
    }
}
