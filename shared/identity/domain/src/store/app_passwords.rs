//! App passwords: one item each under the person's partition, and a count of them that
//! bounds how many a person holds ([`crate::app_passwords::MAX_APP_PASSWORDS`]) exactly, even
//! under concurrent creations.

use platform::dynamo::{is_condition_failed, n, s, Attributes, Item, TransactionError};

use super::{
    app_password_count_key, app_password_key, commit_versioned, user_pk, StoreError, UserStore,
    APP_PASSWORD_PREFIX, IF_NEW,
};
use crate::model::UserId;

/// An app password as stored.
#[derive(Debug, Clone)]
pub struct StoredAppPassword {
    pub id: String,
    pub name: String,
    /// SHA-256 of the secret, lowercase hex.
    pub secret_hash: String,
    pub created_at: String,
    pub last_used_at: Option<String>,
    /// The account's session version when it was made: it ends when the sessions move past.
    pub session_version: u64,
}

/// The count item's attribute.
const COUNT: &str = "count";

impl UserStore {
    /// Every app password of `id`, in id order.
    pub async fn app_passwords(&self, id: &UserId) -> Result<Vec<StoredAppPassword>, StoreError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :prefix)")
            .expression_attribute_values(":pk", s(user_pk(id)))
            .expression_attribute_values(":prefix", s(APP_PASSWORD_PREFIX))
            .consistent_read(true);
        self.table
            .query_all(query, None)
            .await?
            .iter()
            .map(|item| self.app_password_from(item))
            .collect()
    }

    /// One app password of `id`.
    pub async fn app_password(
        &self,
        id: &UserId,
        password_id: &str,
    ) -> Result<Option<StoredAppPassword>, StoreError> {
        self.table
            .get(app_password_key(id, password_id))
            .await?
            .map(|item| self.app_password_from(&item))
            .transpose()
    }

    fn app_password_from(&self, item: &Item) -> Result<StoredAppPassword, StoreError> {
        let table = self.name();
        let version = item.int(table, "sessionVersion")?;
        Ok(StoredAppPassword {
            id: item.string(table, "id")?,
            name: item.string(table, "name")?,
            secret_hash: item.string(table, "secretHash")?,
            created_at: item.string(table, "createdAt")?,
            last_used_at: item.opt_string("lastUsedAt"),
            session_version: u64::try_from(version)
                .map_err(|_| self.table.corrupt("sessionVersion is negative"))?,
        })
    }

    /// Stores a new app password of `id`, if the account exists ([`StoreError::NoAccount`])
    /// and holds fewer than `max` ([`StoreError::Full`]).
    pub async fn add_app_password(
        &self,
        id: &UserId,
        password: &StoredAppPassword,
        max: usize,
    ) -> Result<(), StoreError> {
        let mut item = app_password_key(id, &password.id);
        item.insert("id".into(), s(&password.id));
        item.insert("name".into(), s(&password.name));
        item.insert("secretHash".into(), s(&password.secret_hash));
        item.insert("createdAt".into(), s(&password.created_at));
        item.insert(
            "sessionVersion".into(),
            n(i64::try_from(password.session_version).unwrap_or(i64::MAX)),
        );
        // 0: the account exists; 1: the count stays within `max`; 2: the new item.
        let mut tx = self.account_transaction(id)?;
        let update = tx
            .update_builder(app_password_count_key(id))
            .update_expression("ADD #counter :one")
            .condition_expression("attribute_not_exists(#counter) OR #counter < :max")
            .expression_attribute_names("#counter", COUNT)
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":max", n(i64::try_from(max).unwrap_or(i64::MAX)));
        tx.update(update)?;
        tx.put(item, Some(IF_NEW))?;
        tx.commit().await.map_err(|e| match e {
            e if e.failed_at(0) => StoreError::NoAccount,
            e if e.failed_at(1) => StoreError::Full,
            TransactionError::Dynamo(e) => e.into(),
            TransactionError::Condition { .. } | TransactionError::Conflict => StoreError::Changed,
        })
    }

    /// Deletes one app password of `id`; false when there was none.
    pub async fn remove_app_password(
        &self,
        id: &UserId,
        password_id: &str,
    ) -> Result<bool, StoreError> {
        let mut tx = platform::dynamo::Transaction::new(&self.table);
        tx.delete(
            app_password_key(id, password_id),
            Some("attribute_exists(pk)"),
        )?;
        tx.add(app_password_count_key(id), COUNT, -1, None)?;
        match tx.commit().await {
            Ok(()) => Ok(true),
            Err(e) if e.failed_at(0) => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
            Err(TransactionError::Condition { .. } | TransactionError::Conflict) => {
                Err(StoreError::Changed)
            }
        }
    }

    /// Deletes every app password of `id` read in `passwords` and takes them off the count,
    /// in one transaction (a person holds at most a few dozen).
    pub async fn remove_app_passwords(
        &self,
        id: &UserId,
        passwords: &[StoredAppPassword],
    ) -> Result<(), StoreError> {
        for chunk in passwords.chunks(platform::dynamo::MAX_TRANSACTION_ITEMS - 1) {
            let mut tx = platform::dynamo::Transaction::new(&self.table);
            for password in chunk {
                // One revoked meanwhile is counted off once: the transaction fails, the
                // caller reads again.
                tx.delete(
                    app_password_key(id, &password.id),
                    Some("attribute_exists(pk)"),
                )?;
            }
            let taken = i64::try_from(chunk.len()).unwrap_or(i64::MAX);
            tx.add(app_password_count_key(id), COUNT, -taken, None)?;
            commit_versioned(&tx).await?;
        }
        Ok(())
    }

    /// Records that the app password was used at `now`, unless it already was at or after
    /// `since` (so a busy app writes at most once per interval); a revoked one stays gone.
    pub async fn touch_app_password(
        &self,
        id: &UserId,
        password_id: &str,
        now: &str,
        since: &str,
    ) -> Result<(), StoreError> {
        let result = self
            .table
            .update_item()
            .set_key(Some(app_password_key(id, password_id)))
            .update_expression("SET lastUsedAt = :now")
            .condition_expression(
                "attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :since)",
            )
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":since", s(since))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    /// The keys of every app password item of `id` and of their count (account deletion).
    pub(super) async fn app_password_keys(&self, id: &UserId) -> Result<Vec<Item>, StoreError> {
        let mut keys: Vec<Item> = self
            .app_passwords(id)
            .await?
            .iter()
            .map(|p| app_password_key(id, &p.id))
            .collect();
        keys.push(app_password_count_key(id));
        Ok(keys)
    }
}
