//! The users table (the "database named users").
//!
//! One table, keys `pk` (partition) and `sk` (sort). Items and the calls that serve each
//! operation (every read is consistent):
//!
//! | pk | sk | holds | access pattern |
//! |---|---|---|---|
//! | `USER#{id}` | `PROFILE` | profile and roles; `gsi1pk = USERS`, `gsi1sk = {id}` (the user directory: Query `gsi1` in id order, a page at a time, for the community's daily digests; accounts registered before the index existed appear after a one-off backfill of these two attributes) | profile, login, profile change, deletion: GetItem ([`UserStore::user`]); roles: conditional UpdateItem ([`UserStore::set_roles`]) |
//! | `USER#{id}` | `SETTINGS` | settings JSON and a version | GetItem ([`UserStore::settings`]); written only in a transaction conditional on the version read |
//! | `USERNAME#{lowercase}` | `LOGIN` | user id, username, password hash | login: one GetItem ([`UserStore::login_record`]); uniqueness guard |
//! | `EMAIL#{lowercase}` | `EMAIL` | user id | uniqueness guard |
//! | `USER#{id}` | `SUB#{sourceId}` | one news source subscription | Query `pk = USER#{id} AND begins_with(sk, "SUB#")` ([`UserStore::subscriptions`]) |
//! | `USER#{id}` | `SAVED` | saved article ids (newest first, at most 100) and a version | GetItem ([`UserStore::saved`]); written conditional on the version read ([`UserStore::save_saved`]) |
//!
//! Registration writes the login, email and profile items in one transaction, each conditional
//! on not existing, so concurrent registrations of a name create exactly one user. A profile
//! change that moves the email moves its guard in the same transaction, conditional on the
//! profile still holding the email read. A subscription item changes only together with the
//! settings item (one transaction, conditional on the settings version), so `enabledSourceIds`
//! can be checked against the subscriptions without a race. Every write of settings, subscriptions
//! and saved articles also checks, in its transaction, that the profile exists: a token that
//! outlives its account cannot write rows under a deleted user. Account deletion removes every
//! item above, the profile last and conditional on its email being unchanged. No Scan.

use platform::dynamo::{
    is_condition_failed, key, n, s, AttributeValue, Attributes, DynamoError, Item, Table,
    Transaction, TransactionError, MAX_TRANSACTION_ITEMS,
};
use platform::Clock;

use crate::model::{Email, Role, Settings, SourceId, UserId};

/// A value only one account may hold (compared case-insensitively).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UniqueField {
    Username,
    Email,
}

impl std::fmt::Display for UniqueField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Username => "username",
            Self::Email => "email",
        })
    }
}

/// The user directory's partition in `gsi1`.
const DIRECTORY: &str = "USERS";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the {0} is already taken")]
    Taken(UniqueField),
    /// A conditional write found its item changed since it was read, or lost a race with
    /// another transaction: read again and retry.
    #[error("the item changed since it was read")]
    Changed,
    /// The profile is gone (the account was deleted, possibly meanwhile).
    #[error("no such account")]
    NoAccount,
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
}

impl StoreError {
    /// True when the table could not be reached or is throttling.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::Dynamo(e) if e.is_unavailable())
    }
}

/// What registration stores.
pub struct NewUser {
    pub id: UserId,
    pub username: String,
    pub username_key: String,
    /// `None` for an account registered through the recipe service (its
    /// Credentials carry no email).
    pub email: Option<String>,
    pub email_key: Option<String>,
    pub name: Option<String>,
    pub roles: Vec<Role>,
    pub password_hash: String,
    pub created_at: String,
    /// The recipe service's preferences (JSON), when registered there.
    pub recipe_preferences: Option<String>,
}

/// A stored profile.
#[derive(Debug, Clone)]
pub struct StoredUser {
    pub id: UserId,
    pub username: String,
    /// Absent on recipe accounts until the news reader's profile change gives one.
    pub email: Option<String>,
    pub name: Option<String>,
    pub roles: Vec<Role>,
    pub created_at: String,
    /// The recipe service's preferences as stored (JSON), if ever set.
    pub recipe_preferences: Option<String>,
}

/// What login needs, in one item.
pub struct LoginRecord {
    pub user_id: UserId,
    pub username: String,
    pub password_hash: String,
}

/// Saved article ids as read, with the version a save is conditional on.
#[derive(Debug, Clone, Default)]
pub struct StoredSaved {
    /// Newest first.
    pub ids: Vec<String>,
    /// 0 when never saved.
    version: i64,
}

/// Settings as read, with the version a save is conditional on.
#[derive(Debug, Clone, Default)]
pub struct StoredSettings {
    pub settings: Settings,
    /// 0 when never saved (the defaults).
    version: i64,
}

#[derive(Clone)]
pub struct UserStore {
    table: Table,
    clock: Clock,
}

fn user_pk(id: &UserId) -> String {
    format!("USER#{id}")
}

fn profile_key(id: &UserId) -> Item {
    key(user_pk(id), "PROFILE")
}

fn settings_key(id: &UserId) -> Item {
    key(user_pk(id), "SETTINGS")
}

const FOLLOW_DELTA_PREFIX: &str = "FOLLOWDELTA#";

/// A pending followed-topic change, by the settings version that made it (zero-padded, so
/// the outbox reads oldest first).
fn follow_delta_key(id: &UserId, version: i64) -> Item {
    key(user_pk(id), format!("{FOLLOW_DELTA_PREFIX}{version:012}"))
}

fn saved_key(id: &UserId) -> Item {
    key(user_pk(id), "SAVED")
}

fn subscription_key(id: &UserId, source: &SourceId) -> Item {
    key(user_pk(id), format!("SUB#{source}"))
}

fn login_key(username_key: &str) -> Item {
    key(format!("USERNAME#{username_key}"), "LOGIN")
}

fn email_key(email_key: &str) -> Item {
    key(format!("EMAIL#{email_key}"), "EMAIL")
}

fn roles_value(roles: &[Role]) -> AttributeValue {
    AttributeValue::L(roles.iter().map(|r| s(r.as_str())).collect())
}

const IF_NEW: &str = "attribute_not_exists(pk)";

impl UserStore {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self { table, clock }
    }

    fn name(&self) -> &str {
        self.table.name()
    }

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
        Ok(Some(StoredUser {
            id: UserId::new(item.string(table, "id")?),
            username: item.string(table, "username")?,
            email: item.opt_string("email"),
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
        self.table
            .update_item()
            .set_key(Some(profile_key(id)))
            .update_expression("SET #roles = :roles")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#roles", "roles")
            .expression_attribute_values(":roles", roles_value(roles))
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

    /// Changes the name and/or the email of `current`, conditional on the profile still
    /// holding the email read. A new email moves its uniqueness guard in the same transaction.
    pub async fn update_profile(
        &self,
        current: &StoredUser,
        new_email: Option<&Email>,
        new_name: Option<Option<&str>>,
    ) -> Result<(), StoreError> {
        let mut sets = Vec::new();
        let mut removes = Vec::new();
        let mut values = Item::new();
        if let Some(read) = &current.email {
            values.insert(":read".to_string(), s(read));
        }
        if let Some(email) = new_email {
            sets.push("email = :email");
            values.insert(":email".into(), s(email.as_str()));
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
        tx.update(update)?;
        let old_email_key = current.email.as_deref().map(str::to_lowercase);
        if let Some(email) = new_email.filter(|e| Some(e.key()) != old_email_key) {
            let mut guard = email_key(&email.key());
            guard.insert("userId".into(), s(current.id.as_str()));
            tx.put(guard, Some(IF_NEW))?;
            if let Some(old) = &old_email_key {
                tx.delete(email_key(old), None)?;
            }
        }
        tx.commit().await.map_err(|e| match e {
            e if e.failed_at(1) => StoreError::Taken(UniqueField::Email),
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
        self.table
            .update_item()
            .set_key(Some(profile_key(id)))
            .update_expression("SET recipePreferences = :prefs")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":prefs", s(preferences))
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

    /// A transaction whose first write is the settings item, conditional on the version read.
    fn settings_write(
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

    /// A transaction whose first item checks that `id`'s profile exists
    /// ([`commit_for_account`] tells that failure apart).
    fn account_transaction(&self, id: &UserId) -> Result<Transaction, StoreError> {
        let mut tx = Transaction::new(&self.table);
        tx.check(profile_key(id), "attribute_exists(pk)")?;
        Ok(tx)
    }

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

    /// Deletes the account: login, email guard, settings and subscription items, then the
    /// profile, conditional on it still holding `user`'s email (so a concurrent email change
    /// cannot leave its new guard behind).
    pub async fn delete_account(&self, user: &StoredUser) -> Result<(), StoreError> {
        let mut deletes = vec![
            login_key(&user.username.to_ascii_lowercase()),
            settings_key(&user.id),
            saved_key(&user.id),
        ];
        if let Some(email) = &user.email {
            deletes.push(email_key(&email.to_lowercase()));
        }
        for source in self.subscriptions(&user.id).await? {
            deletes.push(subscription_key(&user.id, &source));
        }
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

    /// Reads one small item: proves the table answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        Ok(self.table.ping().await?)
    }
}

/// The condition "the profile still holds the email `user` was read with" (`:read`, or no
/// email at all).
fn email_unchanged(user: &StoredUser) -> String {
    if user.email.is_some() {
        "email = :read".to_string()
    } else {
        "attribute_exists(pk) AND attribute_not_exists(email)".to_string()
    }
}

/// Puts `item` conditional on its `version` still being `read` (absent when 0).
fn put_versioned(tx: &mut Transaction, item: Item, read: i64) -> Result<(), StoreError> {
    if read == 0 {
        tx.put(item, Some(IF_NEW))?;
    } else {
        let values = Item::from([(":read".to_string(), n(read))]);
        tx.put_if(item, "version = :read", values)?;
    }
    Ok(())
}

/// Commits a transaction built by [`UserStore::account_transaction`]: its first item failing
/// is [`StoreError::NoAccount`], any other failed condition or lost race
/// [`StoreError::Changed`].
async fn commit_for_account(tx: &Transaction) -> Result<(), StoreError> {
    tx.commit().await.map_err(|e| match e {
        e if e.failed_at(0) => StoreError::NoAccount,
        TransactionError::Dynamo(e) => e.into(),
        TransactionError::Condition { .. } | TransactionError::Conflict => StoreError::Changed,
    })
}

/// Commits a transaction whose conditions say "unchanged since read": any failed condition
/// or lost race is [`StoreError::Changed`].
async fn commit_versioned(tx: &Transaction) -> Result<(), StoreError> {
    tx.commit().await.map_err(|e| match e {
        TransactionError::Dynamo(e) => e.into(),
        TransactionError::Condition { .. } | TransactionError::Conflict => StoreError::Changed,
    })
}
