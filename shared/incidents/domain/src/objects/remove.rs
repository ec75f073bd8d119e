//! Logs found and deleted in their objects (each rewritten without them).

use std::collections::{BTreeMap, BTreeSet};

use super::keys::{bucket_prefix, millis_of, start_after};
use super::listing::Listing;
use super::listing::PageReads;
use super::{Listed, LogObjects, ObjectsError, BUCKETS, MINUTE, REWRITE_ATTEMPTS};
use crate::model::Log;

impl LogObjects {
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
        let mut listing = Listing::new(
            prefix.to_string(),
            start_after(prefix, (minute + 1) * MINUTE - 1),
        );
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
