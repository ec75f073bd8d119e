//! A batch's logs written (one object per prefix and minute, each once), and an object read.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use aws_sdk_s3::primitives::ByteStream;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt, TryStreamExt};

use super::keys::{millis_of, object_key_in, prefixes_of};
use super::{is_precondition_failed, LogObjects, ObjectsError, MINUTE, PUT_CONCURRENCY};
use crate::model::Log;

impl LogObjects {
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
    pub(super) async fn write(
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
}
