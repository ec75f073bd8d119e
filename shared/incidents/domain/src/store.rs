//! The incidents table (`INCIDENTS_TABLE`): keys `pk`/`sk`, one index `gsi1` (`gsi1pk`/`gsi1sk`,
//! all attributes projected). Every access pattern is a GetItem, a Query or a conditional
//! write; nothing scans.
//!
//! | Item | pk | sk | gsi1pk / gsi1sk |
//! |---|---|---|---|
//! | log | `LOG#{hour}#{shard}` | `{id}` | `SVC#{service}#{hour}#{shard}` / `{id}` |
//! | hour with logs | `LOGHOURS` | `{hour}` | - |
//! | deleted log (tombstone) | `LOGDEL#{minute}` | `{id}` | - |
//! | alert rule | `RULES` | `{ruleId}` | - |
//! | rule count (the cap's) | `RULECOUNT` | `META` | - |
//! | incident | `INC#{id}` | `META` | `INCIDENTS#{status}` / `{openedAt}#{id}` (once opened) |
//! | incident count, window rows, samples, grouped markers | see [`crate::groups`] | | - |
//! | incident change | `INC#{id}` | `EVT#{at}#{n}` | - |
//! | alert | `ALERT#{id}` | `META` | `ALERTS#{status}` / `{raisedAt}#{id}` |
//! | logbook entry | `LB#{id}` | `META` | `LOGBOOK` / `{createdAt}#{id}` |
//! | ingest key (hashed; `crate::keys`) | `IKEY#{id}` | `META` | `INGESTKEYS` / `{createdAt}#{id}` |
//!
//! A log id is its time in milliseconds (13 digits), `-`, 32 hex digits, so ids sort by time
//! and name their own key: `{hour}` is the log's UTC hour (`2026-11-24T22`) and `{shard}` one
//! of [`SHARDS`] taken from the id's last hex digit. A burst of logs within one hour spreads
//! over [`SHARDS`] partitions of the table and of the index (per service), so no key is hot;
//! a reader merges the shards of each hour (newest first) and walks the hours that hold logs
//! (`LOGHOURS`, one row per hour, written once per hour by each processor instance), never
//! the empty ones.
//!
//! Retention: logs, the hours holding them and grouped-log samples carry `expiresAt` (epoch
//! seconds: the log's own time, or the hour's end, plus the retention, `LOG_RETENTION_DAYS`,
//! 30 by default), the table's TTL attribute, so DynamoDB deletes them without a write of
//! ours (within about two days of expiry) and the table stops growing with time; window rows
//! and grouped markers expire too (`crate::groups`). Incidents, their counts, history,
//! alerts, rules, the logbook and keys are kept.
//!
//! The platform's metrics live in their own table (`incidents_metrics`): the transactions here
//! that open, change or reopen an incident, or raise an alert, carry the metric updates that
//! count them, so a count commits with its change or not at all.

use crate::events::{self, Change, EventKind};
use crate::input::{LogFilter, LogPageRequest};
use crate::model::{
    Alert, AlertRule, AlertStatus, Incident, IncidentEvent, IncidentStatus, Log, LogbookEntry,
    LogbookKind, Occurrence, Severity,
};
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::types::builders::UpdateBuilder;
use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use incidents_metrics::Metrics;
use platform::dynamo::request::Update;
use platform::dynamo::{
    is_condition_failed, key, n, s, AttributeValue, Attributes, DynamoError, Item, RetryPolicy,
    Table, Transaction, TransactionError,
};

/// Partitions each hour of logs (and each service's hour) is spread over: a log id's last
/// hex digit. A page reads an hour's shards in parallel.
pub const SHARDS: u32 = 16;
/// The shards logs were spread over before (the last hex digit modulo 4): a subset of
/// [`SHARDS`], so still read, and deleted by id under either key until they expire.
const LEGACY_SHARDS: u32 = 4;
/// Hours with logs one timeline page may walk (a page makes at most this many times
/// [`SHARDS`] Queries, 192); a page that reaches it ends early, with a cursor to go on from.
pub const MAX_HOURS_PER_PAGE: usize = 12;
/// The changes an incident's detail shows.
pub const MAX_HISTORY: usize = 200;
/// Days logs are kept when `LOG_RETENTION_DAYS` is not set.
pub const DEFAULT_LOG_RETENTION_DAYS: i64 = 30;
/// The table's TTL attribute (template.yaml): epoch seconds.
pub(crate) const EXPIRES_AT: &str = "expiresAt";
/// The built-in rule's id.
pub const DEFAULT_RULE_ID: &str = "default";

const LOG_HOURS_PK: &str = "LOGHOURS";
const RULES_PK: &str = "RULES";
/// The rule count's item (`RULECOUNT`/`META`) and its attribute: the rules [`Store::rules`]
/// lists, kept by every create and delete in their transactions.
const RULE_COUNT_PK: &str = "RULECOUNT";
const RULE_COUNT: &str = "rules";
const META: &str = "META";
const LOGBOOK_PK: &str = "LOGBOOK";
/// The most logbook entries one page of an incident's entries reads (a filter of the logbook).
pub const LOGBOOK_FILTER_READS: usize = 500;

/// One page of a status's list: each row with its index key, and whether more follow.
pub struct Listed<T> {
    pub rows: Vec<(String, T)>,
    pub more: bool,
}
const HOUR_FORMAT: &str = "%Y-%m-%dT%H";
/// The latest time a log id can spell (13 digits of milliseconds).
const MAX_MILLIS: i64 = 9_999_999_999_999;
/// Above every log id of a millisecond: `{millis}-~`.
const ID_CEILING: &str = "-~";

/// The alerts raised on an incident since it last resolved (see [`Store::raised_alerts`]).
#[derive(Debug, Default, Clone)]
pub struct RaisedAlerts {
    /// How many were raised: the resolve requires the incident still lists that many.
    pub raised: usize,
    /// Those not RESOLVED yet, with the status read.
    pub unresolved: Vec<(String, AlertStatus)>,
}

impl RaisedAlerts {
    /// The condition (` AND ...`) that the incident still lists the alerts read, and the
    /// value of its `:raised`: an alert raised since the read fails it, the caller reads again.
    pub(crate) fn unchanged(&self) -> (&'static str, Option<AttributeValue>) {
        if self.raised == 0 {
            (" AND attribute_not_exists(alertIds)", None)
        } else {
            (
                " AND size(alertIds) = :raised",
                Some(n(i64::try_from(self.raised).unwrap_or(i64::MAX))),
            )
        }
    }
}

/// A store error: the table's, or a failed condition the caller cares about.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
    #[error("not found")]
    NotFound,
    /// The item changed between the read and the write.
    #[error("changed concurrently")]
    Changed,
}

impl From<TransactionError> for StoreError {
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Dynamo(d) => Self::Dynamo(d),
            TransactionError::Condition { .. } => Self::Changed,
            TransactionError::Conflict => Self::Changed,
        }
    }
}

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

pub(crate) fn incident_pk(id: &str) -> String {
    format!("INC#{id}")
}

/// The incidents table, and the metrics its changes count in.
#[derive(Clone, Debug)]
pub struct Store {
    table: Table,
    metrics: Metrics,
    /// How long logs are kept, in seconds; `None`: for good.
    retention_seconds: Option<i64>,
}

impl Store {
    /// Over `table`, keeping logs [`DEFAULT_LOG_RETENTION_DAYS`].
    pub fn new(table: Table, metrics: Metrics) -> Self {
        Self {
            table,
            metrics,
            retention_seconds: Some(DEFAULT_LOG_RETENTION_DAYS * 86_400),
        }
    }

    /// Keeps logs `days` days (0: for good).
    pub fn with_log_retention_days(self, days: i64) -> Self {
        Self {
            retention_seconds: (days > 0).then(|| days.saturating_mul(86_400)),
            ..self
        }
    }

    /// When something of millisecond `millis` expires (epoch seconds), if it does.
    pub(crate) fn expires_at(&self, millis: i64) -> Option<i64> {
        self.retention_seconds
            .map(|keep| millis.div_euclid(1000).saturating_add(keep))
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    pub(crate) fn count_in(tx: &mut Transaction, updates: Vec<Update>) -> Result<(), DynamoError> {
        for update in updates {
            tx.update(update)?;
        }
        Ok(())
    }

    fn corrupt(&self, reason: impl Into<String>) -> DynamoError {
        self.table.corrupt(reason)
    }

    // ---- logs ------------------------------------------------------------------------

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
        })
    }

    // ---- rules -----------------------------------------------------------------------

    /// The built-in rule: every ERROR and FATAL log opens (or adds to) an incident.
    pub fn default_rule(at: &str) -> AlertRule {
        AlertRule {
            id: DEFAULT_RULE_ID.to_string(),
            name: "Errors and fatal errors".to_string(),
            severities: vec![Severity::Error, Severity::Fatal],
            service_name: None,
            log_type: None,
            threshold: 1,
            window_seconds: 60,
            enabled: true,
            escalate_after_minutes: None,
            created_at: at.to_string(),
            updated_at: at.to_string(),
        }
    }

    /// Every rule, the built-in one first unless it was deleted (one Query).
    pub async fn rules(&self) -> Result<Vec<AlertRule>, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(RULES_PK));
        let items = self.table.query_all(query, Some(1_000)).await?;
        let mut rules = Vec::new();
        let mut default_stored = false;
        for item in &items {
            if item.opt_string("sk").as_deref() == Some(DEFAULT_RULE_ID) {
                default_stored = true;
            }
            if item.opt_bool("deleted") == Some(true) {
                continue;
            }
            rules.push(self.rule_from(item)?);
        }
        if !default_stored {
            rules.insert(0, Self::default_rule("1970-01-01T00:00:00.000Z"));
        }
        rules.sort_by(|a, b| {
            (a.id != DEFAULT_RULE_ID, &a.created_at, &a.id).cmp(&(
                b.id != DEFAULT_RULE_ID,
                &b.created_at,
                &b.id,
            ))
        });
        Ok(rules)
    }

    fn rule_from(&self, item: &Item) -> Result<AlertRule, DynamoError> {
        let t = self.table.name();
        let severities = item
            .strings(t, "severities")?
            .iter()
            .map(|s| Severity::parse(s).ok_or_else(|| self.corrupt(format!("severity {s}"))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AlertRule {
            id: item.string(t, "sk")?,
            name: item.string(t, "name")?,
            severities,
            service_name: item.opt_string("serviceName"),
            log_type: item.opt_string("type"),
            threshold: item.int(t, "threshold")?,
            window_seconds: item.int(t, "windowSeconds")?,
            enabled: item.opt_bool("enabled").unwrap_or(true),
            escalate_after_minutes: item.opt_int(t, "escalateAfterMinutes")?,
            created_at: item.string(t, "createdAt")?,
            updated_at: item.string(t, "updatedAt")?,
        })
    }

    /// The stored item of `rule`.
    fn rule_item(rule: &AlertRule) -> Item {
        let mut item = key(RULES_PK, rule.id.as_str());
        item.insert("name".into(), s(rule.name.as_str()));
        item.insert(
            "severities".into(),
            AttributeValue::L(rule.severities.iter().map(|v| s(v.as_str())).collect()),
        );
        if let Some(v) = &rule.service_name {
            item.insert("serviceName".into(), s(v.as_str()));
        }
        if let Some(v) = &rule.log_type {
            item.insert("type".into(), s(v.as_str()));
        }
        item.insert("threshold".into(), n(rule.threshold));
        item.insert("windowSeconds".into(), n(rule.window_seconds));
        item.insert("enabled".into(), AttributeValue::Bool(rule.enabled));
        if let Some(after) = rule.escalate_after_minutes {
            item.insert("escalateAfterMinutes".into(), n(after));
        }
        item.insert("createdAt".into(), s(rule.created_at.as_str()));
        item.insert("updatedAt".into(), s(rule.updated_at.as_str()));
        item
    }

    /// Seeds the rule count (`RULECOUNT`) from the rules' one bounded Query when it is
    /// missing (a table from before the count): conditionally, so concurrent seeds agree.
    /// Creates and deletes require the count, so none moves the rules while it is missing.
    async fn ensure_rule_count(&self) -> Result<(), DynamoError> {
        if self.table.get(key(RULE_COUNT_PK, META)).await?.is_some() {
            return Ok(());
        }
        let rules = self.rules().await?.len();
        let mut item = key(RULE_COUNT_PK, META);
        item.insert(
            RULE_COUNT.into(),
            n(i64::try_from(rules).unwrap_or(i64::MAX)),
        );
        match self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// The update moving the rule count by `delta`: up only below `cap`.
    fn rule_count_move(tx: &Transaction, delta: i64, cap: Option<usize>) -> UpdateBuilder {
        let update = tx
            .update_builder(key(RULE_COUNT_PK, META))
            .update_expression("ADD #rules :delta")
            .expression_attribute_names("#rules", RULE_COUNT)
            .expression_attribute_values(":delta", n(delta));
        match cap {
            Some(cap) => update
                .condition_expression("#rules < :cap")
                .expression_attribute_values(":cap", n(i64::try_from(cap).unwrap_or(i64::MAX))),
            None => update.condition_expression("attribute_exists(#rules)"),
        }
    }

    /// Creates `rule` while fewer than `cap` rules exist: the rule count is checked and
    /// incremented in the rule's own transaction, so parallel creates cannot pass the cap.
    /// False (nothing written) at the cap.
    pub async fn create_rule(&self, rule: &AlertRule, cap: usize) -> Result<bool, StoreError> {
        self.ensure_rule_count().await?;
        let mut tx = Transaction::new(&self.table);
        let count = Self::rule_count_move(&tx, 1, Some(cap));
        tx.update(count)?;
        tx.put(Self::rule_item(rule), Some("attribute_not_exists(pk)"))?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(true),
            Err(e) if e.failed_at(0) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Replaces rule `rule.id`, unless it was deleted meanwhile ([`StoreError::NotFound`]):
    /// a replace never brings back a rule the count no longer holds.
    pub async fn replace_rule(&self, rule: &AlertRule) -> Result<(), StoreError> {
        let condition = if rule.id == DEFAULT_RULE_ID {
            "attribute_not_exists(deleted)"
        } else {
            "attribute_exists(pk)"
        };
        match self
            .table
            .put_item()
            .set_item(Some(Self::rule_item(rule)))
            .condition_expression(condition)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::NotFound),
            Err(e) => Err(self.table.fail("PutItem", &e).into()),
        }
    }

    /// Removes a rule and counts it out, in one transaction; the built-in one leaves a
    /// tombstone so it stays removed.
    pub async fn delete_rule(&self, id: &str) -> Result<(), StoreError> {
        self.ensure_rule_count().await?;
        let mut tx = Transaction::new(&self.table);
        if id == DEFAULT_RULE_ID {
            let mut item = key(RULES_PK, DEFAULT_RULE_ID);
            item.insert("deleted".into(), AttributeValue::Bool(true));
            tx.put(item, Some("attribute_not_exists(deleted)"))?;
        } else {
            tx.delete(key(RULES_PK, id), Some("attribute_exists(pk)"))?;
        }
        let count = Self::rule_count_move(&tx, -1, None);
        tx.update(count)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            Err(e) if e.failed_at(0) => Err(StoreError::NotFound),
            Err(e) => Err(e.into()),
        }
    }

    // ---- incidents -------------------------------------------------------------------

    /// The incident item of `id` (opened or not), read consistently.
    pub async fn incident_item(&self, id: &str) -> Result<Option<Item>, DynamoError> {
        self.table.get(key(incident_pk(id), META)).await
    }

    /// The status of an incident item; `None` while no rule has opened it.
    pub fn status_of(item: &Item) -> Option<IncidentStatus> {
        item.opt_string("status")
            .as_deref()
            .and_then(IncidentStatus::parse)
    }

    pub(crate) fn event_row(id: &str, event: &IncidentEvent) -> Item {
        let mut row = key(
            incident_pk(id),
            format!("EVT#{}#{}", event.at, uuid::Uuid::new_v4().simple()),
        );
        row.insert("at".into(), s(event.at.as_str()));
        if let Some(from) = event.from {
            row.insert("from".into(), s(from.as_str()));
        }
        row.insert("to".into(), s(event.to.as_str()));
        if let Some(note) = &event.note {
            row.insert("note".into(), s(note.as_str()));
        }
        if let Some(assignee) = &event.assignee {
            row.insert("assignee".into(), s(assignee.as_str()));
        }
        row.insert("by".into(), s(event.by.as_str()));
        row
    }

    fn system_event(now: &str, from: Option<IncidentStatus>, note: &str) -> IncidentEvent {
        IncidentEvent {
            at: now.to_string(),
            from,
            to: IncidentStatus::Active,
            note: Some(note.to_string()),
            assignee: None,
            by: "system".to_string(),
        }
    }

    /// The outbox row of an opening or a reopening; `escalate_after_minutes` is the rule's.
    fn opening_event(
        kind: EventKind,
        id: &str,
        now: &str,
        why: &str,
        severity: Severity,
        escalate_after_minutes: Option<i64>,
    ) -> Item {
        events::outbox_row(&Change {
            note: Some(why),
            severity: Some(severity.as_str()),
            escalate_after_minutes,
            ..Change::system(kind, id, now)
        })
    }

    /// Opens incident `id` (ACTIVE) unless it is open already; true when this call opened it.
    /// `severity` (of the log that opened it) routes its event; `escalate_after_minutes` (the
    /// rule's) goes with it to the notifier.
    pub async fn open_incident(
        &self,
        id: &str,
        now: &str,
        why: &str,
        severity: Severity,
        escalate_after_minutes: Option<i64>,
    ) -> Result<bool, DynamoError> {
        let mut tx = Transaction::new(&self.table);
        let update = tx
            .update_builder(key(incident_pk(id), META))
            .update_expression(
                "SET #status = :active, openedAt = :now, reopenCount = :zero, updatedAt = :now, \
                 gsi1pk = :gpk, gsi1sk = :gsk",
            )
            .condition_expression("attribute_exists(pk) AND attribute_not_exists(#status)")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":active", s(IncidentStatus::Active.as_str()))
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":zero", n(0))
            .expression_attribute_values(":gpk", s("INCIDENTS#ACTIVE"))
            .expression_attribute_values(":gsk", s(format!("{now}#{id}")));
        tx.update(update)?;
        tx.put(
            Self::event_row(id, &Self::system_event(now, None, why)),
            None,
        )?;
        Self::count_in(&mut tx, self.metrics.incident_opened(id, now))?;
        tx.put(
            Self::opening_event(
                EventKind::Opened,
                id,
                now,
                why,
                severity,
                escalate_after_minutes,
            ),
            None,
        )?;
        self.commit_conditional(tx).await
    }

    /// Reopens RESOLVED incident `id`; true when this call reopened it.
    pub async fn reopen_incident(
        &self,
        id: &str,
        now: &str,
        why: &str,
        severity: Severity,
        escalate_after_minutes: Option<i64>,
    ) -> Result<bool, DynamoError> {
        let mut tx = Transaction::new(&self.table);
        let update = tx
            .update_builder(key(incident_pk(id), META))
            .update_expression(
                "SET #status = :active, reopenedAt = :now, updatedAt = :now, gsi1pk = :gpk, \
                 gsi1sk = :gsk ADD reopenCount :one",
            )
            .condition_expression("#status = :resolved")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":active", s(IncidentStatus::Active.as_str()))
            .expression_attribute_values(":resolved", s(IncidentStatus::Resolved.as_str()))
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":gpk", s("INCIDENTS#ACTIVE"))
            .expression_attribute_values(":gsk", s(format!("{now}#{id}")));
        tx.update(update)?;
        tx.put(
            Self::event_row(
                id,
                &Self::system_event(now, Some(IncidentStatus::Resolved), why),
            ),
            None,
        )?;
        tx.put(
            Self::opening_event(
                EventKind::Reopened,
                id,
                now,
                why,
                severity,
                escalate_after_minutes,
            ),
            None,
        )?;
        Self::count_in(
            &mut tx,
            self.metrics.incident_moved(
                id,
                IncidentStatus::Resolved.as_str(),
                IncidentStatus::Active.as_str(),
                now,
                None,
            ),
        )?;
        self.commit_conditional(tx).await
    }

    async fn commit_conditional(&self, tx: Transaction) -> Result<bool, DynamoError> {
        match tx.commit_retrying().await {
            Ok(_) => Ok(true),
            Err(TransactionError::Condition { .. }) => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(TransactionError::Conflict) => Err(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: RetryPolicy::CONFLICTS.attempts,
            }),
        }
    }

    /// The incident of its `META` item and its count item (`crate::groups`); `None` unless
    /// opened. Counts from before the count had an item of its own (on `META`) are added.
    pub fn incident_from(
        &self,
        item: &Item,
        count: Option<&Item>,
    ) -> Result<Option<Incident>, DynamoError> {
        let t = self.table.name();
        let Some(status) = Self::status_of(item) else {
            return Ok(None);
        };
        let empty = Item::new();
        let count = count.unwrap_or(&empty);
        let earliest = [item.opt_string("firstSeen"), count.opt_string("firstSeen")]
            .into_iter()
            .flatten()
            .min();
        let latest = [item.opt_string("lastSeen"), count.opt_string("lastSeen")]
            .into_iter()
            .flatten()
            .max();
        Ok(Some(Incident {
            id: item.string(t, "id")?,
            status,
            fingerprint: item.string(t, "fingerprint")?,
            service_name: item.string(t, "serviceName")?,
            log_type: item.string(t, "type")?,
            normalized_message: item.string(t, "normalizedMessage")?,
            sample_message: item.string(t, "sampleMessage")?,
            grouped_by: item
                .opt_string("groupedBy")
                .unwrap_or_else(|| crate::fingerprint::GROUPED_BY.to_string()),
            occurrences: item
                .counter(t, "occurrences")?
                .saturating_add(count.counter(t, "occurrences")?),
            first_seen: earliest.ok_or_else(|| self.corrupt("firstSeen is missing"))?,
            last_seen: latest.ok_or_else(|| self.corrupt("lastSeen is missing"))?,
            opened_at: item.string(t, "openedAt")?,
            reopen_count: item.counter(t, "reopenCount")?,
            assignee: item.opt_string("assignee"),
            updated_at: item.string(t, "updatedAt")?,
            merged_into: item.opt_string("mergedInto"),
        }))
    }

    /// Opened incidents with `status`, newest (re)opened first, below the index key `after`
    /// when given, at most `limit`, each with its index key, and whether more follow: one
    /// Query of the index and one BatchGetItem of their counts.
    pub async fn incidents(
        &self,
        status: IncidentStatus,
        limit: usize,
        after: Option<&str>,
    ) -> Result<Listed<Incident>, DynamoError> {
        let (items, more) = self
            .by_status(&format!("INCIDENTS#{}", status.as_str()), limit, after)
            .await?;
        let ids: Vec<String> = items.iter().filter_map(|i| i.opt_string("id")).collect();
        let counts = self.counts(&ids).await?;
        let mut out = Vec::new();
        for item in &items {
            let count = item.opt_string("id").and_then(|id| counts.get(&id));
            if let Some(incident) = self.incident_from(item, count)? {
                out.push((item.string(self.table.name(), "gsi1sk")?, incident));
            }
        }
        Ok(Listed { rows: out, more })
    }

    /// At most `limit` items of the `gsi1` partition `gsi1pk`, newest first, below `after`
    /// when given, and whether more follow (one item past the page tells).
    async fn by_status(
        &self,
        gsi1pk: &str,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<Item>, bool), DynamoError> {
        let wanted = limit.saturating_add(1);
        let query = self
            .gsi1_below(gsi1pk, after)
            .limit(i32::try_from(wanted).unwrap_or(i32::MAX));
        let mut items = self.table.query_all(query, Some(wanted)).await?;
        let more = items.len() > limit;
        items.truncate(limit);
        Ok((items, more))
    }

    /// A newest-first Query of the `gsi1` partition `gsi1pk`, below `after` when given.
    fn gsi1_below(&self, gsi1pk: &str, after: Option<&str>) -> QueryFluentBuilder {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .expression_attribute_values(":pk", s(gsi1pk))
            .scan_index_forward(false);
        match after {
            Some(after) => query
                .key_condition_expression("gsi1pk = :pk AND gsi1sk < :after")
                .expression_attribute_values(":after", s(after)),
            None => query.key_condition_expression("gsi1pk = :pk"),
        }
    }

    /// Incident `id` with its sampled grouped logs and its history; `None` unless opened.
    pub async fn incident_detail(
        &self,
        id: &str,
    ) -> Result<Option<(Incident, Vec<Occurrence>, Vec<IncidentEvent>)>, DynamoError> {
        let (Some(item), count) = self.incident_state(id).await? else {
            return Ok(None);
        };
        let Some(incident) = self.incident_from(&item, count.as_ref())? else {
            return Ok(None);
        };
        let t = self.table.name();
        let occurrences = self.samples(id).await?;
        let history_query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :evt)")
            .expression_attribute_values(":pk", s(incident_pk(id)))
            .expression_attribute_values(":evt", s("EVT#"));
        let mut history = Vec::new();
        for row in self
            .table
            .query_all(history_query, Some(MAX_HISTORY))
            .await?
        {
            let to = row.string(t, "to")?;
            history.push(IncidentEvent {
                at: row.string(t, "at")?,
                from: row
                    .opt_string("from")
                    .as_deref()
                    .and_then(IncidentStatus::parse),
                to: IncidentStatus::parse(&to)
                    .ok_or_else(|| self.corrupt(format!("status {to}")))?,
                note: row.opt_string("note"),
                assignee: row.opt_string("assignee"),
                by: row.string(t, "by")?,
            });
        }
        Ok(Some((incident, occurrences, history)))
    }

    /// Moves incident `id` from `from` as `event` says, `open_ms` after it opened (or
    /// reopened), observed into the time to acknowledge or resolve; [`StoreError::Changed`]
    /// when its status is no longer `from`, or it was reopened since `reopen_count` was read.
    pub async fn change_incident(
        &self,
        id: &str,
        event: &IncidentEvent,
        reopen_count: i64,
        open_ms: Option<u64>,
        alerts: &RaisedAlerts,
    ) -> Result<(), StoreError> {
        let from = event.from.ok_or(StoreError::Changed)?;
        let mut tx = Transaction::new(&self.table);
        let mut expression = "SET #status = :to, updatedAt = :now, gsi1pk = :gpk".to_string();
        let mut condition = "#status = :from AND reopenCount = :epoch".to_string();
        let mut update = tx
            .update_builder(key(incident_pk(id), META))
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":to", s(event.to.as_str()))
            .expression_attribute_values(":from", s(from.as_str()))
            .expression_attribute_values(":epoch", n(reopen_count))
            .expression_attribute_values(":now", s(event.at.as_str()))
            .expression_attribute_values(":gpk", s(format!("INCIDENTS#{}", event.to.as_str())));
        if let Some(assignee) = &event.assignee {
            expression.push_str(", assignee = :assignee");
            update = update.expression_attribute_values(":assignee", s(assignee.as_str()));
        }
        if event.to == IncidentStatus::Resolved {
            expression.push_str(", resolvedAt = :now REMOVE alertIds");
            let (unchanged, raised) = alerts.unchanged();
            condition.push_str(unchanged);
            if let Some(raised) = raised {
                update = update.expression_attribute_values(":raised", raised);
            }
        }
        tx.update(
            update
                .condition_expression(condition)
                .update_expression(expression),
        )?;
        if event.to == IncidentStatus::Resolved {
            for (alert, status) in &alerts.unresolved {
                self.resolve_alert_in(&mut tx, alert, *status, &event.at)?;
            }
        }
        tx.put(Self::event_row(id, event), None)?;
        Self::count_in(
            &mut tx,
            self.metrics
                .incident_moved(id, from.as_str(), event.to.as_str(), &event.at, open_ms),
        )?;
        if let Some(kind) = EventKind::of_status(event.to) {
            tx.put(
                events::outbox_row(&Change {
                    by: &event.by,
                    note: event.note.as_deref(),
                    ..Change::system(kind, id, &event.at)
                }),
                None,
            )?;
        }
        tx.commit_retrying().await.map_err(StoreError::from)
    }

    // ---- alerts ----------------------------------------------------------------------

    /// The ids of the alerts raised on incident `item` since it last resolved: one per rule
    /// and opening, so at most the rule cap (plus the default rule) between two resolves.
    pub fn alert_ids_of(item: &Item) -> Vec<String> {
        match item.get("alertIds") {
            Some(AttributeValue::Ss(ids)) => ids.clone(),
            _ => Vec::new(),
        }
    }

    /// The alerts raised on incident `item` since it last resolved, and which of them are not
    /// RESOLVED yet (with the status read, which the resolve's transaction requires).
    pub async fn raised_alerts(&self, item: &Item) -> Result<RaisedAlerts, DynamoError> {
        let ids = Self::alert_ids_of(item);
        let raised = ids.len();
        if ids.is_empty() {
            return Ok(RaisedAlerts::default());
        }
        let items = self
            .table
            .batch_get_all(
                ids.iter()
                    .map(|id| key(format!("ALERT#{id}"), META))
                    .collect(),
                None,
            )
            .await?;
        let mut unresolved = Vec::new();
        for item in &items {
            let alert = self.alert_from(item)?;
            if alert.status != AlertStatus::Resolved {
                unresolved.push((alert.id, alert.status));
            }
        }
        Ok(RaisedAlerts { raised, unresolved })
    }

    /// Resolves alert `id`, still at status `from`, in `tx`.
    pub(crate) fn resolve_alert_in(
        &self,
        tx: &mut Transaction,
        id: &str,
        from: AlertStatus,
        now: &str,
    ) -> Result<(), DynamoError> {
        let update = Self::alert_move(tx, id, from, AlertStatus::Resolved, now);
        tx.update(update)?;
        Ok(())
    }

    /// The update that moves alert `id` from `from` to `to`, if it is still at `from`.
    fn alert_move(
        tx: &Transaction,
        id: &str,
        from: AlertStatus,
        to: AlertStatus,
        now: &str,
    ) -> UpdateBuilder {
        tx.update_builder(key(format!("ALERT#{id}"), META))
            .update_expression("SET #status = :to, updatedAt = :now, gsi1pk = :gpk")
            .condition_expression("#status = :from")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":to", s(to.as_str()))
            .expression_attribute_values(":from", s(from.as_str()))
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":gpk", s(format!("ALERTS#{}", to.as_str())))
    }

    pub async fn alert_item(&self, id: &str) -> Result<Option<Item>, DynamoError> {
        self.table.get(key(format!("ALERT#{id}"), META)).await
    }

    /// Raises `alert` unless it was raised before, counted with it; true when this call
    /// raised it.
    pub async fn put_alert(&self, alert: &Alert) -> Result<bool, DynamoError> {
        let mut item = key(format!("ALERT#{}", alert.id), META);
        item.insert(
            "gsi1pk".into(),
            s(format!("ALERTS#{}", alert.status.as_str())),
        );
        item.insert(
            "gsi1sk".into(),
            s(format!("{}#{}", alert.raised_at, alert.id)),
        );
        item.insert("id".into(), s(alert.id.as_str()));
        item.insert("ruleId".into(), s(alert.rule_id.as_str()));
        item.insert("ruleName".into(), s(alert.rule_name.as_str()));
        item.insert("incidentId".into(), s(alert.incident_id.as_str()));
        item.insert("serviceName".into(), s(alert.service_name.as_str()));
        item.insert("type".into(), s(alert.log_type.as_str()));
        item.insert("severity".into(), s(alert.severity.as_str()));
        item.insert("message".into(), s(alert.message.as_str()));
        item.insert("count".into(), n(alert.count));
        item.insert("threshold".into(), n(alert.threshold));
        item.insert("windowSeconds".into(), n(alert.window_seconds));
        item.insert("status".into(), s(alert.status.as_str()));
        item.insert("raisedAt".into(), s(alert.raised_at.as_str()));
        item.insert("updatedAt".into(), s(alert.updated_at.as_str()));
        let mut tx = Transaction::new(&self.table);
        tx.put(item, Some("attribute_not_exists(pk)"))?;
        // Noted on the incident, so its resolve finds the alerts it must resolve with it.
        tx.update(
            tx.update_builder(key(incident_pk(&alert.incident_id), META))
                .update_expression("ADD alertIds :id")
                .expression_attribute_values(":id", AttributeValue::Ss(vec![alert.id.clone()])),
        )?;
        Self::count_in(
            &mut tx,
            self.metrics.alert_fired(&alert.id, alert.severity.as_str()),
        )?;
        tx.put(
            events::outbox_row(&Change {
                alert_id: Some(&alert.id),
                severity: Some(alert.severity.as_str()),
                ..Change::system(EventKind::AlertRaised, &alert.incident_id, &alert.raised_at)
            }),
            None,
        )?;
        match tx.commit_retrying().await {
            Ok(_) => Ok(true),
            Err(e) if e.failed_at(0) => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(_) => Err(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: RetryPolicy::CONFLICTS.attempts,
            }),
        }
    }

    pub fn alert_from(&self, item: &Item) -> Result<Alert, DynamoError> {
        let t = self.table.name();
        let severity = item.string(t, "severity")?;
        let status = item.string(t, "status")?;
        Ok(Alert {
            id: item.string(t, "id")?,
            rule_id: item.string(t, "ruleId")?,
            rule_name: item.string(t, "ruleName")?,
            incident_id: item.string(t, "incidentId")?,
            service_name: item.string(t, "serviceName")?,
            log_type: item.string(t, "type")?,
            severity: Severity::parse(&severity)
                .ok_or_else(|| self.corrupt(format!("severity {severity}")))?,
            message: item.string(t, "message")?,
            count: item.int(t, "count")?,
            threshold: item.int(t, "threshold")?,
            window_seconds: item.int(t, "windowSeconds")?,
            status: AlertStatus::parse(&status)
                .ok_or_else(|| self.corrupt(format!("status {status}")))?,
            raised_at: item.string(t, "raisedAt")?,
            updated_at: item.string(t, "updatedAt")?,
        })
    }

    /// Alerts with `status`, newest first.
    pub async fn alerts(
        &self,
        status: AlertStatus,
        limit: usize,
        after: Option<&str>,
    ) -> Result<Listed<Alert>, DynamoError> {
        let (items, more) = self
            .by_status(&format!("ALERTS#{}", status.as_str()), limit, after)
            .await?;
        let rows = items
            .iter()
            .map(|i| Ok((i.string(self.table.name(), "gsi1sk")?, self.alert_from(i)?)))
            .collect::<Result<_, DynamoError>>()?;
        Ok(Listed { rows, more })
    }

    /// Moves alert `id` from `from` to `to`.
    pub async fn change_alert(
        &self,
        id: &str,
        from: AlertStatus,
        to: AlertStatus,
        now: &str,
    ) -> Result<(), StoreError> {
        let update = Self::alert_move(&Transaction::new(&self.table), id, from, to, now);
        match self.table.update_item_from(update).send().await {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::Changed),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    // ---- logbook ---------------------------------------------------------------------

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

    /// Logbook entries, newest first, optionally of one incident.
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

/// A time in milliseconds as a UTC date-time.
pub fn at_millis(millis: i64) -> Option<DateTime<Utc>> {
    Utc.timestamp_millis_opt(millis).single()
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
