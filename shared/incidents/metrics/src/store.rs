//! The metrics table (`INCIDENT_METRICS_TABLE`): keys `pk`/`sk`, no index, TTL on
//! `expiresAt`. Every access pattern is a Query on a known partition or a conditional write.
//!
//! | Item | pk | sk | attributes |
//! |---|---|---|---|
//! | a series' shard | `SHARD#{0..SHARDS}` | the series, `name{label="value",...}` | `metric`, `labels` (a map), and `value` (counters, gauges) or `b0`..`bN` and `sumMs` (histograms) |
//! | "counted" marker | `COUNTED#{sha256 of the counted thing's id}` | `-` | `expiresAt` |
//! | a service with its own series | `SERVICES` | `{serviceName}` | - |
//! | how many services have their own series | `SERVICECOUNT` | `-` | `n` |
//!
//! **No hot key.** A series is spread over [`SHARDS`] items, one per shard partition: each
//! write adds to one shard, chosen by hashing what it counts (a message, an incident change,
//! an alert; a processor batch's logs, with the series), and a scrape sums the shards. Under
//! a burst the writes of one series spread over [`SHARDS`] items and partitions, and the
//! series of one batch over all of them. At 1M logs/s (80 batches/s of 12,500 logs, each
//! touching ~200 service/severity series: 80 x 200 x 2 units = 32,000 write units/s) that is
//! 125 units/s per shard, an eighth of a partition (64 shards were half of one).
//!
//! **Exactly once.** Every write here is an `Update` that joins the transaction of the state
//! change it counts (an incident opening, changing or reopening, an alert raised), whose own
//! condition makes a retry a no-op; what has no such transaction (a message of logs, stored by
//! BatchWriteItem; an analysis) commits its counters with a conditional put of a "counted"
//! marker, so a redelivery or a retry counts nothing twice. Markers expire after
//! [`MARKER_TTL_DAYS`], longer than a message can live in the ingest queue and its DLQ.
//!
//! **A scrape** reads the [`SHARDS`] series partitions with one strongly consistent Query
//! each, in parallel (the series are bounded, so each answers in one page, far below 1 MB):
//! every scrape sees every committed count, and a counter never reads lower than before.
//!
//! **Bounded cardinality.** Services are client-chosen names: the first [`MAX_SERVICES`] seen
//! get their own series (registered once, in `SERVICES`, guarded by the count in
//! `SERVICECOUNT`); the logs of any later service are counted as `service="other"` (as are
//! those of a service named `other`). Severities, statuses, modes and outcomes are closed
//! sets; a provider name outside `[A-Za-z0-9._:-]{1,64}` is counted as `other`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use platform::dynamo::request::Update;
use platform::dynamo::{
    key, n, s, AttributeValue, Attributes, DynamoError, Item, RetryPolicy, Table, Transaction,
    TransactionError, MAX_TRANSACTION_ITEMS,
};
use platform::{Clock, Env};
use ring::digest::{digest, SHA256};

use crate::catalog::{self, bucket_index, Kind, Metric};
use crate::series::Series;

/// The partitions every series is spread over; a scrape makes this many Queries (in
/// parallel). Raise it, never lower it (a scrape reads shards `0..SHARDS` only).
pub const SHARDS: u32 = 256;
/// Services with series of their own; the logs of later ones are counted as [`OTHER`].
pub const MAX_SERVICES: usize = 100;
/// The label value that collects what the bounds fold away.
pub const OTHER: &str = "other";
/// How long a "counted" marker is kept: longer than the ingest queue (4 days) and its DLQ
/// (14 days from the first send) can hold a message.
pub const MARKER_TTL_DAYS: i64 = 15;
/// The longest provider name kept as a label value.
pub const MAX_PROVIDER_CHARS: usize = 64;

const SHARD_PK: &str = "SHARD#";
const MARKER_PK: &str = "COUNTED#";
const SERVICES_PK: &str = "SERVICES";
const SERVICE_COUNT_PK: &str = "SERVICECOUNT";
const NO_SORT: &str = "-";

/// The shard of whatever `seed` names (a message, an incident change): spread evenly, and
/// the same on every retry.
pub fn shard_for(seed: &str) -> u32 {
    let hash = digest(&SHA256, seed.as_bytes());
    let mut first = [0u8; 4];
    for (slot, byte) in first.iter_mut().zip(hash.as_ref()) {
        *slot = *byte;
    }
    u32::from_be_bytes(first) % SHARDS
}

/// Hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    digest(&SHA256, text.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a message of logs is counted as: the hash of its distinct log ids, so the same
/// message delivered again (under any SQS message id) is the same batch.
pub fn batch_key<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    let ids: BTreeSet<&str> = ids.into_iter().collect();
    sha256_hex(&ids.into_iter().collect::<Vec<_>>().join("\n"))
}

/// Logs counted by `(service label, severity)`.
type Tally<'a> = BTreeMap<(String, &'a str), u64>;

/// The counts of the messages `chosen` (indexes into `tallies`), summed per series.
fn sums<'a>(tallies: &[(&str, Tally<'a>)], chosen: &[usize]) -> Tally<'a> {
    let mut out = Tally::new();
    for (_, counts) in chosen.iter().filter_map(|i| tallies.get(*i)) {
        for (series, count) in counts {
            *out.entry(series.clone()).or_default() += count;
        }
    }
    out
}

/// Commits the transaction `build` makes of `pending`, whose first items are a conditional
/// marker of each, in order: one whose marker fails (counted before) is left out and the
/// transaction built again. Returns those committed (none when all were counted before).
pub async fn commit_uncounted<T>(
    mut pending: Vec<T>,
    build: impl Fn(&[T]) -> Result<Transaction, DynamoError>,
    conflict: impl Fn() -> DynamoError,
) -> Result<Vec<T>, DynamoError> {
    // Each round commits, or leaves out at least one.
    for _ in 0..=pending.len() {
        if pending.is_empty() {
            break;
        }
        match build(&pending)?.commit_retrying().await {
            Ok(()) => return Ok(pending),
            Err(TransactionError::Condition { failed }) => {
                let before = pending.len();
                pending = pending
                    .into_iter()
                    .enumerate()
                    .filter(|(at, _)| !failed.contains(at))
                    .map(|(_, p)| p)
                    .collect();
                if pending.len() == before {
                    return Err(conflict());
                }
            }
            Err(TransactionError::Dynamo(e)) => return Err(e),
            Err(TransactionError::Conflict) => return Err(conflict()),
        }
    }
    Ok(Vec::new())
}

/// How an analysis ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
        }
    }
}

/// One log analysis, as the intelligence function counts it.
#[derive(Clone, Debug)]
pub struct Analysis<'a> {
    /// The analysis's own id: [`Metrics::record_analysis`] counts an id once.
    pub id: &'a str,
    /// `local` or `cloud` (anything else is counted as [`OTHER`]).
    pub mode: &'a str,
    /// The provider that answered (or was asked), e.g. `openai`, `ollama`.
    pub provider: &'a str,
    pub outcome: Outcome,
    /// How long the model took; `None` when no model was called.
    pub latency: Option<Duration>,
}

/// One series' figures, summed over its shards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Figure {
    /// A counter's or gauge's value.
    Value(i64),
    /// A histogram: the count of each bucket alone (not cumulative; the last is above every
    /// bound) and the sum of the observations in milliseconds.
    Histogram { buckets: Vec<u64>, sum_ms: u64 },
}

/// Every series read by one scrape.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub series: BTreeMap<Series, Figure>,
}

impl Snapshot {
    /// The series of family `metric`, sorted by label values; the family's
    /// [`Metric::always`] series are there at zero when nothing was counted yet.
    pub fn family(&self, metric: &Metric) -> Vec<(Vec<String>, Figure)> {
        let mut out: BTreeMap<Vec<String>, Figure> = self
            .series
            .iter()
            .filter(|(s, _)| s.metric == metric.name)
            .map(|(s, f)| (s.values.clone(), f.clone()))
            .collect();
        for values in metric.always {
            let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            out.entry(values).or_insert_with(|| zero(metric));
        }
        out.into_iter().collect()
    }

    /// The value of a counter or gauge series (0 when absent).
    pub fn value(&self, metric: &Metric, values: &[&str]) -> i64 {
        match self.series.get(&Series::new(metric, values)) {
            Some(Figure::Value(v)) => *v,
            _ => 0,
        }
    }

    fn add(&mut self, series: Series, figure: Figure) {
        match (self.series.get_mut(&series), figure) {
            (Some(Figure::Value(total)), Figure::Value(v)) => *total = total.saturating_add(v),
            (
                Some(Figure::Histogram { buckets, sum_ms }),
                Figure::Histogram {
                    buckets: more,
                    sum_ms: more_ms,
                },
            ) => {
                for (total, v) in buckets.iter_mut().zip(more) {
                    *total = total.saturating_add(v);
                }
                *sum_ms = sum_ms.saturating_add(more_ms);
            }
            (_, figure) => {
                self.series.insert(series, figure);
            }
        }
    }
}

fn zero(metric: &Metric) -> Figure {
    match metric.kind {
        Kind::Histogram => Figure::Histogram {
            buckets: vec![0; metric.buckets_ms.len() + 1],
            sum_ms: 0,
        },
        Kind::Counter | Kind::Gauge => Figure::Value(0),
    }
}

/// The services that have series of their own, as far as this instance knows.
#[derive(Debug, Default)]
struct Services {
    known: HashSet<String>,
    /// Read when every place was taken: a name not in `known` can never get one.
    complete: bool,
}

/// The metrics table: the updates that count, and the scrape that reads them.
#[derive(Clone, Debug)]
pub struct Metrics {
    table: Table,
    clock: Clock,
    services: Arc<Mutex<Services>>,
}

impl Metrics {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self {
            table,
            clock,
            services: Arc::default(),
        }
    }

    /// Over `INCIDENT_METRICS_TABLE`, on the system clock.
    pub fn from_env(
        env: &Env,
        aws: &platform::aws::AwsClients,
    ) -> Result<Self, platform::ConfigError> {
        Ok(Self::new(
            Table::from_env(env, aws, "INCIDENT_METRICS_TABLE")?,
            Clock::system(),
        ))
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    fn conflict(&self) -> DynamoError {
        DynamoError::Conflict {
            table: self.table.name().to_string(),
            attempts: RetryPolicy::CONFLICTS.attempts,
        }
    }

    // ---- the updates a transaction carries -------------------------------------------

    fn series_update(&self, metric: &Metric, values: &[&str], shard: u32) -> Update {
        let series = Series::new(metric, values);
        let labels: HashMap<String, AttributeValue> = metric
            .labels
            .iter()
            .zip(values)
            .map(|(name, value)| (name.to_string(), s(*value)))
            .collect();
        Update::default()
            .table_name(self.table.name())
            .set_key(Some(key(
                format!("{SHARD_PK}{}", shard % SHARDS),
                series.key(metric.labels),
            )))
            .expression_attribute_names("#metric", "metric")
            .expression_attribute_names("#labels", "labels")
            .expression_attribute_values(":metric", s(metric.name))
            .expression_attribute_values(":labels", AttributeValue::M(labels))
    }

    /// Adds `delta` to a counter or gauge series, in shard `shard`.
    pub fn add(&self, metric: &Metric, values: &[&str], delta: i64, shard: u32) -> Update {
        self.series_update(metric, values, shard)
            .update_expression("SET #metric = :metric, #labels = :labels ADD #value :delta")
            .expression_attribute_names("#value", "value")
            .expression_attribute_values(":delta", n(delta))
    }

    /// Observes `ms` milliseconds into a histogram series, in shard `shard`.
    pub fn observe(&self, metric: &Metric, values: &[&str], ms: u64, shard: u32) -> Update {
        let bucket = bucket_index(metric.buckets_ms, ms);
        self.series_update(metric, values, shard)
            .update_expression(
                "SET #metric = :metric, #labels = :labels ADD #bucket :one, #sum :ms",
            )
            .expression_attribute_names("#bucket", format!("b{bucket}"))
            .expression_attribute_names("#sum", "sumMs")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":ms", AttributeValue::N(ms.to_string()))
    }

    /// The "counted" marker of `id`: a write that fails when `id` was counted before, so the
    /// transaction that carries it (and its counters) applies once.
    pub fn marker(&self, id: &str) -> Update {
        let expires = self.clock.now().timestamp() + MARKER_TTL_DAYS * 86_400;
        Update::default()
            .table_name(self.table.name())
            .set_key(Some(key(format!("{MARKER_PK}{}", sha256_hex(id)), NO_SORT)))
            .update_expression("SET expiresAt = :expires")
            .condition_expression("attribute_not_exists(pk)")
            .expression_attribute_values(":expires", n(expires))
    }

    /// Incident `incident` opened (ACTIVE): for the opening's transaction.
    pub fn incident_opened(&self, incident: &str, at: &str) -> Vec<Update> {
        let shard = shard_for(&format!("{incident}/{at}/open"));
        vec![self.add(&catalog::INCIDENTS, &["ACTIVE"], 1, shard)]
    }

    /// Incident `incident` moved from status `from` to `to` at `at`, `open_ms` after it
    /// opened (or reopened): for the change's transaction. Acknowledging observes the time
    /// to acknowledge, resolving the time to resolve.
    pub fn incident_moved(
        &self,
        incident: &str,
        from: &str,
        to: &str,
        at: &str,
        open_ms: Option<u64>,
    ) -> Vec<Update> {
        let shard = shard_for(&format!("{incident}/{at}/{to}"));
        let mut updates = vec![
            self.add(&catalog::INCIDENTS, &[from], -1, shard),
            self.add(&catalog::INCIDENTS, &[to], 1, shard),
        ];
        let histogram = match to {
            "ACKNOWLEDGED" => Some(&catalog::TIME_TO_ACKNOWLEDGE),
            "RESOLVED" => Some(&catalog::TIME_TO_RESOLVE),
            _ => None,
        };
        if let (Some(histogram), Some(ms)) = (histogram, open_ms) {
            updates.push(self.observe(histogram, &[], ms, shard));
        }
        updates
    }

    /// Alert `alert` raised by a log of `severity`: for the transaction that raises it.
    pub fn alert_fired(&self, alert: &str, severity: &str) -> Vec<Update> {
        vec![self.add(&catalog::ALERTS_FIRED, &[severity], 1, shard_for(alert))]
    }

    /// Analysis `analysis` counted, and its model latency observed: for a transaction of
    /// the caller's whose own condition makes a retry a no-op (else use
    /// [`Metrics::record_analysis`]).
    pub fn analysis_updates(&self, analysis: &Analysis) -> Vec<Update> {
        let shard = shard_for(analysis.id);
        let mode = match analysis.mode {
            "local" | "cloud" => analysis.mode,
            _ => OTHER,
        };
        let provider = provider_label(analysis.provider);
        let mut updates = vec![self.add(
            &catalog::ANALYSES,
            &[mode, provider, analysis.outcome.as_str()],
            1,
            shard,
        )];
        if let Some(latency) = analysis.latency {
            let ms = u64::try_from(latency.as_millis()).unwrap_or(u64::MAX);
            updates.push(self.observe(&catalog::LLM_LATENCY, &[mode, provider], ms, shard));
        }
        updates
    }

    /// Counts `analysis` once, however often it is recorded (its id's marker in the same
    /// transaction). True when this call counted it.
    pub async fn record_analysis(&self, analysis: &Analysis<'_>) -> Result<bool, DynamoError> {
        let mut updates = vec![self.marker(&format!("analysis:{}", analysis.id))];
        updates.extend(self.analysis_updates(analysis));
        self.commit_once(updates).await
    }

    /// Commits `updates` (a marker first) as one transaction; false when the marker says
    /// they were applied before.
    async fn commit_once(&self, updates: Vec<Update>) -> Result<bool, DynamoError> {
        let mut tx = Transaction::new(&self.table);
        for update in updates {
            tx.update(update)?;
        }
        match tx.commit_retrying().await {
            Ok(()) => Ok(true),
            Err(e) if e.failed_at(0) => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(_) => Err(self.conflict()),
        }
    }

    // ---- logs ------------------------------------------------------------------------

    /// Counts the logs of one message, `(serviceName, severity)` each, once however often the
    /// message is delivered: the counts per series and a marker of `batch` (see
    /// [`batch_key`]) in one transaction, or one per 99 series (each with its own marker).
    /// Returns the logs this call counted (0 when counted before).
    pub async fn count_logs<'a>(
        &self,
        batch: &str,
        logs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<u64, DynamoError> {
        let logs: Vec<(&str, &str)> = logs.into_iter().collect();
        let names: BTreeSet<&str> = logs.iter().map(|(service, _)| *service).collect();
        let labels = self.service_labels(&names).await?;
        let mut counts: BTreeMap<(String, &str), u64> = BTreeMap::new();
        for (service, severity) in logs {
            let label = labels.get(service).map(String::as_str).unwrap_or(OTHER);
            *counts.entry((label.to_string(), severity)).or_default() += 1;
        }
        let counts: Vec<((String, &str), u64)> = counts.into_iter().collect();
        let mut counted = 0;
        // The marker takes one place of each transaction.
        for (i, chunk) in counts.chunks(MAX_TRANSACTION_ITEMS - 1).enumerate() {
            let marker = format!("logs:{batch}:{i}");
            let shard = shard_for(&marker);
            let mut updates = vec![self.marker(&marker)];
            for ((service, severity), count) in chunk {
                let delta = i64::try_from(*count).unwrap_or(i64::MAX);
                updates.push(self.add(&catalog::LOGS_INGESTED, &[service, severity], delta, shard));
            }
            if self.commit_once(updates).await? {
                counted += chunk.iter().map(|(_, c)| c).sum::<u64>();
            }
        }
        Ok(counted)
    }

    /// Counts the logs of a batch of messages (each `(batch_key, (serviceName, severity) of
    /// its logs)`), each message once however often it is delivered and in whatever batch:
    /// one transaction of each message's marker and one update per series for all of them
    /// (as many messages to a transaction as its 100 items hold), so the series take one
    /// write per batch, not one per message. A message counted before fails its marker and
    /// the transaction is made again without it. Returns the logs this call counted.
    pub async fn count_messages(
        &self,
        messages: &[(String, Vec<(&str, &str)>)],
    ) -> Result<u64, DynamoError> {
        let names: BTreeSet<&str> = messages
            .iter()
            .flat_map(|(_, logs)| logs.iter().map(|(service, _)| *service))
            .collect();
        let labels = self.service_labels(&names).await?;
        let mut seen = HashSet::new();
        let mut tallies: Vec<(&str, Tally)> = Vec::new();
        for (batch, logs) in messages {
            if !seen.insert(batch.as_str()) {
                continue;
            }
            let mut counts = Tally::new();
            for (service, severity) in logs {
                let label = labels.get(*service).map(String::as_str).unwrap_or(OTHER);
                *counts.entry((label.to_string(), *severity)).or_default() += 1;
            }
            tallies.push((batch.as_str(), counts));
        }
        // Messages into transactions: a marker each, and the union of their series.
        let mut chunks: Vec<Vec<usize>> = Vec::new();
        let mut series: BTreeSet<(String, &str)> = BTreeSet::new();
        let mut alone = Vec::new();
        for (i, (_, counts)) in tallies.iter().enumerate() {
            if counts.len() + 1 > MAX_TRANSACTION_ITEMS {
                alone.push(i);
                continue;
            }
            let grown = counts.keys().filter(|k| !series.contains(*k)).count();
            let fits = chunks
                .last()
                .is_some_and(|c| c.len() + 1 + series.len() + grown <= MAX_TRANSACTION_ITEMS);
            if !fits {
                chunks.push(Vec::new());
                series.clear();
            }
            series.extend(counts.keys().cloned());
            if let Some(chunk) = chunks.last_mut() {
                chunk.push(i);
            }
        }
        let mut counted = 0;
        for chunk in chunks {
            let committed = commit_uncounted(
                chunk,
                |pending| {
                    // A message alone in its transaction is marked as `count_logs` marks it.
                    let markers: Vec<String> = pending
                        .iter()
                        .filter_map(|i| tallies.get(*i))
                        .map(|(batch, _)| format!("logs:{batch}:0"))
                        .collect();
                    let seed = markers.first().map(String::as_str).unwrap_or("");
                    let mut tx = Transaction::new(&self.table);
                    for marker in &markers {
                        tx.update(self.marker(marker))?;
                    }
                    for ((service, severity), count) in sums(&tallies, pending) {
                        let delta = i64::try_from(count).unwrap_or(i64::MAX);
                        // Each series of the batch in its own shard: a batch's writes spread.
                        let shard = shard_for(&format!("{seed}/{service}/{severity}"));
                        tx.update(self.add(
                            &catalog::LOGS_INGESTED,
                            &[&service, severity],
                            delta,
                            shard,
                        ))?;
                    }
                    Ok(tx)
                },
                || self.conflict(),
            )
            .await?;
            counted += sums(&tallies, &committed).values().sum::<u64>();
        }
        for i in alone {
            if let Some((batch, _)) = tallies.get(i) {
                let logs = messages
                    .iter()
                    .find(|(b, _)| b == batch)
                    .map(|(_, logs)| logs.clone())
                    .unwrap_or_default();
                counted += self.count_logs(batch, logs).await?;
            }
        }
        Ok(counted)
    }

    /// The label of each service name: itself when it has (or now gets) series of its own,
    /// else [`OTHER`]. Names this instance knows cost nothing; otherwise one Query reads the
    /// registered names, and each new name is registered with one transaction while places
    /// remain. A name's answer never changes once given (places are never given back), so a
    /// message counted again splits into the same series.
    async fn service_labels(
        &self,
        names: &BTreeSet<&str>,
    ) -> Result<HashMap<String, String>, DynamoError> {
        let mut labels = HashMap::new();
        let mut unknown = Vec::new();
        let complete = {
            let cache = self.services.lock().unwrap_or_else(|p| p.into_inner());
            for name in names {
                if *name == OTHER {
                    labels.insert(name.to_string(), OTHER.to_string());
                } else if cache.known.contains(*name) {
                    labels.insert(name.to_string(), name.to_string());
                } else {
                    unknown.push(*name);
                }
            }
            cache.complete
        };
        if unknown.is_empty() {
            return Ok(labels);
        }
        if !complete {
            let registered = self.registered_services().await?;
            let mut cache = self.services.lock().unwrap_or_else(|p| p.into_inner());
            cache.complete = registered.len() >= MAX_SERVICES;
            cache.known.extend(registered);
        }
        for name in unknown {
            let (known, full) = {
                let cache = self.services.lock().unwrap_or_else(|p| p.into_inner());
                (
                    cache.known.contains(name),
                    cache.complete || cache.known.len() >= MAX_SERVICES,
                )
            };
            let label = if known || (!full && self.register_service(name).await?) {
                self.services
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .known
                    .insert(name.to_string());
                name
            } else {
                OTHER
            };
            labels.insert(name.to_string(), label.to_string());
        }
        Ok(labels)
    }

    /// The services with series of their own (one consistent Query; at most
    /// [`MAX_SERVICES`] rows).
    async fn registered_services(&self) -> Result<Vec<String>, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(SERVICES_PK))
            .projection_expression("sk")
            .consistent_read(true);
        Ok(self
            .table
            .query_all(query, Some(MAX_SERVICES + 1))
            .await?
            .iter()
            .filter_map(|item| item.opt_string("sk"))
            .collect())
    }

    /// Gives `name` series of its own unless every place is taken; true when it has them
    /// (now or already).
    async fn register_service(&self, name: &str) -> Result<bool, DynamoError> {
        let mut tx = Transaction::new(&self.table);
        tx.put(key(SERVICES_PK, name), Some("attribute_not_exists(pk)"))?;
        let guard = tx
            .update_builder(key(SERVICE_COUNT_PK, NO_SORT))
            .update_expression("ADD #n :one")
            .condition_expression("attribute_not_exists(#n) OR #n < :max")
            .expression_attribute_names("#n", "n")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(
                ":max",
                n(i64::try_from(MAX_SERVICES).unwrap_or(i64::MAX)),
            );
        tx.update(guard)?;
        match tx.commit_retrying().await {
            Ok(()) => {
                tracing::info!(service = name, "service given its own metric series");
                Ok(true)
            }
            Err(e) if e.failed_at(0) => Ok(true),
            Err(e) if e.failed_at(1) => {
                tracing::info!(
                    service = name,
                    "metric series of services full: counted as other"
                );
                Ok(false)
            }
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(_) => Err(self.conflict()),
        }
    }

    // ---- the scrape ------------------------------------------------------------------

    /// Every series, summed over its shards: [`SHARDS`] strongly consistent Queries, in
    /// parallel.
    pub async fn snapshot(&self) -> Result<Snapshot, DynamoError> {
        let reads = (0..SHARDS).map(|shard| {
            let query = self
                .table
                .query()
                .key_condition_expression("pk = :pk")
                .expression_attribute_values(":pk", s(format!("{SHARD_PK}{shard}")))
                .consistent_read(true);
            self.table.query_all(query, None)
        });
        let shards = futures::future::try_join_all(reads).await?;
        let mut snapshot = Snapshot::default();
        for item in shards.iter().flatten() {
            if let Some((series, figure)) = self.figure_of(item)? {
                snapshot.add(series, figure);
            }
        }
        Ok(snapshot)
    }

    /// A shard item's series and figure; `None` for a family this version does not know
    /// (written by a newer one).
    fn figure_of(&self, item: &Item) -> Result<Option<(Series, Figure)>, DynamoError> {
        let t = self.table.name();
        let name = item.string(t, "metric")?;
        let Some(metric) = catalog::find(&name) else {
            tracing::warn!(metric = %name, "unknown metric family in the metrics table");
            return Ok(None);
        };
        let labels = match item.get("labels") {
            Some(AttributeValue::M(map)) => map,
            _ => return Err(self.table.corrupt(format!("{name}: labels"))),
        };
        let mut values = Vec::with_capacity(metric.labels.len());
        for label in metric.labels {
            match labels.get(*label) {
                Some(AttributeValue::S(v)) => values.push(v.clone()),
                _ => return Err(self.table.corrupt(format!("{name}: label {label}"))),
            }
        }
        let figure = match metric.kind {
            Kind::Counter | Kind::Gauge => Figure::Value(item.counter(t, "value")?),
            Kind::Histogram => {
                let mut buckets = Vec::with_capacity(metric.buckets_ms.len() + 1);
                for i in 0..=metric.buckets_ms.len() {
                    let count = item.counter(t, &format!("b{i}"))?;
                    buckets.push(u64::try_from(count).unwrap_or(0));
                }
                let sum_ms = u64::try_from(item.counter(t, "sumMs")?).unwrap_or(0);
                Figure::Histogram { buckets, sum_ms }
            }
        };
        Ok(Some((
            Series {
                metric: metric.name,
                values,
            },
            figure,
        )))
    }
}

/// A provider name as a label value: itself when short and plain, else [`OTHER`].
fn provider_label(provider: &str) -> &str {
    let plain = !provider.is_empty()
        && provider.chars().count() <= MAX_PROVIDER_CHARS
        && provider
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'));
    if plain {
        provider
    } else {
        OTHER
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{LOGS_INGESTED, TIME_TO_ACKNOWLEDGE};

    fn metrics() -> Metrics {
        Metrics::new(Table::offline("m"), Clock::system())
    }

    #[test]
    fn shards_spread_and_repeat() {
        let mut seen = HashSet::new();
        for i in 0..2_000 {
            let shard = shard_for(&format!("message {i}"));
            assert!(shard < SHARDS);
            assert_eq!(shard, shard_for(&format!("message {i}")));
            seen.insert(shard);
        }
        assert_eq!(
            seen.len(),
            usize::try_from(SHARDS).unwrap(),
            "every shard used"
        );
    }

    #[test]
    fn a_batch_is_its_distinct_ids_in_any_order() {
        assert_eq!(batch_key(["b", "a", "a"]), batch_key(["a", "b"]));
        assert_ne!(batch_key(["a"]), batch_key(["a", "b"]));
        assert_eq!(batch_key(["a"]).len(), 64);
    }

    #[test]
    fn updates_name_their_series_and_shard() {
        let m = metrics();
        let update = m.add(&LOGS_INGESTED, &["api", "ERROR"], 3, SHARDS + 3);
        assert_eq!(update.get_table_name().as_deref(), Some("m"));
        assert_eq!(
            update.get_key().as_ref().unwrap().get("pk"),
            Some(&s("SHARD#3"))
        );
        assert_eq!(
            update.get_key().as_ref().unwrap().get("sk"),
            Some(&s(
                r#"incident_logs_ingested_total{service="api",severity="ERROR"}"#
            ))
        );
        assert_eq!(
            update
                .get_expression_attribute_values()
                .as_ref()
                .unwrap()
                .get(":delta"),
            Some(&n(3))
        );
        let observed = m.observe(&TIME_TO_ACKNOWLEDGE, &[], 4_000, 0);
        assert_eq!(
            observed
                .get_expression_attribute_names()
                .as_ref()
                .unwrap()
                .get("#bucket"),
            Some(&"b1".to_string()),
            "4 s is in the le=5 bucket"
        );
        let marker = m.marker("logs:x:0");
        assert_eq!(
            marker.get_condition_expression().as_deref(),
            Some("attribute_not_exists(pk)")
        );
        assert!(
            matches!(marker.get_key().as_ref().unwrap().get("pk"), Some(AttributeValue::S(pk)) if pk.len() == 8 + 64)
        );
    }

    #[test]
    fn incident_moves_carry_both_statuses_and_one_observation() {
        let m = metrics();
        let ack = m.incident_moved("i", "ACTIVE", "ACKNOWLEDGED", "t", Some(1_500));
        assert_eq!(ack.len(), 3);
        let reopen = m.incident_moved("i", "RESOLVED", "ACTIVE", "t", None);
        assert_eq!(reopen.len(), 2);
        assert_eq!(m.incident_opened("i", "t").len(), 1);
    }

    #[test]
    fn analysis_labels_are_bounded() {
        assert_eq!(provider_label("openai"), "openai");
        assert_eq!(provider_label("llama.cpp:8b-q4"), "llama.cpp:8b-q4");
        assert_eq!(provider_label(""), OTHER);
        assert_eq!(provider_label("a b"), OTHER);
        assert_eq!(provider_label(&"x".repeat(65)), OTHER);
        let m = metrics();
        let updates = m.analysis_updates(&Analysis {
            id: "a1",
            mode: "weird",
            provider: "openai",
            outcome: Outcome::Ok,
            latency: Some(Duration::from_millis(1_200)),
        });
        assert_eq!(updates.len(), 2);
        assert!(matches!(
            updates[0].get_key().as_ref().unwrap().get("sk"),
            Some(AttributeValue::S(sk)) if sk.contains(r#"mode="other""#)
        ));
        let no_latency = m.analysis_updates(&Analysis {
            latency: None,
            outcome: Outcome::Error,
            ..Analysis {
                id: "a2",
                mode: "local",
                provider: "ollama",
                outcome: Outcome::Ok,
                latency: None,
            }
        });
        assert_eq!(no_latency.len(), 1);
    }

    #[test]
    fn shards_sum_into_one_figure() {
        let mut snapshot = Snapshot::default();
        let series = Series::new(&LOGS_INGESTED, &["api", "INFO"]);
        snapshot.add(series.clone(), Figure::Value(2));
        snapshot.add(series.clone(), Figure::Value(3));
        assert_eq!(snapshot.value(&LOGS_INGESTED, &["api", "INFO"]), 5);
        let h = Series::new(&TIME_TO_ACKNOWLEDGE, &[]);
        let empty = vec![0; TIME_TO_ACKNOWLEDGE.buckets_ms.len() + 1];
        let mut one = empty.clone();
        one[2] = 1;
        snapshot.add(
            h.clone(),
            Figure::Histogram {
                buckets: one.clone(),
                sum_ms: 10_000,
            },
        );
        snapshot.add(
            h.clone(),
            Figure::Histogram {
                buckets: one,
                sum_ms: 12_000,
            },
        );
        let mut two = empty;
        two[2] = 2;
        assert_eq!(
            snapshot.series.get(&h),
            Some(&Figure::Histogram {
                buckets: two,
                sum_ms: 22_000
            })
        );
        // The incidents gauge shows its three statuses before anything is counted.
        let gauge = Snapshot::default().family(&crate::catalog::INCIDENTS);
        assert_eq!(gauge.len(), 3);
    }
}
