//! Sources: creation, reads, and the fetch bookkeeping the feed worker keeps on them.

use std::collections::HashMap;

use platform::dynamo::{is_condition_failed, n, s, Item};

use super::items::{new_source_item, source_key, to_fetch_state, to_source, SOURCES};
use super::{ContentStore, FetchState, NewSource, StoreError};
use crate::model::Source;

impl ContentStore {
    /// Stores a new source; when one with the same id (same normalised URL) exists, returns
    /// that one instead and `false`.
    pub async fn create_source(&self, new: NewSource) -> Result<(Source, bool), StoreError> {
        let item = new_source_item(&new, &self.clock.timestamp());
        let result = self
            .table
            .client()
            .put_item()
            .table_name(self.table.name())
            .set_item(Some(item.clone()))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        match result {
            Ok(_) => Ok((to_source(self.table.name(), &item)?, true)),
            Err(e) if is_condition_failed(&e) => {
                // Created meanwhile by another submission of the same URL; gone again only if
                // its last subscriber left in between.
                let existing = self.source(&new.id).await?.ok_or(StoreError::Contention)?;
                Ok((existing, false))
            }
            Err(e) => Err(self.table.fail("PutItem", &e).into()),
        }
    }

    pub(super) async fn source_item(&self, id: &str) -> Result<Option<Item>, StoreError> {
        Ok(self.table.get(source_key(id)).await?)
    }

    pub async fn source(&self, id: &str) -> Result<Option<Source>, StoreError> {
        match self.source_item(id).await? {
            Some(item) => Ok(Some(to_source(self.table.name(), &item)?)),
            None => Ok(None),
        }
    }

    /// The source with its fetch bookkeeping (for the feed worker).
    pub async fn source_for_fetch(
        &self,
        id: &str,
    ) -> Result<Option<(Source, FetchState)>, StoreError> {
        let table = self.table.name();
        match self.source_item(id).await? {
            Some(item) => Ok(Some((
                to_source(table, &item)?,
                to_fetch_state(table, &item)?,
            ))),
            None => Ok(None),
        }
    }

    /// Every source, oldest first.
    pub async fn sources(&self) -> Result<Vec<Source>, StoreError> {
        let table = self.table.name();
        self.list(SOURCES)
            .await?
            .iter()
            .map(|item| Ok(to_source(table, item)?))
            .collect()
    }

    /// Every source with its fetch state (for the scheduler).
    pub async fn sources_for_fetch(&self) -> Result<Vec<(Source, FetchState)>, StoreError> {
        let table = self.table.name();
        self.list(SOURCES)
            .await?
            .iter()
            .map(|item| Ok((to_source(table, item)?, to_fetch_state(table, item)?)))
            .collect()
    }

    /// Records a fetch attempt's outcome on the source: its validators, failure count and next
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
            .client()
            .update_item()
            .table_name(self.table.name())
            .set_key(Some(source_key(source_id)))
            .update_expression(expression)
            .condition_expression("attribute_exists(pk)")
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
