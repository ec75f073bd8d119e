//! One timeline page from S3: the listings of the prefixes its filter names, merged newest
//! first, their objects read a wave at a time within the page's read bounds.

use std::collections::BTreeMap;

use super::keys::{
    bucket_prefix, millis_of, service_bucket, severity_prefix, start_after, type_prefix,
};
use super::listing::{Listing, PageReads};
use super::{
    LogObjects, ObjectsError, BUCKETS, MAX_BYTES_PER_PAGE, MAX_LOGS_EXAMINED_PER_PAGE, MAX_MILLIS,
    MAX_OBJECTS_PER_PAGE, MINUTE,
};
use crate::input::LogFilter;
use crate::model::Log;

impl LogObjects {
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
            .map(|prefix| {
                let start = start_after(&prefix, newest_wanted);
                Listing::new(prefix, start)
            })
            .collect();
        // Objects read at once from each listing: [`BUCKETS`] in flight, however many buckets.
        let per_listing = (BUCKETS as usize / listings.len().max(1)).max(1);
        let needle = filter.contains.as_deref().map(str::to_lowercase);
        let mut pool: BTreeMap<String, Log> = BTreeMap::new();
        let mut out: Vec<Log> = Vec::new();
        let mut bytes = 0i64;
        loop {
            let next = self
                .newest_unread(&mut listings, lo_millis, &mut reads)
                .await?;
            take_final(&mut pool, &mut out, limit, next);
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
            let wave = next_wave(&mut listings, per_listing, lo_millis, hi_millis);
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

    /// The newest unread object of any listing (its newest log's time); `None` when every
    /// listing is past the page's range.
    async fn newest_unread(
        &self,
        listings: &mut [Listing],
        lo_millis: i64,
        reads: &mut PageReads,
    ) -> Result<Option<i64>, ObjectsError> {
        let mut next: Option<i64> = None;
        for listing in listings.iter_mut() {
            if let Some(head) = self.peek(listing, lo_millis, reads).await? {
                next = next.max(Some(head.newest));
            }
        }
        Ok(next)
    }
}

/// Moves into `out` (up to `limit`) the pooled logs newer than every unread object (whose
/// newest log is `next`): they are final, no later read holds a newer one.
fn take_final(
    pool: &mut BTreeMap<String, Log>,
    out: &mut Vec<Log>,
    limit: usize,
    next: Option<i64>,
) {
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
}

/// The next objects of every listing, read together: up to `per_listing` of each whose logs
/// meet `lo_millis..=hi_millis`.
fn next_wave(
    listings: &mut [Listing],
    per_listing: usize,
    lo_millis: i64,
    hi_millis: i64,
) -> Vec<super::Listed> {
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
    wave
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
