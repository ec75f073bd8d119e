//! Article pages still to fetch: the new excerpt-only articles of a source past one refresh's
//! page budget, each a row in a partition of the source's own, taken by its next refreshes
//! before any new article. A row is claimed by deleting it, conditional on it still being
//! there, so a page is fetched at most once however many refreshes of the source race for it
//! (a redelivered message, two workers). A row expires after [`PAGE_WAIT`] (DynamoDB's TTL on
//! `expiresAt`): a feed that brings more teasers than its refreshes fetch, or a retired
//! source, leaves a bounded list, and an article whose page waited that long keeps its teaser.

use futures::{StreamExt, TryStreamExt};
use platform::dynamo::{is_condition_failed, key, s, AttributeValue, Attributes, Item};

use super::items::{article_key, counts_key, is_retired, source_key, FULL_TEXT};
use super::{ContentStore, NewArticle, StoreError};

/// An article whose page a later refresh of its source fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingPage {
    pub article_id: String,
    pub link: String,
}

/// Rows written at once when a refresh leaves pages for later.
const WRITES_IN_FLIGHT: usize = 8;

/// How long a page waits on its source's list before it is given up.
pub const PAGE_WAIT: chrono::Duration = chrono::Duration::days(2);

fn pages_pk(source_id: &str) -> String {
    format!("SOURCE#{source_id}#PAGES")
}

/// One row per article: writing it again (a repeated refresh) changes nothing.
fn page_key(source_id: &str, article_id: &str) -> Item {
    key(pages_pk(source_id), format!("PAGE#{article_id}"))
}

impl ContentStore {
    /// The source's [`crate::FullTextMode`] as the page reader needs it: its `META` and
    /// `COUNTS` items in one BatchGetItem; `None` when the source is gone or retired.
    pub async fn pages_mode(
        &self,
        source_id: &str,
    ) -> Result<Option<crate::FullTextMode>, StoreError> {
        let keys = vec![source_key(source_id), counts_key(source_id)];
        let mut mode = None;
        for found in self.table.batch_get_all(keys, None).await? {
            if is_retired(&found) {
                return Ok(None);
            }
            if found.opt_string("sk").as_deref() == Some("META") {
                mode = Some(crate::FullTextMode::from_stored(
                    found.opt_string(FULL_TEXT).as_deref(),
                ));
            }
        }
        Ok(mode)
    }

    /// At most `limit` of the source's pages still to fetch (one Query).
    pub async fn pending_pages(
        &self,
        source_id: &str,
        limit: usize,
    ) -> Result<Vec<PendingPage>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let table = self.table.name();
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(pages_pk(source_id)))
            .limit(i32::try_from(limit).unwrap_or(i32::MAX));
        // TTL deletes late: a row past its time is skipped, as if gone.
        let now = self.clock.now().timestamp();
        self.table
            .query_all(query, Some(limit))
            .await?
            .iter()
            .filter(|item| {
                item.get("expiresAt")
                    .and_then(|v| v.as_n().ok())
                    .and_then(|n| n.parse::<i64>().ok())
                    .is_none_or(|at| at > now)
            })
            .map(|item| {
                Ok(PendingPage {
                    article_id: item.string(table, "articleId")?,
                    link: item.string(table, "link")?,
                })
            })
            .collect()
    }

    /// Leaves the pages of these articles (those with a link) to later refreshes.
    pub async fn add_pending_pages(&self, articles: &[&NewArticle]) -> Result<(), StoreError> {
        let expires_at = (self.clock.now() + PAGE_WAIT).timestamp();
        let mut writes = Vec::new();
        for article in articles {
            if let Some(link) = &article.link {
                let mut item = page_key(&article.source_id, &article.id);
                item.insert("articleId".into(), s(&article.id));
                item.insert("link".into(), s(link));
                item.insert(
                    "expiresAt".into(),
                    AttributeValue::N(expires_at.to_string()),
                );
                writes.push(self.put_pending_page(item));
            }
        }
        futures::stream::iter(writes)
            .buffer_unordered(WRITES_IN_FLIGHT)
            .try_collect::<()>()
            .await
    }

    async fn put_pending_page(&self, item: Item) -> Result<(), StoreError> {
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("PutItem", &e).into())
    }

    /// Takes `page` off the source's list: `false` when another refresh took it first.
    pub async fn claim_pending_page(
        &self,
        source_id: &str,
        page: &PendingPage,
    ) -> Result<bool, StoreError> {
        let outcome = self
            .table
            .delete_item()
            .set_key(Some(page_key(source_id, &page.article_id)))
            .condition_expression("attribute_exists(pk)")
            .send()
            .await;
        match outcome {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("DeleteItem", &e).into()),
        }
    }

    /// Replaces a stored article's paragraphs with its page's text; `false` when the article
    /// is gone (its source swept meanwhile).
    pub async fn set_article_paragraphs(
        &self,
        article_id: &str,
        paragraphs: &[String],
    ) -> Result<bool, StoreError> {
        let outcome = self
            .table
            .update_item()
            .set_key(Some(article_key(article_id)))
            .update_expression("SET paragraphs = :paragraphs")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(
                ":paragraphs",
                AttributeValue::L(paragraphs.iter().map(s).collect()),
            )
            .send()
            .await;
        match outcome {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }
}
