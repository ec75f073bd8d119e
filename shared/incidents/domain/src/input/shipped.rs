//! What the Loki push and OTLP/HTTP paths share: their bodies' decompression within bounds,
//! the levels shippers write mapped to the platform's severities, and one shipped record made a
//! [`LogInput`] under the same bounds as `POST /api/v1/logs`.

use std::collections::BTreeMap;
use std::io::Read;

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::logs::{check_attributes, is_trace_hex};
use super::{
    MAX_ATTRIBUTES, MAX_ATTRIBUTES_BYTES, MAX_ATTRIBUTE_NAME_CHARS, MAX_ATTRIBUTE_VALUE_CHARS,
    MAX_CONTENT_CHARS, MAX_FUTURE_HOURS, MAX_NAME_CHARS,
};
use crate::fingerprint::is_client_fingerprint;
use crate::model::Severity;

/// The largest body a shipper may send, as sent (compressed or not).
pub const MAX_SHIPPED_BODY_BYTES: usize = 6 * 1024 * 1024;
/// The largest body once decompressed (gzip, deflate, snappy).
pub const MAX_DECODED_BODY_BYTES: usize = 16 * 1024 * 1024;
/// The most logs (Loki entries, OTLP log records) one request may carry: a Promtail or Alloy
/// batch of 1 MiB, or a Collector batch of 8,192 records, fits.
pub const MAX_SHIPPED_LOGS: usize = 10_000;
/// The type of a shipped log that names none.
pub const DEFAULT_SHIPPED_TYPE: &str = "APPLICATION_LOG";
/// The service of a shipped log that names none (as Loki and OpenTelemetry call it).
pub const UNKNOWN_SERVICE: &str = "unknown_service";
/// How many rejections a refusal spells out (the rest are counted).
const MAX_REASONS: usize = 10;

/// Why a whole body was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyError {
    /// Over a size bound (413).
    TooLarge(String),
    /// Not what the content type and encoding announced (400).
    Malformed(String),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge(reason) | Self::Malformed(reason) => f.write_str(reason),
        }
    }
}

/// A body's `Content-Encoding`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
    Deflate,
}

impl Encoding {
    /// The encoding a `Content-Encoding` header names (absent: identity); `None` for one
    /// not supported. `snappy` is Loki's name for what its protobuf bodies always are.
    pub fn parse(header: Option<&str>, snappy_is_identity: bool) -> Option<Self> {
        match header.map(|h| h.trim().to_ascii_lowercase()).as_deref() {
            None | Some("" | "identity") => Some(Self::Identity),
            Some("gzip" | "x-gzip") => Some(Self::Gzip),
            Some("deflate") => Some(Self::Deflate),
            Some("snappy") if snappy_is_identity => Some(Self::Identity),
            Some(_) => None,
        }
    }

    /// `body` decoded, at most [`MAX_DECODED_BODY_BYTES`].
    pub fn decode(self, body: &[u8]) -> Result<Vec<u8>, BodyError> {
        if body.len() > MAX_SHIPPED_BODY_BYTES {
            return Err(too_large(body.len(), MAX_SHIPPED_BODY_BYTES));
        }
        match self {
            Self::Identity => Ok(body.to_vec()),
            Self::Gzip => read_limited(flate2::read::MultiGzDecoder::new(body), "gzip"),
            Self::Deflate => read_limited(flate2::read::ZlibDecoder::new(body), "deflate"),
        }
    }
}

fn too_large(size: usize, limit: usize) -> BodyError {
    BodyError::TooLarge(format!(
        "request body too large: {size} bytes, limit: {limit} bytes"
    ))
}

/// Reads a decompressor to its end, refusing what grows past [`MAX_DECODED_BODY_BYTES`].
fn read_limited(reader: impl Read, name: &str) -> Result<Vec<u8>, BodyError> {
    let mut out = Vec::new();
    let limit = MAX_DECODED_BODY_BYTES as u64;
    reader
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| BodyError::Malformed(format!("body is not valid {name}: {e}")))?;
    if out.len() > MAX_DECODED_BODY_BYTES {
        return Err(BodyError::TooLarge(format!(
            "request body too large once decompressed: over {MAX_DECODED_BODY_BYTES} bytes"
        )));
    }
    Ok(out)
}

/// A snappy block (`snap::raw`, Loki's protobuf bodies), at most [`MAX_DECODED_BODY_BYTES`]
/// once decompressed (checked on the length it announces, before any allocation).
pub fn unsnappy(body: &[u8]) -> Result<Vec<u8>, BodyError> {
    let length = snap::raw::decompress_len(body)
        .map_err(|e| BodyError::Malformed(format!("body is not snappy-compressed: {e}")))?;
    if length > MAX_DECODED_BODY_BYTES {
        return Err(too_large(length, MAX_DECODED_BODY_BYTES));
    }
    snap::raw::Decoder::new()
        .decompress_vec(body)
        .map_err(|e| BodyError::Malformed(format!("body is not snappy-compressed: {e}")))
}

/// The severity a level written by a shipper means (Loki's `level`/`detected_level`, an
/// OTLP `SeverityText`, syslog's names), any case; `None` for one it does not name.
pub fn level_severity(raw: &str) -> Option<Severity> {
    let level = raw.trim().to_ascii_lowercase();
    // "ERROR2", "warn4": OTLP's short names of its finer severities.
    let level = level.trim_end_matches(|c: char| c.is_ascii_digit());
    Some(match level {
        "trace" | "trc" | "finest" | "finer" => Severity::Trace,
        "debug" | "dbg" | "fine" | "config" => Severity::Debug,
        "info" | "inf" | "information" | "informational" | "notice" | "log" => Severity::Info,
        "warn" | "wrn" | "warning" => Severity::Warn,
        "error" | "err" | "eror" | "severe" => Severity::Error,
        "fatal" | "critical" | "crit" | "panic" | "alert" | "emerg" | "emergency" => {
            Severity::Fatal
        }
        _ => return None,
    })
}

/// The severity a log line states, for a stream that names no level: a `level=`, `lvl=`
/// or `severity=` key (logfmt or JSON), else a level word in upper case (`ERROR`,
/// `[WARN]`) among the line's first 16 words.
pub fn line_severity(line: &str) -> Option<Severity> {
    let head: String = line.chars().take(512).collect();
    let lower = head.to_ascii_lowercase();
    for key in ["level", "lvl", "severity", "loglevel"] {
        for pattern in [format!("\"{key}\":"), format!("{key}=")] {
            let mut from = 0;
            while let Some(at) = lower.get(from..).and_then(|rest| rest.find(&pattern)) {
                let start = from + at;
                from = start + pattern.len();
                // A key, not the end of a longer one (`sublevel=`).
                let preceded = lower[..start]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
                if preceded {
                    continue;
                }
                let value: String = lower[from..]
                    .trim_start_matches([' ', '"'])
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                if let Some(severity) = level_severity(&value) {
                    return Some(severity);
                }
            }
        }
    }
    head.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(16)
        .filter(|word| word.chars().all(|c| c.is_ascii_uppercase()))
        .find_map(level_severity)
}

/// The first of `names` that `attributes` holds, not blank.
pub fn first_of<'a>(attributes: &'a BTreeMap<String, String>, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .filter_map(|name| attributes.get(*name))
        .map(|value| value.trim())
        .find(|value| !value.is_empty())
}

/// `text` cut to at most `max` characters.
pub fn truncated(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

/// A time in nanoseconds since the epoch, when the platform takes it: in the year 2000 or
/// later and at most [`MAX_FUTURE_HOURS`] ahead of `now`; else why not.
pub fn shipped_time(nanos: i128, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let seconds = i64::try_from(nanos.div_euclid(1_000_000_000)).map_err(|_| "is out of range")?;
    let rest = u32::try_from(nanos.rem_euclid(1_000_000_000)).unwrap_or(0);
    let at = Utc
        .timestamp_opt(seconds, rest)
        .single()
        .ok_or("is out of range")?;
    if at.timestamp() < 946_684_800 {
        return Err(format!("is too old: {at}, the oldest taken is 2000-01-01"));
    }
    if at > now + Duration::hours(MAX_FUTURE_HOURS) {
        return Err(format!(
            "is too new: {at}, at most {MAX_FUTURE_HOURS} hours ahead are taken"
        ));
    }
    Ok(at)
}

/// Attributes given in priority order, fitted to the log's bounds the way OpenTelemetry's
/// attribute limits do: a name over [`MAX_ATTRIBUTE_NAME_CHARS`] dropped, a value cut to
/// [`MAX_ATTRIBUTE_VALUE_CHARS`], a name given twice kept first, at most [`MAX_ATTRIBUTES`]
/// and [`MAX_ATTRIBUTES_BYTES`] kept. Answers them and how many were dropped or cut.
pub fn fit_attributes(
    given: impl IntoIterator<Item = (String, String)>,
) -> (BTreeMap<String, String>, usize) {
    let mut kept = BTreeMap::new();
    let mut changed = 0;
    // `{}` and, per attribute, `"name":"value",` (escapes counted as they are written).
    let mut bytes = 2;
    for (name, value) in given {
        if kept.contains_key(&name) {
            continue;
        }
        let name_chars = name.chars().count();
        if name_chars == 0 || name_chars > MAX_ATTRIBUTE_NAME_CHARS || kept.len() == MAX_ATTRIBUTES
        {
            changed += 1;
            continue;
        }
        let value = if value.chars().count() > MAX_ATTRIBUTE_VALUE_CHARS {
            changed += 1;
            truncated(&value, MAX_ATTRIBUTE_VALUE_CHARS)
        } else {
            value
        };
        let size = json_len(&name) + json_len(&value) + 2;
        if bytes + size > MAX_ATTRIBUTES_BYTES {
            changed += 1;
            continue;
        }
        bytes += size;
        kept.insert(name, value);
    }
    (kept, changed)
}

fn json_len(text: &str) -> usize {
    serde_json::to_string(text).map_or(usize::MAX / 4, |json| json.len())
}

/// One log as a shipper described it, before it is checked.
#[derive(Clone, Debug, Default)]
pub struct Shipped {
    pub service: Option<String>,
    pub log_type: Option<String>,
    pub severity: Option<Severity>,
    pub line: String,
    pub timestamp: Option<DateTime<Utc>>,
    pub attributes: BTreeMap<String, String>,
    pub trace_id: Option<String>,
    pub span_id: Option<String>,
    /// The path it came in by (Loki, OTLP).
    pub source: crate::model::LogSource,
}

impl Shipped {
    /// The log under the bounds of `POST /api/v1/logs`: a service and type cut to 100
    /// characters (absent: [`UNKNOWN_SERVICE`], [`DEFAULT_SHIPPED_TYPE`]), INFO when no
    /// severity is known, the line cut to 16,384 characters (a long stack trace keeps its
    /// head), the `fingerprint` (or `dedup_key`) attribute as the grouping key when it is one;
    /// refused (with why) when the line is blank or the attributes are out of bounds.
    pub fn into_input(self, now: DateTime<Utc>) -> Result<super::LogInput, String> {
        if self.line.trim().is_empty() {
            return Err("has an empty line".into());
        }
        check_attributes(&self.attributes)?;
        let name = |given: Option<String>, default: &str| {
            given
                .map(|s| truncated(s.trim(), MAX_NAME_CHARS))
                .filter(|s| !s.trim().is_empty())
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|| default.to_string())
        };
        let fingerprint = first_of(&self.attributes, &["fingerprint", "dedup_key"])
            .filter(|key| is_client_fingerprint(key))
            .map(str::to_string);
        let id = |raw: Option<String>, digits| {
            raw.map(|id| id.to_ascii_lowercase())
                .filter(|id| is_trace_hex(id, digits))
        };
        Ok(super::LogInput {
            service_name: name(self.service, UNKNOWN_SERVICE),
            log_type: name(self.log_type, DEFAULT_SHIPPED_TYPE),
            severity: self.severity.unwrap_or(Severity::Info),
            log_content: truncated(&self.line, MAX_CONTENT_CHARS),
            timestamp: self.timestamp.unwrap_or(now),
            fingerprint,
            trace_id: id(self.trace_id, 32),
            span_id: id(self.span_id, 16),
            attributes: self.attributes,
            source: self.source,
            action: crate::model::LogAction::Trigger,
            event_key: None,
        })
    }
}

/// What a push or an export came to: the logs taken, and each refused one's reason.
#[derive(Clone, Debug, Default)]
pub struct Shipment {
    pub logs: Vec<super::LogInput>,
    /// Logs refused, with why (the first few spelled out in [`Shipment::refusal`]).
    pub rejected: usize,
    reasons: Vec<String>,
    /// Attributes dropped or cut to fit the bounds (OTLP), a warning.
    pub attributes_fitted: usize,
}

impl Shipment {
    /// Notes `count` logs refused for `reason`.
    pub fn reject(&mut self, count: usize, reason: String) {
        self.rejected += count;
        if self.reasons.len() < MAX_REASONS {
            self.reasons.push(reason);
        }
    }

    /// The reasons of the refused logs, one a line, the rest counted.
    pub fn refusal(&self) -> Option<String> {
        // A refused stream without entries refuses no log, but is a refusal all the same.
        if self.reasons.is_empty() {
            return None;
        }
        let mut text = self.reasons.join("\n");
        let spelled = self.reasons.len();
        if self.rejected > spelled && spelled == MAX_REASONS {
            text.push_str(&format!("\n{} log(s) refused in all", self.rejected));
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_as_shippers_write_them() {
        for (raw, severity) in [
            ("error", Severity::Error),
            ("ERR", Severity::Error),
            ("Warning", Severity::Warn),
            ("warn", Severity::Warn),
            ("critical", Severity::Fatal),
            ("panic", Severity::Fatal),
            ("dbg", Severity::Debug),
            ("Information", Severity::Info),
            ("ERROR2", Severity::Error),
            ("trace", Severity::Trace),
        ] {
            assert_eq!(level_severity(raw), Some(severity), "{raw}");
        }
        assert_eq!(level_severity("unknown"), None);
        assert_eq!(
            line_severity(r#"ts=1 level=error msg="db down""#),
            Some(Severity::Error)
        );
        assert_eq!(
            line_severity(r#"{"ts":1,"level": "warn","msg":"slow"}"#),
            Some(Severity::Warn)
        );
        assert_eq!(
            line_severity("2026-12-03 07:00:01 [ERROR] payment failed"),
            Some(Severity::Error)
        );
        assert_eq!(line_severity("sublevel=error nothing else"), None);
        assert_eq!(line_severity("an error happened, in lower case"), None);
    }

    #[test]
    fn attributes_are_fitted_in_priority_order() {
        let given = (0..70).map(|i| (format!("k{i:02}"), "v".to_string()));
        let (kept, changed) =
            fit_attributes(std::iter::once(("k00".to_string(), "first".to_string())).chain(given));
        assert_eq!(kept.len(), 64);
        assert_eq!(kept["k00"], "first");
        assert_eq!(changed, 6);
        let (kept, changed) = fit_attributes([
            ("n".repeat(129), "v".into()),
            ("long".into(), "x".repeat(3000)),
        ]);
        assert_eq!(changed, 2);
        assert_eq!(kept["long"].len(), 2048);
        let (kept, _) = fit_attributes((0..64).map(|i| (format!("k{i}"), "x".repeat(2048))));
        assert!(check_attributes(&kept).is_ok(), "{}", kept.len());
    }

    #[test]
    fn bodies_are_decoded_within_bounds() {
        let bomb = {
            use std::io::Write;
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(&vec![b'a'; MAX_DECODED_BODY_BYTES + 10])
                .unwrap_or_default();
            gz.finish().unwrap_or_default()
        };
        assert!(matches!(
            Encoding::Gzip.decode(&bomb),
            Err(BodyError::TooLarge(_))
        ));
        assert!(matches!(
            Encoding::Gzip.decode(b"not gzip"),
            Err(BodyError::Malformed(_))
        ));
        assert!(unsnappy(b"\xff\xff\xff\xff\x0f").is_err());
        let packed = snap::raw::Encoder::new()
            .compress_vec(b"hello")
            .unwrap_or_default();
        assert_eq!(unsnappy(&packed).unwrap_or_default(), b"hello");
        assert_eq!(
            Encoding::parse(Some("snappy"), true),
            Some(Encoding::Identity)
        );
        assert_eq!(Encoding::parse(Some("br"), true), None);
    }

    #[test]
    fn times_and_lines_are_bounded() {
        let now = Utc
            .with_ymd_and_hms(2026, 12, 3, 7, 0, 0)
            .single()
            .unwrap_or_default();
        let nanos = i128::from(now.timestamp()) * 1_000_000_000 + 5;
        assert_eq!(
            shipped_time(nanos, now).map(|t| t.timestamp_subsec_nanos()),
            Ok(5)
        );
        assert!(shipped_time(0, now).unwrap_err().starts_with("is too old"));
        assert!(shipped_time(nanos + 25 * 3_600_000_000_000, now)
            .unwrap_err()
            .starts_with("is too new"));
        let long = Shipped {
            line: "é".repeat(20_000),
            ..Shipped::default()
        }
        .into_input(now)
        .unwrap();
        assert_eq!(long.log_content.chars().count(), MAX_CONTENT_CHARS);
        assert_eq!(long.service_name, UNKNOWN_SERVICE);
        assert_eq!(long.severity, Severity::Info);
        assert!(Shipped::default().into_input(now).is_err());
    }
}
