//! Subscriptions: membership items with an exact count, and the last subscriber taking the
//! source and its articles with them.

use platform::dynamo::{is_condition_failed, key, n, s, Attributes, Item, Transaction};

use super::items::{
    article_count_key, article_key, membership_key, source_key, source_pk, topic_key, topic_pk,
    ARTICLE_ROW,
};
use super::{ContentStore, StoreError, Unsubscription};
use crate::model::Source;

impl ContentStore {
    /// Adds `user_id` as a subscriber; a repeat is a no-op. Returns the source.
    pub async fn subscribe(&self, source_id: &str, user_id: &str) -> Result<Source, StoreError> {
        let mut membership = membership_key(source_id, user_id);
        membership.insert("userId".into(), s(user_id));
        membership.insert("subscribedAt".into(), s(self.clock.timestamp()));
        let mut tx = Transaction::new(&self.table);
        tx.put(membership, Some("attribute_not_exists(pk)"))?.add(
            source_key(source_id),
            "subscriberCount",
            1,
            Some("attribute_exists(pk)"),
        )?;
        let outcome = tx.commit_retrying().await;
        match outcome {
            Ok(()) => {}
            Err(e) if e.failed_at(1) => return Err(StoreError::SourceNotFound),
            // Already a subscriber.
            Err(e) if e.failed_at(0) => {}
            Err(e) => return Err(e.into()),
        }
        self.source(source_id)
            .await?
            .ok_or(StoreError::SourceNotFound)
    }

    /// Removes `user_id`; a repeat is a no-op. When the last subscriber leaves, deletes the
    /// source and its articles.
    pub async fn unsubscribe(
        &self,
        source_id: &str,
        user_id: &str,
    ) -> Result<Unsubscription, StoreError> {
        const DELETED: Unsubscription = Unsubscription {
            subscriber_count: 0,
            source_deleted: true,
        };
        if self.source_item(source_id).await?.is_none() {
            return Err(StoreError::SourceNotFound);
        }
        let mut tx = Transaction::new(&self.table);
        tx.delete(
            membership_key(source_id, user_id),
            Some("attribute_exists(pk)"),
        )?
        .add(
            source_key(source_id),
            "subscriberCount",
            -1,
            Some("attribute_exists(pk)"),
        )?;
        let outcome = tx.commit_retrying().await;
        match outcome {
            Ok(()) => {}
            // Deleted meanwhile by a concurrent last unsubscribe.
            Err(e) if e.failed_at(1) => return Ok(DELETED),
            // Not a subscriber.
            Err(e) if e.failed_at(0) => {}
            Err(e) => return Err(e.into()),
        }
        let Some(item) = self.source_item(source_id).await? else {
            return Ok(DELETED);
        };
        let count = item.counter(self.table.name(), "subscriberCount")?;
        if count > 0 {
            return Ok(Unsubscription {
                subscriber_count: count,
                source_deleted: false,
            });
        }
        let deleted = self.delete_source_if_unsubscribed(source_id).await?;
        Ok(Unsubscription {
            subscriber_count: 0,
            source_deleted: deleted,
        })
    }

    /// Deletes the source when it still has no subscriber (a subscribe racing in keeps it),
    /// then its articles.
    async fn delete_source_if_unsubscribed(&self, source_id: &str) -> Result<bool, StoreError> {
        let result = self
            .table
            .client()
            .delete_item()
            .table_name(self.table.name())
            .set_key(Some(source_key(source_id)))
            .condition_expression("subscriberCount <= :zero")
            .expression_attribute_values(":zero", n(0))
            .send()
            .await;
        match result {
            Ok(_) => {}
            Err(e) if is_condition_failed(&e) => {
                // Either a subscriber arrived (the source stays) or a concurrent unsubscribe
                // deleted it.
                return Ok(self.source_item(source_id).await?.is_none());
            }
            Err(e) => return Err(self.table.fail("DeleteItem", &e).into()),
        }
        tracing::info!(
            source_id,
            "last subscriber left; deleting source and its articles"
        );
        self.delete_partition(source_id).await?;
        Ok(true)
    }

    /// Deletes every row under the source's partition (memberships, and articles with their
    /// topic rows and counters). Safe to run twice.
    async fn delete_partition(&self, source_id: &str) -> Result<(), StoreError> {
        let pk = source_pk(source_id);
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(&pk));
        for row in self.table.query_all(query, None).await? {
            let sk = row.string(self.table.name(), "sk")?;
            if sk.starts_with(ARTICLE_ROW) {
                self.delete_article(&row).await?;
            } else {
                self.delete_item(key(&pk, &sk)).await?;
            }
        }
        Ok(())
    }

    /// Deletes the article of a source's `ART#` row, its topic rows and the row itself, and
    /// takes it off every counter, in one transaction.
    async fn delete_article(&self, row: &Item) -> Result<(), StoreError> {
        let table = self.table.name();
        let (pk, sk) = (row.string(table, "pk")?, row.string(table, "sk")?);
        let article_id = row.string(table, "articleId")?;
        let mut tx = Transaction::new(&self.table);
        tx.delete(article_key(&article_id), Some("attribute_exists(pk)"))?
            .delete(key(&pk, &sk), None)?
            .add(article_count_key(), "articleCount", -1, None)?;
        for topic in row.strings(table, "topicIds")? {
            tx.delete(key(topic_pk(&topic), &sk), None)?.add(
                topic_key(&topic),
                "articleCount",
                -1,
                None,
            )?;
        }
        let outcome = tx.commit_retrying().await;
        match outcome {
            Ok(()) => Ok(()),
            // Already deleted by a concurrent cleanup: only the row may remain.
            Err(e) if e.failed_at(0) => self.delete_item(key(&pk, &sk)).await,
            Err(e) => Err(e.into()),
        }
    }

    async fn delete_item(&self, key: Item) -> Result<(), StoreError> {
        self.table
            .client()
            .delete_item()
            .table_name(self.table.name())
            .set_key(Some(key))
            .send()
            .await
            .map_err(|e| self.table.fail("DeleteItem", &e))?;
        Ok(())
    }
}
