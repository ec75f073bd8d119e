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
//!
//! - [`keys`]: the objects' keys and prefixes (service buckets, the indexes);
//! - [`store`]: a batch's objects written, and an object read;
//! - [`listing`]: a prefix's objects listed lazily, newest first;
//! - [`page`]: one timeline page merged from the listings;
//! - [`remove`]: logs found and deleted (their objects rewritten without them).

mod keys;
mod listing;
mod page;
mod remove;
mod store;

pub use keys::{
    bucket_prefix, object_key, prefixes_of, service_bucket, severity_prefix, type_prefix, Listed,
};
pub use listing::PageReads;

use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use platform::aws::AwsClients;
use platform::{ConfigError, Env};

use crate::model::Severity;

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
