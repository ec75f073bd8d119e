//! Item sizes as DynamoDB counts them, to stay under its limits before a write is refused:
//! 400 KB per item ([`MAX_ITEM_BYTES`]) and 4 MB per transaction ([`MAX_TRANSACTION_BYTES`]).

use super::{AttributeValue, Item};

/// The largest item DynamoDB stores: 400 KB, attribute names included.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// The largest total size of the items of one TransactWriteItems call.
pub const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

/// The size of `item` as DynamoDB counts it: each attribute's name (UTF-8 bytes) plus its
/// value.
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| name.len().saturating_add(value_size(value)))
        .fold(0, usize::saturating_add)
}

/// The size of one attribute value: strings and binaries by their bytes, numbers by their
/// significant digits (one byte per two, plus one), booleans and nulls one byte, lists and
/// maps 3 bytes plus one byte per element on top of the elements (and, for maps, their names).
pub fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(set) => set.iter().map(String::len).fold(0, usize::saturating_add),
        AttributeValue::Ns(set) => set
            .iter()
            .map(|n| number_size(n))
            .fold(0, usize::saturating_add),
        AttributeValue::Bs(set) => set
            .iter()
            .map(|b| b.as_ref().len())
            .fold(0, usize::saturating_add),
        AttributeValue::L(list) => list
            .iter()
            .map(|v| value_size(v).saturating_add(1))
            .fold(3, usize::saturating_add),
        AttributeValue::M(map) => map
            .iter()
            .map(|(k, v)| k.len().saturating_add(value_size(v)).saturating_add(1))
            .fold(3, usize::saturating_add),
        // A type newer than the SDK (`Unknown`): the stores never write one.
        _ => 1,
    }
}

/// A number's size: leading and trailing zeros do not count, one byte per two significant
/// digits, plus one.
fn number_size(n: &str) -> usize {
    let digits: String = n
        .split(['e', 'E'])
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let significant = digits.trim_start_matches('0').trim_end_matches('0').len();
    significant.div_ceil(2).saturating_add(1)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::{n, s};
    use super::*;

    #[test]
    fn sizes_follow_dynamodb_rules() {
        // Names count too, in UTF-8 bytes.
        let item = Item::from([("name".to_string(), s("héllo"))]);
        assert_eq!(item_size(&item), 4 + 6);
        assert_eq!(value_size(&n(0)), 1);
        assert_eq!(value_size(&n(12345)), 4);
        assert_eq!(value_size(&n(1200)), 2);
        assert_eq!(value_size(&AttributeValue::Bool(true)), 1);
        // A list: 3 bytes, plus each element and a byte for it.
        assert_eq!(
            value_size(&AttributeValue::L(vec![s("ab"), s("c")])),
            3 + 3 + 2
        );
        let map = AttributeValue::M(HashMap::from([("id".to_string(), s("xyz"))]));
        assert_eq!(value_size(&map), 3 + 2 + 3 + 1);
        assert_eq!(value_size(&AttributeValue::L(Vec::new())), 3);
    }
}
