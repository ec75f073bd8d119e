//! [`Planned`]: a transaction counted against TransactWriteItems' limits before it is sent.

use platform::dynamo::{
    item_size, Item, Table, Transaction, TransactionError, MAX_ITEM_BYTES, MAX_TRANSACTION_BYTES,
    MAX_TRANSACTION_ITEMS,
};

use super::DynamoSearchIndex;
use crate::index::SearchError;

/// A transaction that counts its writes and bytes against TransactWriteItems' limits.
pub(super) struct Planned {
    pub(super) tx: Transaction,
    pub(super) bytes: usize,
}

impl Planned {
    pub(super) fn new(table: &Table) -> Self {
        Self {
            tx: Transaction::new(table),
            bytes: 0,
        }
    }

    /// Counts one write of `bytes`; refuses the 101st write or the byte past 4 MB.
    pub(super) fn count(&mut self, bytes: usize) -> Result<(), SearchError> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.tx.len() >= MAX_TRANSACTION_ITEMS || self.bytes > MAX_TRANSACTION_BYTES {
            return Err(SearchError::Limit(format!(
                "transaction of {} items, {} bytes",
                self.tx.len() + 1,
                self.bytes
            )));
        }
        Ok(())
    }

    pub(super) fn put(&mut self, item: Item) -> Result<(), SearchError> {
        let size = item_size(&item);
        if size > MAX_ITEM_BYTES {
            return Err(SearchError::Limit(format!("item of {size} bytes")));
        }
        self.count(size)?;
        self.tx.put(item, None)?;
        Ok(())
    }

    pub(super) fn delete(&mut self, key: Item) -> Result<(), SearchError> {
        self.count(item_size(&key))?;
        self.tx.delete(key, None)?;
        Ok(())
    }

    pub(super) fn add(
        &mut self,
        key: Item,
        attribute: &str,
        delta: i64,
    ) -> Result<(), SearchError> {
        self.count(
            item_size(&key)
                .saturating_add(attribute.len())
                .saturating_add(21),
        )?;
        self.tx.add(key, attribute, delta, None)?;
        Ok(())
    }

    pub(super) fn update(
        &mut self,
        update: platform::dynamo::request::Update,
        bytes: usize,
    ) -> Result<(), SearchError> {
        if bytes > MAX_ITEM_BYTES {
            return Err(SearchError::Limit(format!("item of {bytes} bytes")));
        }
        self.count(bytes)?;
        self.tx.update(update)?;
        Ok(())
    }

    pub(super) async fn commit(&self) -> Result<(), TransactionError> {
        self.tx.commit_retrying().await
    }
}

fn contended(err: TransactionError) -> SearchError {
    match err {
        TransactionError::Dynamo(e) => SearchError::Dynamo(e),
        TransactionError::Conflict | TransactionError::Condition { .. } => SearchError::Contended,
    }
}

impl DynamoSearchIndex {
    /// Commits `tx`; false when a condition failed (another indexer moved first).
    pub(super) async fn run(tx: Planned) -> Result<bool, SearchError> {
        match tx.commit().await {
            Ok(()) => Ok(true),
            Err(TransactionError::Condition { .. }) => Ok(false),
            Err(e) => Err(contended(e)),
        }
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::plan;
    use crate::store::{checked_key, term_pk, MAX_PARTITION_KEY_BYTES};
    use platform::dynamo::{key, s};

    #[test]
    fn limits_are_refused_before_sending() {
        let table = Table::offline("t");
        let mut tx = Planned::new(&table);
        for i in 0..MAX_TRANSACTION_ITEMS {
            tx.delete(key("a", i.to_string())).unwrap();
        }
        assert!(matches!(
            tx.delete(key("a", "one more")),
            Err(SearchError::Limit(_))
        ));
        let mut tx = Planned::new(&table);
        let huge = Item::from([("pk".to_string(), s("x".repeat(MAX_ITEM_BYTES)))]);
        assert!(matches!(tx.put(huge), Err(SearchError::Limit(_))));
        assert!(matches!(
            checked_key(
                "T#".to_string() + &"x".repeat(MAX_PARTITION_KEY_BYTES),
                "s".into()
            ),
            Err(SearchError::Limit(_))
        ));
        assert!(checked_key(term_pk(&"x".repeat(plan::MAX_TERM_BYTES)), "s".into()).is_ok());
    }
}
