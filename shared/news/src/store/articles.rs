//! Articles and topics: stored once each with exact counters, and read newest first.

use std::collections::{HashMap, HashSet};

use platform::dynamo::{
    n, s, Attributes, Item, Transaction, TransactionError, MAX_TRANSACTION_ITEMS,
};

use super::items::{
    article_count_key, article_item, article_key, source_key, source_pk, source_row, to_article,
    topic_key, topic_pk, topic_row, ARTICLES, ARTICLE_ROW, TOPICS,
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
/// source existing, so a failure at this index means the source is gone.
const SOURCE_COUNTER: usize = 0;

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

        let mut groups: Vec<Vec<(usize, &NewArticle)>> = Vec::new();
        let mut size = 0;
        for (i, article) in fresh {
            let needed = Self::items_for(article);
            if groups.is_empty() || size + needed > MAX_TRANSACTION_ITEMS - 2 {
                groups.push(Vec::new());
                size = 0;
            }
            size += needed;
            if let Some(group) = groups.last_mut() {
                group.push((i, article));
            }
        }
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

    /// At most how many items [`Self::articles_transaction`] writes for one more article: its
    /// own writes and a counter per topic (the source and total counters come once).
    fn items_for(a: &NewArticle) -> usize {
        2 + 2 * a.topics.len()
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
            Some("attribute_exists(pk)"),
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

    /// One article with its body paragraphs.
    pub async fn article(&self, id: &str) -> Result<Option<Article>, StoreError> {
        match self.table.get_eventual(article_key(id)).await? {
            Some(item) => Ok(Some(to_article(self.table.name(), &item, true)?)),
            None => Ok(None),
        }
    }

    /// The articles with these ids, in the order asked; unknown ids are skipped.
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
        Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
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
        let (ids, total) = match (&filter.source_id, &filter.topic_id) {
            (None, None) => (
                self.newest_article_ids(wanted).await?,
                self.count(article_count_key()).await?,
            ),
            (Some(source), None) => (
                self.row_article_ids(&source_pk(source), None, Some(wanted))
                    .await?,
                self.count(source_key(source)).await?,
            ),
            (None, Some(topic)) => (
                self.row_article_ids(&topic_pk(topic), None, Some(wanted))
                    .await?,
                self.count(topic_key(topic)).await?,
            ),
            (Some(source), Some(topic)) => {
                // The topic's rows filtered by source: counted as they are read, all of them.
                let ids = self
                    .row_article_ids(&topic_pk(topic), Some(source), None)
                    .await?;
                let total = u64::try_from(ids.len()).unwrap_or(u64::MAX);
                (ids, total)
            }
        };
        let page_ids: Vec<String> = ids.into_iter().skip(skip).take(size_wanted).collect();
        let content = self.articles_by_ids(&page_ids, false).await?;
        Ok(Page::new(content, page, size, total))
    }

    /// The `articleCount` of the item with `key` (0 when it does not exist).
    async fn count(&self, key: Item) -> Result<u64, StoreError> {
        let count = match self.table.get_eventual(key).await? {
            Some(item) => item.counter(self.table.name(), "articleCount")?,
            None => 0,
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
        source: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<String>, StoreError> {
        let mut query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :rows)")
            .expression_attribute_values(":pk", s(pk))
            .expression_attribute_values(":rows", s(ARTICLE_ROW))
            .scan_index_forward(false);
        if let Some(source) = source {
            query = query
                .filter_expression("sourceId = :source")
                .expression_attribute_values(":source", s(source));
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
