use serde::Serialize;

use super::request::{ConditionCheck, Delete, Put, TransactWriteItem, Update};
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
        let put = Put::default()
            .table_name(self.table.name())
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_string));
        self.items.push(TransactWriteItem::Put(put));
        Ok(self)
    }

    /// Deletes the item with `key`, when `condition` (if any) holds.
    pub fn delete(&mut self, key: Item, condition: Option<&str>) -> Result<&mut Self, DynamoError> {
        let delete = Delete::default()
            .table_name(self.table.name())
            .set_key(Some(key))
            .set_condition_expression(condition.map(str::to_string));
        self.items.push(TransactWriteItem::Delete(delete));
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
        let put = Put::default()
            .table_name(self.table.name())
            .set_item(Some(item))
            .condition_expression(condition)
            .set_expression_attribute_values(Some(values));
        self.items.push(TransactWriteItem::Put(put));
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
        let delete = Delete::default()
            .table_name(self.table.name())
            .set_key(Some(key))
            .condition_expression(condition)
            .set_expression_attribute_values(Some(values));
        self.items.push(TransactWriteItem::Delete(delete));
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
        let update = Update::default()
            .table_name(self.table.name())
            .set_key(Some(key))
            .update_expression("ADD #counter :delta")
            .expression_attribute_names("#counter", attribute)
            .expression_attribute_values(":delta", n(delta))
            .set_condition_expression(condition.map(str::to_string));
        self.items.push(TransactWriteItem::Update(update));
        Ok(self)
    }

    /// An update built by the caller from [`Transaction::update_builder`].
    /// An update without an update expression is refused here, not by DynamoDB.
    pub fn update(&mut self, update: Update) -> Result<&mut Self, DynamoError> {
        if update.update_expression.is_empty() {
            return Err(self.table.invalid(
                "TransactWriteItems",
                "an update without an update expression",
            ));
        }
        self.items.push(TransactWriteItem::Update(update));
        Ok(self)
    }

    /// An `Update` on this transaction's table, for [`Transaction::update`].
    pub fn update_builder(&self, key: Item) -> Update {
        Update::default()
            .table_name(self.table.name())
            .set_key(Some(key))
    }

    /// Requires `condition` to hold on the item with `key`, without writing it.
    pub fn check(&mut self, key: Item, condition: &str) -> Result<&mut Self, DynamoError> {
        let check = ConditionCheck::default()
            .table_name(self.table.name())
            .set_key(Some(key))
            .condition_expression(condition);
        self.items.push(TransactWriteItem::ConditionCheck(check));
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
    /// (a new call is a new request: it has its own idempotency token).
    pub async fn commit(&self) -> Result<(), TransactionError> {
        if self.items.is_empty() {
            return Ok(());
        }
        #[derive(Serialize)]
        #[serde(rename_all = "PascalCase")]
        struct Input<'a> {
            transact_items: &'a [TransactWriteItem],
            client_request_token: String,
        }
        // One token for this commit's attempts: an attempt retried after a timeout, whose
        // first try did apply, succeeds without applying twice (or failing its own conditions).
        let token = request_token();
        let result = self
            .table
            .client()
            .call::<_, serde::de::IgnoredAny>(
                "TransactWriteItems",
                &Input {
                    transact_items: &self.items,
                    client_request_token: token,
                },
            )
            .await;
        let err = match result {
            Ok(_) => return Ok(()),
            Err(err) => err,
        };
        let codes: Option<Vec<String>> = match err.service_error() {
            Some(e) if e.code == "TransactionCanceledException" => Some(
                e.cancellation_reasons
                    .iter()
                    .map(|r| r.code.clone().unwrap_or_else(|| "None".to_string()))
                    .collect(),
            ),
            Some(e) if e.code == "TransactionInProgressException" => {
                return Err(TransactionError::Conflict)
            }
            _ => None,
        };
        match codes {
            Some(codes) => {
                let failed: Vec<usize> = codes
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| *c == "ConditionalCheckFailed")
                    .map(|(i, _)| i)
                    .collect();
                if !failed.is_empty() {
                    Err(TransactionError::Condition { failed })
                } else if codes.iter().any(|c| c == "TransactionConflict") {
                    Err(TransactionError::Conflict)
                } else {
                    Err(self.table.fail("TransactWriteItems", &err).into())
                }
            }
            None => Err(self.table.fail("TransactWriteItems", &err).into()),
        }
    }
}

/// A fresh idempotency token: 32 random hex digits (DynamoDB takes 1 to 36 characters).
fn request_token() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes
        .iter()
        .flat_map(|b| [b >> 4, b & 0xf])
        .filter_map(|nibble| char::from_digit(u32::from(nibble), 16))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{key, n, s};
    use super::*;
    use crate::aws::json::{self, JsonClient};

    fn table() -> Table {
        Table::new(JsonClient::disconnected(json::DYNAMODB), "t")
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
        let Some(TransactWriteItem::Put(put)) = tx.items.first() else {
            panic!("a put first");
        };
        assert_eq!(put.condition_expression.as_deref(), Some("version = :read"));
        assert_eq!(put.expression_attribute_values, values);
        let empty = tx.update_builder(key("a", "d"));
        assert!(tx.update(empty).is_err());
    }
}
