//! The "counted" markers (`COUNTED#{sha256 of the id}` / `-`): what makes a count that has
//! no transaction of its own apply once.

use platform::dynamo::request::Update;
use platform::dynamo::{key, n, DynamoError, Transaction, TransactionError};

use super::{sha256_hex, Metrics, MARKER_PK, MARKER_TTL_DAYS, NO_SORT};

impl Metrics {
    /// The "counted" marker of `id`: a write that fails when `id` was counted before, so the
    /// transaction that carries it (and its counters) applies once.
    pub fn marker(&self, id: &str) -> Update {
        let expires = self.clock.now().timestamp() + MARKER_TTL_DAYS * 86_400;
        Update::default()
            .table_name(self.table.name())
            .set_key(Some(key(format!("{MARKER_PK}{}", sha256_hex(id)), NO_SORT)))
            .update_expression("SET expiresAt = :expires")
            .condition_expression("attribute_not_exists(pk)")
            .expression_attribute_values(":expires", n(expires))
    }

    /// Commits `updates` (a marker first) as one transaction; false when the marker says
    /// they were applied before.
    pub(super) async fn commit_once(&self, updates: Vec<Update>) -> Result<bool, DynamoError> {
        let mut tx = Transaction::new(&self.table);
        for update in updates {
            tx.update(update)?;
        }
        match tx.commit_retrying().await {
            Ok(()) => Ok(true),
            Err(e) if e.failed_at(0) => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(_) => Err(self.conflict()),
        }
    }
}
