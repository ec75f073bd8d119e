//! Ingest keys: what a sender of logs presents in `X-Api-Key` instead of a person's token.
//!
//! An admin issues a key (`POST /api/v1/ingest/keys`), sees it once, and may bind it to the
//! services it may send and give it its own rate limit; revoking it (`DELETE
//! /api/v1/ingest/keys/{id}`) refuses it from the next request on. Rotating is issuing a new
//! key, moving the sender to it, and revoking the old one: no redeploy.
//!
//! A key is `ik_{id}_{secret}`: `id` 32 hex digits (its record's name), `secret` 64 hex digits
//! (244 random bits: two v4 UUIDs from the system's CSPRNG). Only its SHA-256 is stored, in
//! the incidents table (`IKEY#{id}` / `META`, listed by `gsi1` `INGESTKEYS` /
//! `{createdAt}#{id}`); a presented key is hashed and compared with the stored hash in
//! constant time. The deployment's keys (`INGEST_API_KEYS`, the `IngestApiKeys` parameter)
//! are *configured* keys: hashed when the function starts, compared the same way, bound to no
//! service, with the deployment's default rate limit.
//!
//! Per ingestion with an issued key: one GetItem (consistent, so a revocation holds at once);
//! `lastUsed` is written at most once a minute per key and warm instance.
//!
//! Rates at target (1M logs/s from 10k services, one service at 100k/s, 500 logs a request):
//! the busiest key's `IKEY#{id}` partition takes 200 consistent reads/s (13% of half a
//! partition's 3,000) and, with 100 warm ingest instances, under 2 writes/s; `gsi1`
//! `INGESTKEYS` takes the same writes (every key's `lastUsed`: at most 100 keys x 100 instances
//! / 60 s = 167/s, a third of half a partition's 1,000) and a Query per list.

use std::time::Duration;

use platform::dynamo::{is_condition_failed, key, n, s, Attributes, DynamoError, Item, Table};
use platform::{Clock, FieldErrors, Invalid};
use ring::digest::{digest, SHA256};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use subtle::ConstantTimeEq;
use utoipa::ToSchema;

use crate::fingerprint::hex;
use crate::input::MAX_NAME_CHARS;
use crate::service::IncidentsError;

/// How an issued key starts.
pub const KEY_PREFIX: &str = "ik_";
/// The most keys issued at once (revoked ones do not count).
pub const MAX_KEYS: usize = 100;
/// The most services one key may be bound to.
pub const MAX_SERVICES: usize = 50;
/// A key's rate limit bounds: requests per window, and the window.
pub const MAX_REQUESTS: u32 = 1_000_000;
pub const MAX_WINDOW_SECONDS: u64 = 86_400;
/// The deployment's default limit of a key (`INGEST_KEY_RATE_LIMIT`, `COUNT/SECONDS`).
pub const DEFAULT_RATE_LIMIT: &str = "3000/60";
/// How often `lastUsed` is written per key and warm instance.
pub const LAST_USED_EVERY: Duration = Duration::from_secs(60);

const KEYS_PK: &str = "INGESTKEYS";
const META: &str = "META";

/// A key's own rate limit: at most `requests` ingestions per `windowSeconds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyRateLimit {
    #[schema(minimum = 1, maximum = 1000000)]
    pub requests: u32,
    #[schema(minimum = 1, maximum = 86400)]
    pub window_seconds: u64,
}

impl KeyRateLimit {
    /// `COUNT/SECONDS`, within the bounds.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let (requests, window_seconds) = platform::config::count_per_seconds(raw)?;
        if requests > MAX_REQUESTS || window_seconds > MAX_WINDOW_SECONDS {
            return Err(format!(
                "{raw:?} is over {MAX_REQUESTS} requests or {MAX_WINDOW_SECONDS} seconds"
            ));
        }
        Ok(Self {
            requests,
            window_seconds,
        })
    }
}

/// An issued ingest key as listed: never its secret.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestKey {
    /// 32 hex digits; the key itself starts `ik_{id}_`.
    #[schema(pattern = "^[0-9a-f]{32}$")]
    pub id: String,
    pub name: String,
    /// The services it may send; empty: any.
    pub services: Vec<String>,
    pub rate_limit: KeyRateLimit,
    /// The admin who issued it (username).
    pub created_by: String,
    pub created_at: String,
    /// When it last ingested (to the minute); absent when never used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_used: Option<String>,
}

impl IngestKey {
    /// Whether this key may send logs of `service`.
    pub fn may_send(&self, service: &str) -> bool {
        self.services.is_empty() || self.services.iter().any(|s| s == service)
    }
}

/// A key just issued: the only time its secret is shown.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuedIngestKey {
    /// The key to send in `X-Api-Key`. Shown once: only its hash is kept.
    #[schema(pattern = "^ik_[0-9a-f]{32}_[0-9a-f]{64}$")]
    pub key: String,
    #[serde(flatten)]
    pub ingest_key: IngestKey,
}

/// A key to issue, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInput {
    pub name: String,
    pub services: Vec<String>,
    pub rate_limit: Option<KeyRateLimit>,
}

fn bounded_name(errors: &mut FieldErrors, field: &str, value: Option<&Value>) -> Option<String> {
    match value {
        Some(Value::String(s)) if s.trim().is_empty() => {
            errors.add(field, "must not be blank");
            None
        }
        Some(Value::String(s)) if s.chars().count() > MAX_NAME_CHARS => {
            errors.add(
                field,
                format!("must be at most {MAX_NAME_CHARS} characters"),
            );
            None
        }
        Some(Value::String(s)) => Some(s.trim().to_string()),
        None | Some(Value::Null) => {
            errors.add(field, "is required");
            None
        }
        Some(_) => {
            errors.add(field, "must be a string");
            None
        }
    }
}

fn count_in(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
    name: &str,
    max: u64,
) -> Option<u64> {
    let field = format!("rateLimit.{name}");
    match object.get(name).and_then(Value::as_u64) {
        Some(v) if (1..=max).contains(&v) => Some(v),
        _ => {
            errors.add(field, format!("must be an integer from 1 to {max}"));
            None
        }
    }
}

/// `{name, services?, rateLimit?: {requests, windowSeconds}}`.
pub fn parse_key(body: &Value) -> Result<KeyInput, Invalid> {
    let object = body
        .as_object()
        .ok_or_else(|| Invalid::field("body", "must be a JSON object"))?;
    let mut errors = FieldErrors::new();
    let name = bounded_name(&mut errors, "name", object.get("name"));
    let mut services = Vec::new();
    match object.get("services") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) if items.len() > MAX_SERVICES => {
            errors.add(
                "services",
                format!("must name at most {MAX_SERVICES} services"),
            );
        }
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if let Some(service) =
                    bounded_name(&mut errors, &format!("services[{i}]"), Some(item))
                {
                    if !services.contains(&service) {
                        services.push(service);
                    }
                }
            }
        }
        Some(_) => errors.add("services", "must be an array of service names"),
    }
    let rate_limit = match object.get("rateLimit") {
        None | Some(Value::Null) => None,
        Some(Value::Object(limit)) => {
            let requests = count_in(&mut errors, limit, "requests", u64::from(MAX_REQUESTS));
            let window = count_in(&mut errors, limit, "windowSeconds", MAX_WINDOW_SECONDS);
            match (requests.and_then(|r| u32::try_from(r).ok()), window) {
                (Some(requests), Some(window_seconds)) => Some(KeyRateLimit {
                    requests,
                    window_seconds,
                }),
                _ => None,
            }
        }
        Some(_) => {
            errors.add("rateLimit", "must be an object {requests, windowSeconds}");
            None
        }
    };
    errors.finish()?;
    let name = name.ok_or_else(|| Invalid::field("name", "is required"))?;
    Ok(KeyInput {
        name,
        services,
        rate_limit,
    })
}

/// The SHA-256 of a key, as stored.
pub fn hash(key: &str) -> [u8; 32] {
    let mut out = [0_u8; 32];
    out.copy_from_slice(digest(&SHA256, key.as_bytes()).as_ref());
    out
}

fn unhex(raw: &str) -> Option<Vec<u8>> {
    if !raw.len().is_multiple_of(2) {
        return None;
    }
    (0..raw.len())
        .step_by(2)
        .map(|i| {
            raw.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
        })
        .collect()
}

fn is_hex(raw: &str, len: usize) -> bool {
    raw.len() == len && raw.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The id of an issued key (`ik_{id}_{secret}`), when `presented` has that shape.
pub fn issued_id(presented: &str) -> Option<&str> {
    let rest = presented.strip_prefix(KEY_PREFIX)?;
    let (id, secret) = rest.split_once('_')?;
    (is_hex(id, 32) && is_hex(secret, 64)).then_some(id)
}

/// Whether `id` can name an issued key (a path parameter).
pub fn is_key_id(id: &str) -> bool {
    is_hex(id, 32)
}

/// Who sent an ingestion, by key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyHolder {
    /// A deployment key; `id` is `configured-` and the start of its hash (for logs and
    /// limits, never the key).
    Configured {
        id: String,
    },
    Issued(IngestKey),
}

impl KeyHolder {
    pub fn id(&self) -> &str {
        match self {
            Self::Configured { id } => id,
            Self::Issued(key) => &key.id,
        }
    }

    /// Whether this key may send logs of `service`.
    pub fn may_send(&self, service: &str) -> bool {
        match self {
            Self::Configured { .. } => true,
            Self::Issued(key) => key.may_send(service),
        }
    }
}

/// The deployment's keys, as hashes.
#[derive(Clone, Debug, Default)]
pub struct ConfiguredKeys(Vec<[u8; 32]>);

impl ConfiguredKeys {
    /// Hashes `keys` (blank ones skipped).
    pub fn new(keys: &[String]) -> Self {
        Self(
            keys.iter()
                .map(|k| k.trim())
                .filter(|k| !k.is_empty())
                .map(hash)
                .collect(),
        )
    }

    /// The holder of `presented` among them: every hash is compared, in constant time.
    pub fn find(&self, presented: &str) -> Option<KeyHolder> {
        let presented = hash(presented);
        let mut found = None;
        for stored in &self.0 {
            if bool::from(stored.ct_eq(&presented)) {
                found = Some(KeyHolder::Configured {
                    id: format!("configured-{}", hex(stored.get(..6).unwrap_or_default())),
                });
            }
        }
        found
    }
}

/// Issued keys in the incidents table.
#[derive(Clone, Debug)]
pub struct IngestKeys {
    table: Table,
    clock: Clock,
    default_limit: KeyRateLimit,
}

fn key_of(id: &str) -> Item {
    key(format!("IKEY#{id}"), META)
}

impl IngestKeys {
    pub fn new(table: Table, clock: Clock, default_limit: KeyRateLimit) -> Self {
        Self {
            table,
            clock,
            default_limit,
        }
    }

    /// The limit a key gets when none is given (and configured keys have).
    pub fn default_limit(&self) -> KeyRateLimit {
        self.default_limit
    }

    fn key_from(&self, item: &Item) -> Result<IngestKey, DynamoError> {
        let t = self.table.name();
        let requests = u32::try_from(item.int(t, "rateRequests")?)
            .map_err(|_| self.table.corrupt("rateRequests"))?;
        let window_seconds = u64::try_from(item.int(t, "rateWindowSeconds")?)
            .map_err(|_| self.table.corrupt("rateWindowSeconds"))?;
        Ok(IngestKey {
            id: item.string(t, "id")?,
            name: item.string(t, "name")?,
            services: item.strings(t, "services")?,
            rate_limit: KeyRateLimit {
                requests,
                window_seconds,
            },
            created_by: item.string(t, "createdBy")?,
            created_at: item.string(t, "createdAt")?,
            last_used: item.opt_string("lastUsed"),
        })
    }

    /// Issues a key (at most [`MAX_KEYS`] exist); its secret is in the answer only.
    pub async fn issue(
        &self,
        input: KeyInput,
        by: &str,
    ) -> Result<IssuedIngestKey, IncidentsError> {
        if self.list().await?.len() >= MAX_KEYS {
            return Err(Invalid::field(
                "body",
                format!("at most {MAX_KEYS} ingest keys; revoke one first"),
            )
            .into());
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        let secret = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let secret_key = format!("{KEY_PREFIX}{id}_{secret}");
        let created_at = self.clock.timestamp();
        let ingest_key = IngestKey {
            id: id.clone(),
            name: input.name,
            services: input.services,
            rate_limit: input.rate_limit.unwrap_or(self.default_limit),
            created_by: by.to_string(),
            created_at: created_at.clone(),
            last_used: None,
        };
        let mut item = key_of(&id);
        item.insert("gsi1pk".into(), s(KEYS_PK));
        item.insert("gsi1sk".into(), s(format!("{created_at}#{id}")));
        item.insert("id".into(), s(id.as_str()));
        item.insert("name".into(), s(ingest_key.name.as_str()));
        item.insert(
            "services".into(),
            platform::dynamo::AttributeValue::L(
                ingest_key.services.iter().map(|v| s(v.as_str())).collect(),
            ),
        );
        item.insert(
            "rateRequests".into(),
            n(i64::from(ingest_key.rate_limit.requests)),
        );
        item.insert(
            "rateWindowSeconds".into(),
            n(i64::try_from(ingest_key.rate_limit.window_seconds).unwrap_or(i64::MAX)),
        );
        item.insert("keyHash".into(), s(hex(&hash(&secret_key))));
        item.insert("createdBy".into(), s(by));
        item.insert("createdAt".into(), s(created_at.as_str()));
        self.table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
            .map_err(|e| self.table.fail("PutItem", &e))?;
        Ok(IssuedIngestKey {
            key: secret_key,
            ingest_key,
        })
    }

    /// Every issued key, newest first (one Query).
    pub async fn list(&self) -> Result<Vec<IngestKey>, DynamoError> {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :pk")
            .expression_attribute_values(":pk", s(KEYS_PK))
            .scan_index_forward(false);
        self.table
            .query_all(query, Some(MAX_KEYS))
            .await?
            .iter()
            .map(|item| self.key_from(item))
            .collect()
    }

    /// Revokes key `id`; false when there is none.
    pub async fn revoke(&self, id: &str) -> Result<bool, DynamoError> {
        match self
            .table
            .delete_item()
            .set_key(Some(key_of(id)))
            .condition_expression("attribute_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("DeleteItem", &e)),
        }
    }

    /// The issued key `presented` is, when it is one and not revoked (its hash compared in
    /// constant time).
    pub async fn find(&self, presented: &str) -> Result<Option<KeyHolder>, DynamoError> {
        let Some(id) = issued_id(presented) else {
            return Ok(None);
        };
        let Some(item) = self.table.get(key_of(id)).await? else {
            return Ok(None);
        };
        let stored = item
            .opt_string("keyHash")
            .as_deref()
            .and_then(unhex)
            .ok_or_else(|| self.table.corrupt("keyHash"))?;
        if !bool::from(stored.as_slice().ct_eq(hash(presented).as_slice())) {
            return Ok(None);
        }
        Ok(Some(KeyHolder::Issued(self.key_from(&item)?)))
    }

    /// Notes that key `id` was used now (a revoked key is not written back).
    pub async fn touch(&self, id: &str) -> Result<(), DynamoError> {
        match self
            .table
            .update_item()
            .set_key(Some(key_of(id)))
            .update_expression("SET lastUsed = :now")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":now", s(self.clock.timestamp()))
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn issued_keys_name_their_record() {
        let id = "0123456789abcdef0123456789abcdef";
        let key = format!("ik_{id}_{}", "a".repeat(64));
        assert_eq!(issued_id(&key), Some(id));
        assert_eq!(issued_id("local-ingest-key"), None);
        assert_eq!(issued_id(&format!("ik_{id}_{}", "a".repeat(63))), None);
        assert_eq!(
            issued_id(&format!("ik_{}_{}", "A".repeat(32), "a".repeat(64))),
            None
        );
        assert!(is_key_id(id) && !is_key_id("default"));
    }

    #[test]
    fn configured_keys_match_whole_keys_only() {
        let keys = ConfiguredKeys::new(&["local-ingest-key".into(), " ".into()]);
        let holder = keys.find("local-ingest-key").unwrap();
        assert!(holder.id().starts_with("configured-") && holder.id().len() == 23);
        assert!(!holder.id().contains("local"));
        assert!(holder.may_send("anything"));
        assert_eq!(keys.find("local-ingest"), None);
        assert_eq!(keys.find(""), None);
        assert_eq!(ConfiguredKeys::new(&[]).find("x"), None);
    }

    #[test]
    fn a_bound_key_sends_its_services_only() {
        let key = IngestKey {
            id: "a".repeat(32),
            name: "payments".into(),
            services: vec!["payments".into()],
            rate_limit: KeyRateLimit::parse("10/60").unwrap(),
            created_by: "admin".into(),
            created_at: "2026-11-24T12:00:00.000Z".into(),
            last_used: None,
        };
        assert!(key.may_send("payments") && !key.may_send("orders"));
        assert!(IngestKey {
            services: vec![],
            ..key
        }
        .may_send("orders"));
    }

    #[test]
    fn key_requests_are_checked_field_by_field() {
        let ok = parse_key(&json!({"name": " ci ", "services": ["a", "a", "b"],
            "rateLimit": {"requests": 5, "windowSeconds": 60}}))
        .unwrap();
        assert_eq!(ok.name, "ci");
        assert_eq!(ok.services, ["a", "b"]);
        assert_eq!(
            ok.rate_limit,
            Some(KeyRateLimit {
                requests: 5,
                window_seconds: 60
            })
        );
        let err = parse_key(&json!({"name": "", "services": ["", 3],
            "rateLimit": {"requests": 0, "windowSeconds": 86401}}))
        .unwrap_err();
        let fields: Vec<&str> = err.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "name",
                "services[0]",
                "services[1]",
                "rateLimit.requests",
                "rateLimit.windowSeconds"
            ]
        );
        assert!(parse_key(&json!([])).is_err());
        assert!(KeyRateLimit::parse("0/60").is_err() && KeyRateLimit::parse("5").is_err());
    }

    #[test]
    fn hashes_round_trip_as_hex() {
        let h = hash("k");
        assert_eq!(unhex(&hex(&h)).unwrap(), h.to_vec());
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }
}
