//! Ingestion and the timeline: a batch's logs stored and counted, pages of the timeline,
//! and logs deleted (one, or a filter's, step by step).

use std::collections::HashSet;

use incidents_metrics::store::batch_key;
use text_analysis::redact::redact;

use super::{Incidents, IncidentsError};
use crate::fingerprint::stable_id;
use crate::input::{format_time, LogFilter, LogInput, LogPageRequest};
use crate::model::Log;
use crate::objects::prefixes_of;
use crate::store::StoreError;

/// Logs one purge step deletes.
pub const PURGE_STEP: usize = 500;

impl Incidents {
    /// One page of the timeline, newest first, and the cursor of the next page: the logs in
    /// S3 merged with the rows stored in the table before logs moved to S3 (read until their
    /// TTL removes them; no log is in both). Each source answers every log at or above its
    /// own next position, so the merged page is exact down to the higher of the two.
    pub async fn timeline(
        &self,
        page: &LogPageRequest,
    ) -> Result<(Vec<Log>, Option<String>), IncidentsError> {
        let Some((lo, hi)) = crate::store::page_bounds(page) else {
            return Ok((Vec::new(), None));
        };
        let (rows, objects) = futures::join!(
            self.store.timeline(page),
            self.objects.page(&page.filter, &lo, &hi, page.limit)
        );
        let (rows, rows_next) = rows?;
        let (logs, logs_next, _) = objects?;
        let floor = rows_next.clone().max(logs_next.clone());
        let mut merged: Vec<Log> = rows
            .into_iter()
            .chain(logs)
            .filter(|l| floor.as_deref().is_none_or(|f| l.id.as_str() >= f))
            .collect();
        merged.sort_by(|a, b| b.id.cmp(&a.id));
        merged.dedup_by(|a, b| a.id == b.id);
        merged.truncate(page.limit);
        let next = if merged.len() >= page.limit {
            merged.last().map(|l| l.id.clone())
        } else {
            floor
        };
        Ok((merged, next))
    }

    /// Deletes one log, wherever it is: its table row (stored before logs moved to S3) or the
    /// objects holding it, rewritten without it.
    pub async fn delete_log(&self, id: &str) -> Result<(), IncidentsError> {
        // Noted first: a redelivery that stores the log again after this skips it.
        self.store.note_deleted(&[id.to_string()]).await?;
        match self.store.delete_log(id).await {
            Ok(()) => return Ok(()),
            Err(StoreError::NotFound) => {}
            Err(e) => return Err(IncidentsError::from_store(e, "Log")),
        }
        // Found in its bucket first: its type (which names its index) is in the log only.
        let Some(log) = self.objects.find(id).await? else {
            return Err(IncidentsError::NotFound("Log"));
        };
        self.objects
            .remove(&prefixes_of(&log), &[id.to_string()])
            .await?;
        Ok(())
    }

    /// Deletes one step of logs matching `filter` below `cursor` (their rows, and from the
    /// objects of their services' buckets and their indexes); the cursor of the next
    /// step, if any remain.
    pub async fn purge_step(
        &self,
        filter: &LogFilter,
        cursor: Option<String>,
    ) -> Result<Option<String>, IncidentsError> {
        let page = LogPageRequest {
            filter: filter.clone(),
            limit: PURGE_STEP,
            cursor,
        };
        let (logs, next) = self.timeline(&page).await?;
        let ids: Vec<String> = logs.iter().map(|l| l.id.clone()).collect();
        self.store.note_deleted(&ids).await?;
        self.store.delete_logs(&ids).await?;
        let mut by_prefix: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for log in logs {
            for prefix in prefixes_of(&log) {
                by_prefix.entry(prefix).or_default().push(log.id.clone());
            }
        }
        for (prefix, ids) in by_prefix {
            self.objects.remove(&[prefix], &ids).await?;
        }
        Ok(next)
    }

    /// Stores a batch's logs in S3, one object per service bucket and minute (a redelivered
    /// batch writes nothing twice); the objects written. `redelivered`: logs of messages SQS
    /// delivered before, which a deletion since may have removed: those noted deleted are
    /// not stored again.
    pub async fn store_logs(
        &self,
        logs: &[&Log],
        redelivered: &[&str],
    ) -> Result<usize, IncidentsError> {
        let deleted = if redelivered.is_empty() {
            HashSet::new()
        } else {
            self.store.deleted_among(redelivered).await?
        };
        let kept: Vec<&Log> = logs
            .iter()
            .copied()
            .filter(|l| !deleted.contains(&l.id))
            .collect();
        Ok(self.objects.put_batch(&kept).await?)
    }

    /// Counts the logs of a batch of messages in the metrics, each message once however
    /// often it is delivered, with one update per series for the batch
    /// (`Metrics::count_messages`). Returns the logs newly counted.
    pub async fn count_logs(&self, messages: &[&[Log]]) -> Result<u64, IncidentsError> {
        let counted: Vec<(String, Vec<(&str, &str)>)> = messages
            .iter()
            .map(|logs| {
                // Counted as stored: a log id given twice is one log.
                let mut seen = HashSet::new();
                let distinct: Vec<&Log> = logs.iter().filter(|l| seen.insert(&l.id)).collect();
                (
                    batch_key(distinct.iter().map(|l| l.id.as_str())),
                    distinct
                        .iter()
                        .map(|l| (l.service_name.as_str(), l.severity.as_str()))
                        .collect(),
                )
            })
            .collect();
        Ok(self.store.metrics().count_messages(&counted).await?)
    }
}

/// Gives each log its id (its time in milliseconds, then a random part) and `receivedAt`, and
/// scrubs its `logContent` with the analysis's redaction: the queue, the timeline, grouped
/// logs, incident samples and alert messages only ever hold the scrubbed text.
pub fn assign(inputs: Vec<LogInput>, received: chrono::DateTime<chrono::Utc>) -> Vec<Log> {
    let received = format_time(received);
    inputs
        .into_iter()
        .map(|input| Log {
            id: format!(
                "{:013}-{}",
                input.timestamp.timestamp_millis().max(0),
                match &input.event_key {
                    // The same event sent again is the same log.
                    Some(key) => stable_id(&[input.source.as_str(), &input.service_name, key]),
                    None => uuid::Uuid::new_v4().simple().to_string(),
                }
            ),
            service_name: input.service_name,
            log_type: input.log_type,
            severity: input.severity,
            log_content: redact(&input.log_content).text,
            timestamp: format_time(input.timestamp),
            received_at: received.clone(),
            fingerprint: input.fingerprint,
            attributes: input
                .attributes
                .into_iter()
                .map(|(name, value)| (name, redact(&value).text))
                .collect(),
            trace_id: input.trace_id,
            span_id: input.span_id,
            source: input.source,
            action: input.action,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assigned_logs_hold_no_secret() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-24T12:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let logs = assign(
            vec![LogInput {
                service_name: "db".into(),
                log_type: "APPLICATION_LOG".into(),
                severity: crate::model::Severity::Error,
                log_content: "login failed password=hunter2 via postgres://app:s3cret@db/orders"
                    .into(),
                timestamp: at,
                fingerprint: None,
                attributes: [(
                    "db.url".to_string(),
                    "postgres://app:s3cret@db/orders".to_string(),
                )]
                .into(),
                trace_id: None,
                span_id: None,
                source: Default::default(),
                action: Default::default(),
                event_key: None,
            }],
            at,
        );
        assert_eq!(
            logs[0].log_content,
            "login failed password=[REDACTED:password] via postgres://app:[REDACTED:password]@db/orders"
        );
        assert_eq!(
            logs[0].attributes["db.url"],
            "postgres://app:[REDACTED:password]@db/orders"
        );
        assert!(logs[0].id.starts_with("1795521600000-"), "{}", logs[0].id);
    }
}
