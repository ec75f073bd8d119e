//! The account's own items: the profile (with its roles and the user directory's `gsi1`
//! keys), the login item and the email guard, from registration to deletion.

use platform::dynamo::{
    is_condition_failed, s, AttributeValue, Attributes, Item, Transaction, TransactionError,
    MAX_TRANSACTION_ITEMS,
};

use super::{
    commit_versioned, email_key, email_unchanged, login_key, profile_key, roles_value, saved_key,
    settings_key, subscription_key, LoginRecord, NewUser, StoreError, StoredUser, UniqueField,
    UserStore, DIRECTORY, IF_NEW,
};
use crate::model::{Email, Role, UserId};

/// The profile attribute that is `false` when the profile's email is not this account's
/// claim (absent: claimed).
const EMAIL_CLAIMED: &str = "emailClaimed";

impl UserStore {
    /// Creates the user, or says which unique field is taken.
    pub async fn create(&self, user: &NewUser) -> Result<(), StoreError> {
        let mut login = login_key(&user.username_key);
        login.insert("userId".into(), s(user.id.as_str()));
        login.insert("username".into(), s(&user.username));
        login.insert("passwordHash".into(), s(&user.password_hash));

        let mut profile = profile_key(&user.id);
        profile.insert("id".into(), s(user.id.as_str()));
        profile.insert("username".into(), s(&user.username));
        if let Some(email) = &user.email {
            profile.insert("email".into(), s(email));
            if user.email_key.is_none() {
                profile.insert(EMAIL_CLAIMED.into(), AttributeValue::Bool(false));
            }
        }
        if let Some(preferences) = &user.recipe_preferences {
            profile.insert("recipePreferences".into(), s(preferences));
        }
        profile.insert("roles".into(), roles_value(&user.roles));
        profile.insert("createdAt".into(), s(&user.created_at));
        // The user directory (gsi1): every account, by id.
        profile.insert("gsi1pk".into(), s(DIRECTORY));
        profile.insert("gsi1sk".into(), s(user.id.as_str()));
        if let Some(name) = &user.name {
            profile.insert("name".into(), s(name));
        }

        // The login item first, the profile second, the email guard (when there is an
        // email) last: a failed condition's index says which.
        let mut tx = Transaction::new(&self.table);
        tx.put(login, Some(IF_NEW))?.put(profile, Some(IF_NEW))?;
        if let Some(key) = &user.email_key {
            let mut email = email_key(key);
            email.insert("userId".into(), s(user.id.as_str()));
            tx.put(email, Some(IF_NEW))?;
        }
        let committed = tx.commit_retrying().await;
        committed.map_err(|e| match e {
            e if e.failed_at(0) => StoreError::Taken(UniqueField::Username),
            e if e.failed_at(2) => StoreError::Taken(UniqueField::Email),
            TransactionError::Dynamo(e) => e.into(),
            // Races that never ended, or the profile's own guard (a repeated id).
            TransactionError::Condition { .. } | TransactionError::Conflict => StoreError::Changed,
        })
    }

    /// Up to `limit` user ids after `after` in id order (the user directory, `gsi1`), and
    /// whether more follow.
    pub async fn user_ids(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<String>, bool), StoreError> {
        let mut query = self
            .table
            .query()
            .index_name("gsi1")
            .expression_attribute_values(":pk", s(DIRECTORY))
            .limit(i32::try_from(limit + 1).unwrap_or(i32::MAX));
        // An empty cursor is no cursor (DynamoDB refuses an empty key value): the first page.
        query = match after.filter(|a| !a.is_empty()) {
            Some(after) => query
                .key_condition_expression("gsi1pk = :pk AND gsi1sk > :after")
                .expression_attribute_values(":after", s(after)),
            None => query.key_condition_expression("gsi1pk = :pk"),
        };
        let rows = self.table.query_all(query, Some(limit + 1)).await?;
        let more = rows.len() > limit;
        let ids = rows
            .iter()
            .take(limit)
            .filter_map(|r| r.opt_string("gsi1sk"))
            .collect();
        Ok((ids, more))
    }

    pub async fn login_record(
        &self,
        username_key: &str,
    ) -> Result<Option<LoginRecord>, StoreError> {
        let Some(item) = self.table.get(login_key(username_key)).await? else {
            return Ok(None);
        };
        Ok(Some(LoginRecord {
            user_id: UserId::new(item.string(self.name(), "userId")?),
            username: item.string(self.name(), "username")?,
            password_hash: item.string(self.name(), "passwordHash")?,
        }))
    }

    /// The account whose address (lowercased) `email_key` is, when it holds its guard.
    pub async fn user_id_for_email(&self, email_key: &str) -> Result<Option<UserId>, StoreError> {
        let Some(item) = self.table.get(super::email_key(email_key)).await? else {
            return Ok(None);
        };
        Ok(Some(UserId::new(item.string(self.name(), "userId")?)))
    }

    pub async fn user(&self, id: &UserId) -> Result<Option<StoredUser>, StoreError> {
        let Some(item) = self.table.get(profile_key(id)).await? else {
            return Ok(None);
        };
        let table = self.name();
        let roles = item
            .strings(table, "roles")?
            .iter()
            .filter_map(|r| Role::parse(r))
            .collect::<Vec<_>>();
        let email = item.opt_string("email");
        Ok(Some(StoredUser {
            id: UserId::new(item.string(table, "id")?),
            username: item.string(table, "username")?,
            email_claimed: email.is_some() && item.opt_bool(EMAIL_CLAIMED).unwrap_or(true),
            email,
            name: item.opt_string("name"),
            // Every account is at least a user.
            roles: if roles.is_empty() {
                vec![Role::User]
            } else {
                roles
            },
            created_at: item.string(table, "createdAt")?,
            recipe_preferences: item.opt_string("recipePreferences"),
        }))
    }

    /// Records the roles granted at login (admins come from configuration).
    pub async fn set_roles(&self, id: &UserId, roles: &[Role]) -> Result<(), StoreError> {
        self.set_on_profile(
            id,
            "SET #roles = :roles",
            &[("#roles", "roles")],
            (":roles", roles_value(roles)),
        )
        .await
    }

    /// Changes the name and/or the email of `current`, conditional on the profile still
    /// holding the email read. A new email moves its uniqueness guard in the same transaction
    /// when `claim` is true; with `claim` false (the address is another account's) it is kept
    /// on the profile unclaimed, and only this account's own guard is released.
    pub async fn update_profile(
        &self,
        current: &StoredUser,
        new_email: Option<&Email>,
        new_name: Option<Option<&str>>,
        claim: bool,
    ) -> Result<(), StoreError> {
        let mut sets = Vec::new();
        let mut removes = Vec::new();
        let mut values = Item::new();
        if let Some(read) = &current.email {
            values.insert(":read".to_string(), s(read));
        }
        let old_email_key = current.email.as_deref().map(str::to_lowercase);
        // A new address, not the same one in other letter case (which keeps its guard).
        let moved = new_email.filter(|e| Some(e.key()) != old_email_key);
        if let Some(email) = new_email {
            sets.push("email = :email");
            values.insert(":email".into(), s(email.as_str()));
        }
        if moved.is_some() {
            if claim {
                removes.push("#claimed");
            } else {
                sets.push("#claimed = :unclaimed");
                values.insert(":unclaimed".into(), AttributeValue::Bool(false));
            }
        }
        match new_name {
            Some(Some(name)) => {
                sets.push("#name = :name");
                values.insert(":name".into(), s(name));
            }
            Some(None) => removes.push("#name"),
            None => {}
        }
        let mut expression = Vec::new();
        if !sets.is_empty() {
            expression.push(format!("SET {}", sets.join(", ")));
        }
        if !removes.is_empty() {
            expression.push(format!("REMOVE {}", removes.join(", ")));
        }
        if expression.is_empty() {
            return Ok(());
        }

        let mut tx = Transaction::new(&self.table);
        let mut update = tx
            .update_builder(profile_key(&current.id))
            .update_expression(expression.join(" "))
            .condition_expression(email_unchanged(current))
            .set_expression_attribute_values((!values.is_empty()).then_some(values));
        if new_name.is_some() {
            update = update.expression_attribute_names("#name", "name");
        }
        if moved.is_some() {
            update = update.expression_attribute_names("#claimed", EMAIL_CLAIMED);
        }
        tx.update(update)?;
        if let Some(email) = moved {
            if claim {
                let mut guard = email_key(&email.key());
                guard.insert("userId".into(), s(current.id.as_str()));
                tx.put(guard, Some(IF_NEW))?;
            }
            if let Some(old) = old_email_key.filter(|_| current.email_claimed) {
                tx.delete(email_key(&old), None)?;
            }
        }
        tx.commit().await.map_err(|e| match e {
            e if claim && e.failed_at(1) => StoreError::Taken(UniqueField::Email),
            TransactionError::Dynamo(e) => e.into(),
            // The email changed since it was read, or a concurrent transaction won.
            TransactionError::Condition { .. } | TransactionError::Conflict => StoreError::Changed,
        })
    }

    /// Stores the recipe service's preferences (JSON) on the profile.
    pub async fn set_recipe_preferences(
        &self,
        id: &UserId,
        preferences: &str,
    ) -> Result<(), StoreError> {
        self.set_on_profile(
            id,
            "SET recipePreferences = :prefs",
            &[],
            (":prefs", s(preferences)),
        )
        .await
    }

    /// One update of `id`'s profile (`expression` with its attribute `names` and one value),
    /// refused as [`StoreError::NoAccount`] when the profile is gone.
    async fn set_on_profile(
        &self,
        id: &UserId,
        expression: &str,
        names: &[(&str, &str)],
        (placeholder, value): (&str, AttributeValue),
    ) -> Result<(), StoreError> {
        let mut update = self
            .table
            .update_item()
            .set_key(Some(profile_key(id)))
            .update_expression(expression)
            .condition_expression("attribute_exists(pk)");
        for (placeholder, name) in names {
            update = update.expression_attribute_names(*placeholder, *name);
        }
        update
            .expression_attribute_values(placeholder, value)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| {
                if is_condition_failed(&e) {
                    StoreError::NoAccount
                } else {
                    self.table.fail("UpdateItem", &e).into()
                }
            })
    }

    /// Changes the username and/or the password hash of `current` in one transaction: the
    /// login item moves to the new username's key (conditional on that key being free) and
    /// the profile takes the new username, conditional on still holding the one read; a new
    /// hash is written into the login item. `new_username` is (as given, case-insensitive
    /// key).
    pub async fn change_login(
        &self,
        current: &StoredUser,
        new_username: Option<(&str, &str)>,
        new_hash: Option<&str>,
    ) -> Result<(), StoreError> {
        let old_key = current.username.to_ascii_lowercase();
        let Some(record) = self.login_record(&old_key).await? else {
            return Err(StoreError::Changed);
        };
        if record.user_id != current.id {
            return Err(StoreError::Changed);
        }
        let hash = new_hash.unwrap_or(&record.password_hash);
        let (username, key) = new_username.unwrap_or((&current.username, &old_key));
        let mut tx = Transaction::new(&self.table);
        // 0: the profile still holds the username read.
        let profile_values = Item::from([
            (":read".to_string(), s(&current.username)),
            (":username".to_string(), s(username)),
        ]);
        let update = tx
            .update_builder(profile_key(&current.id))
            .update_expression("SET username = :username")
            .condition_expression("username = :read")
            .set_expression_attribute_values(Some(profile_values));
        tx.update(update)?;
        let mut login = login_key(key);
        login.insert("userId".into(), s(current.id.as_str()));
        login.insert("username".into(), s(username));
        login.insert("passwordHash".into(), s(hash));
        let owner = Item::from([(":id".to_string(), s(current.id.as_str()))]);
        if key == old_key {
            // 1: the same login item, still this account's.
            tx.put_if(login, "userId = :id", owner)?;
        } else {
            // 1: the new name is free; 2: the old login item is still this account's.
            tx.put(login, Some(IF_NEW))?;
            tx.delete_if(login_key(&old_key), "userId = :id", owner)?;
        }
        tx.commit().await.map_err(|e| match e {
            e if key != old_key && e.failed_at(1) => StoreError::Taken(UniqueField::Username),
            TransactionError::Dynamo(e) => e.into(),
            TransactionError::Condition { .. } | TransactionError::Conflict => StoreError::Changed,
        })
    }

    /// Deletes the account: login, email guard, settings, subscription and app password items, then the
    /// profile, conditional on it still holding `user`'s email (so a concurrent email change
    /// cannot leave its new guard behind).
    pub async fn delete_account(&self, user: &StoredUser) -> Result<(), StoreError> {
        let mut deletes = vec![
            login_key(&user.username.to_ascii_lowercase()),
            settings_key(&user.id),
            saved_key(&user.id),
        ];
        // Only the account's own guard: an unclaimed address's guard is its owner's.
        if let Some(email) = user.email.as_ref().filter(|_| user.email_claimed) {
            deletes.push(email_key(&email.to_lowercase()));
        }
        for source in self.subscriptions(&user.id).await? {
            deletes.push(subscription_key(&user.id, &source));
        }
        deletes.extend(self.app_password_keys(&user.id).await?);
        // A transaction holds at most 100 items; the subscriptions are the open-ended part.
        // The chunk with the profile goes last, so a failure leaves the account in place.
        let mut chunks = deletes.chunks(MAX_TRANSACTION_ITEMS - 1).rev().peekable();
        while let Some(chunk) = chunks.next() {
            let mut tx = Transaction::new(&self.table);
            if chunks.peek().is_none() {
                let mut values = Item::new();
                if let Some(read) = &user.email {
                    values.insert(":read".to_string(), s(read));
                }
                let condition = email_unchanged(user);
                if values.is_empty() {
                    tx.delete(profile_key(&user.id), Some(&condition))?;
                } else {
                    tx.delete_if(profile_key(&user.id), &condition, values)?;
                }
            }
            for key in chunk {
                tx.delete(key.clone(), None)?;
            }
            commit_versioned(&tx).await?;
        }
        Ok(())
    }
}
