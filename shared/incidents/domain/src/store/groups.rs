//! A batch's groups (`crate::groups`) in the table: each fingerprint's share of a batch
//! is written as one incident count, a window row and a few samples, never a row per log.
//!
//! | Item | pk | sk | what |
//! |---|---|---|---|
//! | incident count | `INC#{id}#COUNT` | `COUNT` | `occurrences` (exact), `batches`, `firstSeen`, `lastSeen`: one transactional update per fingerprint per batch, in an item no index copies |
//! | window row | `INC#{id}#WIN` | `{newest log millis}#{batch}` | the batch's log times (milliseconds) by severity, the latest [`WINDOW_TIMES`] of each: what a rule's threshold is counted from |
//! | sample | `INC#{id}#F{slot}` / `INC#{id}#L{slot}` | `SAMPLE` | the first [`FIRST_SAMPLES`] grouped logs, and the newest log of each of the latest [`LATEST_SAMPLES`] batches |
//! | grouped marker | `GROUPED#{message}` | `{incidentId}` | a message's logs were counted into this incident (`expiresAt`) |
//!
//! **Exactly once.** A message is the unit SQS redelivers, in any batch: the count's
//! transaction carries a conditional put of each contributing message's marker, so a message
//! grouped before makes its marker fail; the transaction is then built again without it. The
//! markers live in the message's partition, so the incident's takes one write per batch.
//!
//! **Why the count has its own partition.** An incident's lifecycle (its `META`, indexed by
//! status, and its history) changes a few times in its life; its count changes with every
//! batch holding its logs. Kept apart, a count update never rewrites the index (`gsi1`
//! `INCIDENTS#ACTIVE`) nor contends with a status change, and a noisy incident's samples,
//! each in a partition of its own, never land on the count's.

use std::collections::{BTreeMap, HashMap};

use incidents_metrics::store::commit_uncounted;
use platform::dynamo::{
    key, n, s, AttributeValue, Attributes, DynamoError, Item, RetryPolicy, Transaction,
    MAX_TRANSACTION_ITEMS,
};

use super::{log_millis, Store, EXPIRES_AT};
use crate::groups::{Counted, Group, Part, FIRST_SAMPLES, LATEST_SAMPLES, WINDOW_TIMES};
use crate::model::{Log, Occurrence, Severity};

/// Messages one count transaction names (a marker each, beside the count and window row).
pub const MESSAGES_PER_TRANSACTION: usize = MAX_TRANSACTION_ITEMS - 2;
/// Window rows one threshold check reads at most, beyond the threshold itself.
const WINDOW_ROWS_SLACK: usize = 100;
/// Days a grouped marker is kept: longer than the ingest queue (4 days) and its DLQ (14
/// days from the first send) can hold a message.
pub const MARKER_TTL_DAYS: i64 = incidents_metrics::store::MARKER_TTL_DAYS;
/// Seconds a window row is kept beyond its newest log: the longest window a rule may have.
const WINDOW_ROW_SECONDS: i64 = crate::input::MAX_WINDOW_SECONDS;
const COUNT: &str = "COUNT";
const SAMPLE: &str = "SAMPLE";
const GROUPED_PK: &str = "GROUPED#";

fn count_pk(id: &str) -> String {
    format!("INC#{id}#COUNT")
}

fn window_pk(id: &str) -> String {
    format!("INC#{id}#WIN")
}

/// The key of sample `slot` of incident `id`: `F` for the first logs, `L` for the latest.
fn sample_key(id: &str, kind: char, slot: usize) -> Item {
    key(format!("INC#{id}#{kind}{slot:02}"), SAMPLE)
}

/// The key of incident `id`'s count.
pub fn count_key(id: &str) -> Item {
    key(count_pk(id), COUNT)
}

/// The keys of every sample incident `id` may have.
pub fn sample_keys(id: &str) -> Vec<Item> {
    (0..FIRST_SAMPLES)
        .map(|slot| sample_key(id, 'F', slot))
        .chain((0..LATEST_SAMPLES).map(|slot| sample_key(id, 'L', slot)))
        .collect()
}

fn severity_attribute(severity: Severity) -> String {
    format!("t{}", severity.as_str())
}

impl Store {
    /// Incident `id`'s `META` and count items, read consistently (in parallel).
    pub async fn incident_state(
        &self,
        id: &str,
    ) -> Result<(Option<Item>, Option<Item>), DynamoError> {
        futures::try_join!(self.incident_item(id), self.table().get(count_key(id)))
    }

    /// Writes incident `id`'s `META` (unopened: no status, no index keys) from its first
    /// grouped log, unless it exists.
    pub async fn create_incident(
        &self,
        group: &Group<'_>,
        first: &Log,
        now: &str,
    ) -> Result<(), DynamoError> {
        let mut item = key(format!("INC#{}", group.incident_id), "META");
        item.insert("id".into(), s(group.incident_id.as_str()));
        item.insert("fingerprint".into(), s(group.fingerprint.as_str()));
        item.insert("serviceName".into(), s(first.service_name.as_str()));
        item.insert("type".into(), s(first.log_type.as_str()));
        item.insert("normalizedMessage".into(), s(group.normalized.as_str()));
        item.insert("groupedBy".into(), s(group.grouped_by));
        item.insert("sampleMessage".into(), s(first.log_content.as_str()));
        item.insert("updatedAt".into(), s(now));
        match self
            .table()
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table().fail("PutItem", &e)),
        }
    }

    /// Counts `parts` (one fingerprint's logs, by message) into incident `id`: one
    /// transaction of the count update, a marker per message and, with `window`, the window
    /// row of the logs counted. A message counted before is left out (its marker fails; the
    /// transaction is built again without it). Returns what this call counted.
    pub async fn count_group(
        &self,
        id: &str,
        parts: &[Part<'_>],
        window: bool,
        now: &str,
    ) -> Result<Counted, DynamoError> {
        let mut counted = Counted::default();
        for chunk in parts.chunks(MESSAGES_PER_TRANSACTION) {
            let committed = commit_uncounted(
                chunk.iter().collect(),
                |pending| self.count_transaction(id, pending, window, now),
                || DynamoError::Conflict {
                    table: self.table().name().to_string(),
                    attempts: RetryPolicy::CONFLICTS.attempts,
                },
            )
            .await?;
            counted
                .messages
                .extend(committed.iter().map(|p| p.message.clone()));
            counted.logs += committed.iter().map(|p| p.logs.len()).sum::<usize>();
        }
        Ok(counted)
    }

    fn count_transaction(
        &self,
        id: &str,
        parts: &[&Part],
        window: bool,
        now: &str,
    ) -> Result<Transaction, DynamoError> {
        let mut tx = Transaction::new(self.table());
        let marker_expiry = chrono::Utc::now().timestamp() + MARKER_TTL_DAYS * 86_400;
        // The markers first: a failed condition's index is the message's.
        for part in parts {
            let mut marker = key(format!("{GROUPED_PK}{}", part.message), id);
            marker.insert(EXPIRES_AT.into(), n(marker_expiry));
            tx.put(marker, Some("attribute_not_exists(pk)"))?;
        }
        let mut logs: Vec<&Log> = parts.iter().flat_map(|p| p.logs.clone()).collect();
        logs.sort_by(|a, b| a.id.cmp(&b.id));
        let (Some(first), Some(last)) = (logs.first(), logs.last()) else {
            return Ok(tx);
        };
        let occurrences = i64::try_from(logs.len()).unwrap_or(i64::MAX);
        let update = tx
            .update_builder(count_key(id))
            .update_expression(
                "SET firstSeen = if_not_exists(firstSeen, :first), lastSeen = :last, \
                 updatedAt = :now ADD occurrences :n, batches :one",
            )
            .expression_attribute_values(":first", s(first.timestamp.as_str()))
            .expression_attribute_values(":last", s(last.timestamp.as_str()))
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":n", n(occurrences))
            .expression_attribute_values(":one", n(1));
        tx.update(update)?;
        if window {
            let newest = log_millis(&last.id).unwrap_or(0);
            let batch =
                incidents_metrics::store::batch_key(parts.iter().map(|p| p.message.as_str()));
            let mut row = key(window_pk(id), format!("{newest:013}#{batch}"));
            let mut times: BTreeMap<Severity, Vec<i64>> = BTreeMap::new();
            for log in logs.iter().rev() {
                let slot = times.entry(log.severity).or_default();
                if slot.len() < WINDOW_TIMES {
                    slot.push(log_millis(&log.id).unwrap_or(0));
                }
            }
            for (severity, millis) in times {
                row.insert(
                    severity_attribute(severity),
                    AttributeValue::L(millis.into_iter().map(n).collect()),
                );
            }
            row.insert(
                EXPIRES_AT.into(),
                n(newest.div_euclid(1000) + WINDOW_ROW_SECONDS + 86_400),
            );
            tx.put(row, None)?;
        }
        Ok(tx)
    }

    /// Keeps samples of logs just counted into incident `id`, whose count (read before) held
    /// `before` logs of `batches` batches: the first logs while fewer than [`FIRST_SAMPLES`]
    /// were grouped, and the batch's newest in the ring of the latest batches.
    pub async fn put_samples(
        &self,
        id: &str,
        logs: &[&Log],
        rule_ids: &HashMap<String, Vec<String>>,
        before: i64,
        batches: i64,
    ) -> Result<(), DynamoError> {
        let before = usize::try_from(before.max(0)).unwrap_or(usize::MAX);
        let batches = usize::try_from(batches.max(0)).unwrap_or(0);
        let mut writes = Vec::new();
        for (i, log) in logs.iter().enumerate() {
            let slot = before.saturating_add(i);
            if slot >= FIRST_SAMPLES {
                break;
            }
            // A slot is taken once: a concurrent batch that read the same count loses.
            writes.push((self.sample_item(id, 'F', slot, log, rule_ids), true));
        }
        if let Some(newest) = logs.last() {
            let slot = batches % LATEST_SAMPLES;
            writes.push((self.sample_item(id, 'L', slot, newest, rule_ids), false));
        }
        let puts = writes.into_iter().map(|(item, once)| {
            let mut put = self.table().put_item().set_item(Some(item));
            if once {
                put = put.condition_expression("attribute_not_exists(pk)");
            }
            async move {
                match put.send().await {
                    Ok(_) => Ok(()),
                    Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(()),
                    Err(e) => Err(self.table().fail("PutItem", &e)),
                }
            }
        });
        futures::future::try_join_all(puts).await.map(|_| ())
    }

    fn sample_item(
        &self,
        id: &str,
        kind: char,
        slot: usize,
        log: &Log,
        rule_ids: &HashMap<String, Vec<String>>,
    ) -> Item {
        let mut row = sample_key(id, kind, slot);
        row.insert("logId".into(), s(log.id.as_str()));
        row.insert("timestamp".into(), s(log.timestamp.as_str()));
        row.insert("severity".into(), s(log.severity.as_str()));
        row.insert("logContent".into(), s(log.log_content.as_str()));
        row.insert(
            "ruleIds".into(),
            AttributeValue::L(
                rule_ids
                    .get(&log.id)
                    .into_iter()
                    .flatten()
                    .map(|r| s(r.as_str()))
                    .collect(),
            ),
        );
        if !log.attributes.is_empty() {
            row.insert(
                "attributes".into(),
                AttributeValue::M(
                    log.attributes
                        .iter()
                        .map(|(name, value)| (name.clone(), s(value.as_str())))
                        .collect(),
                ),
            );
        }
        if let Some(trace_id) = &log.trace_id {
            row.insert("traceId".into(), s(trace_id.as_str()));
        }
        if let Some(span_id) = &log.span_id {
            row.insert("spanId".into(), s(span_id.as_str()));
        }
        if let Some(at) = log_millis(&log.id).and_then(|millis| self.expires_at(millis)) {
            row.insert(EXPIRES_AT.into(), n(at));
        }
        row
    }

    /// Incident `id`'s samples, newest first (each log once).
    pub async fn samples(&self, id: &str) -> Result<Vec<Occurrence>, DynamoError> {
        let t = self.table().name().to_string();
        let mut out: Vec<Occurrence> = Vec::new();
        for row in self.table().batch_get_all(sample_keys(id), None).await? {
            let severity = row.string(&t, "severity")?;
            out.push(Occurrence {
                log_id: row.string(&t, "logId")?,
                timestamp: row.string(&t, "timestamp")?,
                severity: Severity::parse(&severity)
                    .ok_or_else(|| self.table().corrupt(format!("severity {severity}")))?,
                log_content: row.string(&t, "logContent")?,
                rule_ids: row.strings(&t, "ruleIds")?,
                attributes: match row.get("attributes") {
                    Some(AttributeValue::M(map)) => map
                        .iter()
                        .filter_map(|(name, value)| match value {
                            AttributeValue::S(v) => Some((name.clone(), v.clone())),
                            _ => None,
                        })
                        .collect(),
                    _ => Default::default(),
                },
                trace_id: row.opt_string("traceId"),
                span_id: row.opt_string("spanId"),
            });
        }
        out.sort_by(|a, b| b.log_id.cmp(&a.log_id));
        out.dedup_by(|a, b| a.log_id == b.log_id);
        Ok(out)
    }

    /// The count items of incidents `ids`, by incident id (one BatchGetItem per 100).
    pub async fn counts(&self, ids: &[String]) -> Result<HashMap<String, Item>, DynamoError> {
        let items = self
            .table()
            .batch_get_all(ids.iter().map(|id| count_key(id)).collect(), None)
            .await?;
        Ok(items
            .into_iter()
            .filter_map(|item| {
                let pk = item.opt_string("pk")?;
                let id = pk.strip_prefix("INC#")?.strip_suffix("#COUNT")?.to_string();
                Some((id, item))
            })
            .collect())
    }

    /// Which of the alerts `ids` were raised (one BatchGetItem per 100, eventually
    /// consistent: an alert missed here is refused by its own conditional put).
    pub async fn alerts_raised(
        &self,
        ids: &[String],
    ) -> Result<std::collections::HashSet<String>, DynamoError> {
        let keys = ids
            .iter()
            .map(|id| key(format!("ALERT#{id}"), "META"))
            .collect();
        Ok(self
            .table()
            .batch_get_all(keys, Some("id"))
            .await?
            .iter()
            .filter_map(|item| item.opt_string("id"))
            .collect())
    }

    /// Logs grouped into incident `id` between two times (milliseconds, inclusive) with one
    /// of `severities`, counted up to `limit`, from the window rows (newest first, strongly
    /// consistent, at most `limit` + a slack of rows).
    pub async fn count_window(
        &self,
        id: &str,
        severities: &[Severity],
        from: i64,
        to: i64,
        limit: usize,
    ) -> Result<usize, DynamoError> {
        let query = self
            .table()
            .query()
            .key_condition_expression("pk = :pk AND sk >= :lo")
            .consistent_read(true)
            .scan_index_forward(false)
            .expression_attribute_values(":pk", s(window_pk(id)))
            .expression_attribute_values(":lo", s(format!("{:013}", from.max(0))));
        let rows = self
            .table()
            .query_all(query, Some(limit.saturating_add(WINDOW_ROWS_SLACK)))
            .await?;
        let mut count = 0;
        for row in rows {
            for severity in severities {
                if let Some(AttributeValue::L(times)) = row.get(&severity_attribute(*severity)) {
                    count += times
                        .iter()
                        .filter_map(|t| match t {
                            AttributeValue::N(v) => v.parse::<i64>().ok(),
                            _ => None,
                        })
                        .filter(|t| (from..=to).contains(t))
                        .count();
                }
            }
            if count >= limit {
                return Ok(limit);
            }
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_row_keeps_as_many_times_as_a_threshold_can_ask() {
        assert_eq!(
            i64::try_from(WINDOW_TIMES).unwrap(),
            crate::input::MAX_THRESHOLD
        );
    }

    #[test]
    fn samples_have_a_bounded_number_of_slots() {
        let keys = sample_keys("abc");
        assert_eq!(keys.len(), FIRST_SAMPLES + LATEST_SAMPLES);
        assert_eq!(keys[0].get("pk"), Some(&s("INC#abc#F00")));
        assert_eq!(keys[FIRST_SAMPLES].get("pk"), Some(&s("INC#abc#L00")));
    }
}
