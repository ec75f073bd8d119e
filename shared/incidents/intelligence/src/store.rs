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

use platform::dynamo::{
    is_condition_failed, item_size, key, n, s, AttributeValue, Attributes, Blob, DynamoError, Item,
    Table, Transaction, TransactionError, MAX_TRANSACTION_BYTES, MAX_TRANSACTION_ITEMS,
};

use crate::model::{Analysis, RagDocument, RagDocumentStatus};

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

    // ---- documents ---------------------------------------------------------------------

    fn document_item(&self, doc: &RagDocument) -> Item {
        let mut item = document_key(&doc.id);
        item.insert("id".into(), s(doc.id.as_str()));
        item.insert("title".into(), s(doc.title.as_str()));
        item.insert(
            "tags".into(),
            AttributeValue::L(doc.tags.iter().map(|t| s(t.as_str())).collect()),
        );
        item.insert("chunks".into(), n(i64::from(doc.chunks)));
        item.insert(
            "bytes".into(),
            n(i64::try_from(doc.bytes).unwrap_or(i64::MAX)),
        );
        item.insert(
            "redactions".into(),
            n(i64::try_from(doc.redactions).unwrap_or(i64::MAX)),
        );
        item.insert("status".into(), s(doc.status.as_str()));
        if let Some(model) = &doc.embeddings_model {
            item.insert("embeddingsModel".into(), s(model.as_str()));
        }
        item.insert("createdBy".into(), s(doc.created_by.as_str()));
        item.insert("createdAt".into(), s(doc.created_at.as_str()));
        item.insert("gsi1pk".into(), s(DOCS_PK));
        item.insert("gsi1sk".into(), s(format!("{}#{}", doc.created_at, doc.id)));
        item
    }

    pub fn document_from(&self, item: &Item) -> Result<RagDocument, DynamoError> {
        let t = self.name();
        let status = item.string(t, "status")?;
        Ok(RagDocument {
            id: item.string(t, "id")?,
            title: item.string(t, "title")?,
            tags: item.strings(t, "tags")?,
            chunks: u32::try_from(item.int(t, "chunks")?).unwrap_or(0),
            bytes: u64::try_from(item.int(t, "bytes")?).unwrap_or(0),
            redactions: usize::try_from(item.counter(t, "redactions")?).unwrap_or(0),
            status: RagDocumentStatus::parse(&status)
                .ok_or_else(|| self.table.corrupt(format!("status {status}")))?,
            embeddings_model: item.opt_string("embeddingsModel"),
            created_by: item.string(t, "createdBy")?,
            created_at: item.string(t, "createdAt")?,
        })
    }

    /// Writes a new document's record (INDEXING) and counts it, when fewer than `max` exist
    /// ([`StoreError::Full`] otherwise).
    pub async fn begin_document(&self, doc: &RagDocument, max: i64) -> Result<(), StoreError> {
        let mut tx = Transaction::new(&self.table);
        tx.put(self.document_item(doc), Some("attribute_not_exists(pk)"))?;
        tx.update(
            tx.update_builder(key(DOCS_PK, "COUNT"))
                .update_expression("ADD documents :one")
                .condition_expression("attribute_not_exists(documents) OR documents < :max")
                .expression_attribute_values(":one", n(1))
                .expression_attribute_values(":max", n(max)),
        )?;
        match tx.commit_retrying().await {
            Err(e) if e.failed_at(1) => Err(StoreError::Full),
            other => Ok(other?),
        }
    }

    /// Writes a document's chunks (text and embedding), in transactions of at most 100
    /// items and 3.5 MB.
    pub async fn put_chunks(&self, chunks: &[StoredChunk]) -> Result<(), StoreError> {
        let mut tx = Transaction::new(&self.table);
        let mut bytes = 0;
        for chunk in chunks {
            let mut item = chunk_key(&chunk.document_id, chunk.index);
            item.insert("text".into(), s(chunk.text.as_str()));
            put_embedding(&mut item, chunk.embedding.as_ref());
            let size = item_size(&item);
            if tx.len() == MAX_TRANSACTION_ITEMS || bytes + size > TRANSACTION_FILL {
                tx.commit_retrying().await?;
                tx = Transaction::new(&self.table);
                bytes = 0;
            }
            bytes += size;
            tx.put(item, None)?;
        }
        tx.commit_retrying().await?;
        Ok(())
    }

    pub fn chunk_from(&self, item: &Item) -> Result<StoredChunk, DynamoError> {
        let t = self.name();
        let pk = item.string(t, "pk")?;
        let sk = item.string(t, "sk")?;
        let index = sk
            .strip_prefix("CHUNK#")
            .and_then(|i| i.parse().ok())
            .ok_or_else(|| self.table.corrupt("chunk key"))?;
        Ok(StoredChunk {
            document_id: pk.strip_prefix("DOC#").unwrap_or(&pk).to_string(),
            index,
            text: item.string(t, "text")?,
            embedding: embedding_of(item),
        })
    }

    /// Moves document `id` from `from` to `to`; [`StoreError::Changed`] when it was not in
    /// `from` (or is gone).
    pub async fn set_document_status(
        &self,
        id: &str,
        from: RagDocumentStatus,
        to: RagDocumentStatus,
    ) -> Result<(), StoreError> {
        match self
            .table
            .update_item()
            .set_key(Some(document_key(id)))
            .update_expression("SET #status = :to")
            .condition_expression("#status = :from")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":to", s(to.as_str()))
            .expression_attribute_values(":from", s(from.as_str()))
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::Changed),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    pub async fn document(&self, id: &str) -> Result<Option<RagDocument>, DynamoError> {
        self.table
            .get(document_key(id))
            .await?
            .map(|item| self.document_from(&item))
            .transpose()
    }

    /// Documents newest first, `limit` of them after the page that ended at `cursor` (a
    /// document's `{createdAt}~{id}`: its list position, URL-safe); the cursor of the next page
    /// when the page is full.
    pub async fn documents(
        &self,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<(Vec<RagDocument>, Option<String>), DynamoError> {
        let before = cursor.map(|c| c.replacen('~', "#", 1));
        let mut query = self
            .table
            .query()
            .index_name("gsi1")
            .scan_index_forward(false)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .expression_attribute_values(":pk", s(DOCS_PK));
        query = match before {
            Some(position) => query
                .key_condition_expression("gsi1pk = :pk AND gsi1sk < :before")
                .expression_attribute_values(":before", s(position)),
            None => query.key_condition_expression("gsi1pk = :pk"),
        };
        let items = self.table.query_all(query, Some(limit)).await?;
        let next = if items.len() == limit {
            items
                .last()
                .and_then(|i| i.opt_string("gsi1sk"))
                .map(|position| position.replacen('#', "~", 1))
        } else {
            None
        };
        let docs = items
            .iter()
            .map(|i| self.document_from(i))
            .collect::<Result<_, _>>()?;
        Ok((docs, next))
    }

    /// Deletes document `doc`'s chunks, then its record with the count (once: only the
    /// transaction that deletes the record moves the count).
    pub async fn delete_document(&self, doc: &RagDocument) -> Result<(), StoreError> {
        let keys: Vec<Item> = (0..doc.chunks).map(|i| chunk_key(&doc.id, i)).collect();
        for batch in keys.chunks(MAX_TRANSACTION_ITEMS) {
            let mut tx = Transaction::new(&self.table);
            for k in batch {
                tx.delete(k.clone(), None)?;
            }
            tx.commit_retrying().await?;
        }
        let mut tx = Transaction::new(&self.table);
        tx.delete(document_key(&doc.id), Some("attribute_exists(pk)"))?;
        tx.add(key(DOCS_PK, "COUNT"), "documents", -1, None)?;
        match tx.commit_retrying().await {
            Ok(_) => Ok(()),
            // Deleted by a concurrent request: done.
            Err(e) if e.failed_at(0) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn document_count(&self) -> Result<i64, DynamoError> {
        let t = self.name().to_string();
        match self.table.get_eventual(key(DOCS_PK, "COUNT")).await? {
            Some(item) => item.counter(&t, "documents"),
            None => Ok(0),
        }
    }

    // ---- analyses -------------------------------------------------------------------

    fn analysis_item(&self, stored: &StoredAnalysis) -> Result<Item, DynamoError> {
        let a = &stored.analysis;
        let body = serde_json::to_string(a).map_err(|e| self.table.invalid("PutItem", e))?;
        let mut item = analysis_key(&stored.key, &a.created_by);
        item.insert("id".into(), s(a.id.as_str()));
        item.insert("key".into(), s(stored.key.as_str()));
        item.insert("createdAt".into(), s(a.created_at.as_str()));
        item.insert("createdBy".into(), s(a.created_by.as_str()));
        item.insert("body".into(), s(body));
        item.insert("content".into(), s(stored.content.as_str()));
        item.insert("text".into(), s(stored.text.as_str()));
        put_embedding(&mut item, stored.embedding.as_ref());
        if let Some(stale) = &stored.stale {
            item.insert("stale".into(), s(stale.as_str()));
        }
        let position = format!("{}#{}", a.created_at, stored.key);
        item.insert("gsi1pk".into(), s(ANALYSES_PK));
        item.insert("gsi1sk".into(), s(position.as_str()));
        if let Some(service) = &a.service_name {
            item.insert("gsi2pk".into(), s(format!("ASVC#{service}")));
            item.insert("gsi2sk".into(), s(position));
        }
        Ok(item)
    }

    pub fn analysis_from(&self, item: &Item) -> Result<StoredAnalysis, DynamoError> {
        let t = self.name();
        let body = item.string(t, "body")?;
        let analysis: Analysis = serde_json::from_str(&body)
            .map_err(|e| self.table.corrupt(format!("analysis body: {e}")))?;
        Ok(StoredAnalysis {
            key: item.string(t, "key")?,
            analysis,
            content: item.opt_string("content").unwrap_or_default(),
            text: item.opt_string("text").unwrap_or_default(),
            embedding: embedding_of(item),
            stale: item.opt_string("stale"),
        })
    }

    /// `author`'s analysis stored under `key` (consistent), whatever its age.
    pub async fn analysis(
        &self,
        key_: &str,
        author: &str,
    ) -> Result<Option<StoredAnalysis>, DynamoError> {
        self.table
            .get(analysis_key(key_, author))
            .await?
            .map(|item| self.analysis_from(&item))
            .transpose()
    }

    /// Every analysis stored under `key`, one per author (consistent), whatever their age.
    pub async fn analyses_of(&self, key_: &str) -> Result<Vec<StoredAnalysis>, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :by)")
            .expression_attribute_values(":pk", s(format!("AN#{key_}")))
            .expression_attribute_values(":by", s(AUTHOR_PREFIX))
            .consistent_read(true);
        self.table
            .query_all(query, Some(MAX_ANALYSES_PER_LOG))
            .await?
            .iter()
            .map(|i| self.analysis_from(i))
            .collect()
    }

    /// Stores `stored`, replacing its author's analysis with id `previous` (none: its author
    /// has none under the key); [`StoreError::Changed`] when another write came first.
    pub async fn put_analysis(
        &self,
        stored: &StoredAnalysis,
        previous: Option<&str>,
        counted: Vec<platform::dynamo::request::Update>,
    ) -> Result<(), StoreError> {
        let item = self.analysis_item(stored)?;
        // The analysis and the metrics that count it commit together, or neither does.
        let mut transaction = Transaction::new(&self.table);
        match previous {
            Some(id) => transaction.put_if(
                item,
                "id = :previous",
                std::collections::HashMap::from([(":previous".to_string(), s(id))]),
            )?,
            None => transaction.put(item, Some("attribute_not_exists(pk)"))?,
        };
        for update in counted {
            transaction.update(update)?;
        }
        match transaction.commit().await {
            Ok(_) => Ok(()),
            Err(e) if e.failed_at(0) => Err(StoreError::Changed),
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
            Err(TransactionError::Conflict) => Err(StoreError::Changed),
            Err(e) => Err(self.table.invalid("TransactWriteItems", e).into()),
        }
    }

    /// Deletes `author`'s analysis under `key` if it is still analysis `id`.
    pub async fn delete_analysis(
        &self,
        key_: &str,
        author: &str,
        id: &str,
    ) -> Result<(), StoreError> {
        match self
            .table
            .delete_item()
            .set_key(Some(analysis_key(key_, author)))
            .condition_expression("id = :id")
            .expression_attribute_values(":id", s(id))
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::Changed),
            Err(e) => Err(self.table.fail("DeleteItem", &e).into()),
        }
    }

    /// Analyses at or after `since`, newest first: all of them (`gsi1`) or one service's
    /// (`gsi2`).
    pub async fn analyses(
        &self,
        service: Option<&str>,
        since: &str,
        limit: usize,
    ) -> Result<Vec<StoredAnalysis>, DynamoError> {
        let (index, pk, sk, partition) = match service {
            Some(service) => ("gsi2", "gsi2pk", "gsi2sk", format!("ASVC#{service}")),
            None => ("gsi1", "gsi1pk", "gsi1sk", ANALYSES_PK.to_string()),
        };
        let mut query = self
            .table
            .query()
            .index_name(index)
            .expression_attribute_values(":pk", s(partition))
            .scan_index_forward(false)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX));
        // A key condition cannot compare with an empty string: no purge yet, no bound.
        query = if since.is_empty() {
            query.key_condition_expression(format!("{pk} = :pk"))
        } else {
            query
                .key_condition_expression(format!("{pk} = :pk AND {sk} >= :since"))
                .expression_attribute_values(":since", s(since))
        };
        self.table
            .query_all(query, Some(limit))
            .await?
            .iter()
            .map(|i| self.analysis_from(i))
            .collect()
    }

    /// The keys and authors of up to `limit` analyses older than `before`, oldest first (the
    /// sweeper's step).
    pub async fn keys_before(
        &self,
        before: &str,
        limit: usize,
    ) -> Result<Vec<(String, String)>, DynamoError> {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :pk AND gsi1sk < :before")
            .expression_attribute_values(":pk", s(ANALYSES_PK))
            .expression_attribute_values(":before", s(before))
            .projection_expression("#key, createdBy")
            .expression_attribute_names("#key", "key")
            .limit(i32::try_from(limit).unwrap_or(i32::MAX));
        let t = self.name();
        self.table
            .query_all(query, Some(limit))
            .await?
            .iter()
            .map(|i| Ok((i.string(t, "key")?, i.string(t, "createdBy")?)))
            .collect()
    }

    /// The moment before which every analysis is deleted (`""`: none is).
    pub async fn purged_before(&self) -> Result<String, DynamoError> {
        Ok(self
            .table
            .get(key(ANALYSES_PK, "PURGE"))
            .await?
            .and_then(|i| i.opt_string("before"))
            .unwrap_or_default())
    }

    /// Marks every analysis made before `at` deleted (a later mark stays).
    pub async fn purge_before(&self, at: &str) -> Result<(), DynamoError> {
        match self
            .table
            .update_item()
            .set_key(Some(key(ANALYSES_PK, "PURGE")))
            .update_expression("SET #before = :at")
            .condition_expression("attribute_not_exists(#before) OR #before < :at")
            .expression_attribute_names("#before", "before")
            .expression_attribute_values(":at", s(at))
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
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
