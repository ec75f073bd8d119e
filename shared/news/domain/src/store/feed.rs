//! Lists of articles newest first, merged from several partitions a page at a time, with a
//! cursor: a personal feed (several sources' rows), a source's or a topic's rows, and the
//! list of every article (its shards, year by year). No Scan, no whole-partition read.
//!
//! Every row's sort key is `{prefix}ART#{publishedAt}#{id}`, the same order in every
//! partition. Each partition is read lazily in descending order: the first read asks for a
//! page size of rows, later reads a page size more, and only the partition whose buffered
//! rows ran out is read again. So one page reads at most
//! `(skip + size) + partitions * size` rows, bounded by the page cap and the partition count.
//!
//! The list of every article and a topic's list are split into year buckets of a few write
//! shards each ([`super::items::articles_pk`]); a page merges the shards of one bucket, then
//! of the one before, and stops when it has its rows, when it has passed as many rows as
//! the list holds, or after [`MAX_BUCKETS_PER_PAGE`] buckets (then the cursor goes on).

use std::collections::VecDeque;

use platform::dynamo::{s, Attributes, Item};

use super::items::{
    counts_key, is_retired, source_pk, source_topic_count_key, source_topic_prefix, ARTICLE_ROW,
    FIRST_YEAR,
};
use super::{ContentStore, StoreError};
use crate::model::{Article, Page};

/// Year buckets one page may walk through (each a query per shard): a list with no article
/// for longer pages on by its cursor.
pub const MAX_BUCKETS_PER_PAGE: usize = 6;

/// Where a page ends: how many rows of the list came before the next one, and the sort key
/// (without `ART#`) below which it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub position: u64,
    pub before: String,
}

impl Cursor {
    /// The opaque text a client gets as `nextCursor` (URL-safe).
    pub fn encode(&self) -> String {
        let hex: String = self.before.bytes().map(|b| format!("{b:02x}")).collect();
        format!("{}.{hex}", self.position)
    }

    /// A cursor this service gave out, or `None`.
    pub fn decode(text: &str) -> Option<Self> {
        let (position, hex) = text.split_once('.')?;
        // Exactly the contract's pattern: up to 19 digits, and lowercase hex of ASCII.
        if position.is_empty()
            || position.len() > 19
            || !position.bytes().all(|b| b.is_ascii_digit())
            || hex.is_empty()
            || hex.len() % 2 != 0
            || hex.len() > 400
            || !hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return None;
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        if !bytes.iter().all(u8::is_ascii) {
            return None;
        }
        let before = String::from_utf8(bytes).ok()?;
        // A publication time (`YYYY-...`) first, so the cursor names a bucket.
        if !before.get(..4)?.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Self {
            position: position.parse().ok()?,
            before,
        })
    }
}

/// A page of articles, where the next one starts, and how many index rows it took to find.
#[derive(Debug, Clone)]
pub struct ArticlePage {
    pub page: Page<Article>,
    /// Absent on the last page.
    pub next: Option<Cursor>,
    /// Index rows read (the bound this module promises; the store tests check it).
    pub rows_read: usize,
}

/// Which rows of a list a page takes: after `cursor` (or from the top), `skip` then `size`.
#[derive(Debug, Clone, Default)]
pub struct Window {
    pub cursor: Option<Cursor>,
    pub skip: usize,
    pub size: usize,
}

/// One partition's rows of a list: `pk`, sort keys `{prefix}ART#...`; or a list written
/// before the lists were sharded, which a bucket reads only its year of.
#[derive(Debug, Clone)]
pub(super) struct Stream {
    pub pk: String,
    pub prefix: String,
    pub legacy: Option<Legacy>,
}

/// A list written before the lists were sharded, read a year at a time.
#[derive(Debug, Clone, Copy)]
pub(super) struct Legacy {
    pub year: i32,
    /// The `gsi1` list of every article (sort keys `{publishedAt}#{id}`, no `ART#`), rather
    /// than a table partition.
    pub index: bool,
}

impl Stream {
    pub fn new(pk: String) -> Self {
        Self {
            pk,
            prefix: String::new(),
            legacy: None,
        }
    }

    /// The year `year` of a list written before the lists were sharded.
    pub fn legacy(pk: String, year: i32, index: bool) -> Self {
        Self {
            pk,
            prefix: String::new(),
            legacy: Some(Legacy { year, index }),
        }
    }
}

/// One partition's rows, read a chunk at a time.
struct StreamRows {
    stream: Stream,
    buffered: VecDeque<(String, String)>,
    /// Where the next read starts; `None` with `exhausted` once the rows ended.
    next: Option<Item>,
    exhausted: bool,
}

/// What a merge took.
#[derive(Debug, Default)]
pub(super) struct Merged {
    pub ids: Vec<String>,
    /// Rows passed over (skipped or taken).
    pub passed: usize,
    /// The sort key (without `ART#`) of the last row passed.
    pub last: Option<String>,
    /// Every partition ran out.
    pub exhausted: bool,
    pub rows_read: usize,
}

impl ContentStore {
    /// Page `page` (of `size`) of the articles of `sources` (those of `topic` only, when
    /// given), newest first, or the page after `window.cursor`. Sources that do not exist
    /// (deleted, retired, or never did) contribute nothing. The total counts the existing
    /// sources' articles (of the topic).
    pub async fn feed_page(
        &self,
        sources: &[String],
        topic: Option<&str>,
        window: &Window,
        size: u32,
    ) -> Result<ArticlePage, StoreError> {
        let (live, total) = self.live_sources(sources, topic).await?;
        let prefix = topic.map(source_topic_prefix).unwrap_or_default();
        let streams = live
            .iter()
            .map(|id| Stream {
                pk: source_pk(id),
                prefix: prefix.clone(),
                legacy: None,
            })
            .collect();
        let before = window.cursor.as_ref().map(|c| c.before.as_str());
        let merged = self
            .merge(streams, before, window.skip, window.size)
            .await?;
        self.page_of(merged, window, size, total).await
    }

    /// The sources of `sources` that exist and are not retired, in the order asked, and how
    /// many articles (of `topic`, when given) they hold, from their counters.
    async fn live_sources(
        &self,
        sources: &[String],
        topic: Option<&str>,
    ) -> Result<(Vec<String>, u64), StoreError> {
        let table = self.table.name();
        let counts = sources.iter().map(|id| counts_key(id));
        let topic_counts: Vec<Item> = match topic {
            Some(topic) => sources
                .iter()
                .map(|id| source_topic_count_key(id, topic))
                .collect(),
            None => Vec::new(),
        };
        let mut live: Vec<String> = Vec::new();
        let mut counted: Vec<String> = Vec::new();
        let mut per_topic: Vec<(String, i64)> = Vec::new();
        let mut total: u64 = 0;
        for item in self
            .table
            .batch_get_all(counts.chain(topic_counts).collect(), None)
            .await?
        {
            let pk = item.string(table, "pk")?;
            let count = item.counter(table, "articleCount")?;
            match (item.opt_string("sk").as_deref(), pk.strip_suffix("#COUNTS")) {
                (Some("COUNTS"), Some(source)) => {
                    let id = source.trim_start_matches("SOURCE#").to_string();
                    counted.push(id.clone());
                    // A retired source answers no read, as in every other list.
                    if is_retired(&item) {
                        continue;
                    }
                    if topic.is_none() {
                        total = total.saturating_add(u64::try_from(count).unwrap_or(0));
                    }
                    live.push(id);
                }
                (Some(sk), None) if sk.starts_with("TOPIC#") => per_topic.push((pk, count)),
                _ => {}
            }
        }
        // A source written before its counters were split off (or none): its counters made
        // now from its item.
        for id in sources {
            if counted.contains(id) {
                continue;
            }
            if let Some(counts) = self.counts(id).await?.filter(|c| !is_retired(c)) {
                if topic.is_none() {
                    let count = counts.counter(table, "articleCount")?;
                    total = total.saturating_add(u64::try_from(count).unwrap_or(0));
                }
                live.push(id.clone());
            }
        }
        if topic.is_some() {
            for (pk, count) in per_topic {
                if live.iter().any(|id| source_pk(id) == pk) {
                    total = total.saturating_add(u64::try_from(count).unwrap_or(0));
                }
            }
        }
        // The order asked, so reads (and ties) do not depend on BatchGetItem's order.
        live.sort_by_key(|id| sources.iter().position(|s| s == id));
        Ok((live, total))
    }

    /// The page of a bucketed list (every article's, or a topic's): `streams(year)` are the
    /// shards of a year's bucket, `stored` how many rows the list holds (a walk that passed
    /// as many has seen them all), `total` what the page reports.
    pub(super) async fn bucketed_page(
        &self,
        streams: impl Fn(i32) -> Vec<Stream>,
        stored: u64,
        total: u64,
        window: &Window,
        size: u32,
    ) -> Result<ArticlePage, StoreError> {
        let current = self.clock.now().format("%Y").to_string();
        let mut year = match &window.cursor {
            Some(cursor) => super::items::bucket_year(&cursor.before),
            None => super::items::bucket_year(&current),
        };
        let mut before = window.cursor.as_ref().map(|c| c.before.clone());
        let start = window.cursor.as_ref().map_or(0, |c| c.position);
        let mut all = Merged::default();
        let mut buckets = 0;
        let exhausted = loop {
            let passed = start.saturating_add(u64::try_from(all.passed).unwrap_or(u64::MAX));
            if year < FIRST_YEAR || passed >= stored {
                break true;
            }
            if all.ids.len() >= window.size.max(1) {
                break false;
            }
            if buckets == MAX_BUCKETS_PER_PAGE {
                // Pages on from the top of the next bucket down.
                all.last = Some(format!("{year}-99"));
                break false;
            }
            buckets += 1;
            let merged = self
                .merge(
                    streams(year),
                    before.as_deref(),
                    window.skip.saturating_sub(all.passed),
                    window.size.saturating_sub(all.ids.len()),
                )
                .await?;
            all.passed += merged.passed;
            all.rows_read += merged.rows_read;
            all.ids.extend(merged.ids);
            if merged.last.is_some() {
                all.last = merged.last;
            }
            if !merged.exhausted {
                break false;
            }
            year -= 1;
            before = None;
        };
        all.exhausted = exhausted;
        self.page_of(all, window, size, total).await
    }

    /// The page of the articles `merged` found (those of retired sources left out).
    async fn page_of(
        &self,
        merged: Merged,
        window: &Window,
        size: u32,
        total: u64,
    ) -> Result<ArticlePage, StoreError> {
        let start = window.cursor.as_ref().map_or(0, |c| c.position);
        let position = start.saturating_add(u64::try_from(merged.passed).unwrap_or(u64::MAX));
        let next = merged
            .last
            .filter(|_| !merged.exhausted)
            .map(|before| Cursor { position, before });
        let page_number = u32::try_from(
            start
                .saturating_add(u64::try_from(window.skip).unwrap_or(0))
                .checked_div(u64::from(size.max(1)))
                .unwrap_or(0),
        )
        .unwrap_or(u32::MAX);
        let content = self.articles_by_ids(&merged.ids, false).await?;
        Ok(ArticlePage {
            page: Page::new(content, page_number, size, total),
            next,
            rows_read: merged.rows_read,
        })
    }

    /// Rows of `streams` newest first, below `before` (a sort key without `ART#`): `skip`
    /// passed over, then the ids of `size` taken.
    pub(super) async fn merge(
        &self,
        streams: Vec<Stream>,
        before: Option<&str>,
        skip: usize,
        size: usize,
    ) -> Result<Merged, StoreError> {
        let size = size.max(1);
        let wanted = skip.saturating_add(size);
        // A page's size from each partition at first: rows are narrow, so a query of a page
        // costs the same read unit as a query of a share of it, and most pages need no second.
        let first_read = size.min(wanted);
        let mut rows: Vec<StreamRows> = streams
            .into_iter()
            .map(|stream| StreamRows {
                stream,
                buffered: VecDeque::new(),
                next: None,
                exhausted: false,
            })
            .collect();
        let mut out = Merged::default();
        let reads = futures::future::try_join_all(
            rows.iter()
                .map(|r| self.read_rows(&r.stream, before, None, first_read)),
        )
        .await?;
        for (source, (read, next)) in rows.iter_mut().zip(reads) {
            out.rows_read += read.len();
            source.exhausted = next.is_none();
            source.next = next;
            source.buffered.extend(read);
        }
        while out.passed < wanted {
            // Refill any partition that ran dry but has more, before comparing heads.
            for source in rows.iter_mut() {
                while source.buffered.is_empty() && !source.exhausted {
                    let (read, next) = self
                        .read_rows(&source.stream, before, source.next.take(), size)
                        .await?;
                    out.rows_read += read.len();
                    source.exhausted = next.is_none();
                    source.next = next;
                    source.buffered.extend(read);
                }
            }
            let newest = rows
                .iter_mut()
                .filter(|r| !r.buffered.is_empty())
                .max_by(|a, b| {
                    let head = |r: &StreamRows| r.buffered.front().map(|(sk, _)| sk.clone());
                    head(a).cmp(&head(b))
                });
            let Some((sk, id)) = newest.and_then(|r| r.buffered.pop_front()) else {
                break;
            };
            if out.passed >= skip {
                out.ids.push(id);
            }
            out.passed += 1;
            out.last = Some(sk);
        }
        out.exhausted = rows.iter().all(|r| r.exhausted && r.buffered.is_empty());
        Ok(out)
    }

    /// Up to `limit` rows of `stream` below `before`, newest first, from `start`: their sort
    /// keys (without the prefix and `ART#`) and article ids, and where the next read starts
    /// (`None` at the end).
    async fn read_rows(
        &self,
        stream: &Stream,
        before: Option<&str>,
        start: Option<Item>,
        limit: usize,
    ) -> Result<(Vec<(String, String)>, Option<Item>), StoreError> {
        let index = stream.legacy.is_some_and(|l| l.index);
        // The legacy index's sort keys have no `ART#`; rows compare without it.
        let low = if index {
            String::new()
        } else {
            format!("{}{ARTICLE_ROW}", stream.prefix)
        };
        let (floor, ceiling) = match stream.legacy {
            Some(legacy) => (
                format!("{low}{}", legacy.year),
                format!("{low}{}~", legacy.year),
            ),
            // `$` sorts right after `#`: above every row of the list.
            None => (low.clone(), format!("{}ART$", stream.prefix)),
        };
        let high = match before {
            Some(before) => format!("{low}{before}").min(ceiling),
            None => ceiling,
        };
        let (pk_name, sk_name) = if index {
            ("gsi1pk", "gsi1sk")
        } else {
            ("pk", "sk")
        };
        let out = self
            .table
            .query()
            .set_index_name(index.then(|| "gsi1".to_string()))
            .key_condition_expression("#pk = :pk AND #sk BETWEEN :low AND :high")
            .expression_attribute_names("#pk", pk_name)
            .expression_attribute_names("#sk", sk_name)
            .expression_attribute_values(":pk", s(&stream.pk))
            .expression_attribute_values(":low", s(&floor))
            .expression_attribute_values(":high", s(&high))
            .scan_index_forward(false)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| self.table.fail("Query", &e))?;
        let rows = out
            .items
            .unwrap_or_default()
            .iter()
            .filter_map(|item| {
                let sk = item.opt_string(sk_name)?;
                // BETWEEN includes its bounds: the cursor's own row was on the last page.
                if sk == high {
                    return None;
                }
                let key = sk.strip_prefix(&low)?.to_string();
                let id = item
                    .opt_string("articleId")
                    .or_else(|| index.then(|| item.opt_string("id")).flatten())?;
                Some((key, id))
            })
            .collect();
        let next = out.last_evaluated_key.filter(|key| !key.is_empty());
        Ok((rows, next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_junk_is_refused() {
        let cursor = Cursor {
            position: 120,
            before: "2025-09-01T10:00:00.000Z#0123abcd".into(),
        };
        let text = cursor.encode();
        assert!(text.chars().all(|c| c.is_ascii_alphanumeric() || c == '.'));
        assert_eq!(Cursor::decode(&text), Some(cursor));
        assert!(
            Cursor::decode("0.30303030").is_some(),
            "any text the pattern allows"
        );
        for junk in [
            "",
            "12",
            "x.41",
            "1.4",
            "1.zz",
            "1.41414141",
            "-1.32303235",
            "+1.32303235",
            "1.32303235c3a9",
            "1.3230323541A0",
            "12345678901234567890.32303235",
        ] {
            assert_eq!(Cursor::decode(junk), None, "{junk}");
        }
    }
}
