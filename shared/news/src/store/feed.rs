//! A reader's personal feed: the articles of several sources merged newest first, a page at a
//! time, from the sources' own `ART#` rows (no Scan, no per-user copy of the articles).
//!
//! Each source's rows are read lazily in descending sort key order (`ART#{publishedAt}#{id}`,
//! the same order for every source) and merged: the first read of a source asks only for its
//! share of the rows up to the page's end, later reads a page size more, and only the source
//! whose buffered rows ran out is read again. So one page reads at most
//! `(page + 1) * size + sources * size` rows, bounded by the page cap and the source cap.

use std::collections::VecDeque;

use platform::dynamo::{s, Attributes, Item};

use super::items::{is_retired, source_key, source_pk, ARTICLE_ROW};
use super::{ContentStore, StoreError};
use crate::model::{Article, Page};

/// A page of a personal feed, and how many index rows it took to find it.
#[derive(Debug, Clone)]
pub struct FeedPage {
    pub page: Page<Article>,
    /// Index rows read (the bound this module promises; the store tests check it).
    pub rows_read: usize,
}

/// One source's rows, read a chunk at a time.
struct SourceRows {
    pk: String,
    buffered: VecDeque<(String, String)>,
    /// Where the next read starts; `None` with `exhausted` once the rows ended.
    next: Option<Item>,
    exhausted: bool,
}

impl ContentStore {
    /// Page `page` (of `size`) of the articles of `sources`, newest first. Sources that do not
    /// exist (deleted, retired, or never did) contribute nothing. The total counts the existing
    /// sources' articles.
    pub async fn feed_page(
        &self,
        sources: &[String],
        page: u32,
        size: u32,
    ) -> Result<FeedPage, StoreError> {
        let table = self.table.name();
        let keys = sources.iter().map(|id| source_key(id)).collect();
        let mut total: u64 = 0;
        let mut existing: Vec<String> = Vec::new();
        for item in self
            .table
            .batch_get_all(keys, Some("id, articleCount, retiredAt"))
            .await?
            .into_iter()
            // A retired source answers no read, as in every other list.
            .filter(|item| !is_retired(item))
        {
            let count = item.counter(table, "articleCount")?;
            total = total.saturating_add(u64::try_from(count).unwrap_or(0));
            existing.push(item.string(table, "id")?);
        }
        // The order asked, so reads (and ties) do not depend on BatchGetItem's order.
        existing.sort_by_key(|id| sources.iter().position(|s| s == id));

        let size_wanted = usize::try_from(size).unwrap_or(usize::MAX).max(1);
        let skip = usize::try_from(page)
            .unwrap_or(usize::MAX)
            .saturating_mul(size_wanted);
        let wanted = skip.saturating_add(size_wanted);
        let first_read = wanted.div_ceil(existing.len().max(1)).clamp(1, size_wanted);

        let mut rows: Vec<SourceRows> = existing
            .iter()
            .map(|id| SourceRows {
                pk: source_pk(id),
                buffered: VecDeque::new(),
                next: None,
                exhausted: false,
            })
            .collect();
        let mut rows_read = 0;
        let reads = futures::future::try_join_all(
            rows.iter().map(|r| self.read_rows(&r.pk, None, first_read)),
        )
        .await?;
        for (source, (read, next)) in rows.iter_mut().zip(reads) {
            rows_read += read.len();
            source.exhausted = next.is_none();
            source.next = next;
            source.buffered.extend(read);
        }

        let mut ids: Vec<String> = Vec::with_capacity(size_wanted);
        let mut position = 0;
        while position < wanted {
            // Refill any source that ran dry but has more, before comparing heads.
            for source in rows.iter_mut() {
                while source.buffered.is_empty() && !source.exhausted {
                    let (read, next) = self
                        .read_rows(&source.pk, source.next.take(), size_wanted)
                        .await?;
                    rows_read += read.len();
                    source.exhausted = next.is_none();
                    source.next = next;
                    source.buffered.extend(read);
                }
            }
            let newest = rows
                .iter_mut()
                .filter(|r| !r.buffered.is_empty())
                .max_by(|a, b| {
                    let head = |r: &SourceRows| r.buffered.front().map(|(sk, _)| sk.clone());
                    head(a).cmp(&head(b))
                });
            let Some((_, id)) = newest.and_then(|r| r.buffered.pop_front()) else {
                break;
            };
            if position >= skip {
                ids.push(id);
            }
            position += 1;
        }
        let content = self.articles_by_ids(&ids, false).await?;
        Ok(FeedPage {
            page: Page::new(content, page, size, total),
            rows_read,
        })
    }

    /// Up to `limit` of the `ART#` rows of partition `pk`, newest first, from `start`: their
    /// sort keys and article ids, and where the next read starts (`None` at the end).
    async fn read_rows(
        &self,
        pk: &str,
        start: Option<Item>,
        limit: usize,
    ) -> Result<(Vec<(String, String)>, Option<Item>), StoreError> {
        let out = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :rows)")
            .expression_attribute_values(":pk", s(pk))
            .expression_attribute_values(":rows", s(ARTICLE_ROW))
            .projection_expression("pk, sk, articleId")
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
            .filter_map(|item| Some((item.opt_string("sk")?, item.opt_string("articleId")?)))
            .collect();
        let next = out.last_evaluated_key.filter(|key| !key.is_empty());
        Ok((rows, next))
    }
}
