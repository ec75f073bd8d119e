//! Sessions that can end: every user token carries the account's session version (`sv`), and
//! the sessions table holds the current one. A password change, a role change, "sign out
//! everywhere" and account deletion raise it (deletion closes the account's sessions for good),
//! so every older token answers 401 on every system.
//!
//! The sessions table (`SESSIONS_TABLE`), keyed `pk` = user id, holds one small item per
//! account that ever ended its sessions: `version` (a number), `closed` (true once the account
//! is deleted) and `expiresAt` (TTL, closed accounts only). No item is version 0. Only the
//! identity function writes it; every function that checks a user token reads it.
//!
//! Cost: one strongly consistent GetItem of an item under 100 bytes per request that carries a
//! user token (1 read request unit, one round trip to DynamoDB); anonymous requests, service
//! tokens and internal calls read nothing. The partition is one account's, so its rate is that
//! account's own request rate: a person's browser or app makes a few requests a second, far
//! under half a partition's 3,000 reads/s; writes happen only when sessions end.

use crate::dynamo::{n, s, Attributes, DynamoError, Item, Table};
use crate::{ConfigError, Env};

/// How long a closed account's tombstone outlives its deletion: longer than any token lives
/// (`JWT_TTL_SECONDS` is at most a day).
pub const TOMBSTONE_SECONDS: i64 = 2 * 24 * 3600;

/// What the sessions table says of one account now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionState {
    /// Tokens with an older session version have ended.
    pub version: u64,
    /// The account is gone: every token has ended.
    pub closed: bool,
}

impl SessionState {
    /// True when a token of session version `token_version` may still act.
    pub fn admits(&self, token_version: u64) -> bool {
        !self.closed && token_version >= self.version
    }
}

/// The sessions table.
#[derive(Clone, Debug)]
pub struct SessionRegistry {
    table: Table,
}

impl SessionRegistry {
    pub fn new(table: Table) -> Self {
        Self { table }
    }

    /// From `SESSIONS_TABLE`; `None` when the function is not given one (it then checks no
    /// session: the template gives it to every function that verifies user tokens).
    pub fn from_env(env: &Env, aws: &crate::aws::AwsClients) -> Result<Option<Self>, ConfigError> {
        if env.get("SESSIONS_TABLE").is_none() {
            return Ok(None);
        }
        Ok(Some(Self::new(Table::from_env(
            env,
            aws,
            "SESSIONS_TABLE",
        )?)))
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The account's sessions now, read consistently (an ended session is refused from the
    /// moment its end was acknowledged).
    pub async fn state(&self, user_id: &str) -> Result<SessionState, DynamoError> {
        let Some(item) = self.table.get(Self::key(user_id)).await? else {
            return Ok(SessionState::default());
        };
        let version = item.counter(self.table.name(), "version")?;
        Ok(SessionState {
            version: u64::try_from(version)
                .map_err(|_| self.table.corrupt("version is negative"))?,
            closed: item.opt_bool("closed").unwrap_or(false),
        })
    }

    /// Ends every session of the account: the version goes up by one (a session that carries
    /// on is issued a token of the version [`SessionRegistry::state`] then reads).
    pub async fn end_all(&self, user_id: &str) -> Result<(), DynamoError> {
        self.table
            .update_item()
            .key("pk", s(user_id))
            .update_expression("ADD #v :one")
            .expression_attribute_names("#v", "version")
            .expression_attribute_values(":one", n(1))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("UpdateItem", &e))
    }

    /// Closes the account's sessions for good (account deletion): every token ends. The
    /// tombstone expires after [`TOMBSTONE_SECONDS`], when no token of the account is valid.
    pub async fn close(&self, user_id: &str, now_epoch_seconds: i64) -> Result<(), DynamoError> {
        self.table
            .update_item()
            .key("pk", s(user_id))
            .update_expression("ADD #v :one SET #c = :yes, #e = :expires")
            .expression_attribute_names("#v", "version")
            .expression_attribute_names("#c", "closed")
            .expression_attribute_names("#e", "expiresAt")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":yes", crate::dynamo::AttributeValue::Bool(true))
            .expression_attribute_values(":expires", n(now_epoch_seconds + TOMBSTONE_SECONDS))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("UpdateItem", &e))
    }

    fn key(user_id: &str) -> Item {
        Item::from([("pk".to_string(), s(user_id))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_admitted_from_the_current_version_on() {
        let fresh = SessionState::default();
        assert!(fresh.admits(0));
        let ended = SessionState {
            version: 3,
            closed: false,
        };
        assert!(!ended.admits(2));
        assert!(ended.admits(3));
        let closed = SessionState {
            version: 3,
            closed: true,
        };
        assert!(!closed.admits(3));
        assert!(!closed.admits(u64::MAX));
    }
}
