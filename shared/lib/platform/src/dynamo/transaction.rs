use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::builders::UpdateBuilder;
use aws_sdk_dynamodb::types::{ConditionCheck, Delete, Put, TransactWriteItem, Update};

use super::{n, retry_on_conflict, DynamoError, Item, RetryPolicy, Table};

/// DynamoDB's limit on the items of one transaction.
pub const MAX_ITEMS: usize = 100;

/// Why a transaction did not commit.
#[derive(Debug, thiserror::Error)]
pub enum TransactionError {
    /// The conditions of these items (indexes in the order they were added) were false.
    #[error("transaction condition failed on item(s) {failed:?}")]
    Condition { failed: Vec<usize> },
    /// Another transaction touched the same items at the same time; try again.
    #[error("transaction conflicted with a concurrent one")]
    Conflict,
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
}

impl TransactionError {
    /// True when item `index`'s condition failed.
    pub fn failed_at(&self, index: usize) -> bool {
        matches!(self, Self::Condition { failed } if failed.contains(&index))
    }

    /// True for a lost race: the one error [`super::retry_on_conflict`] should retry.
    pub fn is_conflict(&self) -> bool {
        matches!(self, Self::Conflict)
    }
}

/// The writes of one TransactWriteItems on one table, in order.
#[derive(Debug, Clone)]
pub struct Transaction {
    table: Table,
    items: Vec<TransactWriteItem>,
}

impl Transaction {
    pub fn new(table: &Table) -> Self {
        Self {
            table: table.clone(),
            items: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Puts `item`, when `condition` (if any) holds.
    pub fn put(&mut self, item: Item, condition: Option<&str>) -> Result<&mut Self, DynamoError> {
        let put = Put::builder()
            .table_name(self.table.name())
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_string))
            .build()
            .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        self.items
            .push(TransactWriteItem::builder().put(put).build());
        Ok(self)
    }

    /// Deletes the item with `key`, when `condition` (if any) holds.
    pub fn delete(&mut self, key: Item, condition: Option<&str>) -> Result<&mut Self, DynamoError> {
        let delete = Delete::builder()
            .table_name(self.table.name())
            .set_key(Some(key))
            .set_condition_expression(condition.map(str::to_string))
            .build()
            .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        self.items
            .push(TransactWriteItem::builder().delete(delete).build());
        Ok(self)
    }

    /// Puts `item` when `condition` holds, `condition` naming `values` as `:placeholders`
    /// (an optimistic version check: `version = :read`).
    pub fn put_if(
        &mut self,
        item: Item,
        condition: &str,
        values: Item,
    ) -> Result<&mut Self, DynamoError> {
        let put = Put::builder()
            .table_name(self.table.name())
            .set_item(Some(item))
            .condition_expression(condition)
            .set_expression_attribute_values(Some(values))
            .build()
            .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        self.items
            .push(TransactWriteItem::builder().put(put).build());
        Ok(self)
    }

    /// Deletes the item with `key` when `condition` holds, `condition` naming `values` as
    /// `:placeholders` (the item still being the one that was read: `email = :read`).
    pub fn delete_if(
        &mut self,
        key: Item,
        condition: &str,
        values: Item,
    ) -> Result<&mut Self, DynamoError> {
        let delete = Delete::builder()
            .table_name(self.table.name())
            .set_key(Some(key))
            .condition_expression(condition)
            .set_expression_attribute_values(Some(values))
            .build()
            .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        self.items
            .push(TransactWriteItem::builder().delete(delete).build());
        Ok(self)
    }

    /// Adds `delta` to the number `attribute` of the item with `key` (creating both if absent),
    /// when `condition` (if any) holds.
    pub fn add(
        &mut self,
        key: Item,
        attribute: &str,
        delta: i64,
        condition: Option<&str>,
    ) -> Result<&mut Self, DynamoError> {
        let update = Update::builder()
            .table_name(self.table.name())
            .set_key(Some(key))
            .update_expression("ADD #counter :delta")
            .expression_attribute_names("#counter", attribute)
            .expression_attribute_values(":delta", n(delta))
            .set_condition_expression(condition.map(str::to_string))
            .build()
            .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        self.items
            .push(TransactWriteItem::builder().update(update).build());
        Ok(self)
    }

    /// An update built by the caller from [`Transaction::update_builder`].
    /// An update without an update expression is refused here, not by DynamoDB.
    pub fn update(&mut self, update: UpdateBuilder) -> Result<&mut Self, DynamoError> {
        let update = update
            .build()
            .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        self.items
            .push(TransactWriteItem::builder().update(update).build());
        Ok(self)
    }

    /// An `Update` on this transaction's table, for [`Transaction::update`].
    pub fn update_builder(&self, key: Item) -> UpdateBuilder {
        Update::builder()
            .table_name(self.table.name())
            .set_key(Some(key))
    }

    /// Requires `condition` to hold on the item with `key`, without writing it.
    pub fn check(&mut self, key: Item, condition: &str) -> Result<&mut Self, DynamoError> {
        let check = ConditionCheck::builder()
            .table_name(self.table.name())
            .set_key(Some(key))
            .condition_expression(condition)
            .build()
            .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        self.items
            .push(TransactWriteItem::builder().condition_check(check).build());
        Ok(self)
    }

    /// Requires `condition` to hold on the item with `key`, without writing it, `condition`
    /// naming `names` as `#placeholders` and `values` as `:placeholders`.
    pub fn check_if(
        &mut self,
        key: Item,
        condition: &str,
        names: &[(&str, &str)],
        values: Item,
    ) -> Result<&mut Self, DynamoError> {
        let names = names
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let check = ConditionCheck::builder()
            .table_name(self.table.name())
            .set_key(Some(key))
            .condition_expression(condition)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .build()
            .map_err(|e| self.table.invalid("TransactWriteItems", e))?;
        self.items
            .push(TransactWriteItem::builder().condition_check(check).build());
        Ok(self)
    }

    /// [`Transaction::commit`], tried again on conflicts under the platform's policy
    /// ([`RetryPolicy::CONFLICTS`]): what a store calls unless it must rebuild the writes
    /// between attempts.
    pub async fn commit_retrying(&self) -> Result<(), TransactionError> {
        retry_on_conflict(
            RetryPolicy::CONFLICTS,
            TransactionError::is_conflict,
            |_| self.commit(),
        )
        .await
    }

    /// Writes every item or none. Can be called again after a [`TransactionError::Conflict`]
    /// (a new call is a new request with its own idempotency token; the SDK's retries of one
    /// call share it, so an attempt retried after a timeout whose first try did apply
    /// succeeds without applying twice).
    ///
    /// DynamoDB cancels a transaction it throttles (`ThrottlingError` reasons), which the SDK
    /// does not retry: it is tried again here under [`RetryPolicy::THROTTLED`], with the same
    /// token (a cancelled attempt applied nothing), and past that is an unavailable table (a
    /// 503 with `Retry-After`, never a 500).
    pub async fn commit(&self) -> Result<(), TransactionError> {
        if self.items.is_empty() {
            return Ok(());
        }
        let token = request_token();
        let mut attempt = 1;
        loop {
            match self.attempt(&token).await {
                Err(Attempt::Throttled(_)) if attempt < RetryPolicy::THROTTLED.attempts => {
                    tokio::time::sleep(RetryPolicy::THROTTLED.backoff(attempt)).await;
                    attempt += 1;
                }
                Err(Attempt::Throttled(message)) => {
                    return Err(DynamoError::Call {
                        operation: "TransactWriteItems",
                        table: self.table.name().to_string(),
                        message: format!("throttled {attempt} times: {message}"),
                        unavailable: true,
                    }
                    .into())
                }
                Err(Attempt::Failed(e)) => return Err(e),
                Ok(()) => return Ok(()),
            }
        }
    }

    async fn attempt(&self, token: &str) -> Result<(), Attempt> {
        let result = self
            .table
            .client()
            .transact_write_items()
            .set_transact_items(Some(self.items.clone()))
            .client_request_token(token)
            .send()
            .await;
        let err = match result {
            Ok(_) => return Ok(()),
            Err(err) => err,
        };
        let codes: Option<Vec<String>> = match err.as_service_error() {
            Some(TransactWriteItemsError::TransactionCanceledException(e)) => Some(
                e.cancellation_reasons()
                    .iter()
                    .map(|r| r.code().unwrap_or("None").to_string())
                    .collect(),
            ),
            Some(TransactWriteItemsError::TransactionInProgressException(_)) => {
                return Err(Attempt::Failed(TransactionError::Conflict))
            }
            _ => None,
        };
        let Some(codes) = codes else {
            return Err(Attempt::Failed(
                self.table.fail("TransactWriteItems", &err).into(),
            ));
        };
        let failed: Vec<usize> = codes
            .iter()
            .enumerate()
            .filter(|(_, c)| *c == "ConditionalCheckFailed")
            .map(|(i, _)| i)
            .collect();
        Err(if !failed.is_empty() {
            Attempt::Failed(TransactionError::Condition { failed })
        } else if codes.iter().any(|c| c == "TransactionConflict") {
            Attempt::Failed(TransactionError::Conflict)
        } else if codes.iter().any(|c| c == "ThrottlingError") {
            Attempt::Throttled(aws_sdk_dynamodb::error::DisplayErrorContext(&err).to_string())
        } else {
            Attempt::Failed(self.table.fail("TransactWriteItems", &err).into())
        })
    }
}

/// How one attempt of a commit ended, when it did not apply.
enum Attempt {
    /// Cancelled for throttling: nothing applied, worth another try.
    Throttled(String),
    Failed(TransactionError),
}

/// A fresh idempotency token: 32 random hex digits (DynamoDB takes 1 to 36 characters).
fn request_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

#[cfg(test)]
mod tests {
    use super::super::{key, n, s};
    use super::*;

    fn table() -> Table {
        Table::offline("t")
    }

    #[test]
    fn each_commit_has_its_own_request_token() {
        let (a, b) = (request_token(), request_token());
        assert_eq!(a.len(), 32);
        assert!(a
            .bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }

    #[test]
    fn conditions_with_values_build() {
        let table = table();
        let mut tx = Transaction::new(&table);
        let values = Item::from([(":read".to_string(), n(3))]);
        tx.put_if(key("a", "b"), "version = :read", values.clone())
            .expect("put");
        tx.delete_if(
            key("a", "c"),
            "email = :read",
            Item::from([(":read".into(), s("x"))]),
        )
        .expect("delete");
        assert_eq!(tx.len(), 2);
        let Some(put) = tx.items.first().and_then(|i| i.put()) else {
            panic!("a put first");
        };
        assert_eq!(put.condition_expression(), Some("version = :read"));
        assert_eq!(put.expression_attribute_values(), Some(&values));
        let empty = tx.update_builder(key("a", "d"));
        assert!(tx.update(empty).is_err());
    }
}
