//! The saved article ids: one versioned item per account.

use platform::dynamo::{n, s, AttributeValue, Attributes};

use super::{commit_for_account, put_versioned, saved_key, StoreError, StoredSaved, UserStore};
use crate::model::UserId;

impl UserStore {
    /// The saved article ids and the version a save must find.
    pub async fn saved(&self, id: &UserId) -> Result<StoredSaved, StoreError> {
        let Some(item) = self.table.get(saved_key(id)).await? else {
            return Ok(StoredSaved::default());
        };
        Ok(StoredSaved {
            ids: item.strings(self.name(), "ids")?,
            version: item.counter(self.name(), "version")?,
        })
    }

    /// Saves `next` as the saved article ids if the account exists and nobody saved since
    /// `read` was read.
    pub async fn save_saved(
        &self,
        id: &UserId,
        read: &StoredSaved,
        next: &[String],
    ) -> Result<(), StoreError> {
        let mut item = saved_key(id);
        item.insert(
            "ids".into(),
            AttributeValue::L(next.iter().map(s).collect()),
        );
        item.insert("version".into(), n(read.version.saturating_add(1)));
        let mut tx = self.account_transaction(id)?;
        put_versioned(&mut tx, item, read.version)?;
        commit_for_account(&tx).await
    }
}
