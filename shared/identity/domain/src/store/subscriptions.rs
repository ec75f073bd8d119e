//! News source subscriptions: one item each, changed only together with the settings.

use platform::dynamo::{s, Attributes};

use super::{commit_for_account, subscription_key, user_pk, StoreError, StoredSettings, UserStore};
use crate::model::{Settings, SourceId, UserId};

impl UserStore {
    /// Records that `id` subscribed to (or left) `source`, with `next` settings, if nobody
    /// saved the settings since `read` was read.
    pub async fn save_subscription(
        &self,
        id: &UserId,
        source: &SourceId,
        subscribed: bool,
        read: &StoredSettings,
        next: &Settings,
    ) -> Result<(), StoreError> {
        let mut tx = self.settings_write(id, read, next)?;
        if subscribed {
            let mut item = subscription_key(id, source);
            item.insert("sourceId".into(), s(source.as_str()));
            item.insert("subscribedAt".into(), s(self.clock.timestamp()));
            tx.put(item, None)?;
        } else {
            tx.delete(subscription_key(id, source), None)?;
        }
        commit_for_account(&tx).await
    }

    /// The sources `id` subscribes to, in the order of their ids.
    pub async fn subscriptions(&self, id: &UserId) -> Result<Vec<SourceId>, StoreError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :sub)")
            .expression_attribute_values(":pk", s(user_pk(id)))
            .expression_attribute_values(":sub", s("SUB#"))
            .consistent_read(true);
        self.table
            .query_all(query, None)
            .await?
            .iter()
            .map(|item| Ok(SourceId::stored(item.string(self.name(), "sourceId")?)))
            .collect()
    }
}
