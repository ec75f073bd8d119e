//! Logs in the table (stored before they moved to S3): their keys, the timeline's pages over
//! them, and their deletion (with the tombstones that keep a redelivery from storing them again).

use super::{Store, StoreError, EXPIRES_AT};
use crate::input::{LogFilter, LogPageRequest};
use crate::model::{Log, Severity};
use chrono::{NaiveDateTime, TimeZone, Utc};
use platform::dynamo::{is_condition_failed, key, n, s, Attributes, DynamoError, Item};

/// Partitions each hour of logs (and each service's hour) is spread over: a log id's last
/// hex digit. A page reads an hour's shards in parallel.
pub const SHARDS: u32 = 16;
/// The shards logs were spread over before (the last hex digit modulo 4): a subset of
/// [`SHARDS`], so still read, and deleted by id under either key until they expire.
const LEGACY_SHARDS: u32 = 4;
/// Hours with logs one timeline page may walk (a page makes at most this many times
/// [`SHARDS`] Queries, 192); a page that reaches it ends early, with a cursor to go on from.
pub const MAX_HOURS_PER_PAGE: usize = 12;

const LOG_HOURS_PK: &str = "LOGHOURS";
const HOUR_FORMAT: &str = "%Y-%m-%dT%H";
/// The latest time a log id can spell (13 digits of milliseconds).
const MAX_MILLIS: i64 = 9_999_999_999_999;
/// Above every log id of a millisecond: `{millis}-~`.
const ID_CEILING: &str = "-~";

/// The UTC hour of `millis`, as the keys spell it.
pub fn hour_of(millis: i64) -> String {
    Utc.timestamp_millis_opt(millis)
        .single()
        .map(|t| t.format(HOUR_FORMAT).to_string())
        .unwrap_or_else(|| "1970-01-01T00".to_string())
}

fn hour_start_millis(hour: &str) -> Option<i64> {
    NaiveDateTime::parse_from_str(&format!("{hour}:00:00"), "%Y-%m-%dT%H:%M:%S")
        .ok()
        .map(|t| t.and_utc().timestamp_millis())
}

fn millis_of(position: &str) -> Option<i64> {
    position.get(..13).and_then(|m| m.parse().ok())
}

/// The shard of a log id: its last hex digit modulo [`SHARDS`].
pub fn shard_of(id: &str) -> u32 {
    id.chars().last().and_then(|c| c.to_digit(16)).unwrap_or(0) % SHARDS
}

/// The keys the log with `id` may have: its own, and the one it had before [`SHARDS`] grew
/// when that differs.
fn log_keys(id: &str) -> Vec<Item> {
    let hour = hour_of(millis_of(id).unwrap_or(0));
    let shard = shard_of(id);
    let legacy = shard % LEGACY_SHARDS;
    let mut keys = vec![key(log_pk(&hour, shard), id)];
    if legacy != shard {
        keys.push(key(log_pk(&hour, legacy), id));
    }
    keys
}

fn log_pk(hour: &str, shard: u32) -> String {
    format!("LOG#{hour}#{shard}")
}

fn deleted_pk(millis: i64) -> String {
    format!("LOGDEL#{}", millis.div_euclid(60_000))
}

fn service_pk(service: &str, hour: &str, shard: u32) -> String {
    format!("SVC#{service}#{hour}#{shard}")
}

/// The key of the log with `id` (a checked log id).
pub fn log_key(id: &str) -> Item {
    let hour = hour_of(millis_of(id).unwrap_or(0));
    key(log_pk(&hour, shard_of(id)), id)
}

impl Store {
    /// Notes that the logs with these ids were deleted (a `LOGDEL#{minute}` row each, kept as
    /// long as the log would have been), so a redelivered message does not store them again.
    pub async fn note_deleted(&self, ids: &[String]) -> Result<(), DynamoError> {
        let mut items = Vec::new();
        for id in ids {
            let millis = millis_of(id).ok_or_else(|| self.corrupt("log id"))?;
            let mut item = key(deleted_pk(millis), id.as_str());
            if let Some(at) = self.expires_at(millis) {
                item.insert(EXPIRES_AT.into(), n(at));
            }
            items.push(item);
        }
        match items.len() {
            // One deletion by id: PutItem, as the API function may.
            1 => self
                .table
                .put_item()
                .set_item(items.pop())
                .send()
                .await
                .map(|_| ())
                .map_err(|e| self.table.fail("PutItem", &e)),
            _ => self.table.put_all(items).await,
        }
    }

    /// The ids among `ids` noted deleted (one BatchGetItem per 100).
    pub async fn deleted_among(
        &self,
        ids: &[&str],
    ) -> Result<std::collections::HashSet<String>, DynamoError> {
        let keys: Vec<Item> = ids
            .iter()
            .filter_map(|id| millis_of(id).map(|m| key(deleted_pk(m), *id)))
            .collect();
        if keys.is_empty() {
            return Ok(Default::default());
        }
        Ok(self
            .table
            .batch_get_all(keys, Some("sk"))
            .await?
            .iter()
            .filter_map(|i| i.opt_string("sk"))
            .collect())
    }

    /// Deletes the logs with these ids (absent ones are no error).
    pub async fn delete_logs(&self, ids: &[String]) -> Result<(), DynamoError> {
        self.table
            .delete_all(ids.iter().flat_map(|id| log_keys(id)).collect())
            .await
    }

    /// Deletes one log; [`StoreError::NotFound`] when there is none.
    pub async fn delete_log(&self, id: &str) -> Result<(), StoreError> {
        for key in log_keys(id) {
            match self
                .table
                .delete_item()
                .set_key(Some(key))
                .condition_expression("attribute_exists(pk)")
                .send()
                .await
            {
                Ok(_) => return Ok(()),
                Err(e) if is_condition_failed(&e) => continue,
                Err(e) => return Err(self.table.fail("DeleteItem", &e).into()),
            }
        }
        Err(StoreError::NotFound)
    }

    /// One page of the timeline's table rows (logs stored before they moved to S3), newest
    /// first, and the cursor of the next page (absent when the timeline ends here).
    pub async fn timeline(
        &self,
        page: &LogPageRequest,
    ) -> Result<(Vec<Log>, Option<String>), DynamoError> {
        let Some((lo, hi)) = page_bounds(page) else {
            return Ok((Vec::new(), None));
        };
        let filter = &page.filter;
        let hi_hour = hour_of(millis_of(&hi).unwrap_or(0));
        let lo_hour = hour_of(millis_of(&lo).unwrap_or(0));
        let hours_query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
            .expression_attribute_values(":pk", s(LOG_HOURS_PK))
            .expression_attribute_values(":lo", s(lo_hour))
            .expression_attribute_values(":hi", s(hi_hour))
            .scan_index_forward(false);
        let hours: Vec<String> = self
            .table
            .query_all(hours_query, Some(MAX_HOURS_PER_PAGE + 1))
            .await?
            .iter()
            .filter_map(|i| i.opt_string("sk"))
            .collect();
        let mut out: Vec<Log> = Vec::new();
        for hour in hours.iter().take(MAX_HOURS_PER_PAGE) {
            let remaining = page.limit.saturating_sub(out.len());
            if remaining == 0 {
                break;
            }
            let mut found = Vec::new();
            let shards = futures::future::try_join_all(
                (0..SHARDS)
                    .map(|shard| self.shard_page(hour, shard, filter, &lo, &hi, remaining + 1)),
            )
            .await?;
            for item in shards.iter().flatten() {
                let log = self.log_from(item)?;
                if log.id != hi {
                    found.push(log);
                }
            }
            found.sort_by(|a, b| b.id.cmp(&a.id));
            found.truncate(remaining);
            out.extend(found);
        }
        let next = if out.len() >= page.limit {
            out.last().map(|l| l.id.clone())
        } else if hours.len() > MAX_HOURS_PER_PAGE {
            hours
                .get(MAX_HOURS_PER_PAGE - 1)
                .and_then(|h| hour_start_millis(h))
                .map(|m| format!("{m:013}"))
        } else {
            None
        };
        Ok((out, next))
    }

    async fn shard_page(
        &self,
        hour: &str,
        shard: u32,
        filter: &LogFilter,
        lo: &str,
        hi: &str,
        limit: usize,
    ) -> Result<Vec<Item>, DynamoError> {
        let mut query = self.table.query().scan_index_forward(false);
        query = match &filter.service_name {
            Some(service) => query
                .index_name("gsi1")
                .key_condition_expression("gsi1pk = :pk AND gsi1sk BETWEEN :lo AND :hi")
                .expression_attribute_values(":pk", s(service_pk(service, hour, shard))),
            None => query
                .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
                .expression_attribute_values(":pk", s(log_pk(hour, shard))),
        };
        query = query
            .expression_attribute_values(":lo", s(lo))
            .expression_attribute_values(":hi", s(hi));
        let mut conditions: Vec<String> = Vec::new();
        if let Some(severity) = filter.severity {
            conditions.push("severity = :sev".into());
            query = query.expression_attribute_values(":sev", s(severity.as_str()));
        }
        if let Some(log_type) = &filter.log_type {
            conditions.push("#type = :type".into());
            query = query
                .expression_attribute_names("#type", "type")
                .expression_attribute_values(":type", s(log_type.as_str()));
        }
        if let Some(text) = &filter.contains {
            // The table compares case-sensitively: these rows (older than the move to S3)
            // match the text as given, lowercased, uppercased or capitalised.
            let mut any = Vec::new();
            for (n, variant) in case_variants(text).into_iter().enumerate() {
                any.push(format!("contains(logContent, :text{n})"));
                query = query.expression_attribute_values(format!(":text{n}"), s(variant));
            }
            conditions.push(format!("({})", any.join(" OR ")));
        }
        if !conditions.is_empty() {
            query = query.filter_expression(conditions.join(" AND "));
        }
        self.table.query_all(query, Some(limit)).await
    }

    fn log_from(&self, item: &Item) -> Result<Log, DynamoError> {
        let t = self.table.name();
        let severity = item.string(t, "severity")?;
        Ok(Log {
            id: item.string(t, "id")?,
            service_name: item.string(t, "serviceName")?,
            log_type: item.string(t, "type")?,
            severity: Severity::parse(&severity)
                .ok_or_else(|| self.corrupt(format!("severity {severity}")))?,
            log_content: item.string(t, "logContent")?,
            timestamp: item.string(t, "timestamp")?,
            received_at: item.string(t, "receivedAt")?,
            fingerprint: item.opt_string("fingerprint"),
            // Rows older than attributes and trace ids hold none.
            attributes: Default::default(),
            trace_id: None,
            span_id: None,
            source: Default::default(),
            action: Default::default(),
        })
    }
}

/// `text` as given, lowercased, uppercased and capitalised, each once.
fn case_variants(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut chars = lower.chars();
    let capitalised: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    let mut variants = vec![
        text.to_string(),
        lower.clone(),
        text.to_uppercase(),
        capitalised,
    ];
    variants.sort();
    variants.dedup();
    variants
}

/// A timeline page's range: `lo` (13 digits of milliseconds, inclusive) and `hi` (a position,
/// exclusive), from its filter's bounds and its cursor; None when it is empty. Ids carry 13
/// digits of milliseconds (up to the year 2286): bounds past that are the end of time.
pub fn page_bounds(page: &LogPageRequest) -> Option<(String, String)> {
    let from = page.filter.from.map(|f| f.clamp(0, MAX_MILLIS));
    let to = page.filter.to.map(|t| t.clamp(0, MAX_MILLIS));
    let to_bound = format!("{:013}{ID_CEILING}", to.unwrap_or(MAX_MILLIS));
    let hi = match &page.cursor {
        Some(c) if *c < to_bound => c.clone(),
        _ => to_bound,
    };
    let lo = format!("{:013}", from.unwrap_or(0));
    (lo <= hi).then_some((lo, hi))
}

/// The time of a log id, for windows.
pub fn log_millis(id: &str) -> Option<i64> {
    millis_of(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_looked_for_in_its_usual_cases() {
        assert_eq!(
            case_variants("time Out"),
            ["TIME OUT", "Time out", "time Out", "time out"]
        );
        assert_eq!(case_variants("42"), ["42"]);
    }

    #[test]
    fn keys_follow_the_id() {
        let id = "1732486400000-5b0f3c1e00004000800000000000000b";
        assert_eq!(hour_of(1_732_486_400_000), "2024-11-24T22");
        assert_eq!(shard_of(id), 11);
        let k = log_key(id);
        assert_eq!(k.get("pk"), Some(&s("LOG#2024-11-24T22#11")));
        let keys = log_keys(id);
        assert_eq!(keys.len(), 2, "and the key it had among 4 shards");
        assert_eq!(keys[1].get("pk"), Some(&s("LOG#2024-11-24T22#3")));
        assert_eq!(
            log_keys("1732486400000-5b0f3c1e000040008000000000000002").len(),
            1
        );
        assert_eq!(hour_start_millis("2024-11-24T22"), Some(1_732_485_600_000));
    }
}
