//! Sources: creation, reads, and the fetch bookkeeping the feed worker keeps on them.

use std::collections::HashMap;

use platform::dynamo::{is_condition_failed, n, s, Attributes, Item, Transaction};

use super::items::{
    article_count_key, is_retired, new_source_item, source_key, to_fetch_state, to_source, RETIRED,
    RETIRED_AT, SOURCES,
};
use super::{ContentStore, FetchState, NewSource, StoreError};
use crate::model::Source;

impl ContentStore {
    /// Stores a new source; when one with the same id (same normalised URL) exists, returns
    /// that one instead and `false`. A retired source of the same URL (its rows not yet swept)
    /// comes back as a new source: `true`.
    pub async fn create_source(&self, new: NewSource) -> Result<(Source, bool), StoreError> {
        let item = new_source_item(&new, &self.clock.timestamp());
        let result = self
            .table
            .put_item()
            .set_item(Some(item.clone()))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        match result {
            Ok(_) => Ok((to_source(self.table.name(), &item)?, true)),
            Err(e) if is_condition_failed(&e) => {
                // Created meanwhile by another submission of the same URL, or retired and
                // not yet swept; gone meanwhile only if its sweep finished in between.
                let existing = self
                    .source_item(&new.id)
                    .await?
                    .ok_or(StoreError::Contention)?;
                if is_retired(&existing) {
                    return Ok((self.revive(&new, &existing).await?, true));
                }
                Ok((to_source(self.table.name(), &existing)?, false))
            }
            Err(e) => Err(self.table.fail("PutItem", &e).into()),
        }
    }

    /// Brings a retired source back as new: its fields from the submission, no subscriber,
    /// no fetch state, created now, listed again, and its articles not yet swept counted
    /// again. Its sweep, conditional on the same retirement, stops at its next step.
    async fn revive(&self, new: &NewSource, retired: &Item) -> Result<Source, StoreError> {
        let table = self.table.name();
        let stamp = retired.string(table, RETIRED_AT)?;
        let articles = retired.counter(table, "articleCount")?;
        let now = self.clock.timestamp();
        let mut sets = vec![
            "#url = :url",
            "#title = :title",
            "createdAt = :now",
            "gsi1pk = :list",
            "gsi1sk = :sk",
            "failures = :zero",
            "subscriberCount = :zero",
        ];
        let mut removes = vec![
            "#retiredAt",
            "etag",
            "lastModified",
            "nextFetchAt",
            "lastFetchedAt",
        ];
        let mut values = Item::from([
            (":url".to_string(), s(&new.url)),
            (":title".to_string(), s(&new.title)),
            (":now".to_string(), s(&now)),
            (":list".to_string(), s(SOURCES)),
            (":sk".to_string(), s(format!("{now}#{}", new.id))),
            (":zero".to_string(), n(0)),
            (":stamp".to_string(), s(&stamp)),
            (":articles".to_string(), n(articles)),
        ]);
        match &new.site_url {
            Some(v) => {
                sets.push("siteUrl = :site");
                values.insert(":site".into(), s(v));
            }
            None => removes.push("siteUrl"),
        }
        match &new.description {
            Some(v) => {
                sets.push("description = :description");
                values.insert(":description".into(), s(v));
            }
            None => removes.push("description"),
        }
        let mut tx = Transaction::new(&self.table);
        let update = tx
            .update_builder(source_key(&new.id))
            .update_expression(format!(
                "SET {} REMOVE {}",
                sets.join(", "),
                removes.join(", ")
            ))
            .condition_expression("#retiredAt = :stamp AND articleCount = :articles")
            .expression_attribute_names("#url", "url")
            .expression_attribute_names("#title", "title")
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .set_expression_attribute_values(Some(values));
        tx.update(update)?;
        if articles != 0 {
            tx.add(article_count_key(), "articleCount", articles, None)?;
        }
        tx.commit_retrying().await?;
        tracing::info!(source_id = %new.id, "retired source submitted again: revived");
        self.source(&new.id).await?.ok_or(StoreError::Contention)
    }

    /// The source's item, retired or not.
    pub(super) async fn source_item(&self, id: &str) -> Result<Option<Item>, StoreError> {
        Ok(self.table.get(source_key(id)).await?)
    }

    /// The source, unless it does not exist or is retired.
    pub async fn source(&self, id: &str) -> Result<Option<Source>, StoreError> {
        match self.source_item(id).await? {
            Some(item) if !is_retired(&item) => Ok(Some(to_source(self.table.name(), &item)?)),
            _ => Ok(None),
        }
    }

    /// The ids of the retired sources with when each was retired (for the scheduler's
    /// re-enqueuing of sweeps that were lost).
    pub async fn retired_sources(&self) -> Result<Vec<(String, String)>, StoreError> {
        let table = self.table.name();
        self.list(RETIRED)
            .await?
            .iter()
            .map(|item| Ok((item.string(table, "id")?, item.string(table, RETIRED_AT)?)))
            .collect()
    }

    /// The source with its fetch bookkeeping (for the feed worker).
    pub async fn source_for_fetch(
        &self,
        id: &str,
    ) -> Result<Option<(Source, FetchState)>, StoreError> {
        let table = self.table.name();
        match self.source_item(id).await? {
            Some(item) if !is_retired(&item) => Ok(Some((
                to_source(table, &item)?,
                to_fetch_state(table, &item)?,
            ))),
            _ => Ok(None),
        }
    }

    /// Every source, oldest first.
    pub async fn sources(&self) -> Result<Vec<Source>, StoreError> {
        let table = self.table.name();
        self.list(SOURCES)
            .await?
            .iter()
            .filter(|item| !is_retired(item))
            .map(|item| Ok(to_source(table, item)?))
            .collect()
    }

    /// Every source with its fetch state (for the scheduler).
    pub async fn sources_for_fetch(&self) -> Result<Vec<(Source, FetchState)>, StoreError> {
        let table = self.table.name();
        self.list(SOURCES)
            .await?
            .iter()
            .filter(|item| !is_retired(item))
            .map(|item| Ok((to_source(table, item)?, to_fetch_state(table, item)?)))
            .collect()
    }

    /// Records a fetch attempt's outcome on the source (not on a retired one): its validators, failure count and next
    /// fetch time; when `fetched`, the time of the fetch; a non-blank `title` replaces the
    /// source's.
    pub async fn record_fetch(
        &self,
        source_id: &str,
        state: &FetchState,
        fetched: bool,
        title: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut sets = vec!["failures = :failures".to_string()];
        let mut values: Item =
            HashMap::from([(":failures".to_string(), n(i64::from(state.failures)))]);
        let mut removes = Vec::new();
        for (attribute, value) in [
            ("etag", &state.etag),
            ("lastModified", &state.last_modified),
            ("nextFetchAt", &state.next_fetch_at),
        ] {
            match value {
                Some(v) => {
                    sets.push(format!("{attribute} = :{attribute}"));
                    values.insert(format!(":{attribute}"), s(v));
                }
                None => removes.push(attribute),
            }
        }
        if fetched {
            sets.push("lastFetchedAt = :now".into());
            values.insert(":now".into(), s(self.clock.timestamp()));
        }
        if let Some(t) = title.filter(|t| !t.trim().is_empty()) {
            sets.push("title = :title".into());
            values.insert(":title".into(), s(t));
        }
        let mut expression = format!("SET {}", sets.join(", "));
        if !removes.is_empty() {
            expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        let result = self
            .table
            .update_item()
            .set_key(Some(source_key(source_id)))
            .update_expression(expression)
            .condition_expression("attribute_exists(pk) AND attribute_not_exists(#retiredAt)")
            .expression_attribute_names("#retiredAt", RETIRED_AT)
            .set_expression_attribute_values(Some(values))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::SourceNotFound),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }
}
