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
//! | `USER#{id}` | `APPPW#{appPasswordId}` | one app password: `id` (16 hex), `name`, `secretHash` (SHA-256 of the secret, hex), `createdAt`, `lastUsedAt` (written at most once an hour), `sessionVersion` (the account's when made: it ends with them) | list, and `ClientLogin`'s match: Query `pk = USER#{id} AND begins_with(sk, "APPPW#")` (at most 20 items, [`UserStore::app_passwords`]); an app's every exchange: GetItem ([`UserStore::app_password`]) |
//! | `USER#{id}` | `APPPWS` | `count` of the app passwords | changed in the transaction that adds (conditional on `count < 20`) or deletes one ([`UserStore::add_app_password`]) |
//! | `USER#{id}` | `SAVED` | saved article ids (newest first, at most 100) and a version | GetItem ([`UserStore::saved`]); written conditional on the version read ([`UserStore::save_saved`]) |
//!
//! An app password is added in one transaction with the profile check and its count (so a person
//! never holds more than the bound, whatever races), and deleted with the count taken down: revoked
//! one by one, all of them when the account's sessions end, with the account.
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
//!
//! The calls live by the items they own, each an `impl UserStore`: [`accounts`] (profile,
//! login and email guard), [`settings`] (with the followed-topic outbox), [`subscriptions`]
//! and [`saved`]. This module holds the store, the item keys and the shared write helpers.

mod accounts;
mod app_passwords;
mod saved;
mod settings;
mod subscriptions;

use platform::dynamo::{
    key, n, s, AttributeValue, DynamoError, Item, Table, Transaction, TransactionError,
};
use platform::Clock;

pub use self::app_passwords::StoredAppPassword;
use crate::model::{Role, Settings, SourceId, UserId};

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
    /// The account holds as many app passwords as it may.
    #[error("too many app passwords")]
    Full,
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
    /// The email's uniqueness guard to claim; `None` with an email: the address is another
    /// account's, and is kept on the profile unclaimed.
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
    /// True when this account holds the email's uniqueness guard; false when the address
    /// was already another account's as it was given (kept on the profile, guarding nothing).
    pub email_claimed: bool,
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

const APP_PASSWORD_PREFIX: &str = "APPPW#";

fn app_password_key(id: &UserId, password_id: &str) -> Item {
    key(user_pk(id), format!("{APP_PASSWORD_PREFIX}{password_id}"))
}

fn app_password_count_key(id: &UserId) -> Item {
    key(user_pk(id), "APPPWS")
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

    /// A transaction whose first item checks that `id`'s profile exists
    /// ([`commit_for_account`] tells that failure apart).
    fn account_transaction(&self, id: &UserId) -> Result<Transaction, StoreError> {
        let mut tx = Transaction::new(&self.table);
        tx.check(profile_key(id), "attribute_exists(pk)")?;
        Ok(tx)
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
