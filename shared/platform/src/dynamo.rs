//! Small helpers every DynamoDB store uses: attribute values, keys, and reading what a
//! cancelled transaction says about each of its items.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::AttributeValue;

pub type Item = HashMap<String, AttributeValue>;

pub fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

pub fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The key of a table keyed `pk` (partition) and `sk` (sort).
pub fn key(pk: impl Into<String>, sk: impl Into<String>) -> Item {
    HashMap::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(sk))])
}

/// A string attribute, if present.
pub fn string(item: &Item, name: &str) -> Option<String> {
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

/// A number attribute as `i64`, 0 when absent or unreadable (counters start at nothing).
pub fn number(item: &Item, name: &str) -> i64 {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The cancellation code of each item of a cancelled transaction, in request order ("None"
/// for items that passed); `None` when the error is not a cancellation.
pub fn cancellation_codes(err: &SdkError<TransactWriteItemsError>) -> Option<Vec<String>> {
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

/// True when item `index` of the transaction failed its condition.
pub fn failed_condition(codes: &[String], index: usize) -> bool {
    codes
        .get(index)
        .is_some_and(|c| c == "ConditionalCheckFailed")
}

/// True when the transaction lost a race with another one and may simply be retried.
pub fn conflicted(codes: &[String]) -> bool {
    codes.iter().any(|c| c == "TransactionConflict")
}
