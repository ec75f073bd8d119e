//! Articles and topics: stored once each with exact counters, and read newest first.

use std::collections::{HashMap, HashSet};

use platform::dynamo::{
    item_size, n, s, Attributes, Item, Transaction, TransactionError, MAX_TRANSACTION_BYTES,
    MAX_TRANSACTION_ITEMS,
};

use super::items::{
    article_count_key, article_item, article_key, is_retired, source_key, source_pk, source_row,
    to_article, topic_key, topic_pk, topic_row, ARTICLES, ARTICLE_ROW, RETIRED_AT, TOPICS,
};
use super::{ArticleFilter, ContentStore, NewArticle, StoreError, Upsert};
use crate::model::{Article, Page, TopicRef, TopicSummary};

/// The most items one query page asks for while collecting the ids of a page of articles.
const IDS_PER_QUERY: usize = 1000;

/// One transaction storing several articles of one source, and where each article's
/// conditional put sits in it (to tell which one already existed).
struct ArticlesTransaction {
    tx: Transaction,
    article_positions: Vec<usize>,
}

/// The counter item every article transaction starts with: the source's, conditional on the
/// source existing and not being retired, so a failure at this index means the source is gone.
const SOURCE_COUNTER: usize = 0;

/// The bytes one article transaction may write: DynamoDB's 4 MB, less a margin for the
/// counter updates, whose size is estimated.
pub const TRANSACTION_BYTES_BUDGET: usize = MAX_TRANSACTION_BYTES - 64 * 1024;

/// The estimated size of one counter update in an article transaction (its key, attribute
/// names and values; topic ids are at most 60 bytes, names 100 characters).
const COUNTER_UPDATE_BYTES: usize = 1024;

impl ContentStore {
    /// Every topic that has articles, by name.
    pub async fn topics(&self) -> Result<Vec<TopicSummary>, StoreError> {
        let table = self.table.name();
        let mut topics = Vec::new();
        for item in self.list(TOPICS).await? {
            let topic = TopicSummary {
                id: item.string(table, "id")?,
                name: item.string(table, "name")?,
                article_count: item.counter(table, "articleCount")?,
            };
            if topic.article_count > 0 {
                topics.push(topic);
            }
        }
        Ok(topics)
    }

    /// Stores an article once: a repeat (redelivered message, refetched feed) changes nothing.
    pub async fn upsert_article(&self, article: &NewArticle) -> Result<Upsert, StoreError> {
        let Some(built) = self.articles_transaction(&[article])? else {
            return Ok(Upsert::AlreadyStored);
        };
        let position = built.article_positions.first().copied().unwrap_or_default();
        let outcome = built.tx.commit_retrying().await;
        match outcome {
            Ok(()) => Ok(Upsert::Inserted),
            Err(e) if e.failed_at(position) => Ok(Upsert::AlreadyStored),
            Err(e) if e.failed_at(SOURCE_COUNTER) => Ok(Upsert::SourceGone),
            Err(e) => Err(e.into()),
        }
    }

    /// Stores a source's articles, each once, answering per article in the order given.
    /// Articles already stored are found with one batch read; the new ones are written
    /// several to a transaction (counters summed), falling back to one at a time when a
    /// transaction finds one of them stored meanwhile.
    pub async fn upsert_articles(
        &self,
        articles: &[NewArticle],
    ) -> Result<Vec<Upsert>, StoreError> {
        let ids: Vec<&str> = articles.iter().map(|a| a.id.as_str()).collect();
        let stored = self.existing_article_ids(&ids).await?;
        // A feed may repeat an entry; one transaction must not write an item twice.
        let mut seen = HashSet::new();
        let mut results: Vec<Option<Upsert>> = articles
            .iter()
            .map(|a| {
                (stored.contains(&a.id) || !seen.insert(a.id.as_str()))
                    .then_some(Upsert::AlreadyStored)
            })
            .collect();
        let fresh = articles
            .iter()
            .zip(&results)
            .enumerate()
            .filter(|(_, (_, result))| result.is_none())
            .map(|(i, (article, _))| (i, article));

        let groups = transaction_groups(fresh);
        for group in groups {
            let members: Vec<&NewArticle> = group.iter().map(|(_, a)| *a).collect();
            let Some(built) = self.articles_transaction(&members)? else {
                continue;
            };
            match built.tx.commit().await {
                Ok(()) => set(&mut results, &group, Upsert::Inserted),
                Err(e) if e.failed_at(SOURCE_COUNTER) => {
                    for result in results.iter_mut().filter(|r| r.is_none()) {
                        *result = Some(Upsert::SourceGone);
                    }
                    break;
                }
                // One of them was stored meanwhile, or a lost race: one at a time.
                Err(TransactionError::Condition { .. } | TransactionError::Conflict) => {
                    for (i, article) in group {
                        let outcome = self.upsert_article(article).await?;
                        if let Some(result) = results.get_mut(i) {
                            *result = Some(outcome);
                        }
                    }
                }
                Err(TransactionError::Dynamo(e)) => return Err(e.into()),
            }
        }
        Ok(results
            .into_iter()
            .map(|r| r.unwrap_or(Upsert::SourceGone))
            .collect())
    }

    /// Which of these article ids are stored (one BatchGetItem per 100 ids).
    async fn existing_article_ids(&self, ids: &[&str]) -> Result<HashSet<String>, StoreError> {
        let keys = ids.iter().map(|id| article_key(id)).collect();
        self.table
            .batch_get_all(keys, Some("id"))
            .await?
            .iter()
            .map(|item| Ok(item.string(self.table.name(), "id")?))
            .collect()
    }

    /// One transaction storing `articles` (all of one source) with every counter they change:
    /// the source's (conditional on the source existing), the total, each topic's. `None` for
    /// no articles.
    fn articles_transaction(
        &self,
        articles: &[&NewArticle],
    ) -> Result<Option<ArticlesTransaction>, StoreError> {
        let Some(first) = articles.first() else {
            return Ok(None);
        };
        let count = i64::try_from(articles.len()).unwrap_or(i64::MAX);
        let mut tx = Transaction::new(&self.table);
        tx.add(
            source_key(&first.source_id),
            "articleCount",
            count,
            Some(LIVE_SOURCE),
        )?
        .add(article_count_key(), "articleCount", count, None)?;
        let mut topics: Vec<(&TopicRef, i64)> = Vec::new();
        for topic in articles.iter().flat_map(|a| &a.topics) {
            match topics.iter_mut().find(|(t, _)| t.id == topic.id) {
                Some((_, n)) => *n += 1,
                None => topics.push((topic, 1)),
            }
        }
        for (topic, delta) in topics {
            // Creates the topic on first use; the name it was first seen with stays.
            let update = tx
                .update_builder(topic_key(&topic.id))
                .update_expression(
                    "SET #id = :id, #name = if_not_exists(#name, :name), gsi1pk = :list, \
                     gsi1sk = if_not_exists(gsi1sk, :name) ADD articleCount :delta",
                )
                .expression_attribute_names("#id", "id")
                .expression_attribute_names("#name", "name")
                .expression_attribute_values(":id", s(&topic.id))
                .expression_attribute_values(":name", s(&topic.name))
                .expression_attribute_values(":list", s(TOPICS))
                .expression_attribute_values(":delta", n(delta));
            tx.update(update)?;
        }
        let mut article_positions = Vec::with_capacity(articles.len());
        for a in articles {
            article_positions.push(tx.len());
            tx.put(article_item(a), Some("attribute_not_exists(pk)"))?
                .put(source_row(a), None)?;
            for topic in &a.topics {
                tx.put(topic_row(a, topic), None)?;
            }
        }
        Ok(Some(ArticlesTransaction {
            tx,
            article_positions,
        }))
    }

    /// One article with its body paragraphs; none when its source is retired.
    pub async fn article(&self, id: &str) -> Result<Option<Article>, StoreError> {
        let article = match self.table.get_eventual(article_key(id)).await? {
            Some(item) => to_article(self.table.name(), &item, true)?,
            None => return Ok(None),
        };
        Ok(self.without_retired(vec![article]).await?.pop())
    }

    /// `articles` without those of retired sources (one BatchGetItem of their sources), so a
    /// retired source's articles disappear from every read before the sweep removes them.
    async fn without_retired(&self, articles: Vec<Article>) -> Result<Vec<Article>, StoreError> {
        let mut sources: Vec<&str> = articles.iter().map(|a| a.source_id.as_str()).collect();
        sources.sort_unstable();
        sources.dedup();
        if sources.is_empty() {
            return Ok(articles);
        }
        let keys = sources.iter().map(|id| source_key(id)).collect();
        let live: HashSet<String> = self
            .table
            .batch_get_all(keys, Some(&format!("id, {RETIRED_AT}")))
            .await?
            .iter()
            .filter(|item| !is_retired(item))
            .filter_map(|item| item.opt_string("id"))
            .collect();
        Ok(articles
            .into_iter()
            .filter(|a| live.contains(&a.source_id))
            .collect())
    }

    /// The articles with these ids, in the order asked; unknown ids, and articles of retired
    /// sources, are skipped.
    pub async fn articles_by_ids(
        &self,
        ids: &[String],
        with_body: bool,
    ) -> Result<Vec<Article>, StoreError> {
        let keys = ids.iter().map(|id| article_key(id)).collect();
        let mut found: HashMap<String, Article> = HashMap::new();
        for item in self.table.batch_get_all(keys, None).await? {
            let article = to_article(self.table.name(), &item, with_body)?;
            found.insert(article.id.clone(), article);
        }
        let ordered = ids.iter().filter_map(|id| found.remove(id)).collect();
        self.without_retired(ordered).await
    }

    /// One page of articles (without paragraphs), newest first.
    pub async fn articles_page(
        &self,
        filter: &ArticleFilter,
        page: u32,
        size: u32,
    ) -> Result<Page<Article>, StoreError> {
        let skip = usize::try_from(u64::from(page) * u64::from(size)).unwrap_or(usize::MAX);
        let size_wanted = usize::try_from(size).unwrap_or(usize::MAX);
        let wanted = skip.saturating_add(size_wanted);
        let (ids, total) = match (filter.source_ids.as_slice(), &filter.topic_id) {
            ([], None) => (
                self.newest_article_ids(wanted).await?,
                self.count(article_count_key()).await?,
            ),
            // Several sources without a topic are a personal feed (`feed_page`), which the
            // edge routes there; here they would read like the first alone, never more.
            ([source, ..], None) => (
                self.row_article_ids(&source_pk(source), &[], Some(wanted))
                    .await?,
                self.count(source_key(source)).await?,
            ),
            ([], Some(topic)) => (
                self.row_article_ids(&topic_pk(topic), &[], Some(wanted))
                    .await?,
                self.count(topic_key(topic)).await?,
            ),
            (sources, Some(topic)) => {
                // The topic's rows filtered by source: counted as they are read, all of them.
                let ids = self
                    .row_article_ids(&topic_pk(topic), sources, None)
                    .await?;
                let total = u64::try_from(ids.len()).unwrap_or(u64::MAX);
                (ids, total)
            }
        };
        let page_ids: Vec<String> = ids.into_iter().skip(skip).take(size_wanted).collect();
        let content = self.articles_by_ids(&page_ids, false).await?;
        Ok(Page::new(content, page, size, total))
    }

    /// The `articleCount` of the item with `key` (0 when it does not exist, or is a retired
    /// source).
    async fn count(&self, key: Item) -> Result<u64, StoreError> {
        let count = match self.table.get_eventual(key).await? {
            Some(item) if !is_retired(&item) => item.counter(self.table.name(), "articleCount")?,
            _ => 0,
        };
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// The ids of the newest `limit` articles (Query `gsi1` on `ARTICLES`, descending).
    async fn newest_article_ids(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :list")
            .expression_attribute_values(":list", s(ARTICLES))
            .projection_expression("id")
            .scan_index_forward(false)
            .limit(page_limit(limit));
        Ok(self
            .table
            .query_all(query, Some(limit))
            .await?
            .iter()
            .filter_map(|item| item.opt_string("id"))
            .collect())
    }

    /// Article ids of the `ART#` rows of a source's or topic's partition, newest first: those
    /// of `source` only when given (then all of them), else at most `limit`.
    async fn row_article_ids(
        &self,
        pk: &str,
        sources: &[String],
        limit: Option<usize>,
    ) -> Result<Vec<String>, StoreError> {
        let mut query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :rows)")
            .expression_attribute_values(":pk", s(pk))
            .expression_attribute_values(":rows", s(ARTICLE_ROW))
            .scan_index_forward(false);
        if !sources.is_empty() {
            // At most 50 sources (the feed's cap): within `IN`'s 100 operands.
            let names: Vec<String> = (0..sources.len()).map(|i| format!(":source{i}")).collect();
            query = query.filter_expression(format!("sourceId IN ({})", names.join(", ")));
            for (name, source) in names.iter().zip(sources) {
                query = query.expression_attribute_values(name.as_str(), s(source));
            }
        } else if let Some(limit) = limit {
            query = query.limit(page_limit(limit));
        }
        Ok(self
            .table
            .query_all(query, limit)
            .await?
            .iter()
            .filter_map(|item| item.opt_string("articleId"))
            .collect())
    }
}

/// The condition on the source's counter in an article transaction.
const LIVE_SOURCE: &str = "attribute_exists(pk) AND attribute_not_exists(retiredAt)";

/// The new articles of one source (with their positions in the input) grouped into
/// transactions: each group within DynamoDB's 100 items and [`TRANSACTION_BYTES_BUDGET`]
/// bytes, counting each article's puts by their item sizes and each counter update by an
/// estimate. An article too large for a transaction of its own still gets one (it cannot,
/// once capped by [`super::fit_article`]).
pub fn transaction_groups<'a>(
    articles: impl IntoIterator<Item = (usize, &'a NewArticle)>,
) -> Vec<Vec<(usize, &'a NewArticle)>> {
    // The source and total counters come once per transaction.
    const FIXED_ITEMS: usize = 2;
    let mut groups: Vec<Vec<(usize, &NewArticle)>> = Vec::new();
    let (mut items, mut bytes) = (0, 0);
    for (i, article) in articles {
        let (needed_items, needed_bytes) = article_writes(article);
        if groups.is_empty()
            || items + needed_items > MAX_TRANSACTION_ITEMS
            || bytes + needed_bytes > TRANSACTION_BYTES_BUDGET
        {
            groups.push(Vec::new());
            items = FIXED_ITEMS;
            bytes = FIXED_ITEMS * COUNTER_UPDATE_BYTES;
        }
        items += needed_items;
        bytes += needed_bytes;
        if let Some(group) = groups.last_mut() {
            group.push((i, article));
        }
    }
    groups
}

/// The items and bytes one more article adds to a transaction: its item, its row under the
/// source, a row and (at most) a counter per topic.
pub fn article_writes(a: &NewArticle) -> (usize, usize) {
    let rows: usize = a.topics.iter().map(|t| item_size(&topic_row(a, t))).sum();
    let items = 2 + 2 * a.topics.len();
    let bytes = item_size(&article_item(a))
        + item_size(&source_row(a))
        + rows
        + a.topics.len() * COUNTER_UPDATE_BYTES;
    (items, bytes)
}

/// A query page's `Limit` when `limit` items are wanted in all.
fn page_limit(limit: usize) -> i32 {
    i32::try_from(limit.clamp(1, IDS_PER_QUERY)).unwrap_or(1)
}

fn set(results: &mut [Option<Upsert>], group: &[(usize, &NewArticle)], outcome: Upsert) {
    for (i, _) in group {
        if let Some(result) = results.get_mut(*i) {
            *result = Some(outcome);
        }
    }
}

#[cfg(test)]
mod tests {
    use platform::dynamo::MAX_TRANSACTION_ITEMS;

    use super::*;
    use crate::store::fit_article;

    fn article(i: usize, text_bytes: usize, topics: usize) -> NewArticle {
        let mut a = NewArticle {
            id: format!("{i:032}"),
            source_id: "s".repeat(32),
            source_title: "Source".into(),
            title: format!("Article {i}"),
            link: None,
            author: None,
            published_at: "2026-01-01T00:00:00.000Z".into(),
            summary: None,
            paragraphs: vec!["é".repeat(text_bytes / 2)],
            topics: (0..topics)
                .map(|t| TopicRef {
                    id: format!("topic-{t}"),
                    name: format!("Topic {t}"),
                })
                .collect(),
            image_url: None,
        };
        fit_article(&mut a);
        a
    }

    #[test]
    fn transactions_are_grouped_by_bytes_as_well_as_by_items() {
        // Twenty articles at the item budget: about 7 MB, in transactions under 4 MB.
        let big: Vec<NewArticle> = (0..20).map(|i| article(i, 1_000_000, 1)).collect();
        let groups = transaction_groups(big.iter().enumerate());
        assert!(groups.len() >= 2, "{}", groups.len());
        for group in &groups {
            let bytes: usize = group.iter().map(|(_, a)| article_writes(a).1).sum();
            assert!(
                bytes + 2 * COUNTER_UPDATE_BYTES <= TRANSACTION_BYTES_BUDGET,
                "{bytes}"
            );
            assert!(bytes < MAX_TRANSACTION_BYTES - 32 * 1024);
        }
        let members: usize = groups.iter().map(Vec::len).sum();
        assert_eq!(members, 20, "every article in one group");

        // Small articles with ten topics each: 22 items apiece, four to a transaction.
        let small: Vec<NewArticle> = (0..10).map(|i| article(i, 100, 10)).collect();
        let groups = transaction_groups(small.iter().enumerate());
        for group in &groups {
            let items: usize = 2 + group
                .iter()
                .map(|(_, a)| article_writes(a).0)
                .sum::<usize>();
            assert!(items <= MAX_TRANSACTION_ITEMS, "{items}");
        }
        assert_eq!(
            groups.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 4, 2]
        );
    }
}
