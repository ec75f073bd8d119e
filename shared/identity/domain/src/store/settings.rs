//! The settings item (versioned) and the outbox of followed-topic changes written with it
//! ([`crate::follows`]).

use platform::dynamo::{n, s, Attributes, Transaction};

use super::{
    commit_for_account, follow_delta_key, put_versioned, settings_key, user_pk, StoreError,
    StoredSettings, UserStore, FOLLOW_DELTA_PREFIX, IF_NEW,
};
use crate::model::{Settings, UserId};

impl UserStore {
    /// The settings and the version a save must find.
    pub async fn settings(&self, id: &UserId) -> Result<StoredSettings, StoreError> {
        let Some(item) = self.table.get(settings_key(id)).await? else {
            return Ok(StoredSettings::default());
        };
        let data = item.string(self.name(), "data")?;
        let settings = serde_json::from_str(&data)
            .map_err(|e| self.table.corrupt(format!("data is not settings: {e}")))?;
        Ok(StoredSettings {
            settings,
            version: item.counter(self.name(), "version")?,
        })
    }

    /// Saves `next` if nobody saved since `read` was read.
    pub async fn save_settings(
        &self,
        id: &UserId,
        read: &StoredSettings,
        next: &Settings,
    ) -> Result<(), StoreError> {
        let tx = self.settings_write(id, read, next)?;
        commit_for_account(&tx).await
    }

    /// A transaction whose first write is the settings item, conditional on the version read.
    pub(super) fn settings_write(
        &self,
        id: &UserId,
        read: &StoredSettings,
        next: &Settings,
    ) -> Result<Transaction, StoreError> {
        let data =
            serde_json::to_string(next).map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        let mut item = settings_key(id);
        item.insert("data".into(), s(data));
        item.insert("version".into(), n(read.version.saturating_add(1)));
        let mut tx = self.account_transaction(id)?;
        put_versioned(&mut tx, item, read.version)?;
        // The outbox of followed-topic changes (crate::follows), written with the settings.
        let deltas =
            crate::follows::follow_deltas(&read.settings.followed_topics, &next.followed_topics);
        if !deltas.is_empty() {
            let version = read.version.saturating_add(1);
            let data = serde_json::to_string(&deltas)
                .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
            let mut outbox = follow_delta_key(id, version);
            outbox.insert("deltas".into(), s(data));
            outbox.insert("version".into(), n(version));
            tx.put(outbox, Some(IF_NEW))?;
        }
        Ok(tx)
    }

    /// The followed-topic changes not yet delivered, oldest first: (settings version, slug →
    /// change).
    pub async fn pending_follow_deltas(
        &self,
        id: &UserId,
    ) -> Result<Vec<(i64, std::collections::BTreeMap<String, i64>)>, StoreError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :outbox)")
            .expression_attribute_values(":pk", s(user_pk(id)))
            .expression_attribute_values(":outbox", s(FOLLOW_DELTA_PREFIX))
            .consistent_read(true);
        self.table
            .query_all(query, None)
            .await?
            .iter()
            .map(|item| {
                let data = item.string(self.name(), "deltas")?;
                let deltas = serde_json::from_str(&data)
                    .map_err(|e| self.table.corrupt(format!("deltas are not a map: {e}")))?;
                Ok((item.counter(self.name(), "version")?, deltas))
            })
            .collect()
    }

    /// Forgets a delivered followed-topic change.
    pub async fn delete_follow_delta(&self, id: &UserId, version: i64) -> Result<(), StoreError> {
        self.table
            .delete_item()
            .set_key(Some(follow_delta_key(id, version)))
            .send()
            .await
            .map_err(|e| self.table.fail("DeleteItem", &e))?;
        Ok(())
    }
}
