//! Stored analyses (one per log and author) and the mark before which they are deleted.

use platform::dynamo::{
    is_condition_failed, key, s, Attributes, DynamoError, Item, Transaction, TransactionError,
};

use super::{
    analysis_key, embedding_of, put_embedding, Store, StoreError, StoredAnalysis, ANALYSES_PK,
    AUTHOR_PREFIX, MAX_ANALYSES_PER_LOG,
};
use crate::model::Analysis;

impl Store {
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
}
