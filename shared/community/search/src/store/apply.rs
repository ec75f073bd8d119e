//! Applying a post's version: the chunks of postings and `df` moves, under the progress item,
//! within a budget of transactions.

use std::collections::BTreeSet;

use platform::dynamo::{key, n, AttributeValue, Item};

use super::{
    as_number, checked_key, post_pk, posting_sk, term_pk, DynamoSearchIndex, Planned, DF, PROG,
    ROUNDS,
};
use crate::analyze::analyze;
use crate::index::{Applied, IndexDoc, SearchError};
use crate::plan::{self, Code, Op, Terms};

/// The write transactions an apply may still make, and those it made.
struct Budget {
    left: usize,
    spent: usize,
}

impl Budget {
    /// Takes one transaction; false when none is left.
    fn take(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        self.spent += 1;
        true
    }
}

fn check_doc(doc: &IndexDoc) -> Result<(), SearchError> {
    if doc.post_id.is_empty() || doc.post_id.len() > 64 || doc.post_id.contains('#') {
        return Err(SearchError::InvalidDoc(format!(
            "post id {:?}",
            doc.post_id
        )));
    }
    as_number(doc.version)?;
    if doc.published_live {
        match &doc.first_published_at {
            Some(at)
                if at.starts_with(|c: char| c.is_ascii_digit())
                    && !at.contains('#')
                    && at.len() <= 40 => {}
            other => {
                return Err(SearchError::InvalidDoc(format!(
                    "first publication time {other:?}"
                )))
            }
        }
    }
    Ok(())
}

impl DynamoSearchIndex {
    /// [`crate::SearchIndex::apply_within`]: finishes the post's pending version if any, then
    /// starts and applies `doc`'s, within `max_transactions`.
    pub(super) async fn apply_doc_within(
        &self,
        doc: &IndexDoc,
        max_transactions: usize,
    ) -> Result<Applied, SearchError> {
        check_doc(doc)?;
        let post = doc.post_id.as_str();
        let mut budget = Budget {
            left: max_transactions,
            spent: 0,
        };
        for _ in 0..ROUNDS {
            let (forward, progress) = self.read_state(post).await?;
            match (progress.pending, &forward.target) {
                (Some(pending), Some((target_v, target))) if pending == *target_v => {
                    // An unfinished version (ours, an older or a newer one) finishes first:
                    // its diff is deterministic from the stored maps.
                    self.continue_pending(
                        post,
                        pending,
                        &forward.applied,
                        target,
                        &progress.done,
                        &mut budget,
                    )
                    .await?;
                    if budget.left == 0 {
                        return Ok(Applied::Paused {
                            transactions: budget.spent,
                        });
                    }
                    continue;
                }
                (None, None) => {}
                // Read between another indexer's start or finish and ours: read again.
                _ => continue,
            }
            if forward.version >= doc.version {
                return Ok(if budget.spent == 0 {
                    Applied::UpToDate
                } else {
                    Applied::Indexed {
                        transactions: budget.spent,
                    }
                });
            }
            if !budget.take() {
                return Ok(Applied::Paused {
                    transactions: budget.spent,
                });
            }
            let target = match (&doc.first_published_at, doc.published_live) {
                (Some(at), true) => {
                    plan::target(&analyze(&doc.title, &doc.body), at, &forward.applied)
                }
                _ => Terms::default(),
            };
            // Lost to another indexer: re-read and follow what it started.
            Self::run(self.start_tx(post, &forward, doc.version, &target)?).await?;
        }
        Err(SearchError::Contended)
    }

    /// Works on the pending `version` (from `old` to `new`) until it is applied, another
    /// indexer moved the post on (re-read then), or `budget` transactions are spent.
    async fn continue_pending(
        &self,
        post: &str,
        version: u64,
        old: &Terms,
        new: &Terms,
        done: &BTreeSet<usize>,
        budget: &mut Budget,
    ) -> Result<(), SearchError> {
        let chunks = plan::chunks(plan::diff(old, new));
        for (k, chunk) in chunks.iter().enumerate() {
            if done.contains(&k) {
                continue;
            }
            if !budget.take() {
                return Ok(());
            }
            if !Self::run(self.chunk_tx(post, version, k, chunk, old, new)?).await? {
                // Applied by another indexer, or the version is no longer pending: re-read.
                return Ok(());
            }
        }
        if !budget.take() {
            return Ok(());
        }
        Self::run(self.finish_tx(post, version, old, new)?).await?;
        Ok(())
    }

    /// Applies chunk `k` of version `version` once: its writes and the progress mark, under
    /// `pending = :v AND NOT contains(done, :k)`. False when the condition failed.
    pub(super) fn chunk_tx(
        &self,
        post: &str,
        version: u64,
        k: usize,
        chunk: &[Op],
        old: &Terms,
        new: &Terms,
    ) -> Result<Planned, SearchError> {
        let mut tx = Planned::new(&self.table);
        for op in chunk {
            match op {
                Op::Add { term, code } => {
                    tx.put(self.posting(term, &new.at, post, *code)?)?;
                    tx.add(checked_key(term_pk(term), DF.to_string())?, "df", 1)?;
                }
                Op::Remove { term } => {
                    tx.delete(checked_key(term_pk(term), posting_sk(&old.at, post))?)?;
                    tx.add(checked_key(term_pk(term), DF.to_string())?, "df", -1)?;
                }
                Op::Change { term, code } => {
                    tx.put(self.posting(term, &new.at, post, *code)?)?;
                }
                Op::Move { term, code } => {
                    tx.delete(checked_key(term_pk(term), posting_sk(&old.at, post))?)?;
                    tx.put(self.posting(term, &new.at, post, *code)?)?;
                }
            }
        }
        let k_number = i64::try_from(k).map_err(|_| SearchError::Limit("chunk index".into()))?;
        let mark = tx
            .tx
            .update_builder(key(post_pk(post), PROG))
            .update_expression("ADD done :ks")
            .condition_expression("pending = :v AND NOT contains(done, :k)")
            .expression_attribute_values(":ks", AttributeValue::Ns(vec![k_number.to_string()]))
            .expression_attribute_values(":k", n(k_number))
            .expression_attribute_values(":v", n(as_number(version)?));
        tx.update(mark, 128)?;
        Ok(tx)
    }

    fn posting(&self, term: &str, at: &str, post: &str, code: Code) -> Result<Item, SearchError> {
        let (title, body, len) = plan::decode(code);
        let mut item = checked_key(term_pk(term), posting_sk(at, post))?;
        item.insert("w".into(), n(i64::from(title) * 1000 + i64::from(body)));
        item.insert("l".into(), n(i64::from(len)));
        Ok(item)
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::store::forward::Forward;
    use platform::dynamo::{Table, MAX_ITEM_BYTES, MAX_TRANSACTION_BYTES, MAX_TRANSACTION_ITEMS};

    fn index() -> DynamoSearchIndex {
        DynamoSearchIndex::new(Table::offline("t"))
    }

    /// The worst post: 2,000 distinct terms of 32 bytes, the title and body counts at their
    /// caps, moved to a new publication time (every term two writes).
    fn worst(at: &str) -> Terms {
        Terms {
            terms: (0..plan::MAX_TERMS_PER_POST)
                .map(|i| (format!("{i:0>32}"), plan::code(999, 999, 999_999)))
                .collect(),
            at: at.into(),
            len: 999_999,
        }
    }

    #[test]
    fn every_transaction_of_the_largest_post_fits_dynamodb() {
        let index = index();
        let post = "00000000-0000-4000-8000-000000000001";
        let old = worst("2026-11-01T00:00:00.000Z");
        let new = worst("2026-11-02T00:00:00.000Z");
        let read = Forward {
            version: 1,
            applied: old.clone(),
            target: None,
        };
        let start = index.start_tx(post, &read, 2, &new).unwrap();
        assert!(start.tx.len() <= MAX_TRANSACTION_ITEMS);
        let chunks = plan::chunks(plan::diff(&old, &new));
        assert_eq!(chunks.len(), 4_000usize.div_ceil(plan::CHUNK_ITEMS));
        for (k, chunk) in chunks.iter().enumerate() {
            let tx = index.chunk_tx(post, 2, k, chunk, &old, &new).unwrap();
            assert!(tx.tx.len() <= MAX_TRANSACTION_ITEMS, "chunk {k}");
            assert!(tx.bytes <= MAX_TRANSACTION_BYTES);
        }
        let finish = index.finish_tx(post, 2, &old, &new).unwrap();
        // The forward item with both maps stays far below 400 KB.
        assert!(start.bytes < MAX_ITEM_BYTES / 2, "{}", start.bytes);
        assert!(finish.bytes < MAX_ITEM_BYTES / 4);
    }

    #[test]
    fn documents_are_checked() {
        let mut doc = IndexDoc {
            post_id: "a#b".into(),
            version: 1,
            title: String::new(),
            body: String::new(),
            published_live: true,
            first_published_at: Some("2026-11-01T00:00:00.000Z".into()),
        };
        assert!(check_doc(&doc).is_err());
        doc.post_id = "p".into();
        assert!(check_doc(&doc).is_ok());
        doc.first_published_at = None;
        assert!(check_doc(&doc).is_err());
        doc.published_live = false;
        assert!(check_doc(&doc).is_ok());
        doc.version = u64::MAX;
        assert!(check_doc(&doc).is_err());
    }
}
