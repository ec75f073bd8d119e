//! Writes: a unit's marker, its postings with their df changes (exactly once), and the
//! corpus figures that move with the marker's state.

use std::collections::{BTreeMap, HashSet};

use platform::dynamo::request::Update;
use platform::dynamo::{n, s, Attributes, DynamoError, Item, Transaction, TransactionError};

use super::{
    df_key, encode_entries, marker_key, posting_key, stats_key, ChunkTerms, DynamoTermIndex,
    IndexError, Unit, COMPLETE, CONDITION_ROUNDS, MAX_UNIT_TERMS, PAIRS_PER_TRANSACTION, PARTIAL,
    REMOVING,
};
use crate::model::ReferenceKind;

/// A unit's postings: per term, `(chunk, tf, chunk length)` of each chunk holding it.
type Postings = BTreeMap<String, Vec<(u32, u32, u32)>>;

/// The postings of `chunks`, at most [`MAX_UNIT_TERMS`] terms (the most frequent).
fn postings_of(chunks: &[ChunkTerms]) -> Postings {
    let mut all: Postings = BTreeMap::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let index = u32::try_from(i).unwrap_or(u32::MAX);
        for (term, tf) in &chunk.terms {
            all.entry(term.clone())
                .or_default()
                .push((index, *tf, chunk.length));
        }
    }
    if all.len() > MAX_UNIT_TERMS {
        let mut ranked: Vec<(u64, String)> = all
            .iter()
            .map(|(t, list)| {
                (
                    list.iter().map(|(_, tf, _)| u64::from(*tf)).sum(),
                    t.clone(),
                )
            })
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let keep: HashSet<String> = ranked
            .into_iter()
            .take(MAX_UNIT_TERMS)
            .map(|(_, t)| t)
            .collect();
        all.retain(|t, _| keep.contains(t));
    }
    all
}

/// One write of a term: the posting (with its encoded chunks) and df's change.
struct TermWrite {
    term: String,
    entries: String,
    chunks: i64,
}

impl DynamoTermIndex {
    async fn marker(&self, unit: &Unit) -> Result<Option<Item>, DynamoError> {
        self.table.get(marker_key(unit)).await
    }

    /// Writes (`adding`) or deletes each term's posting with its df change, exactly once.
    async fn apply(
        &self,
        unit: &Unit,
        writes: &[TermWrite],
        adding: bool,
    ) -> Result<(), IndexError> {
        for batch in writes.chunks(PAIRS_PER_TRANSACTION) {
            let mut pending: Vec<&TermWrite> = batch.iter().collect();
            let mut rounds = 0;
            while !pending.is_empty() {
                rounds += 1;
                if rounds > CONDITION_ROUNDS {
                    return Err(IndexError::Contended);
                }
                let mut tx = Transaction::new(&self.table);
                for write in &pending {
                    let df = df_key(&write.term, unit.kind);
                    if adding {
                        let mut item = posting_key(&write.term, unit);
                        item.insert("c".into(), s(write.entries.as_str()));
                        tx.put(item, Some("attribute_not_exists(pk)"))?;
                        tx.add(df, "df", write.chunks, None)?;
                    } else {
                        tx.delete(posting_key(&write.term, unit), Some("attribute_exists(pk)"))?;
                        tx.add(df, "df", -write.chunks, None)?;
                    }
                }
                match tx.commit_retrying().await {
                    Ok(_) => pending.clear(),
                    // Already written (or already gone): that pair is done, the rest again.
                    Err(TransactionError::Condition { failed }) => {
                        let done: HashSet<usize> = failed.iter().map(|i| i / 2).collect();
                        pending = pending
                            .into_iter()
                            .enumerate()
                            .filter(|(i, _)| !done.contains(i))
                            .map(|(_, w)| w)
                            .collect();
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(())
    }

    /// The term writes a marker's `terms` attribute lists.
    fn writes_of_marker(&self, marker: &Item) -> Result<Vec<TermWrite>, DynamoError> {
        let raw = marker.opt_string("terms").unwrap_or_default();
        raw.split(' ')
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let (term, k) = pair
                    .rsplit_once(':')
                    .ok_or_else(|| self.corrupt("marker terms"))?;
                let chunks = k.parse::<i64>().map_err(|_| self.corrupt("marker terms"))?;
                Ok(TermWrite {
                    term: term.to_string(),
                    entries: String::new(),
                    chunks,
                })
            })
            .collect()
    }

    fn state_update(&self, unit: &Unit, from: &str, to: &str) -> Update {
        Transaction::new(&self.table)
            .update_builder(marker_key(unit))
            .update_expression("SET #state = :to")
            .condition_expression("#state = :from")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":to", s(to))
            .expression_attribute_values(":from", s(from))
    }

    fn stats_update(&self, kind: ReferenceKind, chunks: i64, length: i64) -> Update {
        Transaction::new(&self.table)
            .update_builder(stats_key(kind))
            .update_expression("ADD chunks :chunks, #length :length")
            .expression_attribute_names("#length", "length")
            .expression_attribute_values(":chunks", n(chunks))
            .expression_attribute_values(":length", n(length))
    }

    /// [`super::TermIndex::put`]: whatever the unit held removed, its marker written
    /// (PARTIAL), its postings, then COMPLETE with the corpus figures.
    pub(super) async fn put_unit(
        &self,
        unit: &Unit,
        chunks: &[ChunkTerms],
    ) -> Result<(), IndexError> {
        if self.marker(unit).await?.is_some() {
            self.remove_unit(unit).await?;
        }
        let postings = postings_of(chunks);
        let writes: Vec<TermWrite> = postings
            .iter()
            .map(|(term, entries)| TermWrite {
                term: term.clone(),
                entries: encode_entries(entries),
                chunks: i64::try_from(entries.len()).unwrap_or(i64::MAX),
            })
            .collect();
        let chunk_count = i64::try_from(chunks.len()).unwrap_or(i64::MAX);
        let length: i64 = chunks.iter().map(|c| i64::from(c.length)).sum();
        let mut marker = marker_key(unit);
        let terms: Vec<String> = writes
            .iter()
            .map(|w| format!("{}:{}", w.term, w.chunks))
            .collect();
        marker.insert("terms".into(), s(terms.join(" ")));
        marker.insert("chunks".into(), n(chunk_count));
        marker.insert("length".into(), n(length));
        marker.insert("state".into(), s(PARTIAL));
        match self
            .table
            .put_item()
            .set_item(Some(marker))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => {}
            Err(e) if platform::dynamo::is_condition_failed(&e) => {
                return Err(IndexError::Contended)
            }
            Err(e) => return Err(self.table.fail("PutItem", &e).into()),
        }
        self.apply(unit, &writes, true).await?;
        let mut tx = Transaction::new(&self.table);
        tx.update(self.state_update(unit, PARTIAL, COMPLETE))?;
        tx.update(self.stats_update(unit.kind, chunk_count, length))?;
        tx.commit_retrying().await?;
        Ok(())
    }

    /// [`super::TermIndex::remove`]: the marker moved to REMOVING (the corpus figures taken
    /// away if it was COMPLETE), its postings removed, then the marker.
    pub(super) async fn remove_unit(&self, unit: &Unit) -> Result<(), IndexError> {
        let Some(marker) = self.marker(unit).await? else {
            return Ok(());
        };
        let state = marker.opt_string("state").unwrap_or_default();
        if state != REMOVING {
            let mut tx = Transaction::new(&self.table);
            tx.update(self.state_update(unit, &state, REMOVING))?;
            if state == COMPLETE {
                let table = self.table.name();
                tx.update(self.stats_update(
                    unit.kind,
                    -marker.counter(table, "chunks")?,
                    -marker.counter(table, "length")?,
                ))?;
            }
            match tx.commit_retrying().await {
                // Another remover moved it first: the postings are removed all the same.
                Ok(()) | Err(TransactionError::Condition { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let writes = self.writes_of_marker(&marker)?;
        self.apply(unit, &writes, false).await?;
        self.table
            .delete_item()
            .set_key(Some(marker_key(unit)))
            .send()
            .await
            .map_err(|e| self.table.fail("DeleteItem", &e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_keep_the_most_frequent_terms() {
        let chunk = |text: &str| ChunkTerms::of(text);
        let postings = postings_of(&[chunk("disk disk full"), chunk("disk replica")]);
        assert_eq!(postings["disk"], vec![(0, 2, 3), (1, 1, 2)]);
        assert_eq!(postings["replica"], vec![(1, 1, 2)]);
        let huge: String = (0..MAX_UNIT_TERMS + 10).map(|i| format!("w{i} ")).collect();
        let kept = postings_of(&[chunk(&format!("{huge} w5 w5"))]);
        assert_eq!(kept.len(), MAX_UNIT_TERMS);
        assert!(kept.contains_key("w5"));
    }
}
