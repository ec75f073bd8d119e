//! Per-client rate limits, kept in one DynamoDB table: the platform's brake on what costs
//! money or guards secrets (the paid model, password checks). Every system that needs one
//! names a [`Limit`] and asks [`RateLimiter::check`] before doing the work.
//!
//! Fixed windows: a request counts in the window `floor(now / window)`, one item per (limit,
//! rule, client key, window), incremented with one conditional `UpdateItem` (`ADD hits :one`
//! if `hits < limit`): atomic across concurrent Lambdas, one write and no read per rule. A
//! sliding window would need a second read of the previous window for a smoother edge; at
//! worst a fixed window lets `2 × limit` through around a window's boundary, which the
//! limits below are sized for. The window is part of the key, so an item's TTL
//! (`expiresAt`) is only cleanup: a table that never expires items (the emulator) limits the
//! same way.
//!
//! A limit a single client may use thousands of times a second (an ingest key) is
//! [`Limit::sharded`]: each request counts in one of `n` items picked at random, each allowing
//! `ceil(limit / n)`, so no item takes more than a partition's share of the writes; at most
//! `n - 1` requests more than the limit pass a window, and one may be refused a little before
//! it when the shards fill unevenly; a limit under 100 a shard is sharded less, so small
//! limits stay exact.
//!
//! Keys are bounded: client keys longer than [`MAX_CLIENT_KEY`] bytes, or holding characters
//! outside a safe set, are replaced by a hash, so a client cannot grow an item key towards
//! DynamoDB's 2,048-byte limit.

#[cfg(feature = "edge")]
mod edge;

use std::time::Duration;

use crate::aws::AwsClients;
use crate::dynamo::{is_condition_failed, n, s, DynamoError, Table};
use crate::{Clock, ConfigError, Env};

#[cfg(feature = "edge")]
pub use edge::{enforce, Brake, Rate, WhenUnavailable};

/// The environment variable naming the limits table (`!Ref RateLimitTable`).
pub const TABLE_VARIABLE: &str = "RATE_LIMIT_TABLE";
/// Longest client key kept as given; longer ones are hashed.
pub const MAX_CLIENT_KEY: usize = 128;
/// Longest accepted window: a day is what the limits are written in; a week is plenty.
const MAX_WINDOW_SECONDS: u64 = 7 * 86_400;
/// A sharded rule's least allowance a shard: a limit under `n` times this is not sharded (or
/// less), so small limits stay exact.
const MIN_HITS_PER_SHARD: u32 = 100;
/// How long an item outlives its window before TTL may remove it.
const EXPIRY_GRACE_SECONDS: i64 = 60;

/// At most `limit` requests per `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub limit: u32,
    pub window: Duration,
}

/// A named set of rules (`ai-anonymous`: 10 a minute and 100 a day), all of which a request
/// must pass. No rules: no limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limit {
    name: &'static str,
    rules: Vec<Rule>,
    shards: u32,
}

impl Limit {
    pub fn new(name: &'static str, rules: Vec<Rule>) -> Self {
        Self {
            name,
            rules,
            shards: 1,
        }
    }

    /// Counts each client over `shards` items (at least 1; never more than a rule's limit).
    pub fn sharded(mut self, shards: u32) -> Self {
        self.shards = shards.max(1);
        self
    }

    /// Reads `spec`: rules `COUNT/SECONDS` separated by commas (`10/60,100/86400`); empty is
    /// no limit.
    pub fn parse(name: &'static str, spec: &str) -> Result<Self, String> {
        let mut rules = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (limit, window) = crate::config::count_per_seconds(part)?;
            if window > MAX_WINDOW_SECONDS {
                return Err(format!(
                    "{part:?}: the window is more than {MAX_WINDOW_SECONDS} seconds"
                ));
            }
            rules.push(Rule {
                limit,
                window: Duration::from_secs(window),
            });
        }
        Ok(Self::new(name, rules))
    }

    /// The limit in environment variable `variable`, `default` when unset.
    pub fn from_env(
        env: &Env,
        variable: &str,
        name: &'static str,
        default: &str,
    ) -> Result<Self, ConfigError> {
        Self::parse(name, env.get(variable).unwrap_or(default)).map_err(|reason| {
            ConfigError::Invalid {
                name: variable.to_string(),
                reason,
            }
        })
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub fn is_unlimited(&self) -> bool {
        self.rules.is_empty()
    }
}

/// Who a limit counts: a client address, a user id, a username or an API key's id, bounded in
/// length.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientKey(String);

impl ClientKey {
    /// A client's IP address (as API Gateway saw it). An IPv6 client is counted by its /64:
    /// one subscriber is routed a whole /64 and may send from any of its 2^64 addresses, so
    /// counting each address would give them a fresh allowance per request. An IPv4 address
    /// mapped into IPv6 is its IPv4 address.
    pub fn address(ip: &str) -> Self {
        let ip = ip.trim();
        match ip.parse::<std::net::IpAddr>() {
            Ok(std::net::IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => Self::bounded("ip", &v4.to_string()),
                None => {
                    let [a, b, c, d, ..] = v6.segments();
                    Self::bounded("ip", &format!("{a:x}:{b:x}:{c:x}:{d:x}::"))
                }
            },
            _ => Self::bounded("ip", ip),
        }
    }

    /// A signed-in user, by id.
    pub fn user(id: &str) -> Self {
        Self::bounded("user", id.trim())
    }

    /// A username as typed at login (case-insensitive, as usernames are).
    pub fn username(name: &str) -> Self {
        Self::bounded("name", &name.trim().to_lowercase())
    }

    /// Every client at once: a budget the whole platform shares (the model's spend a minute).
    /// Its limit should be [`Limit::sharded`], as every request writes it.
    pub fn everyone() -> Self {
        Self("all".to_string())
    }

    /// An API key, by its id (never the secret itself).
    pub fn api_key(id: &str) -> Self {
        Self::bounded("key", id.trim())
    }

    fn bounded(kind: &str, raw: &str) -> Self {
        let safe = !raw.is_empty()
            && raw.len() <= MAX_CLIENT_KEY
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".:-_@+".contains(&b));
        if safe {
            Self(format!("{kind}:{raw}"))
        } else {
            let digest = ring::digest::digest(&ring::digest::SHA256, raw.as_bytes());
            let hex: String = digest
                .as_ref()
                .iter()
                .take(16)
                .map(|b| format!("{b:02x}"))
                .collect();
            Self(format!("{kind}#{hex}"))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The outcome of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Over a limit; the window that refused ends in `retry_after` seconds (at least 1).
    Limited {
        retry_after: u64,
    },
}

/// The limits table and the clock windows are read from. Cheap to clone.
#[derive(Clone, Debug)]
pub struct RateLimiter {
    table: Table,
    clock: Clock,
}

impl RateLimiter {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self { table, clock }
    }

    /// The table named by `RATE_LIMIT_TABLE`; `None` when it is unset (no limits: the
    /// operator's choice, logged by the caller).
    pub fn from_env(env: &Env, aws: &AwsClients) -> Option<Self> {
        env.get(TABLE_VARIABLE)
            .map(|name| Self::new(Table::new(aws.dynamodb.clone(), name), Clock::system()))
    }

    /// Counts one request of `key` against every rule of `limit`, in order; the first rule
    /// that is exhausted refuses (later rules are not counted). An exhausted rule is not
    /// incremented further.
    pub async fn check(&self, limit: &Limit, key: &ClientKey) -> Result<Verdict, DynamoError> {
        for rule in limit.rules() {
            if let Verdict::Limited { retry_after } = self.hit(limit, rule, key).await? {
                return Ok(Verdict::Limited { retry_after });
            }
        }
        Ok(Verdict::Allowed)
    }

    async fn hit(
        &self,
        limit: &Limit,
        rule: &Rule,
        key: &ClientKey,
    ) -> Result<Verdict, DynamoError> {
        let now_ms = self.clock.now().timestamp_millis();
        let window_ms = i64::try_from(rule.window.as_millis())
            .unwrap_or(i64::MAX)
            .max(1);
        let window = now_ms.div_euclid(window_ms);
        let window_end_ms = window.saturating_add(1).saturating_mul(window_ms);
        let name = limit.name();
        let mut item_key = format!("{name}#{}#{}#{window}", rule.window.as_secs(), key.as_str());
        let shards = limit.shards.min(rule.limit / MIN_HITS_PER_SHARD).max(1);
        let allowed = rule.limit.div_ceil(shards);
        if shards > 1 {
            item_key.push_str(&format!("#{}", random_below(shards)));
        }
        let result = self
            .table
            .update_item()
            .key("pk", s(item_key))
            .update_expression("ADD hits :one SET expiresAt = :expires")
            .condition_expression("attribute_not_exists(hits) OR hits < :limit")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":limit", n(i64::from(allowed)))
            .expression_attribute_values(":expires", n(window_end_ms / 1000 + EXPIRY_GRACE_SECONDS))
            .send()
            .await;
        match result {
            Ok(_) => Ok(Verdict::Allowed),
            Err(e) if is_condition_failed(&e) => {
                let left_ms = (window_end_ms - now_ms).max(1);
                let retry_after = u64::try_from((left_ms + 999) / 1000).unwrap_or(1).max(1);
                Ok(Verdict::Limited { retry_after })
            }
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }
}

/// A number below `n`: this process's requests in turn, from a start the clock picks, so one
/// instance spreads its requests evenly and instances do not all start at the same shard.
fn random_below(n: u32) -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::OnceLock;
    static START: OnceLock<u32> = OnceLock::new();
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let start = *START.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        // Golden-ratio mixing: a coarse clock's round nanoseconds still spread.
        nanos.wrapping_mul(0x9E37_79B1) >> 8
    });
    start.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed)) % n.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_count_per_seconds_rules() {
        let limit = Limit::parse("ai", " 10/60, 100/86400 ").unwrap();
        assert_eq!(
            limit.rules(),
            [
                Rule {
                    limit: 10,
                    window: Duration::from_secs(60)
                },
                Rule {
                    limit: 100,
                    window: Duration::from_secs(86_400)
                }
            ]
        );
        assert!(Limit::parse("ai", "").unwrap().is_unlimited());
        for bad in ["10", "0/60", "10/0", "x/60", "10/604801", "-1/60"] {
            assert!(Limit::parse("ai", bad).is_err(), "{bad}");
        }
        let env = Env::new().with("AI", "5/1");
        let err = Limit::from_env(&env.clone().with("AI", "5"), "AI", "ai", "1/1").unwrap_err();
        assert!(err.to_string().contains("AI"), "{err}");
        assert_eq!(
            Limit::from_env(&env, "AI", "ai", "1/1").unwrap().rules()[0].limit,
            5
        );
        assert_eq!(
            Limit::from_env(&Env::new(), "AI", "ai", "7/1")
                .unwrap()
                .rules()[0]
                .limit,
            7
        );
    }

    #[test]
    fn a_sharded_limit_takes_its_turns_over_every_shard() {
        let mut seen = [0u32; 8];
        for _ in 0..800 {
            if let Some(count) = seen.get_mut(random_below(8) as usize) {
                *count += 1;
            }
        }
        assert_eq!(seen, [100; 8]);
        assert_eq!(random_below(1), 0);
        assert_eq!(Limit::new("x", Vec::new()).sharded(0).shards, 1);
    }

    #[test]
    fn client_keys_are_bounded() {
        assert_eq!(ClientKey::address("203.0.113.7").as_str(), "ip:203.0.113.7");
        // IPv6 by /64: every address of one subscriber's prefix is one client.
        assert_eq!(
            ClientKey::address("2001:db8::1").as_str(),
            "ip:2001:db8:0:0::"
        );
        assert_eq!(
            ClientKey::address("2001:db8:1:2:aaaa:bbbb:cccc:dddd"),
            ClientKey::address("2001:db8:1:2::ffff")
        );
        assert_ne!(
            ClientKey::address("2001:db8:1:2::1"),
            ClientKey::address("2001:db8:1:3::1")
        );
        assert_eq!(
            ClientKey::address("::ffff:203.0.113.7"),
            ClientKey::address("203.0.113.7")
        );
        // Not an address (a test's "unknown"): kept as given.
        assert_eq!(ClientKey::address("unknown").as_str(), "ip:unknown");
        assert_eq!(ClientKey::username(" Alice ").as_str(), "name:alice");
        let long = ClientKey::username(&"a".repeat(5000));
        assert!(
            long.as_str().starts_with("name#") && long.as_str().len() <= 40,
            "{long:?}"
        );
        assert_ne!(long, ClientKey::username(&"a".repeat(5001)));
        // A separator or odd character cannot make one key look like another's.
        let odd = ClientKey::username("bob#1");
        assert!(odd.as_str().starts_with("name#"), "{odd:?}");
        assert!(ClientKey::user("").as_str().starts_with("user#"));
    }
}
