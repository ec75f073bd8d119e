//! The users table (Document A's "database named users").
//!
//! One table, keys `pk` (partition) and `sk` (sort). Items:
//!
//! | pk | sk | holds | access pattern |
//! |---|---|---|---|
//! | `USER#{id}` | `PROFILE` | profile and roles | GET/PUT /users/me: GetItem |
//! | `USER#{id}` | `SETTINGS` | settings JSON and a version | settings: GetItem, conditional Put |
//! | `USERNAME#{lowercase}` | `LOGIN` | user id, username, password hash | login: one GetItem; uniqueness guard |
//! | `EMAIL#{lowercase}` | `EMAIL` | user id | uniqueness guard |
//! | `USER#{id}` | `SUB#{sourceId}` | one news source subscription | Query `begins_with(sk, "SUB#")` |
//!
//! Registration writes the login, email and profile items in one transaction, each conditional
//! on not existing, so concurrent registrations of a name create exactly one user. A
//! subscription item changes only together with the settings item (one transaction, conditional
//! on the settings version), so `enabledSourceIds` can be checked against the subscriptions
//! without a race. Account deletion removes every item above in one transaction. No Scan.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, TransactWriteItem, Update};
use aws_sdk_dynamodb::Client;
use platform::aws::describe;
use platform::dynamo::{key, s, Attributes, Item};

// Interim: the toolkit migration of this store replaces these.
fn string(item: &Item, name: &str) -> Option<String> {
    item.opt_string(name)
}
fn cancellation_codes(err: &SdkError<TransactWriteItemsError>) -> Option<Vec<String>> {
    match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(e)) => Some(
            e.cancellation_reasons()
                .iter()
                .map(|r| r.code().unwrap_or("None").to_string())
                .collect(),
        ),
        _ => None,
    }
}

use crate::model::{Role, Settings};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0} is already taken")]
    Taken(&'static str),
    #[error("record not found")]
    NotFound,
    #[error("concurrent update, try again")]
    Contention,
    #[error("users table: {0}")]
    Aws(String),
    #[error("users table holds an unreadable item: {0}")]
    Corrupt(String),
}

/// What registration stores.
pub struct NewUser {
    pub id: String,
    pub username: String,
    pub username_key: String,
    pub email: String,
    pub email_key: String,
    pub name: Option<String>,
    pub roles: Vec<Role>,
    pub password_hash: String,
    pub created_at: String,
}

/// A stored profile.
#[derive(Debug, Clone)]
pub struct StoredUser {
    pub id: String,
    pub username: String,
    pub email: String,
    pub name: Option<String>,
    pub roles: Vec<Role>,
    pub created_at: String,
}

/// What login needs, in one item.
pub struct LoginRecord {
    pub user_id: String,
    pub username: String,
    pub password_hash: String,
}

#[derive(Clone)]
pub struct UserStore {
    db: Client,
    table: String,
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn user_pk(id: &str) -> String {
    format!("USER#{id}")
}

fn get_s(item: &Item, name: &str) -> Result<String, StoreError> {
    string(item, name).ok_or_else(|| StoreError::Corrupt(format!("missing {name}")))
}

fn roles_value(roles: &[Role]) -> AttributeValue {
    AttributeValue::L(roles.iter().map(|r| s(r.as_str())).collect())
}

fn parse_roles(item: &Item) -> Vec<Role> {
    item.get("roles")
        .and_then(|v| v.as_l().ok())
        .map(|l| {
            l.iter()
                .filter_map(|v| v.as_s().ok())
                .filter_map(|r| match r.as_str() {
                    "USER" => Some(Role::User),
                    "ADMIN" => Some(Role::Admin),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_else(|| vec![Role::User])
}

fn to_user(item: &Item) -> Result<StoredUser, StoreError> {
    Ok(StoredUser {
        id: get_s(item, "id")?,
        username: get_s(item, "username")?,
        email: get_s(item, "email")?,
        name: item.get("name").and_then(|v| v.as_s().ok()).cloned(),
        roles: parse_roles(item),
        created_at: get_s(item, "createdAt")?,
    })
}

/// Which transaction items failed (by index) and how, if the error is a cancellation.
fn cancelled_indexes(err: &SdkError<TransactWriteItemsError>) -> Option<Vec<(usize, String)>> {
    cancellation_codes(err).map(|codes| {
        codes
            .into_iter()
            .enumerate()
            .filter(|(_, c)| c != "None")
            .collect()
    })
}

fn is_contention(reasons: &[(usize, String)]) -> bool {
    reasons.iter().any(|(_, c)| c == "TransactionConflict")
}

const TRANSACTION_ATTEMPTS: usize = 4;

impl UserStore {
    pub fn new(db: Client, table: impl Into<String>) -> Self {
        Self {
            db,
            table: table.into(),
        }
    }

    /// Creates the user, or says which unique field is taken.
    pub async fn create(&self, user: &NewUser) -> Result<(), StoreError> {
        let mut login = key(format!("USERNAME#{}", user.username_key), "LOGIN");
        login.insert("userId".into(), s(&user.id));
        login.insert("username".into(), s(&user.username));
        login.insert("passwordHash".into(), s(&user.password_hash));

        let mut email = key(format!("EMAIL#{}", user.email_key), "EMAIL");
        email.insert("userId".into(), s(&user.id));

        let mut profile = key(user_pk(&user.id), "PROFILE");
        profile.insert("id".into(), s(&user.id));
        profile.insert("username".into(), s(&user.username));
        profile.insert("email".into(), s(&user.email));
        profile.insert("roles".into(), roles_value(&user.roles));
        profile.insert("createdAt".into(), s(&user.created_at));
        if let Some(name) = &user.name {
            profile.insert("name".into(), s(name));
        }

        let items = [login, email, profile]
            .into_iter()
            .map(|item| self.put_new(item))
            .collect::<Result<Vec<_>, _>>()?;
        for attempt in 1..=TRANSACTION_ATTEMPTS {
            let result = self
                .db
                .transact_write_items()
                .set_transact_items(Some(items.clone()))
                .send()
                .await;
            let err = match result {
                Ok(_) => return Ok(()),
                Err(err) => err,
            };
            match cancelled_indexes(&err) {
                Some(reasons) if is_contention(&reasons) && attempt < TRANSACTION_ATTEMPTS => {
                    tokio::time::sleep(std::time::Duration::from_millis(20 * attempt as u64)).await;
                }
                Some(reasons) if reasons.iter().any(|(i, _)| *i == 0) => {
                    return Err(StoreError::Taken("username"))
                }
                Some(reasons) if reasons.iter().any(|(i, _)| *i == 1) => {
                    return Err(StoreError::Taken("email"))
                }
                Some(reasons) if is_contention(&reasons) => return Err(StoreError::Contention),
                _ => return Err(StoreError::Aws(describe(&err))),
            }
        }
        Err(StoreError::Contention)
    }

    fn put_new(&self, item: Item) -> Result<TransactWriteItem, StoreError> {
        let put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .build()
            .map_err(|e| StoreError::Aws(e.to_string()))?;
        Ok(TransactWriteItem::builder().put(put).build())
    }

    pub async fn login_record(
        &self,
        username_key: &str,
    ) -> Result<Option<LoginRecord>, StoreError> {
        let out = self
            .db
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(format!("USERNAME#{username_key}"), "LOGIN")))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| StoreError::Aws(describe(&e)))?;
        out.item
            .map(|item| {
                Ok(LoginRecord {
                    user_id: get_s(&item, "userId")?,
                    username: get_s(&item, "username")?,
                    password_hash: get_s(&item, "passwordHash")?,
                })
            })
            .transpose()
    }

    pub async fn user(&self, id: &str) -> Result<Option<StoredUser>, StoreError> {
        let out = self
            .db
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(user_pk(id), "PROFILE")))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| StoreError::Aws(describe(&e)))?;
        out.item.as_ref().map(to_user).transpose()
    }

    /// Records the roles granted at login (admins come from configuration).
    pub async fn set_roles(&self, id: &str, roles: &[Role]) -> Result<(), StoreError> {
        self.db
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user_pk(id), "PROFILE")))
            .update_expression("SET #roles = :roles")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#roles", "roles")
            .expression_attribute_values(":roles", roles_value(roles))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| StoreError::Aws(describe(&e)))
    }

    /// Changes name and/or email. A new email moves its uniqueness guard in the same
    /// transaction, conditional on the profile still having the email we read.
    pub async fn update_profile(
        &self,
        current: &StoredUser,
        new_email: Option<(String, String)>,
        new_name: Option<Option<String>>,
    ) -> Result<(), StoreError> {
        let mut sets = Vec::new();
        let mut removes = Vec::new();
        let mut values: HashMap<String, AttributeValue> = HashMap::new();
        values.insert(":old".into(), s(&current.email));
        if let Some((email, _)) = &new_email {
            sets.push("email = :email");
            values.insert(":email".into(), s(email));
        }
        match &new_name {
            Some(Some(name)) => {
                sets.push("#name = :name");
                values.insert(":name".into(), s(name));
            }
            Some(None) => removes.push("#name"),
            None => {}
        }
        let mut expression = String::new();
        if !sets.is_empty() {
            expression.push_str(&format!("SET {}", sets.join(", ")));
        }
        if !removes.is_empty() {
            expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        if expression.is_empty() {
            return Ok(());
        }
        let mut update = Update::builder()
            .table_name(&self.table)
            .set_key(Some(key(user_pk(&current.id), "PROFILE")))
            .update_expression(expression.trim())
            .condition_expression("email = :old")
            .set_expression_attribute_values(Some(values));
        if new_name.is_some() {
            update = update.expression_attribute_names("#name", "name");
        }
        let update = update.build().map_err(|e| StoreError::Aws(e.to_string()))?;

        let old_email_key = current.email.to_lowercase();
        let mut items = vec![TransactWriteItem::builder().update(update).build()];
        if let Some((_, email_key)) = new_email.as_ref().filter(|(_, k)| *k != old_email_key) {
            let mut guard = key(format!("EMAIL#{email_key}"), "EMAIL");
            guard.insert("userId".into(), s(&current.id));
            items.push(self.put_new(guard)?);
            let delete = Delete::builder()
                .table_name(&self.table)
                .set_key(Some(key(format!("EMAIL#{old_email_key}"), "EMAIL")))
                .build()
                .map_err(|e| StoreError::Aws(e.to_string()))?;
            items.push(TransactWriteItem::builder().delete(delete).build());
        }
        let result = self
            .db
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(err) => match cancelled_indexes(&err) {
                Some(r) if r.iter().any(|(i, _)| *i == 1) => Err(StoreError::Taken("email")),
                Some(_) => Err(StoreError::Contention),
                None => Err(StoreError::Aws(describe(&err))),
            },
        }
    }

    /// The settings and their version (0 when never saved: the defaults).
    pub async fn settings(&self, id: &str) -> Result<(Settings, u64), StoreError> {
        let out = self
            .db
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(user_pk(id), "SETTINGS")))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| StoreError::Aws(describe(&e)))?;
        let Some(item) = out.item else {
            return Ok((Settings::default(), 0));
        };
        let json = get_s(&item, "data")?;
        let settings =
            serde_json::from_str(&json).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let version = item
            .get("version")
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        Ok((settings, version))
    }

    /// Saves settings if nobody saved since `version` was read.
    pub async fn save_settings(
        &self,
        id: &str,
        settings: &Settings,
        version: u64,
    ) -> Result<(), StoreError> {
        self.transact_settings(id, settings, version, Vec::new())
            .await
    }

    /// Records that `id` subscribed to (or left) `source_id`, with the settings that go with
    /// it, if nobody saved the settings since `version` was read.
    pub async fn save_subscription(
        &self,
        id: &str,
        source_id: &str,
        subscribed: bool,
        settings: &Settings,
        version: u64,
    ) -> Result<(), StoreError> {
        let membership = key(user_pk(id), format!("SUB#{source_id}"));
        let change = if subscribed {
            let mut item = membership;
            item.insert("sourceId".into(), s(source_id));
            item.insert("subscribedAt".into(), s(now()));
            let put = Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .build()
                .map_err(|e| StoreError::Aws(e.to_string()))?;
            TransactWriteItem::builder().put(put).build()
        } else {
            let delete = Delete::builder()
                .table_name(&self.table)
                .set_key(Some(membership))
                .build()
                .map_err(|e| StoreError::Aws(e.to_string()))?;
            TransactWriteItem::builder().delete(delete).build()
        };
        self.transact_settings(id, settings, version, vec![change])
            .await
    }

    /// Writes the settings item (conditional on `version`) and `others` in one transaction.
    async fn transact_settings(
        &self,
        id: &str,
        settings: &Settings,
        version: u64,
        others: Vec<TransactWriteItem>,
    ) -> Result<(), StoreError> {
        let json =
            serde_json::to_string(settings).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut item = key(user_pk(id), "SETTINGS");
        item.insert("data".into(), s(json));
        item.insert(
            "version".into(),
            AttributeValue::N((version + 1).to_string()),
        );
        let mut put = Put::builder().table_name(&self.table).set_item(Some(item));
        put = if version == 0 {
            put.condition_expression("attribute_not_exists(pk)")
        } else {
            put.condition_expression("version = :v")
                .expression_attribute_values(":v", AttributeValue::N(version.to_string()))
        };
        let put = put.build().map_err(|e| StoreError::Aws(e.to_string()))?;
        let mut items = vec![TransactWriteItem::builder().put(put).build()];
        items.extend(others);
        match self
            .db
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(err) => match cancelled_indexes(&err) {
                Some(_) => Err(StoreError::Contention),
                None => Err(StoreError::Aws(describe(&err))),
            },
        }
    }

    /// The ids of the sources `id` subscribes to, in the order of their ids.
    pub async fn subscriptions(&self, id: &str) -> Result<Vec<String>, StoreError> {
        let mut ids = Vec::new();
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let out = self
                .db
                .query()
                .table_name(&self.table)
                .key_condition_expression("pk = :pk AND begins_with(sk, :sub)")
                .expression_attribute_values(":pk", s(user_pk(id)))
                .expression_attribute_values(":sub", s("SUB#"))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::Aws(describe(&e)))?;
            ids.extend(
                out.items()
                    .iter()
                    .filter_map(|item| string(item, "sourceId")),
            );
            start = out.last_evaluated_key;
            if start.is_none() {
                return Ok(ids);
            }
        }
    }

    /// Deletes the account: profile, settings, login, email guard and subscription items, in
    /// one transaction conditional on the profile still being `user` (so a concurrent email
    /// change cannot leave its guard behind).
    pub async fn delete_account(
        &self,
        user: &StoredUser,
        username_key: &str,
        email_key: &str,
    ) -> Result<(), StoreError> {
        let mut keys = vec![
            key(format!("USERNAME#{username_key}"), "LOGIN"),
            key(format!("EMAIL#{email_key}"), "EMAIL"),
            key(user_pk(&user.id), "SETTINGS"),
        ];
        // A transaction holds at most 100 items; the subscription items are the only open-ended part.
        let subscriptions = self.subscriptions(&user.id).await?;
        for source_id in &subscriptions {
            keys.push(key(user_pk(&user.id), format!("SUB#{source_id}")));
        }
        let mut items = Vec::with_capacity(keys.len() + 1);
        let profile = Delete::builder()
            .table_name(&self.table)
            .set_key(Some(key(user_pk(&user.id), "PROFILE")))
            .condition_expression("email = :email")
            .expression_attribute_values(":email", s(&user.email))
            .build()
            .map_err(|e| StoreError::Aws(e.to_string()))?;
        items.push(TransactWriteItem::builder().delete(profile).build());
        for k in keys {
            let delete = Delete::builder()
                .table_name(&self.table)
                .set_key(Some(k))
                .build()
                .map_err(|e| StoreError::Aws(e.to_string()))?;
            items.push(TransactWriteItem::builder().delete(delete).build());
        }
        for chunk in items.chunks(100).rev() {
            // The chunk with the profile goes last, so a failure leaves the account in place.
            match self
                .db
                .transact_write_items()
                .set_transact_items(Some(chunk.to_vec()))
                .send()
                .await
            {
                Ok(_) => {}
                Err(err) => {
                    return Err(match cancelled_indexes(&err) {
                        Some(_) => StoreError::Contention,
                        None => StoreError::Aws(describe(&err)),
                    })
                }
            }
        }
        Ok(())
    }

    /// Reads one small item: proves the table answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.db
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key("HEALTH", "PING")))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| StoreError::Aws(describe(&e)))
    }
}
