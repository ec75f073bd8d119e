//! The DynamoDB toolkit every store uses: a [`Table`] handle with reads that follow pages and
//! unprocessed keys ([`Table::query_all`], [`Table::batch_get_all`]), a [`Transaction`]
//! builder whose outcome says which item failed its condition, one [`retry_on_conflict`]
//! policy, condition-failure detection ([`is_condition_failed`]), and attribute getters that
//! fail with one [`DynamoError::Corrupt`] error ([`Attributes`]).
//!
//! Stores keep their own error enums; they wrap [`DynamoError`] (`#[from]`) and map the few
//! outcomes their callers care about (a failed condition, an exhausted retry).

mod attributes;
mod error;
mod retry;
mod size;
mod table;
mod transaction;

use std::collections::HashMap;

pub use attributes::Attributes;
pub use aws_sdk_dynamodb::primitives::Blob;
pub use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, Select};
pub use error::{is_condition_failed, DynamoError};
pub use retry::{retry_on_conflict, RetryPolicy};
pub use size::{item_size, value_size, MAX_ITEM_BYTES, MAX_TRANSACTION_BYTES};
pub use table::Table;
pub use transaction::{Transaction, TransactionError, MAX_ITEMS as MAX_TRANSACTION_ITEMS};

/// The SDK's builders of a transaction's writes, by the names the stores use.
pub mod request {
    pub use aws_sdk_dynamodb::types::builders::UpdateBuilder as Update;
}

/// One item, as DynamoDB reads and writes it.
pub type Item = HashMap<String, AttributeValue>;

/// A string attribute value.
pub fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// A number attribute value.
pub fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The key of a table keyed `pk` (partition) and `sk` (sort).
pub fn key(pk: impl Into<String>, sk: impl Into<String>) -> Item {
    HashMap::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(sk))])
}
