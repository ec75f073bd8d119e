//! The pure part of indexing: a post's target term map, the diff from what the index holds,
//! and its split into transactions within DynamoDB's limits. Deterministic from the stored
//! maps, so every indexer working on a version plans the same chunks.

use std::collections::BTreeMap;

use crate::analyze::Analyzed;

/// The most distinct terms indexed per post (the most frequent are kept): the forward item
/// stays far below 400 KB and a new post costs at most ~41 transactions.
pub const MAX_TERMS_PER_POST: usize = 2_000;
/// Terms longer than this are dropped: a key part must stay far below DynamoDB's 2 KB
/// partition-key limit (the analyzer already stops at 32 bytes).
pub const MAX_TERM_BYTES: usize = 64;
/// Writes of one chunk: with the progress update, 99 of TransactWriteItems' 100.
pub const CHUNK_ITEMS: usize = 98;
/// Counts past this are clipped, so a posting's weight stays `1000·title + body`.
const MAX_TF: u32 = 999;
/// Document lengths are clipped here, so `code` stays `w·1e6 + l`.
const MAX_LEN: u32 = 999_999;

/// A posting's weight and length, packed as stored in the forward item: `w·1e6 + l`, with
/// `w = 1000·tfTitle + tfBody`, `l` the post's length in terms when the posting was written.
pub type Code = i64;

pub fn code(title: u32, body: u32, len: u32) -> Code {
    let w = i64::from(title.min(MAX_TF)) * 1000 + i64::from(body.min(MAX_TF));
    w * 1_000_000 + i64::from(len.min(MAX_LEN))
}

/// `(tfTitle, tfBody, l)` of a code.
pub fn decode(code: Code) -> (u32, u32, u32) {
    let part = |v: i64| u32::try_from(v).unwrap_or(0);
    let w = code / 1_000_000;
    (part(w / 1000), part(w % 1000), part(code % 1_000_000))
}

/// What one version of a post puts in the index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    /// Term → code.
    pub terms: BTreeMap<String, Code>,
    /// The sort-key prefix of its postings: the first publication time.
    pub at: String,
    /// The post's length in terms (for the global average).
    pub len: u32,
}

impl Terms {
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// The target for an analysed post. Of an unchanged term whose stored length is within 25%
/// of the new one the stored code is kept: an edit then rewrites only the postings of the
/// terms it touched (ranking sees a slightly stale length, never a stale weight).
pub fn target(analyzed: &Analyzed, at: &str, old: &Terms) -> Terms {
    let mut ranked: Vec<(&String, u32, u32)> = analyzed
        .terms
        .iter()
        .filter(|(t, _)| t.len() <= MAX_TERM_BYTES)
        .map(|(t, tf)| (t, tf.title, tf.body))
        .collect();
    if ranked.len() > MAX_TERMS_PER_POST {
        // The most frequent (title counting 3×), then by term: deterministic.
        ranked.sort_by_key(|(t, title, body)| {
            (
                std::cmp::Reverse(title.saturating_mul(3).saturating_add(*body)),
                (*t).clone(),
            )
        });
        ranked.truncate(MAX_TERMS_PER_POST);
    }
    let len = analyzed.length.min(MAX_LEN);
    let same_at = old.at == at;
    let terms = ranked
        .into_iter()
        .map(|(t, title, body)| {
            let new = code(title, body, len);
            let kept = old.terms.get(t).copied().filter(|&stored| {
                let (_, _, stored_len) = decode(stored);
                same_at
                    && stored / 1_000_000 == new / 1_000_000
                    && u64::from(stored_len.abs_diff(len)) * 4 <= u64::from(len)
            });
            (t.clone(), kept.unwrap_or(new))
        })
        .collect();
    Terms {
        terms,
        at: at.to_string(),
        len,
    }
}

/// One term's change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A new term: Put the posting, df + 1.
    Add { term: String, code: Code },
    /// A term gone: Delete the posting, df − 1.
    Remove { term: String },
    /// A new weight or length: Put the posting.
    Change { term: String, code: Code },
    /// The publication time changed: Delete the old posting, Put the new one.
    Move { term: String, code: Code },
}

impl Op {
    /// Its writes in a transaction.
    pub fn items(&self) -> usize {
        match self {
            Self::Change { .. } => 1,
            _ => 2,
        }
    }
}

/// The changes from `old` to `new`, by term.
pub fn diff(old: &Terms, new: &Terms) -> Vec<Op> {
    let mut ops = Vec::new();
    for (term, &code) in &new.terms {
        match old.terms.get(term) {
            None => ops.push(Op::Add {
                term: term.clone(),
                code,
            }),
            Some(_) if old.at != new.at => ops.push(Op::Move {
                term: term.clone(),
                code,
            }),
            Some(&stored) if stored != code => ops.push(Op::Change {
                term: term.clone(),
                code,
            }),
            Some(_) => {}
        }
    }
    for term in old.terms.keys() {
        if !new.terms.contains_key(term) {
            ops.push(Op::Remove { term: term.clone() });
        }
    }
    ops.sort_by(|a, b| op_term(a).cmp(op_term(b)));
    ops
}

fn op_term(op: &Op) -> &str {
    match op {
        Op::Add { term, .. }
        | Op::Remove { term }
        | Op::Change { term, .. }
        | Op::Move { term, .. } => term,
    }
}

/// `ops` in chunks of at most [`CHUNK_ITEMS`] writes.
pub fn chunks(ops: Vec<Op>) -> Vec<Vec<Op>> {
    let mut out: Vec<Vec<Op>> = Vec::new();
    let mut current = Vec::new();
    let mut items = 0;
    for op in ops {
        if items + op.items() > CHUNK_ITEMS {
            out.push(std::mem::take(&mut current));
            items = 0;
        }
        items += op.items();
        current.push(op);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;

    const AT: &str = "2026-11-23T10:00:00.000Z";

    #[test]
    fn codes_round_trip() {
        assert_eq!(decode(code(2, 7, 130)), (2, 7, 130));
        assert_eq!(decode(code(5000, 5000, 5_000_000)), (999, 999, 999_999));
    }

    #[test]
    fn a_new_post_adds_every_term_an_edit_only_what_changed() {
        let v1 = target(
            &analyze("Running shoes", "Shoes for trail running in winter"),
            AT,
            &Terms::default(),
        );
        let ops = diff(&Terms::default(), &v1);
        assert_eq!(ops.len(), v1.terms.len());
        assert!(ops.iter().all(|op| matches!(op, Op::Add { .. })));
        // Same length: only the terms that changed; "winter" → "summer".
        let v2 = target(
            &analyze("Running shoes", "Shoes for trail running in summer"),
            AT,
            &v1,
        );
        let ops = diff(&v1, &v2);
        assert_eq!(
            ops,
            vec![
                Op::Add {
                    term: "summer".into(),
                    code: v2.terms["summer"]
                },
                Op::Remove {
                    term: "winter".into()
                },
            ]
        );
        // Unpublished: everything goes.
        let ops = diff(&v2, &Terms::default());
        assert_eq!(ops.len(), v2.terms.len());
        assert!(ops.iter().all(|op| matches!(op, Op::Remove { .. })));
        // A new publication time moves every posting.
        let moved = target(
            &analyze("Running shoes", "Shoes for trail running in summer"),
            "2026-11-24T00:00:00.000Z",
            &v2,
        );
        assert!(diff(&v2, &moved)
            .iter()
            .all(|op| matches!(op, Op::Move { .. })));
    }

    #[test]
    fn lengths_within_a_quarter_keep_postings() {
        let body = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
        let v1 = target(&analyze("Title here", body), AT, &Terms::default());
        let v2 = target(&analyze("Title here", &format!("{body} lambda")), AT, &v1);
        assert_eq!(diff(&v1, &v2).len(), 1, "only lambda is written");
        let longer = format!("{body} lambda {body} {body}");
        let v3 = target(&analyze("Title here", &longer), AT, &v2);
        assert!(diff(&v2, &v3)
            .iter()
            .all(|op| matches!(op, Op::Change { .. })));
    }

    #[test]
    fn at_most_2000_terms_most_frequent_kept() {
        let mut body: Vec<String> = (0..2_500).map(|i| format!("w{i:05}")).collect();
        body.push("w02400 w02400".into());
        let t = target(
            &analyze("Title here", &body.join(" ")),
            AT,
            &Terms::default(),
        );
        assert_eq!(t.terms.len(), MAX_TERMS_PER_POST);
        assert!(t.terms.contains_key("w02400"));
        assert!(t.terms.contains_key("w00000") && !t.terms.contains_key("w02499"));
    }

    #[test]
    fn chunks_stay_within_the_transaction_limit() {
        let new = target(
            &analyze(
                "t",
                &(0..2_000)
                    .map(|i| format!("w{i:05}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            AT,
            &Terms::default(),
        );
        let chunks = chunks(diff(&Terms::default(), &new));
        assert_eq!(chunks.len(), 4_000usize.div_ceil(98));
        for chunk in &chunks {
            assert!(chunk.iter().map(Op::items).sum::<usize>() <= CHUNK_ITEMS);
        }
        assert_eq!(chunks.iter().map(Vec::len).sum::<usize>(), 2_000);
    }
}
