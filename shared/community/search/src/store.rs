//! [`DynamoSearchIndex`]: the term index in `SearchIndexTable` (`pk`/`sk`).
//!
//! | pk | sk | holds |
//! |---|---|---|
//! | `T#{term}` | `{firstPublishedAt}#{postId}` | posting: `w` = 1000·tfTitle + tfBody, `l` = post length |
//! | `T#{term}` | `#DF` | `df`: posts holding the term |
//! | `GLOBAL` | `#STATS` | `docs`, `totalLen` |
//! | `P#{postId}` | `#FWD` | `v` (applied version), `terms` M{term: code}, `at`, `len`; while a version is applied also `targetV`, `target`, `targetAt`, `targetLen` |
//! | `P#{postId}` | `#PROG` | `pending` (version being applied), `done` NS (chunks applied) |
//!
//! `#DF` and `#STATS` sort before every posting (`#` < digits), and postings are read with
//! `sk BETWEEN "0" AND "~"`, so they never mix.

use std::collections::{BTreeMap, BTreeSet};

use platform::dynamo::{
    item_size, key, n, s, value_size, AttributeValue, Attributes, DynamoError, Item, Table,
    Transaction, TransactionError, MAX_ITEM_BYTES, MAX_TRANSACTION_BYTES, MAX_TRANSACTION_ITEMS,
};

use crate::analyze::{analyze, QueryTerms};
use crate::index::{
    Applied, Hit, Hits, IndexDoc, Resume, SearchError, SearchIndex, Truncation, Window, MAX_MATCHES,
};
use crate::plan::{self, Code, Op, Terms};
use crate::rank::{term_score, Corpus};

/// The postings of the rarest term read per step of the merge-join.
pub const DRIVER_CHUNK: usize = 1_000;
/// The most postings one query reads (~1.5 MB, ≤190 eventually consistent RRU).
pub const MAX_POSTINGS_READ: usize = 20_000;
/// The most Query calls one search makes.
pub const MAX_QUERY_CALLS: usize = 24;
/// A query's read budget and match cap; [`SearchLimits::default`] is what production uses,
/// tests lower them to reach the edges with a few posts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// Postings of the rarest term per merge-join step.
    pub driver_chunk: usize,
    /// Postings read per query.
    pub max_postings: usize,
    /// Query calls per query.
    pub max_queries: usize,
    /// Matches collected (the newest).
    pub max_matches: usize,
}

impl Default for SearchLimits {
    fn default() -> Self {
        Self {
            driver_chunk: DRIVER_CHUNK,
            max_postings: MAX_POSTINGS_READ,
            max_queries: MAX_QUERY_CALLS,
            max_matches: MAX_MATCHES,
        }
    }
}

/// DynamoDB's limits on key attributes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2_048;
pub const MAX_SORT_KEY_BYTES: usize = 1_024;
/// DynamoDB's limit on the keys of one BatchGetItem.
pub const MAX_BATCH_GET_KEYS: usize = 100;
/// The version [`SearchIndex::remove`] applies: above any real one, so it is final.
const REMOVED: u64 = i64::MAX as u64;
/// Rounds of re-reading after another indexer moved the same post.
const ROUNDS: usize = 100;
/// Posting keys sort between these (timestamps start with a digit).
const POSTINGS_FROM: &str = "0";
const POSTINGS_TO: &str = "~";

const DF: &str = "#DF";
const FWD: &str = "#FWD";
const PROG: &str = "#PROG";

fn term_pk(term: &str) -> String {
    format!("T#{term}")
}

fn post_pk(post: &str) -> String {
    format!("P#{post}")
}

fn posting_sk(at: &str, post: &str) -> String {
    format!("{at}#{post}")
}

fn global_key() -> Item {
    key("GLOBAL", "#STATS")
}

/// A key within DynamoDB's limits, or [`SearchError::Limit`].
fn checked_key(pk: String, sk: String) -> Result<Item, SearchError> {
    if pk.len() > MAX_PARTITION_KEY_BYTES || sk.len() > MAX_SORT_KEY_BYTES {
        return Err(SearchError::Limit(format!(
            "key of {} + {} bytes",
            pk.len(),
            sk.len()
        )));
    }
    Ok(key(pk, sk))
}

/// A transaction that counts its writes and bytes against TransactWriteItems' limits.
struct Planned {
    tx: Transaction,
    bytes: usize,
}

impl Planned {
    fn new(table: &Table) -> Self {
        Self {
            tx: Transaction::new(table),
            bytes: 0,
        }
    }

    /// Counts one write of `bytes`; refuses the 101st write or the byte past 4 MB.
    fn count(&mut self, bytes: usize) -> Result<(), SearchError> {
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

    fn put(&mut self, item: Item) -> Result<(), SearchError> {
        let size = item_size(&item);
        if size > MAX_ITEM_BYTES {
            return Err(SearchError::Limit(format!("item of {size} bytes")));
        }
        self.count(size)?;
        self.tx.put(item, None)?;
        Ok(())
    }

    fn delete(&mut self, key: Item) -> Result<(), SearchError> {
        self.count(item_size(&key))?;
        self.tx.delete(key, None)?;
        Ok(())
    }

    fn add(&mut self, key: Item, attribute: &str, delta: i64) -> Result<(), SearchError> {
        self.count(
            item_size(&key)
                .saturating_add(attribute.len())
                .saturating_add(21),
        )?;
        self.tx.add(key, attribute, delta, None)?;
        Ok(())
    }

    fn update(
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

    async fn commit(&self) -> Result<(), TransactionError> {
        self.tx.commit_retrying().await
    }
}

fn contended(err: TransactionError) -> SearchError {
    match err {
        TransactionError::Dynamo(e) => SearchError::Dynamo(e),
        TransactionError::Conflict | TransactionError::Condition { .. } => SearchError::Contended,
    }
}

/// The forward item as read.
#[derive(Debug, Default)]
struct Forward {
    version: u64,
    applied: Terms,
    /// The version being applied and its target.
    target: Option<(u64, Terms)>,
}

/// The progress item as read.
#[derive(Debug, Default)]
struct Progress {
    pending: Option<u64>,
    done: BTreeSet<usize>,
}

/// The search index over `SearchIndexTable`.
#[derive(Clone, Debug)]
pub struct DynamoSearchIndex {
    table: Table,
    limits: SearchLimits,
}

impl DynamoSearchIndex {
    pub fn new(table: Table) -> Self {
        Self {
            table,
            limits: SearchLimits::default(),
        }
    }

    /// The same index with other query limits (at most the defaults' match cap).
    pub fn with_limits(mut self, limits: SearchLimits) -> Self {
        self.limits = SearchLimits {
            max_matches: limits.max_matches.min(MAX_MATCHES),
            ..limits
        };
        self
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    fn corrupt(&self, reason: impl Into<String>) -> SearchError {
        SearchError::Dynamo(self.table.corrupt(reason))
    }

    fn version(&self, item: &Item, name: &str) -> Result<Option<u64>, SearchError> {
        match item.opt_int(self.table.name(), name)? {
            None => Ok(None),
            Some(v) => u64::try_from(v)
                .map(Some)
                .map_err(|_| self.corrupt(format!("{name} is negative"))),
        }
    }

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

    async fn read_state(&self, post: &str) -> Result<(Forward, Progress), SearchError> {
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
    fn start_tx(
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

    /// Applies chunk `k` of version `version` once: its writes and the progress mark, under
    /// `pending = :v AND NOT contains(done, :k)`. False when the condition failed.
    fn chunk_tx(
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

    /// Commits `tx`; false when a condition failed (another indexer moved first).
    async fn run(tx: Planned) -> Result<bool, SearchError> {
        match tx.commit().await {
            Ok(()) => Ok(true),
            Err(TransactionError::Condition { .. }) => Ok(false),
            Err(e) => Err(contended(e)),
        }
    }

    fn posting(&self, term: &str, at: &str, post: &str, code: Code) -> Result<Item, SearchError> {
        let (title, body, len) = plan::decode(code);
        let mut item = checked_key(term_pk(term), posting_sk(at, post))?;
        item.insert("w".into(), n(i64::from(title) * 1000 + i64::from(body)));
        item.insert("l".into(), n(i64::from(len)));
        Ok(item)
    }

    /// The last transaction of a version: the forward item takes the target as applied, the
    /// global counters move, the progress item goes.
    fn finish_tx(
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
}

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

fn as_number(v: u64) -> Result<i64, SearchError> {
    i64::try_from(v).map_err(|_| SearchError::InvalidDoc(format!("version {v} is too large")))
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

impl SearchIndex for DynamoSearchIndex {
    async fn apply_within(
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

    async fn remove(&self, post_id: &str) -> Result<Applied, SearchError> {
        self.apply(&IndexDoc {
            post_id: post_id.to_string(),
            version: REMOVED,
            title: String::new(),
            body: String::new(),
            published_live: false,
            first_published_at: None,
        })
        .await
    }

    async fn search_from(
        &self,
        query: &QueryTerms,
        from: Resume,
        window: Window,
    ) -> Result<Hits, SearchError> {
        if window.offset.saturating_add(window.limit) > MAX_MATCHES {
            return Err(SearchError::Window(window));
        }
        if query.is_empty() {
            return Ok(Hits::default());
        }
        // 1. df of every term and the corpus counters: one BatchGet.
        let mut keys = vec![global_key()];
        for term in query.terms() {
            keys.push(checked_key(term_pk(term), DF.to_string())?);
        }
        if keys.len() > MAX_BATCH_GET_KEYS {
            return Err(SearchError::Limit(format!(
                "BatchGet of {} keys",
                keys.len()
            )));
        }
        let items = self.table.batch_get_all(keys, None).await?;
        let mut df: BTreeMap<String, i64> = BTreeMap::new();
        let mut corpus = Corpus::new(0, 0);
        for item in &items {
            let pk = item.string(self.table.name(), "pk")?;
            if pk == "GLOBAL" {
                corpus = Corpus::new(
                    item.counter(self.table.name(), "docs")?,
                    item.counter(self.table.name(), "totalLen")?,
                );
            } else if let Some(term) = pk.strip_prefix("T#") {
                df.insert(term.to_string(), item.counter(self.table.name(), "df")?);
            }
        }
        let mut ordered: Vec<(i64, &String)> = query
            .terms()
            .iter()
            .map(|t| (df.get(t).copied().unwrap_or(0), t))
            .collect();
        // AND: a term no post holds matches nothing.
        if ordered.iter().any(|(df, _)| *df <= 0) {
            return Ok(Hits::default());
        }
        ordered.sort();
        let idf: Vec<f64> = ordered.iter().map(|(df, _)| corpus.idf(*df)).collect();
        let terms: Vec<&str> = ordered.iter().map(|(_, t)| t.as_str()).collect();
        let Some((driver, others)) = terms.split_first() else {
            return Ok(Hits::default());
        };

        // 2. Leapfrog merge-join, newest first.
        let limits = self.limits;
        let mut reader = Reader {
            limits,
            table: &self.table,
            queries: 0,
            postings: 0,
        };
        let mut matches: Vec<(String, Vec<Counts>)> = Vec::new();
        let mut truncated = None;
        let mut driver_start: Option<Item> = None;
        // A segment starts below its resume key: that posting ended the previous segment.
        let top = from.below.as_deref().unwrap_or(POSTINGS_TO);
        if top < POSTINGS_FROM {
            return Ok(Hits::default());
        }
        // The driver key down to which every match is in `matches`.
        let mut covered: Option<String> = None;
        'driver: loop {
            let Some((mut page, next)) = reader
                .page(
                    driver,
                    POSTINGS_FROM,
                    top,
                    limits.driver_chunk,
                    driver_start.take(),
                )
                .await?
            else {
                truncated = Some(Truncation::Budget);
                break;
            };
            page.retain(|(sk, _)| from.below.as_deref() != Some(sk.as_str()));
            let (Some(hi), Some(lo)) = (page.first(), page.last()) else {
                match next {
                    Some(key) => {
                        driver_start = Some(key);
                        continue;
                    }
                    None => break,
                }
            };
            let (lo, hi) = (lo.0.clone(), hi.0.clone());
            let mut candidates: BTreeMap<String, Vec<Counts>> =
                page.into_iter().map(|(sk, p)| (sk, vec![p])).collect();
            for other in others {
                let mut found: BTreeMap<String, Counts> = BTreeMap::new();
                let mut start = None;
                loop {
                    let remaining = limits.max_postings.saturating_sub(reader.postings);
                    let Some((postings, next)) = reader
                        .page(other, &lo, &hi, remaining, start.take())
                        .await?
                    else {
                        truncated = Some(Truncation::Budget);
                        break 'driver;
                    };
                    for (sk, p) in postings {
                        if candidates.contains_key(&sk) {
                            found.insert(sk, p);
                        }
                    }
                    match next {
                        Some(key) => start = Some(key),
                        None => break,
                    }
                }
                candidates.retain(|sk, postings| match found.remove(sk) {
                    Some(p) => {
                        postings.push(p);
                        true
                    }
                    None => false,
                });
                if candidates.is_empty() {
                    break;
                }
            }
            // Newest first, so the cap keeps the newest matches.
            matches.extend(candidates.into_iter().rev());
            covered = Some(lo);
            if matches.len() >= limits.max_matches {
                if matches.len() > limits.max_matches || next.is_some() {
                    truncated = Some(Truncation::MatchCap);
                }
                matches.truncate(limits.max_matches);
                covered = matches.last().map(|(sk, _)| sk.clone());
                break;
            }
            match next {
                Some(key) => driver_start = Some(key),
                None => break,
            }
        }
        if let Some(reason) = truncated {
            tracing::info!(
                event = "search_truncated",
                reason = ?reason,
                matches = matches.len(),
                postings = reader.postings,
                queries = reader.queries,
            );
        }

        // 3. BM25F-lite; ties go to the newer post, then the id.
        let mut scored: Vec<Hit> = matches
            .into_iter()
            .filter_map(|(sk, postings)| {
                let score = postings
                    .iter()
                    .zip(&idf)
                    .map(|(&(title, body, len), &idf)| term_score(&corpus, idf, title, body, len))
                    .sum();
                let (at, post) = sk.rsplit_once('#')?;
                Some(Hit {
                    post_id: post.to_string(),
                    score,
                    first_published_at: at.to_string(),
                })
            })
            .collect();
        scored.sort_by(rank_order);
        let total = scored.len();
        if let Some((score, key)) = &from.after {
            let (at, post) = key.rsplit_once('#').unwrap_or((key.as_str(), ""));
            let last = Hit {
                post_id: post.to_string(),
                score: *score,
                first_published_at: at.to_string(),
            };
            scored.retain(|hit| rank_order(hit, &last).is_gt());
        }
        let available = scored.len();
        let hits = scored
            .into_iter()
            .skip(window.offset)
            .take(window.limit)
            .collect();
        Ok(Hits {
            hits,
            total,
            truncated,
            queries: reader.queries,
            postings_read: reader.postings,
            available,
            resume_below: truncated.and(covered),
        })
    }
}

/// The ranking: the higher score first; ties go to the newer post, then the id.
fn rank_order(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| b.first_published_at.cmp(&a.first_published_at))
        .then_with(|| a.post_id.cmp(&b.post_id))
}

/// Reads postings under the query budget.
struct Reader<'a> {
    limits: SearchLimits,
    table: &'a Table,
    queries: usize,
    postings: usize,
}

/// A posting's title count, body count and post length.
type Counts = (u32, u32, u32);
type Posting = (String, Counts);

impl Reader<'_> {
    /// One page of `term`'s postings with keys in `[lo, hi]`, newest first, at most `limit`;
    /// `None` when the budget allows no further call.
    async fn page(
        &mut self,
        term: &str,
        lo: &str,
        hi: &str,
        limit: usize,
        start: Option<Item>,
    ) -> Result<Option<(Vec<Posting>, Option<Item>)>, SearchError> {
        let limit = limit.min(self.limits.max_postings.saturating_sub(self.postings));
        if limit == 0 || self.queries >= self.limits.max_queries {
            return Ok(None);
        }
        self.queries += 1;
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
            .projection_expression("sk, #w, #l")
            .expression_attribute_names("#w", "w")
            .expression_attribute_names("#l", "l")
            .expression_attribute_values(":pk", s(term_pk(term)))
            .expression_attribute_values(":lo", s(lo))
            .expression_attribute_values(":hi", s(hi))
            .scan_index_forward(false)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .set_exclusive_start_key(start);
        let out = query
            .send()
            .await
            .map_err(|e| self.table.fail("Query", &e))?;
        let items = out.items.unwrap_or_default();
        self.postings += items.len();
        let name = self.table.name();
        let mut postings = Vec::with_capacity(items.len());
        for item in items {
            let sk = item.string(name, "sk")?;
            let w = item.int(name, "w")?;
            let l = item.int(name, "l")?;
            let part = |v: i64| {
                u32::try_from(v).map_err(|_| DynamoError::Corrupt {
                    table: name.to_string(),
                    reason: format!("posting {sk} out of range"),
                })
            };
            postings.push((sk.clone(), (part(w / 1000)?, part(w % 1000)?, part(l)?)));
        }
        let next = out.last_evaluated_key.filter(|k| !k.is_empty());
        Ok(Some((postings, next)))
    }
}

#[cfg(test)]
mod tests {

    use super::*;

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
