//! The objects' keys: which prefixes a log is stored under (its service bucket and its
//! indexes), and what an object's key says of the logs it holds.

use super::{
    BUCKETS, INDEXED_SEVERITIES, MAX_MILLIS, PREFIX, SEVERITY_INDEX_PREFIX, TYPE_INDEX_PREFIX,
};
use crate::model::{Log, Severity};

/// The service bucket of `service`: the first 4 bytes of its SHA-256, modulo [`BUCKETS`].
pub fn service_bucket(service: &str) -> u32 {
    let digest = ring::digest::digest(&ring::digest::SHA256, service.as_bytes());
    let mut first = [0u8; 4];
    first.copy_from_slice(digest.as_ref().get(..4).unwrap_or(&[0; 4]));
    u32::from_be_bytes(first) % BUCKETS
}

pub(super) fn millis_of(id: &str) -> Option<i64> {
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
pub(super) fn start_after(prefix: &str, millis: i64) -> String {
    format!("{prefix}{:013}", MAX_MILLIS - millis.clamp(0, MAX_MILLIS))
}

/// The key of an object of `bucket` holding `logs` (sorted newest first, one minute).
pub fn object_key(bucket: u32, logs: &[Log]) -> String {
    object_key_in(&bucket_prefix(bucket), logs)
}

/// The key of an object under `prefix` holding `logs` (sorted newest first, one minute).
pub(super) fn object_key_in(prefix: &str, logs: &[Log]) -> String {
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

pub(super) fn parse_key(key: &str, size: i64) -> Option<Listed> {
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
            attributes: Default::default(),
            trace_id: None,
            span_id: None,
            source: Default::default(),
            action: Default::default(),
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
