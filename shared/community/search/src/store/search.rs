//! The query: `df` of every term and the corpus counters (`#DF`, `#STATS`), then the
//! postings (`T#{term}`) read newest first in a leapfrog merge-join, then ranked.

use std::collections::BTreeMap;

use platform::dynamo::{s, Attributes, DynamoError, Item, Table};

use super::{
    checked_key, global_key, term_pk, DynamoSearchIndex, SearchLimits, DF, MAX_BATCH_GET_KEYS,
    POSTINGS_FROM, POSTINGS_TO,
};
use crate::analyze::QueryTerms;
use crate::index::{Hit, Hits, Resume, SearchError, Truncation, Window, MAX_MATCHES};
use crate::rank::{term_score, Corpus};

/// A query's terms, rarest first, with their idf and the corpus they were counted in.
struct TermStats<'q> {
    corpus: Corpus,
    idf: Vec<f64>,
    terms: Vec<&'q str>,
}

/// What the merge-join found: the matches newest first (each with a posting per term), why
/// it stopped early, and the driver key down to which every match is in `matches`.
struct Joined {
    matches: Vec<(String, Vec<Counts>)>,
    truncated: Option<Truncation>,
    covered: Option<String>,
}

impl DynamoSearchIndex {
    /// [`crate::SearchIndex::search_from`]: the terms' statistics, the merge-join, the ranking.
    pub(super) async fn search_postings(
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
        let Some(stats) = self.term_stats(query).await? else {
            return Ok(Hits::default());
        };
        let Some((driver, others)) = stats.terms.split_first() else {
            return Ok(Hits::default());
        };
        let mut reader = Reader {
            limits: self.limits,
            table: &self.table,
            queries: 0,
            postings: 0,
        };
        let Some(joined) = merge_join(&mut reader, driver, others, &from).await? else {
            return Ok(Hits::default());
        };
        let Joined {
            matches,
            truncated,
            covered,
        } = joined;
        let (hits, total, available) = ranked(matches, &stats, &from, window);
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

    /// Step 1, df of every term and the corpus counters: one BatchGet. `None` when a term
    /// no post holds makes the AND match nothing.
    async fn term_stats<'q>(
        &self,
        query: &'q QueryTerms,
    ) -> Result<Option<TermStats<'q>>, SearchError> {
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
            return Ok(None);
        }
        ordered.sort();
        let idf: Vec<f64> = ordered.iter().map(|(df, _)| corpus.idf(*df)).collect();
        let terms: Vec<&str> = ordered.iter().map(|(_, t)| t.as_str()).collect();
        Ok(Some(TermStats { corpus, idf, terms }))
    }
}

/// Step 2, leapfrog merge-join, newest first: pages of the `driver` (the rarest term)
/// narrowed by the `others`' postings in the same key range. `None` when the resume point is
/// below every posting.
async fn merge_join(
    reader: &mut Reader<'_>,
    driver: &str,
    others: &[&str],
    from: &Resume,
) -> Result<Option<Joined>, SearchError> {
    let limits = reader.limits;
    let mut matches: Vec<(String, Vec<Counts>)> = Vec::new();
    let mut truncated = None;
    let mut driver_start: Option<Item> = None;
    // A segment starts below its resume key: that posting ended the previous segment.
    let top = from.below.as_deref().unwrap_or(POSTINGS_TO);
    if top < POSTINGS_FROM {
        return Ok(None);
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
            if !narrow(reader, other, &lo, &hi, &mut candidates).await? {
                truncated = Some(Truncation::Budget);
                break 'driver;
            }
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
    Ok(Some(Joined {
        matches,
        truncated,
        covered,
    }))
}

/// Keeps the `candidates` that `term` also has a posting for in `[lo, hi]`, that posting
/// added to theirs; false when the read budget ran out first.
async fn narrow(
    reader: &mut Reader<'_>,
    term: &str,
    lo: &str,
    hi: &str,
    candidates: &mut BTreeMap<String, Vec<Counts>>,
) -> Result<bool, SearchError> {
    let mut found: BTreeMap<String, Counts> = BTreeMap::new();
    let mut start = None;
    loop {
        let remaining = reader.limits.max_postings.saturating_sub(reader.postings);
        let Some((postings, next)) = reader.page(term, lo, hi, remaining, start.take()).await?
        else {
            return Ok(false);
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
    Ok(true)
}

/// Step 3, BM25F-lite; ties go to the newer post, then the id. The `window` of the hits
/// after `from`, with the number of matches and of those after `from`.
fn ranked(
    matches: Vec<(String, Vec<Counts>)>,
    stats: &TermStats<'_>,
    from: &Resume,
    window: Window,
) -> (Vec<Hit>, usize, usize) {
    let mut scored: Vec<Hit> = matches
        .into_iter()
        .filter_map(|(sk, postings)| {
            let score = postings
                .iter()
                .zip(&stats.idf)
                .map(|(&(title, body, len), &idf)| term_score(&stats.corpus, idf, title, body, len))
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
    (hits, total, available)
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
