//! A post's own items, `P#{postId}`: the forward item (the terms applied, and the target
//! while a version is applied) and the progress item; a version starts and finishes here.

use std::collections::{BTreeMap, BTreeSet};

use platform::dynamo::{item_size, key, n, s, value_size, AttributeValue, Attributes, Item};

use super::{as_number, checked_key, global_key, post_pk, DynamoSearchIndex, Planned, FWD, PROG};
use crate::index::SearchError;
use crate::plan::{Code, Terms};

/// The forward item as read.
#[derive(Debug, Default)]
pub(super) struct Forward {
    pub(super) version: u64,
    pub(super) applied: Terms,
    /// The version being applied and its target.
    pub(super) target: Option<(u64, Terms)>,
}

/// The progress item as read.
#[derive(Debug, Default)]
pub(super) struct Progress {
    pub(super) pending: Option<u64>,
    pub(super) done: BTreeSet<usize>,
}

impl DynamoSearchIndex {
    fn terms_of(&self, item: &Item, map: &str, at: &str, len: &str) -> Result<Terms, SearchError> {
        let mut terms = BTreeMap::new();
        match item.get(map) {
            None => {}
            Some(AttributeValue::M(m)) => {
                for (term, value) in m {
                    let code = match value {
                        AttributeValue::N(v) => v.parse::<Code>().ok(),
                        _ => None,
                    }
                    .ok_or_else(|| self.corrupt(format!("{map}.{term} is not a number")))?;
                    terms.insert(term.clone(), code);
                }
            }
            Some(_) => return Err(self.corrupt(format!("{map} is not a map"))),
        }
        let len = item.counter(self.table.name(), len)?;
        Ok(Terms {
            terms,
            at: item.opt_string(at).unwrap_or_default(),
            len: u32::try_from(len).map_err(|_| self.corrupt("a length out of range"))?,
        })
    }

    pub(super) async fn read_state(&self, post: &str) -> Result<(Forward, Progress), SearchError> {
        let (fwd, prog) = futures::try_join!(
            self.table.get(key(post_pk(post), FWD)),
            self.table.get(key(post_pk(post), PROG)),
        )?;
        let mut forward = Forward::default();
        if let Some(item) = fwd {
            forward.version = self.version(&item, "v")?.unwrap_or(0);
            forward.applied = self.terms_of(&item, "terms", "at", "len")?;
            if let Some(v) = self.version(&item, "targetV")? {
                forward.target =
                    Some((v, self.terms_of(&item, "target", "targetAt", "targetLen")?));
            }
        }
        let mut progress = Progress::default();
        if let Some(item) = prog {
            progress.pending = self.version(&item, "pending")?;
            if let Some(AttributeValue::Ns(done)) = item.get("done") {
                for k in done {
                    progress.done.insert(
                        k.parse()
                            .map_err(|_| self.corrupt("done holds a non-index"))?,
                    );
                }
            }
        }
        Ok((forward, progress))
    }

    fn terms_value(terms: &Terms) -> AttributeValue {
        AttributeValue::M(
            terms
                .terms
                .iter()
                .map(|(t, c)| (t.clone(), AttributeValue::N(c.to_string())))
                .collect(),
        )
    }

    /// Records `target` as version `version` being applied: the forward item's target and a
    /// fresh progress item, together, unless another indexer moved first.
    pub(super) fn start_tx(
        &self,
        post: &str,
        read: &Forward,
        version: u64,
        target: &Terms,
    ) -> Result<Planned, SearchError> {
        let mut tx = Planned::new(&self.table);
        let fwd_key = checked_key(post_pk(post), FWD.to_string())?;
        let target_value = Self::terms_value(target);
        // The forward item at its largest: both maps and the scalars.
        let bytes = item_size(&fwd_key)
            .saturating_add(2 * (value_size(&target_value) + 16))
            .saturating_add(4 * 40);
        let update = tx
            .tx
            .update_builder(fwd_key)
            .update_expression(
                "SET target = :target, targetAt = :at, targetLen = :len, targetV = :v",
            )
            .condition_expression(
                "(attribute_not_exists(v) OR v = :read) AND attribute_not_exists(targetV)",
            )
            .expression_attribute_values(":target", target_value)
            .expression_attribute_values(":at", s(target.at.clone()))
            .expression_attribute_values(":len", n(i64::from(target.len)))
            .expression_attribute_values(":v", n(as_number(version)?))
            .expression_attribute_values(":read", n(as_number(read.version)?));
        tx.update(update, bytes)?;
        tx.count(64)?;
        tx.tx.put(
            Item::from([
                ("pk".to_string(), s(post_pk(post))),
                ("sk".to_string(), s(PROG)),
                ("pending".to_string(), n(as_number(version)?)),
            ]),
            Some("attribute_not_exists(pending)"),
        )?;
        Ok(tx)
    }

    /// The last transaction of a version: the forward item takes the target as applied, the
    /// global counters move, the progress item goes.
    pub(super) fn finish_tx(
        &self,
        post: &str,
        version: u64,
        old: &Terms,
        new: &Terms,
    ) -> Result<Planned, SearchError> {
        let mut tx = Planned::new(&self.table);
        let fwd_key = checked_key(post_pk(post), FWD.to_string())?;
        let terms = Self::terms_value(new);
        let bytes = item_size(&fwd_key)
            .saturating_add(value_size(&terms))
            .saturating_add(64);
        let update = tx
            .tx
            .update_builder(fwd_key)
            .update_expression(
                "SET terms = :terms, v = :v, #at = :at, #len = :len \
                 REMOVE target, targetAt, targetLen, targetV",
            )
            .condition_expression("targetV = :v")
            .expression_attribute_names("#at", "at")
            .expression_attribute_names("#len", "len")
            .expression_attribute_values(":terms", terms)
            .expression_attribute_values(":v", n(as_number(version)?))
            .expression_attribute_values(":at", s(new.at.clone()))
            .expression_attribute_values(":len", n(i64::from(new.len)));
        tx.update(update, bytes)?;
        let docs = i64::from(!new.is_empty()) - i64::from(!old.is_empty());
        let old_len = if old.is_empty() {
            0
        } else {
            i64::from(old.len)
        };
        let new_len = if new.is_empty() {
            0
        } else {
            i64::from(new.len)
        };
        if docs != 0 || old_len != new_len {
            let global = tx
                .tx
                .update_builder(global_key())
                .update_expression("ADD docs :docs, totalLen :len")
                .expression_attribute_values(":docs", n(docs))
                .expression_attribute_values(":len", n(new_len - old_len));
            tx.update(global, 64)?;
        }
        tx.count(64)?;
        tx.tx.delete_if(
            key(post_pk(post), PROG),
            "pending = :v",
            Item::from([(":v".to_string(), n(as_number(version)?))]),
        )?;
        Ok(tx)
    }
}
