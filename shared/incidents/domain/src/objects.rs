//! Raw logs in S3 (`LOGS_BUCKET`): each processor batch writes one gzip'd JSON object per
//! (service bucket, minute), so 1M logs a second cost ~1,300 PUTs a second instead of 1M
//! DynamoDB item writes on a few hot partitions.
//!
//! Key: `logs/{bucket}/{inverted newest millis}-{oldest millis}-{content hash}.json.gz`.
//! - `{bucket}` (2 digits) is a stable hash of the service name modulo [`BUCKETS`], so a
//!   service-filtered page lists and reads one bucket only;
//! - the newest millisecond is stored inverted (`9999999999999 - millis`), so a listing in
//!   ascending key order (the only order S3 lists) yields the newest objects first, and a
//!   cursor maps to a `StartAfter`;
//! - an object holds logs of one UTC minute only, so every log older than a cursor is in an
//!   object whose newest log is at most the cursor's minute end: `StartAfter` that, exactly;
//! - the hash is of the object's sorted log ids: a redelivered batch names the same object and
//!   is written with `If-None-Match: *`, so it neither duplicates nor undoes a deletion.
//!   A batch that SQS regroups differently may write a log into a second object of the same
//!   bucket and minute; a page reads them merged by id, so it shows once.
//!
//! The severity index: each batch also writes its WARN, ERROR and FATAL logs (the rare
//! severities an operator filters on) into objects of `index/severity/{SEVERITY}/`, keyed the
//! same way, one per (severity, minute); a page filtered by one of them lists and reads that
//! prefix only, so it reads matching logs, not every object of the range. The common
//! severities (TRACE, DEBUG, INFO) are most of the logs, so their filter finds them in the
//! buckets at once; indexing them would store every log twice.
//!
//! The type index: types are free-form and a rare one (a deployment, an audit event) is what
//! an operator filters for, so each batch also writes every log into `index/type/{hex}/`, one
//! object per (type, minute), `{hex}` the type's UTF-8 bytes in hex (safe in a key whatever
//! the type holds; a type is at most
//! [`MAX_NAME_CHARS`](crate::input::MAX_NAME_CHARS) characters, so at most 800 digits).
//! A page filtered by type lists and reads that prefix only; with an indexed severity too, it
//! reads the severity's index and compares the type.
//!
//! Inside an object the logs are sorted newest first. Deleting logs rewrites the objects that
//! hold them with `If-Match` on the ETag read (a concurrent rewrite makes it read again), and
//! an object emptied stays, empty, until the bucket's lifecycle rule expires `logs/` after the
//! retention: deleted logs leave storage at once, not only the answers.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};

use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt, TryStreamExt};
use platform::aws::AwsClients;
use platform::{ConfigError, Env};

use crate::input::LogFilter;
use crate::model::{Log, Severity};

/// Service buckets: a page without a service filter merges this many listings.
pub const BUCKETS: u32 = 16;
/// Objects one timeline page may read (GetObject calls, [`BUCKETS`] at a time, so up to that
/// many more); a page that reaches it ends early, with a cursor to go on from.
pub const MAX_OBJECTS_PER_PAGE: usize = 200;
/// Objects of a batch written at a time (a batch spans 16 buckets and, as clients date their
/// logs, any number of minutes).
const PUT_CONCURRENCY: usize = 16;
/// Compressed bytes one timeline page may read (the objects' listed sizes).
pub const MAX_BYTES_PER_PAGE: i64 = 64 * 1024 * 1024;
/// Logs one timeline page may compare with its filters (a `contains` filter scans each
/// one's content); a page that reaches it ends early, with a cursor to go on from.
pub const MAX_LOGS_EXAMINED_PER_PAGE: usize = 50_000;
/// Keys one listing call asks for.
const LIST_PAGE: i32 = 100;
/// Times a deletion re-reads an object another deletion rewrote meanwhile.
const REWRITE_ATTEMPTS: usize = 5;
/// The prefix the bucket's lifecycle rule expires.
pub const PREFIX: &str = "logs/";
/// The indexes' prefix (their own lifecycle rules expire them as `logs/`).
pub const INDEX_PREFIX: &str = "index/";
/// The severity index's prefix.
pub const SEVERITY_INDEX_PREFIX: &str = "index/severity/";
/// The type index's prefix.
pub const TYPE_INDEX_PREFIX: &str = "index/type/";
/// The severities with an index: rare, and what an operator looks for.
pub const INDEXED_SEVERITIES: [Severity; 3] = [Severity::Warn, Severity::Error, Severity::Fatal];
const MAX_MILLIS: i64 = 9_999_999_999_999;
const MINUTE: i64 = 60_000;

/// An S3 call that failed.
#[derive(Debug, thiserror::Error)]
#[error("S3 {operation} on {bucket}: {message}")]
pub struct ObjectsError {
    pub operation: &'static str,
    pub bucket: String,
    pub message: String,
    /// S3 could not be reached or asked us to back off (5xx, SlowDown, a timeout): the
    /// caller should answer 503, not 500.
    pub unavailable: bool,
}

/// The service bucket of `service`: the first 4 bytes of its SHA-256, modulo [`BUCKETS`].
pub fn service_bucket(service: &str) -> u32 {
    let digest = ring::digest::digest(&ring::digest::SHA256, service.as_bytes());
    let mut first = [0u8; 4];
    first.copy_from_slice(digest.as_ref().get(..4).unwrap_or(&[0; 4]));
    u32::from_be_bytes(first) % BUCKETS
}

fn millis_of(id: &str) -> Option<i64> {
    id.get(..13).and_then(|m| m.parse().ok())
}

/// The prefix of a service bucket's objects.
pub fn bucket_prefix(bucket: u32) -> String {
    format!("{PREFIX}{bucket:02}/")
}

/// The prefix of `severity`'s index objects, when it has an index.
pub fn severity_prefix(severity: Severity) -> Option<String> {
    INDEXED_SEVERITIES
        .contains(&severity)
        .then(|| format!("{SEVERITY_INDEX_PREFIX}{}/", severity.as_str()))
}

/// The prefix of `log_type`'s index objects: its UTF-8 bytes in hex, so any type makes a
/// safe key of a bounded length.
pub fn type_prefix(log_type: &str) -> String {
    let hex: String = log_type.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{TYPE_INDEX_PREFIX}{hex}/")
}

/// The prefixes a log is stored under: its indexes (its type's, and its severity's when it
/// has one) first, then its service's bucket; a deletion goes in this order, so one retried
/// after a failure still finds the log in its bucket.
pub fn prefixes_of(log: &Log) -> Vec<String> {
    std::iter::once(type_prefix(&log.log_type))
        .chain(severity_prefix(log.severity))
        .chain(std::iter::once(bucket_prefix(service_bucket(
            &log.service_name,
        ))))
        .collect()
}

/// `StartAfter` for objects of `prefix` whose newest log is at most `millis`.
fn start_after(prefix: &str, millis: i64) -> String {
    format!("{prefix}{:013}", MAX_MILLIS - millis.clamp(0, MAX_MILLIS))
}

/// The key of an object of `bucket` holding `logs` (sorted newest first, one minute).
pub fn object_key(bucket: u32, logs: &[Log]) -> String {
    object_key_in(&bucket_prefix(bucket), logs)
}

/// The key of an object under `prefix` holding `logs` (sorted newest first, one minute).
fn object_key_in(prefix: &str, logs: &[Log]) -> String {
    let newest = logs.first().and_then(|l| millis_of(&l.id)).unwrap_or(0);
    let oldest = logs.last().and_then(|l| millis_of(&l.id)).unwrap_or(0);
    let mut ids: Vec<&str> = logs.iter().map(|l| l.id.as_str()).collect();
    ids.sort_unstable();
    let mut hash = ring::digest::Context::new(&ring::digest::SHA256);
    for id in ids {
        hash.update(id.as_bytes());
        hash.update(b"\n");
    }
    let digest = hash.finish();
    let hex: String = digest
        .as_ref()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!(
        "{prefix}{:013}-{oldest:013}-{hex}.json.gz",
        MAX_MILLIS - newest
    )
}

/// A listed object: its key, the span of its logs' times and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub key: String,
    pub newest: i64,
    pub oldest: i64,
    pub size: i64,
}

fn parse_key(key: &str, size: i64) -> Option<Listed> {
    let name = key.rsplit('/').next()?;
    let inverted: i64 = name.get(..13)?.parse().ok()?;
    let oldest: i64 = name.get(14..27)?.parse().ok()?;
    Some(Listed {
        key: key.to_string(),
        newest: MAX_MILLIS - inverted,
        oldest,
        size,
    })
}

/// What one page read from S3, and how many logs it compared with its filters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageReads {
    pub lists: usize,
    pub gets: usize,
    pub examined: usize,
}

/// One prefix's listing, read lazily in key order (newest objects first).
struct Listing {
    prefix: String,
    start_after: String,
    token: Option<String>,
    ahead: std::collections::VecDeque<Listed>,
    done: bool,
}

/// The logs bucket.
#[derive(Clone, Debug)]
pub struct LogObjects {
    s3: aws_sdk_s3::Client,
    bucket: String,
}

impl LogObjects {
    pub fn new(s3: aws_sdk_s3::Client, bucket: impl Into<String>) -> Self {
        Self {
            s3,
            bucket: bucket.into(),
        }
    }

    /// Over `LOGS_BUCKET`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        Ok(Self::new(
            aws.s3().client().clone(),
            env.require("LOGS_BUCKET")?,
        ))
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    fn fail<E: ProvideErrorMetadata + std::fmt::Debug>(
        &self,
        operation: &'static str,
        e: &SdkError<E, HttpResponse>,
    ) -> ObjectsError {
        let (message, unavailable) = match e {
            SdkError::ServiceError(s) => (
                format!(
                    "{}: {}",
                    s.err().code().unwrap_or("error"),
                    s.err().message().unwrap_or("")
                ),
                s.err().code() == Some("SlowDown") || s.raw().status().is_server_error(),
            ),
            other => (format!("{other:?}"), true),
        };
        ObjectsError {
            operation,
            bucket: self.bucket.clone(),
            message,
            unavailable,
        }
    }

    fn corrupt(&self, key: &str, why: impl std::fmt::Display) -> ObjectsError {
        ObjectsError {
            operation: "GetObject",
            bucket: self.bucket.clone(),
            message: format!("{key}: {why}"),
            unavailable: false,
        }
    }

    /// Stores a batch's `logs`: one object per (service bucket, minute), per (type, minute)
    /// and per (indexed severity, minute), each written once (a redelivered batch finds its objects and writes
    /// nothing). Returns the objects new.
    pub async fn put_batch(&self, logs: &[&Log]) -> Result<usize, ObjectsError> {
        let mut groups: BTreeMap<(String, i64), BTreeMap<&str, &Log>> = BTreeMap::new();
        for log in logs {
            let Some(millis) = millis_of(&log.id) else {
                continue;
            };
            for prefix in prefixes_of(log) {
                groups
                    .entry((prefix, millis.div_euclid(MINUTE)))
                    .or_default()
                    .insert(log.id.as_str(), log);
            }
        }
        // Boxed: a stream of borrowing futures inside the handler's Send future needs them named.
        let writes: Vec<BoxFuture<'_, Result<bool, ObjectsError>>> = groups
            .into_iter()
            .map(|((prefix, _), by_id)| {
                let newest_first: Vec<Log> = by_id.into_values().rev().cloned().collect();
                async move {
                    let key = object_key_in(&prefix, &newest_first);
                    self.write(&key, &newest_first, None).await
                }
                .boxed()
            })
            .collect();
        let written: Vec<bool> = futures::stream::iter(writes)
            .buffer_unordered(PUT_CONCURRENCY)
            .try_collect()
            .await?;
        Ok(written.into_iter().filter(|w| *w).count())
    }

    /// Writes `logs` to `key`: only if absent (`etag` None), else only over that version.
    /// False when the condition failed.
    async fn write(
        &self,
        key: &str,
        logs: &[Log],
        etag: Option<&str>,
    ) -> Result<bool, ObjectsError> {
        let json = serde_json::to_vec(logs).map_err(|e| self.corrupt(key, e))?;
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(&json).map_err(|e| self.corrupt(key, e))?;
        let body = gz.finish().map_err(|e| self.corrupt(key, e))?;
        let mut put = self
            .s3
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type("application/json")
            .content_encoding("gzip")
            .body(ByteStream::from(body));
        put = match etag {
            Some(tag) => put.if_match(tag),
            None => put.if_none_match("*"),
        };
        match put.send().await {
            Ok(_) => Ok(true),
            Err(e) if is_precondition_failed(&e) => Ok(false),
            Err(e) => Err(self.fail("PutObject", &e)),
        }
    }

    /// The logs of `key`, newest first, and its ETag.
    pub async fn read(&self, key: &str) -> Result<(Vec<Log>, String), ObjectsError> {
        let got = self
            .s3
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .send()
            .await
            .map_err(|e| self.fail("GetObject", &e))?;
        let etag = got.e_tag().unwrap_or_default().to_string();
        let bytes = got
            .body
            .collect()
            .await
            .map_err(|e| self.corrupt(key, e))?
            .into_bytes();
        let mut json = Vec::new();
        GzDecoder::new(bytes.as_ref())
            .read_to_end(&mut json)
            .map_err(|e| self.corrupt(key, e))?;
        let logs = serde_json::from_slice(&json).map_err(|e| self.corrupt(key, e))?;
        Ok((logs, etag))
    }

    async fn list_more(
        &self,
        listing: &mut Listing,
        reads: &mut PageReads,
    ) -> Result<(), ObjectsError> {
        let mut call = self
            .s3
            .list_objects_v2()
            .bucket(&self.bucket)
            .prefix(&listing.prefix)
            .max_keys(LIST_PAGE);
        call = match &listing.token {
            Some(token) => call.continuation_token(token),
            None => call.start_after(&listing.start_after),
        };
        let out = call
            .send()
            .await
            .map_err(|e| self.fail("ListObjectsV2", &e))?;
        reads.lists += 1;
        for object in out.contents() {
            if let Some(listed) = object
                .key()
                .and_then(|k| parse_key(k, object.size().unwrap_or(0)))
            {
                listing.ahead.push_back(listed);
            }
        }
        listing.token = out.next_continuation_token().map(str::to_string);
        listing.done = listing.token.is_none();
        Ok(())
    }

    /// The next object of `listing` whose newest log is at least `lo`, without taking it.
    async fn peek<'a>(
        &self,
        listing: &'a mut Listing,
        lo: i64,
        reads: &mut PageReads,
    ) -> Result<Option<&'a Listed>, ObjectsError> {
        if listing.ahead.is_empty() && !listing.done {
            self.list_more(listing, reads).await?;
        }
        if listing.ahead.front().is_some_and(|o| o.newest < lo) {
            // Older than the page's range, and so is everything after it.
            listing.ahead.clear();
            listing.done = true;
        }
        Ok(listing.ahead.front())
    }

    /// One page of the timeline from S3, newest first: the logs matching `filter` with
    /// `lo <= id < hi` (`lo` 13 digits of milliseconds, `hi` a position), at most `limit`,
    /// and the position the next page starts below (every matching log at or above it is in
    /// this page; None: the range ends here). Reads about [`MAX_OBJECTS_PER_PAGE`] objects,
    /// [`MAX_BYTES_PER_PAGE`] bytes and [`MAX_LOGS_EXAMINED_PER_PAGE`] logs at most, beyond
    /// them only the objects that overlap one millisecond.
    pub async fn page(
        &self,
        filter: &LogFilter,
        lo: &str,
        hi: &str,
        limit: usize,
    ) -> Result<(Vec<Log>, Option<String>, PageReads), ObjectsError> {
        let mut reads = PageReads::default();
        let lo_millis = millis_of(lo).unwrap_or(0);
        let hi_millis = millis_of(hi).unwrap_or(MAX_MILLIS);
        // Every log below `hi` is in an object whose logs are of `hi`'s minute or older.
        let newest_wanted = (hi_millis.div_euclid(MINUTE) + 1) * MINUTE - 1;
        let mut listings: Vec<Listing> = listed_prefixes(filter)
            .into_iter()
            .map(|prefix| Listing {
                start_after: start_after(&prefix, newest_wanted),
                prefix,
                token: None,
                ahead: Default::default(),
                done: false,
            })
            .collect();
        // Objects read at once from each listing: [`BUCKETS`] in flight, however many buckets.
        let per_listing = (BUCKETS as usize / listings.len().max(1)).max(1);
        let needle = filter.contains.as_deref().map(str::to_lowercase);
        let mut pool: BTreeMap<String, Log> = BTreeMap::new();
        let mut out: Vec<Log> = Vec::new();
        let mut bytes = 0i64;
        loop {
            // The newest unread object of any bucket.
            let mut next: Option<i64> = None;
            for listing in listings.iter_mut() {
                if let Some(head) = self.peek(listing, lo_millis, &mut reads).await? {
                    next = next.max(Some(head.newest));
                }
            }
            // Logs newer than every unread object are final: no later read holds a newer one.
            let floor = next.map(|newest| format!("{newest:013}-~"));
            while out.len() < limit {
                let Some(entry) = pool.last_entry() else {
                    break;
                };
                if floor.as_deref().is_some_and(|f| entry.key().as_str() < f) {
                    break;
                }
                out.push(entry.remove());
            }
            if out.len() >= limit {
                let last = out.last().map(|l| l.id.clone());
                return Ok((out, last, reads));
            }
            let Some(newest) = next else {
                return Ok((out, None, reads));
            };
            // Every log newer than the unread objects was answered: the page may end there,
            // when that moves the cursor (a page always gets past one millisecond).
            let stop = format!("{:013}", newest + 1);
            let over = reads.gets >= MAX_OBJECTS_PER_PAGE
                || bytes >= MAX_BYTES_PER_PAGE
                || reads.examined >= MAX_LOGS_EXAMINED_PER_PAGE;
            if over && stop.as_str() < hi {
                return Ok((out, Some(stop), reads));
            }
            // The next objects of every listing, read together.
            let mut wave = Vec::new();
            for listing in listings.iter_mut() {
                for _ in 0..per_listing {
                    match listing.ahead.front() {
                        Some(o) if o.newest >= lo_millis => {
                            if let Some(o) = listing.ahead.pop_front() {
                                wave.push(o);
                            }
                        }
                        _ => break,
                    }
                }
            }
            wave.retain(|o| o.oldest <= hi_millis);
            let read =
                futures::future::try_join_all(wave.iter().map(|o| self.read(&o.key))).await?;
            reads.gets += wave.len();
            bytes += wave.iter().map(|o| o.size).sum::<i64>();
            for (logs, _) in read {
                reads.examined += logs.len();
                for log in logs {
                    if log.id.as_str() >= lo
                        && log.id.as_str() < hi
                        && matches(filter, needle.as_deref(), &log)
                    {
                        pool.insert(log.id.clone(), log);
                    }
                }
            }
        }
    }

    /// Removes the logs with these ids from the objects under `prefixes` that hold them, a
    /// prefix after the other; the ids found.
    pub async fn remove(
        &self,
        prefixes: &[String],
        ids: &[String],
    ) -> Result<BTreeSet<String>, ObjectsError> {
        let wanted: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
        let mut minutes: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
        for id in &wanted {
            if let Some(m) = millis_of(id) {
                let span = minutes.entry(m.div_euclid(MINUTE)).or_insert((m, m));
                span.0 = span.0.min(m);
                span.1 = span.1.max(m);
            }
        }
        let mut found = BTreeSet::new();
        for (minute, (oldest, newest)) in minutes {
            for prefix in prefixes {
                for object in self.spanning(prefix, minute, oldest, newest).await? {
                    found.extend(self.rewrite_without(&object.key, &wanted).await?);
                }
            }
        }
        Ok(found)
    }

    /// The objects of `prefix` and `minute` whose logs' span meets `oldest..=newest`.
    async fn spanning(
        &self,
        prefix: &str,
        minute: i64,
        oldest: i64,
        newest: i64,
    ) -> Result<Vec<Listed>, ObjectsError> {
        let mut listing = Listing {
            prefix: prefix.to_string(),
            start_after: start_after(prefix, (minute + 1) * MINUTE - 1),
            token: None,
            ahead: Default::default(),
            done: false,
        };
        let mut reads = PageReads::default();
        let mut out = Vec::new();
        while let Some(object) = self.peek(&mut listing, oldest, &mut reads).await? {
            if object.oldest <= newest {
                out.push(object.clone());
            }
            listing.ahead.pop_front();
        }
        Ok(out)
    }

    /// The stored log `id` (a checked log id), looked for in every bucket's objects of its
    /// minute (16 listings and the objects spanning its millisecond).
    pub async fn find(&self, id: &str) -> Result<Option<Log>, ObjectsError> {
        let Some(millis) = millis_of(id) else {
            return Ok(None);
        };
        for bucket in 0..BUCKETS {
            for object in self
                .spanning(
                    &bucket_prefix(bucket),
                    millis.div_euclid(MINUTE),
                    millis,
                    millis,
                )
                .await?
            {
                let (logs, _) = self.read(&object.key).await?;
                if let Some(log) = logs.into_iter().find(|l| l.id == id) {
                    return Ok(Some(log));
                }
            }
        }
        Ok(None)
    }

    /// Rewrites `key` without the logs in `ids`, retrying when another rewrite came first;
    /// the ids it held.
    async fn rewrite_without(
        &self,
        key: &str,
        ids: &BTreeSet<&str>,
    ) -> Result<Vec<String>, ObjectsError> {
        for _ in 0..REWRITE_ATTEMPTS {
            let (logs, etag) = self.read(key).await?;
            let (gone, kept): (Vec<Log>, Vec<Log>) =
                logs.into_iter().partition(|l| ids.contains(l.id.as_str()));
            if gone.is_empty() {
                return Ok(Vec::new());
            }
            if self.write(key, &kept, Some(&etag)).await? {
                return Ok(gone.into_iter().map(|l| l.id).collect());
            }
        }
        Err(ObjectsError {
            operation: "PutObject",
            bucket: self.bucket.clone(),
            message: format!("{key}: rewritten concurrently {REWRITE_ATTEMPTS} times"),
            unavailable: true,
        })
    }
}

/// The prefixes a page with `filter` lists: an indexed severity's index (the rarest logs),
/// else the type's index, else the service's bucket, else every bucket.
fn listed_prefixes(filter: &LogFilter) -> Vec<String> {
    if let Some(index) = filter.severity.and_then(severity_prefix) {
        return vec![index];
    }
    if let Some(log_type) = &filter.log_type {
        return vec![type_prefix(log_type)];
    }
    match &filter.service_name {
        Some(service) => vec![bucket_prefix(service_bucket(service))],
        None => (0..BUCKETS).map(bucket_prefix).collect(),
    }
}

/// True when `log` passes the filter's service, severity and type, and its content holds
/// `needle` (the filter's `contains`, lowercased) in any case.
fn matches(filter: &LogFilter, needle: Option<&str>, log: &Log) -> bool {
    filter
        .service_name
        .as_ref()
        .is_none_or(|s| *s == log.service_name)
        && filter.severity.is_none_or(|s| s == log.severity)
        && filter.log_type.as_ref().is_none_or(|t| *t == log.log_type)
        && needle.is_none_or(|n| log.log_content.to_lowercase().contains(n))
}

fn is_precondition_failed<E, R>(e: &SdkError<E, R>) -> bool
where
    E: ProvideErrorMetadata,
{
    match e {
        SdkError::ServiceError(s) => {
            matches!(
                s.err().code(),
                Some("PreconditionFailed" | "ConditionalRequestConflict")
            )
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::MAX_NAME_CHARS;
    use crate::model::Severity;

    fn log(id: &str) -> Log {
        Log {
            id: id.to_string(),
            service_name: "checkout".into(),
            log_type: "APPLICATION_LOG".into(),
            severity: Severity::Info,
            log_content: "ok".into(),
            timestamp: "2024-11-24T22:13:20.000Z".into(),
            received_at: "2024-11-24T22:13:20.000Z".into(),
            fingerprint: None,
        }
    }

    #[test]
    fn keys_list_newest_first_and_name_their_span() {
        let newer = vec![
            log("1732486400500-00000000000000000000000000000001"),
            log("1732486400000-00000000000000000000000000000002"),
        ];
        let older = vec![log("1732486399000-00000000000000000000000000000003")];
        let b = service_bucket("checkout");
        assert!(b < BUCKETS);
        let (k1, k2) = (object_key(b, &newer), object_key(b, &older));
        assert!(k1 < k2, "{k1} lists before {k2}");
        let listed = parse_key(&k1, 10).unwrap_or_else(|| panic!("{k1}"));
        assert_eq!(
            (listed.newest, listed.oldest),
            (1_732_486_400_500, 1_732_486_400_000)
        );
        // The same logs name the same object, in whatever order they came.
        let mut swapped = newer.clone();
        swapped.reverse();
        assert_eq!(
            object_key(b, &swapped).split('-').nth(2),
            k1.split('-').nth(2)
        );
        // StartAfter a millisecond lists objects whose newest log is at most it.
        assert!(start_after(&bucket_prefix(b), 1_732_486_400_500) < k1);
        assert!(start_after(&bucket_prefix(b), 1_732_486_400_499) > k1);
        assert_eq!(service_bucket("checkout"), b, "stable");
    }

    #[test]
    fn a_type_index_key_is_safe_and_bounded_whatever_the_type() {
        assert_eq!(
            type_prefix("DEPLOYMENT_LOG"),
            "index/type/4445504c4f594d454e545f4c4f47/"
        );
        let odd = type_prefix("db/migrate ../50% é");
        let hex = odd
            .strip_prefix(TYPE_INDEX_PREFIX)
            .and_then(|h| h.strip_suffix('/'))
            .unwrap_or_else(|| panic!("{odd}"));
        assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()), "{odd}");
        assert_ne!(type_prefix("a"), type_prefix("A"), "types are exact");
        // The longest type the input admits, in 4-byte characters: its keys fit S3's 1,024 bytes.
        let longest = "\u{1F4A5}".repeat(MAX_NAME_CHARS);
        let mut widest = log("9999999999999-ffffffffffffffffffffffffffffffff");
        widest.log_type = longest;
        let key = object_key_in(&type_prefix(&widest.log_type), &[widest]);
        assert!(key.len() <= 1_024, "{} bytes", key.len());
    }
}
