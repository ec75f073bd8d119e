//! The logbook: entries written, replaced by version, listed (all, or one incident's) and
//! deleted.

use super::{Store, StoreError, META};
use crate::model::{LogbookEntry, LogbookKind};
use platform::dynamo::{is_condition_failed, key, n, s, Attributes, DynamoError, Item};

const LOGBOOK_PK: &str = "LOGBOOK";
/// The most logbook entries one page of an incident's entries reads (a filter of the logbook).
pub const LOGBOOK_FILTER_READS: usize = 500;

impl Store {
    /// Writes a new `entry` (version 1); [`StoreError::Changed`] when its id is in use.
    pub async fn create_entry(&self, entry: &LogbookEntry) -> Result<(), StoreError> {
        match self
            .table
            .put_item()
            .set_item(Some(Self::entry_item(entry)))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::Changed),
            Err(e) => Err(self.table.fail("PutItem", &e).into()),
        }
    }

    /// Replaces the entry with `entry` (whose version is one more than `read`) only while it
    /// is still at version `read`; [`StoreError::Changed`] when it moved on or went.
    pub async fn replace_entry(&self, entry: &LogbookEntry, read: i64) -> Result<(), StoreError> {
        // Entries written before versions existed are at version 1.
        let condition = if read == 1 {
            "attribute_exists(pk) AND (attribute_not_exists(version) OR version = :read)"
        } else {
            "attribute_exists(pk) AND version = :read"
        };
        match self
            .table
            .put_item()
            .set_item(Some(Self::entry_item(entry)))
            .condition_expression(condition)
            .expression_attribute_values(":read", n(read))
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::Changed),
            Err(e) => Err(self.table.fail("PutItem", &e).into()),
        }
    }

    fn entry_item(entry: &LogbookEntry) -> Item {
        let mut item = key(format!("LB#{}", entry.id), META);
        item.insert("gsi1pk".into(), s(LOGBOOK_PK));
        item.insert(
            "gsi1sk".into(),
            s(format!("{}#{}", entry.created_at, entry.id)),
        );
        item.insert("id".into(), s(entry.id.as_str()));
        item.insert("kind".into(), s(entry.kind.as_str()));
        item.insert("title".into(), s(entry.title.as_str()));
        item.insert("body".into(), s(entry.body.as_str()));
        if let Some(incident) = &entry.incident_id {
            item.insert("incidentId".into(), s(incident.as_str()));
        }
        item.insert("author".into(), s(entry.author.as_str()));
        item.insert("authorId".into(), s(entry.author_id.as_str()));
        item.insert("createdAt".into(), s(entry.created_at.as_str()));
        item.insert("updatedAt".into(), s(entry.updated_at.as_str()));
        item.insert("version".into(), n(entry.version));
        item
    }

    pub async fn entry(&self, id: &str) -> Result<Option<LogbookEntry>, DynamoError> {
        self.table
            .get(key(format!("LB#{id}"), META))
            .await?
            .map(|i| self.entry_from(&i))
            .transpose()
    }

    fn entry_from(&self, item: &Item) -> Result<LogbookEntry, DynamoError> {
        let t = self.table.name();
        let kind = item.string(t, "kind")?;
        Ok(LogbookEntry {
            id: item.string(t, "id")?,
            kind: LogbookKind::parse(&kind).ok_or_else(|| self.corrupt(format!("kind {kind}")))?,
            title: item.string(t, "title")?,
            body: item.string(t, "body")?,
            incident_id: item.opt_string("incidentId"),
            author: item.string(t, "author")?,
            author_id: item.string(t, "authorId")?,
            created_at: item.string(t, "createdAt")?,
            updated_at: item.string(t, "updatedAt")?,
            version: match item.get("version") {
                Some(_) => item.int(t, "version")?,
                None => 1,
            },
        })
    }

    /// Logbook entries, newest first, below the index key `after` when given: at most
    /// `limit`, and the index key to go on below when more may follow. Entries of one incident
    /// are a filter over the whole logbook, so a page reads at most [`LOGBOOK_FILTER_READS`]
    /// entries and may hold fewer than `limit` and still have a next.
    pub async fn entries(
        &self,
        incident_id: Option<&str>,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<LogbookEntry>, Option<String>), DynamoError> {
        let t = self.table.name();
        let (items, next) = match incident_id {
            None => {
                let (items, more) = self.by_status(LOGBOOK_PK, limit, after).await?;
                let next = match items.last() {
                    Some(last) if more => Some(last.string(t, "gsi1sk")?),
                    _ => None,
                };
                (items, next)
            }
            Some(incident_id) => self.incident_entries(incident_id, limit, after).await?,
        };
        let entries = items
            .iter()
            .map(|i| self.entry_from(i))
            .collect::<Result<_, _>>();
        Ok((entries?, next))
    }

    /// The logbook rows of one incident below `after`: at most `limit` of at most
    /// [`LOGBOOK_FILTER_READS`] rows read, and where to go on when more may follow.
    async fn incident_entries(
        &self,
        incident_id: &str,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<Item>, Option<String>), DynamoError> {
        let t = self.table.name();
        let query = self
            .gsi1_below(LOGBOOK_PK, after)
            .filter_expression("incidentId = :inc")
            .expression_attribute_values(":inc", s(incident_id));
        let mut items: Vec<Item> = Vec::new();
        let mut start: Option<Item> = None;
        let mut read = 0;
        loop {
            let budget = LOGBOOK_FILTER_READS.saturating_sub(read).max(1);
            let out = query
                .clone()
                .limit(i32::try_from(budget).unwrap_or(i32::MAX))
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| self.table.fail("Query", &e))?;
            read += usize::try_from(out.scanned_count).unwrap_or(0);
            items.extend(out.items.unwrap_or_default());
            if items.len() > limit {
                items.truncate(limit);
                let next = items.last().map(|l| l.string(t, "gsi1sk")).transpose()?;
                return Ok((items, next));
            }
            match out.last_evaluated_key.filter(|k| !k.is_empty()) {
                Some(key) if read < LOGBOOK_FILTER_READS => start = Some(key),
                // The read budget spent: go on below the last entry read.
                Some(key) => return Ok((items, Some(key.string(t, "gsi1sk")?))),
                None => return Ok((items, None)),
            }
        }
    }

    pub async fn delete_entry(&self, id: &str) -> Result<(), StoreError> {
        match self
            .table
            .delete_item()
            .set_key(Some(key(format!("LB#{id}"), META)))
            .condition_expression("attribute_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::NotFound),
            Err(e) => Err(self.table.fail("DeleteItem", &e).into()),
        }
    }
}
