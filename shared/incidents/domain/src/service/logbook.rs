//! The logbook: entries listed, read, written by their authors (or an admin) and deleted.

use platform::cursor::encode_cursor;
use platform::Invalid;

use super::{Actor, Incidents, IncidentsError};
use crate::input::LogbookInput;
use crate::model::LogbookEntry;
use crate::store::{Store, StoreError};

impl Incidents {
    async fn check_incident(&self, incident: Option<&str>) -> Result<(), IncidentsError> {
        if let Some(id) = incident {
            let opened = self
                .store
                .incident_item(id)
                .await?
                .as_ref()
                .and_then(Store::status_of)
                .is_some();
            if !opened {
                return Err(Invalid::field("incidentId", "no such incident").into());
            }
        }
        Ok(())
    }

    /// Logbook entries (of one incident, or all), newest first, below the index key `after`
    /// when given: at most `limit`, and the next page's cursor.
    pub async fn entries(
        &self,
        incident: Option<&str>,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<LogbookEntry>, Option<String>), IncidentsError> {
        let (entries, next) = self.store.entries(incident, limit, after).await?;
        Ok((entries, next.as_deref().map(encode_cursor)))
    }

    pub async fn entry(&self, id: &str) -> Result<LogbookEntry, IncidentsError> {
        self.store
            .entry(id)
            .await?
            .ok_or(IncidentsError::NotFound("Logbook entry"))
    }

    pub async fn create_entry(
        &self,
        input: LogbookInput,
        by: &Actor,
    ) -> Result<LogbookEntry, IncidentsError> {
        self.check_incident(input.incident_id.as_deref()).await?;
        let now = self.now();
        let entry = LogbookEntry {
            id: uuid::Uuid::new_v4().to_string(),
            kind: input.kind,
            title: input.title,
            body: input.body,
            incident_id: input.incident_id,
            author: by.username.clone(),
            author_id: by.id.clone(),
            created_at: now.clone(),
            updated_at: now,
            version: 1,
        };
        self.store
            .create_entry(&entry)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Logbook entry"))?;
        Ok(entry)
    }

    fn may_change(entry: &LogbookEntry, by: &Actor) -> Result<(), IncidentsError> {
        if entry.author_id == by.id || by.admin {
            Ok(())
        } else {
            Err(IncidentsError::Forbidden(
                "Only the author or an admin may change this entry",
            ))
        }
    }

    /// Replaces entry `id` as its author (or an admin), only while it is at the version
    /// `read` that the editor saw: an edit made on an older copy is [`IncidentsError::Stale`].
    pub async fn replace_entry(
        &self,
        id: &str,
        input: LogbookInput,
        read: i64,
        by: &Actor,
    ) -> Result<LogbookEntry, IncidentsError> {
        let existing = self.entry(id).await?;
        Self::may_change(&existing, by)?;
        if existing.version != read {
            return Err(IncidentsError::Stale {
                sent: read,
                current: existing.version,
            });
        }
        self.check_incident(input.incident_id.as_deref()).await?;
        let entry = LogbookEntry {
            kind: input.kind,
            title: input.title,
            body: input.body,
            incident_id: input.incident_id,
            updated_at: self.now(),
            version: read.saturating_add(1),
            ..existing
        };
        match self.store.replace_entry(&entry, read).await {
            Ok(()) => Ok(entry),
            // Edited (or deleted) between the read and the write.
            Err(StoreError::Changed) => match self.store.entry(id).await? {
                Some(now) => Err(IncidentsError::Stale {
                    sent: read,
                    current: now.version,
                }),
                None => Err(IncidentsError::NotFound("Logbook entry")),
            },
            Err(e) => Err(IncidentsError::from_store(e, "Logbook entry")),
        }
    }

    pub async fn delete_entry(&self, id: &str, by: &Actor) -> Result<(), IncidentsError> {
        let existing = self.entry(id).await?;
        Self::may_change(&existing, by)?;
        self.store
            .delete_entry(id)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Logbook entry"))
    }
}
