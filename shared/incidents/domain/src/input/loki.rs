//! The Loki push API's bodies (`POST /loki/api/v1/push`), as Promtail, Grafana Alloy, Fluent
//! Bit, Vector and the Docker driver send them: a snappy block of a protobuf `PushRequest`
//! (`application/x-protobuf`, the default) or JSON (`application/json`,
//! `{"streams":[{"stream":{labels},"values":[["<ns>","line",{metadata}?]]}]}`).
//!
//! Each stream's labels (`{job="x", level="error"}`) and each entry's structured metadata
//! become the log's `attributes`; the service is the first of the configured labels present
//! ([`DEFAULT_SERVICE_LABELS`] unless `LOKI_SERVICE_LABELS` says otherwise), the severity
//! `level`, `detected_level`, `severity` or `lvl` (else what the line states, else INFO), the
//! type `type` or `log_type`, and `trace_id`/`span_id` metadata the trace. As Loki does, a
//! stream or entry that is invalid is refused alone: the others are taken and the answer is a
//! 400 naming what was refused.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use prost::Message;
use serde_json::Value;

use super::shipped::{
    first_of, level_severity, line_severity, shipped_time, unsnappy, BodyError, Shipment, Shipped,
    MAX_SHIPPED_LOGS,
};
use super::{MAX_ATTRIBUTES, MAX_ATTRIBUTE_NAME_CHARS, MAX_ATTRIBUTE_VALUE_CHARS};

/// The labels the service is read from, first present first, when `LOKI_SERVICE_LABELS` is
/// unset (Loki's own service discovery looks at these first, then says `unknown_service`).
pub const DEFAULT_SERVICE_LABELS: [&str; 5] =
    ["service_name", "service", "app", "application", "job"];
/// The labels (or metadata) the severity is read from, first present first.
pub const LEVEL_LABELS: [&str; 4] = ["level", "detected_level", "severity", "lvl"];
/// The labels (or metadata) the type is read from.
pub const TYPE_LABELS: [&str; 2] = ["type", "log_type"];
/// The metadata a trace and a span are read from (Loki's OTLP ingestion writes the first).
pub const TRACE_LABELS: [&str; 4] = ["trace_id", "traceID", "traceId", "trace.id"];
pub const SPAN_LABELS: [&str; 4] = ["span_id", "spanID", "spanId", "span.id"];
/// The attribute the `X-Scope-OrgID` header is kept in (a label of that name wins).
pub const TENANT_ATTRIBUTE: &str = "tenant";
/// The most streams one push may carry.
pub const MAX_STREAMS: usize = 1_000;

/// `logproto.PushRequest`.
#[derive(Clone, PartialEq, Message)]
pub struct PushRequest {
    #[prost(message, repeated, tag = "1")]
    pub streams: Vec<StreamAdapter>,
}

/// `logproto.StreamAdapter`.
#[derive(Clone, PartialEq, Message)]
pub struct StreamAdapter {
    #[prost(string, tag = "1")]
    pub labels: String,
    #[prost(message, repeated, tag = "2")]
    pub entries: Vec<EntryAdapter>,
    #[prost(uint64, tag = "3")]
    pub hash: u64,
}

/// `logproto.EntryAdapter`.
#[derive(Clone, PartialEq, Message)]
pub struct EntryAdapter {
    #[prost(message, optional, tag = "1")]
    pub timestamp: Option<Timestamp>,
    #[prost(string, tag = "2")]
    pub line: String,
    #[prost(message, repeated, tag = "3")]
    pub structured_metadata: Vec<LabelPairAdapter>,
}

/// `google.protobuf.Timestamp`.
#[derive(Clone, Copy, PartialEq, Message)]
pub struct Timestamp {
    #[prost(int64, tag = "1")]
    pub seconds: i64,
    #[prost(int32, tag = "2")]
    pub nanos: i32,
}

/// `logproto.LabelPairAdapter`.
#[derive(Clone, PartialEq, Message)]
pub struct LabelPairAdapter {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

/// How the push path reads streams: the labels naming the service.
#[derive(Clone, Debug)]
pub struct LokiConfig {
    pub service_labels: Vec<String>,
}

impl Default for LokiConfig {
    fn default() -> Self {
        Self {
            service_labels: DEFAULT_SERVICE_LABELS.map(String::from).to_vec(),
        }
    }
}

impl LokiConfig {
    /// From `LOKI_SERVICE_LABELS` (label names separated by commas); unset or blank: the
    /// default.
    pub fn from_list(names: &[String]) -> Self {
        let names: Vec<String> = names
            .iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() {
            Self::default()
        } else {
            Self {
                service_labels: names,
            }
        }
    }
}

/// One stream as either encoding gives it: its labels (a selector string or a JSON
/// object, parsed later so a bad one refuses that stream alone) and its entries.
struct Stream {
    labels: Labels,
    entries: Vec<Entry>,
}

enum Labels {
    Selector(String),
    Object(Result<Vec<(String, String)>, String>),
}

struct Entry {
    /// Nanoseconds since the epoch, or why it is not a time.
    nanos: Result<i128, String>,
    line: String,
    metadata: Result<Vec<(String, String)>, String>,
}

/// The streams of a protobuf push: a snappy block of a `PushRequest`.
pub fn decode_protobuf(body: &[u8]) -> Result<PushRequest, BodyError> {
    let raw = unsnappy(body)?;
    PushRequest::decode(raw.as_slice())
        .map_err(|e| BodyError::Malformed(format!("body is not a logproto.PushRequest: {e}")))
}

/// The logs of a protobuf push.
pub fn protobuf_logs(
    request: PushRequest,
    config: &LokiConfig,
    tenant: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Shipment, BodyError> {
    let streams = request
        .streams
        .into_iter()
        .map(|stream| Stream {
            labels: Labels::Selector(stream.labels),
            entries: stream
                .entries
                .into_iter()
                .map(|entry| Entry {
                    nanos: entry
                        .timestamp
                        .map(|t| i128::from(t.seconds) * 1_000_000_000 + i128::from(t.nanos))
                        .ok_or_else(|| "has no timestamp".to_string()),
                    line: entry.line,
                    metadata: Ok(entry
                        .structured_metadata
                        .into_iter()
                        .map(|pair| (pair.name, pair.value))
                        .collect()),
                })
                .collect(),
        })
        .collect();
    logs(streams, config, tenant, now)
}

/// The logs of a JSON push.
pub fn json_logs(
    body: &[u8],
    config: &LokiConfig,
    tenant: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Shipment, BodyError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| BodyError::Malformed(format!("body is not JSON: {e}")))?;
    let streams = value
        .get("streams")
        .and_then(Value::as_array)
        .ok_or_else(|| BodyError::Malformed("body must hold \"streams\", an array".into()))?;
    if streams.len() > MAX_STREAMS {
        return Err(too_many_streams(streams.len()));
    }
    let mut out = Vec::with_capacity(streams.len());
    for (i, stream) in streams.iter().enumerate() {
        let labels = Labels::Object(match stream.get("stream") {
            Some(Value::Object(map)) => string_pairs(map, "labels"),
            _ => Err("has no \"stream\" object of labels".to_string()),
        });
        let values = match stream.get("values") {
            Some(Value::Array(values)) => values,
            None | Some(Value::Null) => &Vec::new(),
            Some(_) => {
                return Err(BodyError::Malformed(format!(
                    "streams[{i}].values must be an array"
                )))
            }
        };
        let mut entries = Vec::with_capacity(values.len());
        for (j, value) in values.iter().enumerate() {
            let parts = value.as_array().filter(|p| (2..=3).contains(&p.len()));
            let Some((time, line)) = parts.and_then(|p| Some((p.first()?, p.get(1)?))) else {
                return Err(BodyError::Malformed(format!(
                    "streams[{i}].values[{j}] must be [\"<unix epoch in nanoseconds>\", \"<log line>\", {{metadata}}?]"
                )));
            };
            let Some(line) = line.as_str() else {
                return Err(BodyError::Malformed(format!(
                    "streams[{i}].values[{j}][1] must be the log line, a string"
                )));
            };
            entries.push(Entry {
                nanos: json_nanos(time),
                line: line.to_string(),
                metadata: match parts.and_then(|p| p.get(2)) {
                    None | Some(Value::Null) => Ok(Vec::new()),
                    Some(Value::Object(map)) => string_pairs(map, "structured metadata"),
                    Some(_) => Err("has structured metadata that is not an object".into()),
                },
            });
        }
        out.push(Stream { labels, entries });
    }
    logs(out, config, tenant, now)
}

fn too_many_streams(count: usize) -> BodyError {
    BodyError::TooLarge(format!("push has {count} streams; limit {MAX_STREAMS}"))
}

/// A JSON entry's time: nanoseconds as a string (what Loki's clients write) or a number.
fn json_nanos(value: &Value) -> Result<i128, String> {
    match value {
        Value::String(s) => s
            .trim()
            .parse::<i128>()
            .map_err(|_| format!("has timestamp {s:?}, not nanoseconds since the epoch")),
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .ok_or_else(|| format!("has timestamp {n}, not nanoseconds since the epoch")),
        _ => Err("has a timestamp that is neither a string nor a number".into()),
    }
}

fn string_pairs(
    map: &serde_json::Map<String, Value>,
    what: &str,
) -> Result<Vec<(String, String)>, String> {
    map.iter()
        .map(|(name, value)| match value {
            Value::String(v) => Ok((name.clone(), v.clone())),
            _ => Err(format!(
                "has {what} whose value of {name:?} is not a string"
            )),
        })
        .collect()
}

/// Parses a stream's labels in Prometheus selector syntax (`{job="x", level="error"}`, as
/// Promtail and Alloy write them), values in Go's quoting.
pub fn parse_labels(raw: &str) -> Result<Vec<(String, String)>, String> {
    let mut chars = raw.trim().chars().peekable();
    if chars.next() != Some('{') {
        return Err("labels must start with '{'".into());
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    loop {
        skip_spaces(&mut chars);
        match chars.peek() {
            Some('}') => {
                chars.next();
                break;
            }
            None => return Err("labels must end with '}'".into()),
            _ => {}
        }
        let mut name = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_ascii_alphanumeric() || c == '_' {
                name.push(c);
                chars.next();
            } else {
                break;
            }
        }
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!(
                "invalid label name {name:?}: must match [a-zA-Z_][a-zA-Z0-9_]*"
            ));
        }
        skip_spaces(&mut chars);
        if chars.next() != Some('=') {
            return Err(format!("label {name} must be followed by ="));
        }
        skip_spaces(&mut chars);
        if chars.next() != Some('"') {
            return Err(format!("the value of label {name} must be a quoted string"));
        }
        let value = quoted(&mut chars).map_err(|e| format!("label {name}: {e}"))?;
        if pairs.iter().any(|(n, _)| *n == name) {
            return Err(format!("duplicate label name: {name:?}"));
        }
        pairs.push((name, value));
        skip_spaces(&mut chars);
        match chars.next() {
            Some(',') => {}
            Some('}') => break,
            _ => return Err("labels must be separated by ',' and end with '}'".into()),
        }
    }
    skip_spaces(&mut chars);
    if chars.next().is_some() {
        return Err("unexpected text after '}'".into());
    }
    Ok(pairs)
}

fn skip_spaces(chars: &mut std::iter::Peekable<std::str::Chars>) {
    while chars.peek().is_some_and(|c| c.is_whitespace()) {
        chars.next();
    }
}

/// The rest of a Go double-quoted string (its opening quote read), unescaped.
fn quoted(chars: &mut std::iter::Peekable<std::str::Chars>) -> Result<String, String> {
    let mut out = String::new();
    loop {
        match chars.next() {
            None => return Err("unterminated quoted string".into()),
            Some('"') => return Ok(out),
            Some('\\') => {
                let escaped = match chars.next() {
                    Some('"') => '"',
                    Some('\\') => '\\',
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('r') => '\r',
                    Some('a') => '\u{7}',
                    Some('b') => '\u{8}',
                    Some('f') => '\u{c}',
                    Some('v') => '\u{b}',
                    Some('\'') => '\'',
                    Some(kind @ ('x' | 'u' | 'U')) => {
                        let digits = match kind {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String = chars.by_ref().take(digits).collect();
                        u32::from_str_radix(&hex, 16)
                            .ok()
                            .filter(|_| hex.len() == digits)
                            .and_then(char::from_u32)
                            .ok_or_else(|| format!("invalid escape \\{kind}{hex}"))?
                    }
                    other => {
                        return Err(format!(
                            "invalid escape \\{}",
                            other.map(String::from).unwrap_or_default()
                        ))
                    }
                };
                out.push(escaped);
            }
            Some(c) => out.push(c),
        }
    }
}

/// A stream's labels as Loki writes them in its messages.
fn selector(pairs: &[(String, String)]) -> String {
    let inner: Vec<String> = pairs
        .iter()
        .map(|(name, value)| format!("{name}={value:?}"))
        .collect();
    format!("{{{}}}", inner.join(", "))
}

/// Checks a stream's labels against the bounds.
fn check_labels(pairs: &[(String, String)], shown: &str) -> Result<(), String> {
    if pairs.is_empty() {
        return Err("error at least one label pair is required per stream".into());
    }
    if pairs.len() > MAX_ATTRIBUTES {
        return Err(format!(
            "entry for stream '{shown}' has {} label names; limit {MAX_ATTRIBUTES}",
            pairs.len()
        ));
    }
    for (name, value) in pairs {
        if name.is_empty() || name.chars().count() > MAX_ATTRIBUTE_NAME_CHARS {
            return Err(format!(
                "stream '{shown}' has label name too long: '{name}'"
            ));
        }
        if value.chars().count() > MAX_ATTRIBUTE_VALUE_CHARS {
            return Err(format!(
                "stream '{shown}' has label value too long: '{}...'",
                super::shipped::truncated(value, 64)
            ));
        }
    }
    Ok(())
}

/// Every stream's entries made logs; a stream or entry out of bounds refused alone.
fn logs(
    streams: Vec<Stream>,
    config: &LokiConfig,
    tenant: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Shipment, BodyError> {
    if streams.len() > MAX_STREAMS {
        return Err(too_many_streams(streams.len()));
    }
    let entries: usize = streams.iter().map(|s| s.entries.len()).sum();
    if entries > MAX_SHIPPED_LOGS {
        return Err(BodyError::TooLarge(format!(
            "push has {entries} entries; limit {MAX_SHIPPED_LOGS} (send smaller batches)"
        )));
    }
    let mut shipment = Shipment::default();
    for stream in streams {
        // Labels are checked even without entries (Loki skips such a stream unread): the
        // contract's bounds on labels hold for every stream, and no shipper sends one.
        let (pairs, shown) = match stream.labels {
            Labels::Selector(raw) => match parse_labels(&raw) {
                Ok(pairs) => {
                    let shown = selector(&pairs);
                    (Ok(pairs), shown)
                }
                Err(e) => (
                    Err(format!("error parsing labels '{raw}' with error: {e}")),
                    raw,
                ),
            },
            Labels::Object(Ok(pairs)) => {
                let shown = selector(&pairs);
                (Ok(pairs), shown)
            }
            Labels::Object(Err(e)) => (Err(format!("stream {e}")), String::from("{}")),
        };
        let pairs = match pairs.and_then(|pairs| check_labels(&pairs, &shown).map(|()| pairs)) {
            Ok(pairs) => pairs,
            Err(reason) => {
                shipment.reject(stream.entries.len(), reason);
                continue;
            }
        };
        if stream.entries.is_empty() {
            continue;
        }
        let labels: BTreeMap<String, String> = pairs.into_iter().collect();
        for entry in stream.entries {
            match entry_log(&labels, entry, config, tenant, now) {
                Ok(log) => shipment.logs.push(log),
                Err(reason) => shipment.reject(1, format!("entry for stream '{shown}' {reason}")),
            }
        }
    }
    Ok(shipment)
}

fn entry_log(
    labels: &BTreeMap<String, String>,
    entry: Entry,
    config: &LokiConfig,
    tenant: Option<&str>,
    now: DateTime<Utc>,
) -> Result<super::LogInput, String> {
    let timestamp =
        shipped_time(entry.nanos?, now).map_err(|e| format!("has timestamp that {e}"))?;
    let metadata = entry.metadata?;
    let mut attributes = labels.clone();
    for (name, value) in &metadata {
        if name.is_empty() || name.chars().count() > MAX_ATTRIBUTE_NAME_CHARS {
            return Err(format!(
                "has structured metadata name of {} characters; names are 1 to {MAX_ATTRIBUTE_NAME_CHARS}",
                name.chars().count()
            ));
        }
        // Metadata is the entry's own: it wins over a label of the same name.
        attributes.insert(name.clone(), value.clone());
    }
    if let Some(tenant) = tenant.map(str::trim).filter(|t| !t.is_empty()) {
        attributes
            .entry(TENANT_ATTRIBUTE.to_string())
            .or_insert_with(|| super::shipped::truncated(tenant, MAX_ATTRIBUTE_VALUE_CHARS));
    }
    let service_labels: Vec<&str> = config.service_labels.iter().map(String::as_str).collect();
    // The service is a stream's: labels first, then the entry's metadata.
    let service = first_of(labels, &service_labels)
        .or_else(|| first_of(&attributes, &service_labels))
        .map(str::to_string);
    let severity = first_of(&attributes, &LEVEL_LABELS)
        .and_then(level_severity)
        .or_else(|| line_severity(&entry.line));
    let metadata: BTreeMap<String, String> = metadata.into_iter().collect();
    Shipped {
        service,
        log_type: first_of(&attributes, &TYPE_LABELS).map(str::to_string),
        severity,
        timestamp: Some(timestamp),
        trace_id: first_of(&metadata, &TRACE_LABELS).map(str::to_string),
        span_id: first_of(&metadata, &SPAN_LABELS).map(str::to_string),
        line: entry.line,
        attributes,
        source: crate::model::LogSource::Loki,
    }
    .into_input(now)
    .map_err(|reason| match reason.as_str() {
        "has an empty line" => reason,
        _ => format!("has attributes out of bounds: {reason}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;
    use chrono::TimeZone;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 3, 7, 0, 0)
            .single()
            .unwrap_or_default()
    }

    fn nanos() -> i64 {
        now().timestamp() * 1_000_000_000 - 1_000
    }

    #[test]
    fn labels_in_selector_syntax() {
        assert_eq!(
            parse_labels(r#"{job="checkout", level="error", msg="say \"hi\"\n"}"#).unwrap(),
            vec![
                ("job".to_string(), "checkout".to_string()),
                ("level".to_string(), "error".to_string()),
                ("msg".to_string(), "say \"hi\"\n".to_string())
            ]
        );
        assert_eq!(parse_labels("{}").unwrap(), vec![]);
        assert_eq!(parse_labels(r#" { a = "b" , } "#).unwrap().len(), 1);
        for bad in [
            "",
            "job=\"x\"",
            "{job=\"x\"",
            "{job=x}",
            "{1job=\"x\"}",
            "{job=\"x\" app=\"y\"}",
            "{job=\"x\", job=\"y\"}",
            "{job=\"x\\q\"}",
            "{job=\"x\"} trailing",
            "{job-name=\"x\"}",
        ] {
            assert!(parse_labels(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_protobuf_push_becomes_logs_with_its_labels_and_metadata() {
        let request = PushRequest {
            streams: vec![StreamAdapter {
                labels: r#"{job="varlogs", service_name="checkout", level="error", env="prod"}"#
                    .into(),
                entries: vec![EntryAdapter {
                    timestamp: Some(Timestamp {
                        seconds: nanos() / 1_000_000_000,
                        nanos: 5,
                    }),
                    line: "payment failed for order 7".into(),
                    structured_metadata: vec![
                        LabelPairAdapter {
                            name: "trace_id".into(),
                            value: "4BF92F3577B34DA6A3CE929D0E0E4736".into(),
                        },
                        LabelPairAdapter {
                            name: "span_id".into(),
                            value: "00f067aa0ba902b7".into(),
                        },
                    ],
                }],
                hash: 0,
            }],
        };
        let body = snap::raw::Encoder::new()
            .compress_vec(&request.encode_to_vec())
            .unwrap();
        let decoded = decode_protobuf(&body).unwrap();
        let shipment =
            protobuf_logs(decoded, &LokiConfig::default(), Some("team-a"), now()).unwrap();
        assert_eq!(shipment.rejected, 0);
        let log = &shipment.logs[0];
        assert_eq!(log.service_name, "checkout");
        assert_eq!(log.severity, Severity::Error);
        assert_eq!(log.log_type, "APPLICATION_LOG");
        assert_eq!(log.attributes["env"], "prod");
        assert_eq!(log.attributes["tenant"], "team-a");
        assert_eq!(
            log.trace_id.as_deref(),
            Some("4bf92f3577b34da6a3ce929d0e0e4736")
        );
        assert_eq!(log.span_id.as_deref(), Some("00f067aa0ba902b7"));
        assert_eq!(log.timestamp.timestamp_subsec_nanos() % 1000, 5);
        assert!(decode_protobuf(b"not snappy at all").is_err());
        let not_proto = snap::raw::Encoder::new()
            .compress_vec(b"\xff\xff\xff")
            .unwrap();
        assert!(decode_protobuf(&not_proto).is_err());
    }

    #[test]
    fn a_json_push_refuses_a_bad_stream_and_takes_the_rest() {
        let ts = nanos().to_string();
        let body = json!({"streams": [
            {"stream": {"app": "orders", "detected_level": "warn"}, "values": [
                [ts, "slow query", {"user": "42"}],
                [ts, "level=error disk full"],
                ["yesterday", "bad time"],
                [ts, " "]
            ]},
            {"stream": {}, "values": [[ts, "no labels"]]},
            {"stream": {"job": "x"}, "values": []},
            {"stream": {"job": "batch", "type": "DEPLOYMENT_LOG"}, "values": [[ts, "ERROR deploy failed"]]}
        ]});
        let shipment = json_logs(
            body.to_string().as_bytes(),
            &LokiConfig::default(),
            None,
            now(),
        )
        .unwrap();
        let found: Vec<_> = shipment
            .logs
            .iter()
            .map(|l| (l.service_name.as_str(), l.severity, l.log_type.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![
                ("orders", Severity::Warn, "APPLICATION_LOG"),
                ("orders", Severity::Warn, "APPLICATION_LOG"),
                ("batch", Severity::Error, "DEPLOYMENT_LOG"),
            ]
        );
        assert_eq!(shipment.logs[0].attributes["user"], "42");
        assert_eq!(shipment.rejected, 3);
        let refusal = shipment.refusal().unwrap();
        assert!(refusal.contains("not nanoseconds"), "{refusal}");
        assert!(refusal.contains("empty line"), "{refusal}");
        assert!(
            refusal.contains("at least one label pair is required"),
            "{refusal}"
        );
        let config = LokiConfig::from_list(&["job".to_string()]);
        let shipment = json_logs(
            json!({"streams": [{"stream": {"app": "a", "job": "j"}, "values": [[ts, "x"]]}]})
                .to_string()
                .as_bytes(),
            &config,
            None,
            now(),
        )
        .unwrap();
        assert_eq!(shipment.logs[0].service_name, "j");
        for bad in [
            json!({"streams": 5}),
            json!({"nope": []}),
            json!({"streams": [{"stream": {"a": "b"}, "values": [["1"]]}]}),
            json!({"streams": [{"stream": {"a": "b"}, "values": [[ts, 5]]}]}),
        ] {
            assert!(matches!(
                json_logs(bad.to_string().as_bytes(), &config, None, now()),
                Err(BodyError::Malformed(_))
            ));
        }
    }

    #[test]
    fn a_stream_without_entries_still_needs_good_labels() {
        let config = LokiConfig::from_list(&["job".to_string()]);
        let body = json!({"streams": [{"stream": {}, "values": []}]});
        let shipment = json_logs(body.to_string().as_bytes(), &config, None, now()).unwrap();
        assert!(shipment.logs.is_empty());
        let refusal = shipment.refusal().unwrap_or_default();
        assert!(
            refusal.contains("at least one label pair is required"),
            "{refusal}"
        );
    }

    #[test]
    fn a_stream_without_values_has_no_entries_as_in_loki() {
        let config = LokiConfig::from_list(&["job".to_string()]);
        for body in [
            json!({"streams": [{"stream": {"job": "a"}, "values": null}]}),
            json!({"streams": [{"stream": {"job": "a"}}]}),
        ] {
            let shipment = json_logs(body.to_string().as_bytes(), &config, None, now()).unwrap();
            assert!(shipment.logs.is_empty());
            assert_eq!(shipment.refusal(), None);
        }
    }

    #[test]
    fn pushes_over_bounds_are_refused() {
        let ts = nanos().to_string();
        let values: Vec<Value> = (0..=MAX_SHIPPED_LOGS).map(|_| json!([ts, "x"])).collect();
        let body = json!({"streams": [{"stream": {"job": "a"}, "values": values}]});
        assert!(matches!(
            json_logs(
                body.to_string().as_bytes(),
                &LokiConfig::default(),
                None,
                now()
            ),
            Err(BodyError::TooLarge(_))
        ));
        let labels: serde_json::Map<String, Value> =
            (0..65).map(|i| (format!("l{i}"), json!("v"))).collect();
        let body = json!({"streams": [{"stream": labels, "values": [[ts, "x"]]}]});
        let shipment = json_logs(
            body.to_string().as_bytes(),
            &LokiConfig::default(),
            None,
            now(),
        )
        .unwrap();
        assert_eq!(shipment.rejected, 1);
        assert!(shipment
            .refusal()
            .unwrap()
            .contains("65 label names; limit 64"));
    }
}
