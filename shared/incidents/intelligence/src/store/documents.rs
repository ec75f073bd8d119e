//! Runbook documents: the record, its chunks, and the corpus's document count.

use platform::dynamo::{
    is_condition_failed, item_size, key, n, s, AttributeValue, Attributes, DynamoError, Item,
    Transaction, MAX_TRANSACTION_ITEMS,
};

use super::{
    chunk_key, document_key, embedding_of, put_embedding, Store, StoreError, StoredChunk, DOCS_PK,
    TRANSACTION_FILL,
};
use crate::model::{RagDocument, RagDocumentStatus};

impl Store {
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
}
