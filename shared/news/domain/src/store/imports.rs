//! OPML imports: one partition per import, `IMPORT#{importId}`, kept a week (`expiresAt`).
//!
//! - `META`: whose import it is (`userId`), its `total` feeds and how many are `done`;
//! - `CLAIM#{index}`: a feed the worker has started, with whether the person already
//!   subscribed to its source before the import (`wasSubscribed`), written once before the
//!   subscription so a redelivered message reports the same outcome;
//! - `RESULT#{index}`: a feed's outcome, written once, in the transaction that adds 1 to
//!   `done`: a redelivered message finds it there and counts nothing, so `done` is exact.
//!
//! Index numbers are zero-padded to four digits: results list in the file's order.

use platform::dynamo::{key, n, s, AttributeValue, Attributes, Item, Transaction};

use super::items::membership_key;
use super::{ContentStore, StoreError};

/// How long an import and its results are kept, in seconds (a week).
pub const IMPORT_TTL_SECONDS: i64 = 7 * 24 * 3600;

const META: &str = "META";

fn import_pk(import_id: &str) -> String {
    format!("IMPORT#{import_id}")
}

fn result_sk(index: u32) -> String {
    format!("RESULT#{index:04}")
}

fn claim_sk(index: u32) -> String {
    format!("CLAIM#{index:04}")
}

/// An import as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRecord {
    pub user_id: String,
    pub total: u32,
    pub done: u32,
    pub created_at: String,
}

/// One feed's outcome as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportResultRecord {
    pub index: u32,
    pub url: String,
    pub title: String,
    pub labels: Vec<String>,
    pub outcome: String,
    pub source_id: Option<String>,
    pub message: Option<String>,
}

impl ContentStore {
    fn expires_at(&self) -> AttributeValue {
        n(self.clock.now().timestamp() + IMPORT_TTL_SECONDS)
    }

    /// Records a new import of `total` feeds by `user_id`.
    pub async fn create_import(
        &self,
        import_id: &str,
        user_id: &str,
        total: u32,
    ) -> Result<(), StoreError> {
        let mut item = key(import_pk(import_id), META);
        item.insert("userId".into(), s(user_id));
        item.insert("total".into(), n(i64::from(total)));
        item.insert("done".into(), n(0));
        item.insert("createdAt".into(), s(self.clock.timestamp()));
        item.insert("expiresAt".into(), self.expires_at());
        self.table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("PutItem", &e).into())
    }

    /// Forgets an import whose feeds could not all be enqueued.
    pub async fn delete_import(&self, import_id: &str) -> Result<(), StoreError> {
        self.table
            .delete_item()
            .set_key(Some(key(import_pk(import_id), META)))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("DeleteItem", &e).into())
    }

    /// The import (read consistently: its `done` is the latest).
    pub async fn import(&self, import_id: &str) -> Result<Option<ImportRecord>, StoreError> {
        let table = self.table.name();
        let Some(item) = self.table.get(key(import_pk(import_id), META)).await? else {
            return Ok(None);
        };
        let count = |name: &str| -> Result<u32, StoreError> {
            Ok(u32::try_from(item.int(table, name)?.max(0)).unwrap_or(u32::MAX))
        };
        Ok(Some(ImportRecord {
            user_id: item.string(table, "userId")?,
            total: count("total")?,
            done: count("done")?,
            created_at: item.string(table, "createdAt")?,
        }))
    }

    /// At most `limit` results of an import in the file's order, after the index `after`,
    /// and the index the next page starts after (`None` at the end).
    pub async fn import_results(
        &self,
        import_id: &str,
        after: Option<u32>,
        limit: usize,
    ) -> Result<(Vec<ImportResultRecord>, Option<u32>), StoreError> {
        let wanted = limit.saturating_add(1);
        // `RESULT#` sorts after `CLAIM#` and `META`: every key past a result is a result.
        let query = self
            .table
            .query()
            .expression_attribute_values(":pk", s(import_pk(import_id)))
            .consistent_read(true)
            .limit(i32::try_from(wanted).unwrap_or(i32::MAX));
        let query = match after {
            Some(index) => query
                .key_condition_expression("pk = :pk AND sk > :after")
                .expression_attribute_values(":after", s(result_sk(index))),
            None => query
                .key_condition_expression("pk = :pk AND begins_with(sk, :results)")
                .expression_attribute_values(":results", s("RESULT#")),
        };
        let items = self.table.query_all(query, Some(wanted)).await?;
        let mut results = items
            .iter()
            .map(|item| self.result_record(item))
            .collect::<Result<Vec<_>, _>>()?;
        let more = results.len() > limit;
        results.truncate(limit);
        let next = match results.last() {
            Some(last) if more => Some(last.index),
            _ => None,
        };
        Ok((results, next))
    }

    fn result_record(&self, item: &Item) -> Result<ImportResultRecord, StoreError> {
        let table = self.table.name();
        let sk = item.string(table, "sk")?;
        let index = sk
            .strip_prefix("RESULT#")
            .and_then(|i| i.parse::<u32>().ok())
            .ok_or_else(|| self.table.corrupt(format!("import result key {sk}")))?;
        Ok(ImportResultRecord {
            index,
            url: item.string(table, "url")?,
            title: item.opt_string("title").unwrap_or_default(),
            labels: item.strings(table, "labels").unwrap_or_default(),
            outcome: item.string(table, "outcome")?,
            source_id: item.opt_string("sourceId"),
            message: item.opt_string("message"),
        })
    }

    /// Whether the feed `index` of the import has its result already.
    pub async fn import_result_exists(
        &self,
        import_id: &str,
        index: u32,
    ) -> Result<bool, StoreError> {
        Ok(self
            .table
            .get(key(import_pk(import_id), result_sk(index)))
            .await?
            .is_some())
    }

    /// Whether `user_id` subscribes to the source (its membership item).
    pub async fn is_subscriber(&self, source_id: &str, user_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .table
            .get(membership_key(source_id, user_id))
            .await?
            .is_some())
    }

    /// Claims the feed `index` of the import, recording whether the person subscribed to its
    /// source before; a repeat keeps and answers what the first claim recorded.
    pub async fn claim_import_feed(
        &self,
        import_id: &str,
        index: u32,
        was_subscribed: bool,
    ) -> Result<bool, StoreError> {
        let claim = key(import_pk(import_id), claim_sk(index));
        if let Some(first) = self.table.get(claim.clone()).await? {
            return Ok(first.opt_bool("wasSubscribed").unwrap_or(false));
        }
        let mut item = claim;
        item.insert("wasSubscribed".into(), AttributeValue::Bool(was_subscribed));
        item.insert("expiresAt".into(), self.expires_at());
        // Two deliveries at once: both read no claim and saw the same membership, so the
        // put of either records the same.
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map_err(|e| self.table.fail("PutItem", &e))?;
        Ok(was_subscribed)
    }

    /// Writes a feed's result and counts it done, once: `false` when it was already there.
    pub async fn record_import_result(
        &self,
        import_id: &str,
        result: &ImportResultRecord,
    ) -> Result<bool, StoreError> {
        let mut item = key(import_pk(import_id), result_sk(result.index));
        item.insert("url".into(), s(&result.url));
        item.insert("title".into(), s(&result.title));
        item.insert(
            "labels".into(),
            AttributeValue::L(result.labels.iter().map(s).collect()),
        );
        item.insert("outcome".into(), s(&result.outcome));
        if let Some(source_id) = &result.source_id {
            item.insert("sourceId".into(), s(source_id));
        }
        if let Some(message) = &result.message {
            item.insert("message".into(), s(message));
        }
        item.insert("expiresAt".into(), self.expires_at());
        let mut tx = Transaction::new(&self.table);
        tx.put(item, Some("attribute_not_exists(pk)"))?.add(
            key(import_pk(import_id), META),
            "done",
            1,
            Some("attribute_exists(pk)"),
        )?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(true),
            Err(e) if e.failed_at(0) || e.failed_at(1) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
}
