//! The search outbox: one row per post (`IDXQ#{shard}`/`{postId}`) whose latest write may
//! not be in the search index yet. Every post write puts it in the same transaction, so no
//! write can be forgotten by the index even when the message to the indexer is lost; the
//! indexer deletes it once the index holds that version (or a newer one), and the index
//! scheduler sends again the posts whose row has waited too long.

use platform::dynamo::{n, s, Attributes, DynamoError, Item};

use super::Store;
use crate::keys;

/// The outbox row of `post_id` at `version`, written at `at`.
pub(crate) fn pending_row(post_id: &str, version: i64, at: &str) -> Item {
    let mut row = keys::index_pending(post_id);
    row.insert("postId".to_string(), s(post_id));
    row.insert("version".to_string(), n(version));
    row.insert("at".to_string(), s(at));
    row
}

impl Store {
    /// Marks `post_id` indexed up to `version`: records it on the post (what a search reads
    /// instead of the outbox, whose 8 partitions every search would share), then removes its
    /// outbox row unless a newer write has replaced it since.
    pub async fn index_done(&self, post_id: &str, version: i64) -> Result<(), DynamoError> {
        let marked = self
            .table
            .update_item()
            .set_key(Some(keys::post(post_id)))
            .update_expression("SET #indexed = :v")
            .condition_expression(
                "attribute_exists(pk) AND (attribute_not_exists(#indexed) OR #indexed < :v)",
            )
            .expression_attribute_names("#indexed", super::posts::INDEXED_VERSION)
            .expression_attribute_values(":v", n(version))
            .send()
            .await;
        match marked {
            // A newer version is marked already, or the post is gone.
            Err(e) if platform::dynamo::is_condition_failed(&e) => {}
            Err(e) => return Err(self.table.fail("UpdateItem", &e)),
            Ok(_) => {}
        }
        let result = self
            .table
            .delete_item()
            .set_key(Some(keys::index_pending(post_id)))
            .condition_expression("attribute_not_exists(version) OR version <= :v")
            .expression_attribute_values(":v", n(version))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("DeleteItem", &e)),
        }
    }

    /// Posts whose outbox row was written before `before` (RFC 3339), at most `limit`: one
    /// Query per outbox partition, which only ever holds the posts still waiting.
    pub async fn index_lagging(
        &self,
        before: &str,
        limit: usize,
    ) -> Result<Vec<String>, DynamoError> {
        let mut out = Vec::new();
        for shard in 0..keys::INDEX_QUEUE_SHARDS {
            if out.len() >= limit {
                break;
            }
            let query = self
                .table
                .query()
                .key_condition_expression("pk = :pk")
                .filter_expression("#at < :before")
                .expression_attribute_names("#at", "at")
                .expression_attribute_values(":pk", s(keys::index_pending_pk(shard)))
                .expression_attribute_values(":before", s(before));
            let rows = self.table.query_all(query, Some(limit - out.len())).await?;
            out.extend(rows.iter().filter_map(|r| r.opt_string("postId")));
        }
        Ok(out)
    }
}
