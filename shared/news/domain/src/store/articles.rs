//! Articles and topics: stored once each with exact counters, and read newest first.

use std::collections::{HashMap, HashSet};

use platform::dynamo::{
    item_size, n, s, AttributeValue, Attributes, Item, Transaction, TransactionError,
    MAX_TRANSACTION_BYTES, MAX_TRANSACTION_ITEMS,
};

use super::feed::{ArticlePage, Stream, Window};
use super::items::{
    article_item, article_key, articles_pk, counts_key, index_rows, is_retired, legacy_stats_key,
    legacy_topic_pk, shard_of, source_key, source_row, source_topic_count_key, stats_key,
    to_article, topic_count_key, topic_key, topic_rows_pk, ARTICLE_SHARDS, RETIRED_AT, TOPICS,
    TOPIC_SHARDS,
};
use super::reader::{alias_item, ALIASED};
use super::sources::LIVE_COUNTS;
use super::{ArticleFilter, ContentStore, NewArticle, StoreError, Upsert};
use crate::model::{Article, TopicRef, TopicSummary};

/// One transaction storing several articles of one source, and where each article's
/// conditional put sits in it (to tell which one already existed).
struct ArticlesTransaction {
    tx: Transaction,
    article_positions: Vec<usize>,
    /// Where each article's item-id alias sits (absent without aliases).
    alias_positions: Vec<usize>,
}

/// The counter item every article transaction starts with: the source's counters item,
/// conditional on the source existing and not being retired, so a failure at this index means
/// the source is gone.
const SOURCE_COUNTER: usize = 0;

/// The bytes one article transaction may write: DynamoDB's 4 MB, less a margin for the
/// counter updates, whose size is estimated.
pub const TRANSACTION_BYTES_BUDGET: usize = MAX_TRANSACTION_BYTES - 64 * 1024;

/// The estimated size of one counter update in an article transaction (its key, attribute
/// names and values; topic ids are at most 60 bytes, names 100 characters).
const COUNTER_UPDATE_BYTES: usize = 1024;

/// How many topics' counts a page of topics reads at once.
const TOPIC_COUNTS_AT_ONCE: usize = 16;

impl ContentStore {
    /// Every topic that has articles, by name: every page of [`Self::topics_page`].
    pub async fn topics(&self) -> Result<Vec<TopicSummary>, StoreError> {
        let mut topics = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let (page, next) = self.topics_page(after.as_deref(), 100).await?;
            topics.extend(page);
            match next {
                Some(next) => after = Some(next),
                None => return Ok(topics),
            }
        }
    }

    /// A page of at most `limit` topics by name after the name `after`, those without
    /// articles left out (a page may be short), and the name the next page starts after.
    pub async fn topics_page(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<TopicSummary>, Option<String>), StoreError> {
        let table = self.table.name();
        let (items, next) = self.list_page(TOPICS, after, limit).await?;
        let ids = items
            .iter()
            .map(|item| item.string(table, "id"))
            .collect::<Result<Vec<String>, _>>()?;
        // Each topic's shards are one BatchGetItem; a few at once.
        let mut counts: Vec<(u64, bool, bool)> = Vec::with_capacity(ids.len());
        let pairs: Vec<(&String, &Item)> = ids.iter().zip(&items).collect();
        for chunk in pairs.chunks(TOPIC_COUNTS_AT_ONCE) {
            let read = chunk
                .iter()
                .map(|(id, item)| self.topic_count(id, Some(item)));
            counts.extend(futures::future::try_join_all(read).await?);
        }
        let mut topics = Vec::with_capacity(items.len());
        for ((id, item), (count, _, _)) in ids.into_iter().zip(&items).zip(counts) {
            let topic = TopicSummary {
                id,
                name: item.string(table, "name")?,
                article_count: i64::try_from(count).unwrap_or(i64::MAX),
            };
            if topic.article_count > 0 {
                topics.push(topic);
            }
        }
        Ok((topics, next))
    }

    /// A topic's article count: the sum of its shards and of the count its item kept before
    /// the counters were sharded (`meta`, when already read), whether the topic exists, and
    /// whether it has articles stored before the lists were sharded.
    async fn topic_count(
        &self,
        id: &str,
        meta: Option<&Item>,
    ) -> Result<(u64, bool, bool), StoreError> {
        let table = self.table.name();
        let mut keys: Vec<Item> = (0..TOPIC_SHARDS).map(|n| topic_count_key(id, n)).collect();
        if meta.is_none() {
            keys.push(topic_key(id));
        }
        let mut legacy: i64 = meta.map_or(Ok(0), |m| m.counter(table, "articleCount"))?;
        let mut sum: i64 = 0;
        let mut exists = meta.is_some();
        for item in self
            .table
            .batch_get_all(keys, Some("pk, sk, articleCount"))
            .await?
        {
            let count = item.counter(table, "articleCount")?;
            if item.opt_string("sk").as_deref() == Some("META") {
                exists = true;
                legacy = legacy.saturating_add(count);
            } else {
                sum = sum.saturating_add(count);
            }
        }
        let total = u64::try_from(sum.saturating_add(legacy)).unwrap_or(0);
        Ok((total, exists, legacy > 0))
    }

    /// The article counters summed: rows stored, of those the live ones (without the
    /// articles of retired sources not yet swept), and whether articles stored before the
    /// counters were sharded remain.
    async fn article_totals(&self) -> Result<(u64, u64, bool), StoreError> {
        let table = self.table.name();
        let mut keys: Vec<Item> = (0..ARTICLE_SHARDS).map(stats_key).collect();
        keys.push(legacy_stats_key());
        let (mut stored, mut retired, mut legacy) = (0_i64, 0_i64, false);
        for item in self.table.batch_get_all(keys, None).await? {
            let count = item.counter(table, "articleCount")?;
            legacy |= item.opt_string("pk").as_deref() == Some("STATS") && count > 0;
            stored = stored.saturating_add(count);
            retired = retired.saturating_add(item.counter(table, "retiredCount")?);
        }
        let live = u64::try_from(stored.saturating_sub(retired)).unwrap_or(0);
        Ok((u64::try_from(stored).unwrap_or(0), live, legacy))
    }

    /// Creates the topics' items (listed in `gsi1` `TOPICS`, named as first seen) unless this
    /// process already knows them: once per topic, outside the article transactions, so an
    /// article does not write its topics' items.
    async fn ensure_topics(&self, topics: &[&TopicRef]) -> Result<(), StoreError> {
        for topic in topics {
            if self.known_topics.contains(&topic.id) {
                continue;
            }
            let mut item = topic_key(&topic.id);
            item.insert("id".into(), s(&topic.id));
            item.insert("name".into(), s(&topic.name));
            item.insert("gsi1pk".into(), s(TOPICS));
            item.insert("gsi1sk".into(), s(&topic.name));
            let put = self
                .table
                .put_item()
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(pk)")
                .send()
                .await;
            match put {
                Ok(_) => {}
                Err(e) if platform::dynamo::is_condition_failed(&e) => {}
                Err(e) => return Err(self.table.fail("PutItem", &e).into()),
            }
            self.known_topics.insert(&topic.id);
        }
        Ok(())
    }

    /// Stores an article once: a repeat (redelivered message, refetched feed) changes nothing.
    pub async fn upsert_article(&self, article: &NewArticle) -> Result<Upsert, StoreError> {
        let topics: Vec<&TopicRef> = article.topics.iter().collect();
        self.ensure_topics(&topics).await?;
        let mut with_alias = true;
        loop {
            let Some(built) = self.articles_transaction(&[article], with_alias)? else {
                return Ok(Upsert::AlreadyStored);
            };
            let position = built.article_positions.first().copied().unwrap_or_default();
            let alias = built.alias_positions.first().copied();
            let outcome = built.tx.commit_retrying().await;
            return match outcome {
                Ok(()) => Ok(Upsert::Inserted),
                Err(e) if e.failed_at(position) => Ok(Upsert::AlreadyStored),
                Err(e) if e.failed_at(SOURCE_COUNTER) => Ok(Upsert::SourceGone),
                // Another article holds the alias of these 64 bits: it keeps it.
                Err(e) if alias.is_some_and(|a| e.failed_at(a)) => {
                    tracing::warn!(article_id = %article.id, "item id collision: stored without an alias");
                    with_alias = false;
                    continue;
                }
                Err(e) => Err(e.into()),
            };
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

        let fresh: Vec<(usize, &NewArticle)> = fresh.collect();
        let mut topics: Vec<&TopicRef> = fresh.iter().flat_map(|(_, a)| &a.topics).collect();
        topics.sort_by(|a, b| a.id.cmp(&b.id));
        topics.dedup_by(|a, b| a.id == b.id);
        self.ensure_topics(&topics).await?;
        let groups = transaction_groups(fresh);
        for group in groups {
            let members: Vec<&NewArticle> = group.iter().map(|(_, a)| *a).collect();
            let Some(built) = self.articles_transaction(&members, true)? else {
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
    pub async fn existing_article_ids(&self, ids: &[&str]) -> Result<HashSet<String>, StoreError> {
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
        with_alias: bool,
    ) -> Result<Option<ArticlesTransaction>, StoreError> {
        let Some(first) = articles.first() else {
            return Ok(None);
        };
        let count = i64::try_from(articles.len()).unwrap_or(i64::MAX);
        // One shard of each counter per transaction: the first article's.
        let mut tx = Transaction::new(&self.table);
        let source = tx
            .update_builder(counts_key(&first.source_id))
            .update_expression("ADD articleCount :n")
            .condition_expression(LIVE_COUNTS)
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .expression_attribute_values(":n", n(count));
        tx.update(source)?.add(
            stats_key(shard_of(&first.id, ARTICLE_SHARDS)),
            "articleCount",
            count,
            None,
        )?;
        let mut topics: Vec<(&TopicRef, i64)> = Vec::new();
        for topic in articles.iter().flat_map(|a| &a.topics) {
            match topics.iter_mut().find(|(t, _)| t.id == topic.id) {
                Some((_, n)) => *n += 1,
                None => topics.push((topic, 1)),
            }
        }
        for (topic, delta) in &topics {
            let shard = shard_of(&first.id, TOPIC_SHARDS);
            tx.add(
                topic_count_key(&topic.id, shard),
                "articleCount",
                *delta,
                None,
            )?
            .add(
                source_topic_count_key(&first.source_id, &topic.id),
                "articleCount",
                *delta,
                None,
            )?;
        }
        let mut article_positions = Vec::with_capacity(articles.len());
        let mut alias_positions = Vec::with_capacity(articles.len());
        for a in articles {
            article_positions.push(tx.len());
            tx.put(article_item(a), Some("attribute_not_exists(pk)"))?;
            let alias = with_alias
                .then(|| alias_item(&a.id, &a.source_id, &a.published_at))
                .flatten();
            let mut row = source_row(a);
            if let Some(alias) = alias {
                row.insert(ALIASED.into(), AttributeValue::Bool(true));
                alias_positions.push(tx.len());
                // A collision (another article's first 64 bits) keeps the first.
                tx.put(alias, Some("attribute_not_exists(pk)"))?;
            }
            tx.put(row, None)?;
            for row in index_rows(a) {
                tx.put(row, None)?;
            }
        }
        Ok(Some(ArticlesTransaction {
            tx,
            article_positions,
            alias_positions,
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

    /// One page of articles (without paragraphs), newest first: rows `window` of the list
    /// `filter` names.
    pub async fn articles_page(
        &self,
        filter: &ArticleFilter,
        window: &Window,
        size: u32,
    ) -> Result<ArticlePage, StoreError> {
        match (filter.source_ids.as_slice(), &filter.topic_id) {
            ([], None) => {
                let (stored, live, legacy) = self.article_totals().await?;
                let shards = |year| {
                    let mut streams: Vec<Stream> = (0..ARTICLE_SHARDS)
                        .map(|n| Stream::new(articles_pk(year, n)))
                        .collect();
                    if legacy {
                        streams.push(Stream::legacy("ARTICLES".into(), year, true));
                    }
                    streams
                };
                self.bucketed_page(shards, stored, live, window, size).await
            }
            ([], Some(topic)) => {
                let (count, exists, legacy) = self.topic_count(topic, None).await?;
                if !exists {
                    return self.bucketed_page(|_| Vec::new(), 0, 0, window, size).await;
                }
                let shards = |year| {
                    let mut streams: Vec<Stream> = (0..TOPIC_SHARDS)
                        .map(|n| Stream::new(topic_rows_pk(topic, year, n)))
                        .collect();
                    if legacy {
                        streams.push(Stream::legacy(legacy_topic_pk(topic), year, false));
                    }
                    streams
                };
                self.bucketed_page(shards, count, count, window, size).await
            }
            // A source's rows (of a topic): several sources without a topic are a personal
            // feed, which the edge routes to `feed_page` directly.
            (sources, topic) => {
                self.feed_page(sources, topic.as_deref(), window, size)
                    .await
            }
        }
    }
}

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
/// source, its index rows (the list of every article's, and per topic the topic's and the
/// source's), and (at most) two counters per topic.
pub fn article_writes(a: &NewArticle) -> (usize, usize) {
    let rows = index_rows(a);
    let alias = alias_item(&a.id, &a.source_id, &a.published_at);
    let items = 2 + usize::from(alias.is_some()) + rows.len() + 2 * a.topics.len();
    let bytes = item_size(&article_item(a))
        + item_size(&source_row(a))
        + alias.as_ref().map_or(0, item_size)
        + rows.iter().map(item_size).sum::<usize>()
        + 2 * a.topics.len() * COUNTER_UPDATE_BYTES;
    (items, bytes)
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

        // Small articles with ten topics each: 44 items apiece (the alias too), two to a transaction.
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
            vec![2, 2, 2, 2, 2]
        );
    }
}
