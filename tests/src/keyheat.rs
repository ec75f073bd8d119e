//! Key heat: what a workload costs each DynamoDB partition, scaled to a target rate.
//!
//! The emulator meters every read and write of the tables it is told to watch, per partition
//! key of the table and of each global index, in the capacity units DynamoDB would charge
//! (`local/emulator.py`, `/_emulator/keyheat`). A [`Scenario`] runs `ops` operations of one
//! kind; [`heat`] turns what they cost into each key's rate at the scenario's target:
//!
//! - a key's units per operation are its units over the scenario's `ops`;
//! - a key whose class (the key with its ids folded, [`key_class`]) had one value in the run is
//!   touched by every operation of the kind (a counter, a list, a shard, one hot post): at
//!   target it takes its units per operation times the target rate;
//! - a class with `d` values is per entity (a user's partition, a post's): the run spread its
//!   operations over `d` entities and the target spreads them over `spread`, so one key takes
//!   `d / spread` of that (at most all of it).
//!
//! A partition gives 3,000 read units and 1,000 write units a second; a key's share is the
//! larger of its two fractions, and a key over half of a partition fails the benchmark.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// Read units a partition serves a second (table or global index).
pub const PARTITION_READ_UNITS: f64 = 3000.0;
/// Write units a partition takes a second.
pub const PARTITION_WRITE_UNITS: f64 = 1000.0;
/// The share of a partition a key may take at target.
pub const HOT_SHARE: f64 = 0.5;
/// On-demand prices (us-east-1, per million request units).
pub const PRICE_PER_MILLION_READS: f64 = 0.125;
pub const PRICE_PER_MILLION_WRITES: f64 = 0.625;
/// Seconds in the month the cost is quoted for (30 days).
pub const SECONDS_PER_MONTH: f64 = 30.0 * 86_400.0;

/// What one partition key was charged, as the emulator reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyUse {
    pub table: String,
    /// The global index; empty for the table itself.
    pub index: String,
    pub key: String,
    pub read_units: f64,
    pub write_units: f64,
    pub reads: u64,
    pub writes: u64,
}

impl KeyUse {
    fn from_json(row: &Value) -> Option<Self> {
        Some(Self {
            table: row["table"].as_str()?.to_string(),
            index: row["index"].as_str()?.to_string(),
            key: row["key"].as_str().unwrap_or("").to_string(),
            read_units: row["readUnits"].as_f64()?,
            write_units: row["writeUnits"].as_f64()?,
            reads: row["reads"].as_u64()?,
            writes: row["writes"].as_u64()?,
        })
    }
}

/// The emulator's meter for the tables whose names start with `prefix`.
pub struct Meter {
    http: reqwest::Client,
    url: String,
}

impl Meter {
    /// Starts metering tables named `prefix...` on the emulator at `emulator`.
    pub async fn start(emulator: &str, prefix: &str) -> Self {
        let meter = Self {
            http: platform::tls::http_client().build().expect("client"),
            url: format!(
                "{}/_emulator/keyheat?prefix={prefix}",
                emulator.trim_end_matches('/')
            ),
        };
        let answer = meter.http.put(&meter.url).send().await.expect("keyheat");
        assert!(
            answer.status().is_success(),
            "the emulator meters no keys: {answer:?}"
        );
        meter
    }

    /// What each key was charged since the last [`Meter::take`].
    pub async fn take(&self) -> Vec<KeyUse> {
        let rows: Value = self
            .http
            .get(&self.url)
            .send()
            .await
            .expect("keyheat")
            .json()
            .await
            .expect("keyheat rows");
        self.http.delete(&self.url).send().await.expect("keyheat");
        // DELETE stops the meter; start it again for what follows.
        self.http.put(&self.url).send().await.expect("keyheat");
        rows.as_array()
            .map(|rows| rows.iter().filter_map(KeyUse::from_json).collect())
            .unwrap_or_default()
    }
}

/// A key with its ids folded to `{id}`: UUIDs, hex runs of 12 or more, digit runs of 5 or
/// more (times in milliseconds, numeric ids, and the bench's numbered names). Hours, days and
/// small shard numbers stay: every operation of an hour shares its hour's key.
pub fn key_class(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let bytes: Vec<char> = key.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.is_ascii_hexdigit() || **c == '-')
            .count();
        let token: String = bytes.get(i..i + run).unwrap_or_default().iter().collect();
        let hex = token.trim_matches('-');
        let digits = bytes
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let is_uuid = hex.len() >= 32 && hex.chars().filter(|c| *c != '-').count() >= 32;
        let is_hex = run >= 12 && hex.len() == token.len() && !hex.contains('-');
        if is_uuid || is_hex {
            out.push_str("{id}");
            i += run;
        } else if digits >= 5 {
            out.push_str("{id}");
            i += digits;
        } else {
            if let Some(c) = bytes.get(i) {
                out.push(*c);
            }
            i += 1;
        }
    }
    out
}

/// One kind of operation of the workload, and its rate at the target scale.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub system: &'static str,
    pub name: &'static str,
    /// Operations at the target, a second.
    pub target_per_second: f64,
    /// How many entities (users, posts, services) the target spreads these operations over.
    pub spread: f64,
    /// Operations the run made.
    pub ops: usize,
}

/// One key's load at the target.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyHeat {
    pub system: &'static str,
    pub scenario: &'static str,
    pub table: String,
    pub index: String,
    pub class: String,
    /// The key itself (the hottest of its class).
    pub key: String,
    pub reads_per_second: f64,
    pub writes_per_second: f64,
}

impl KeyHeat {
    /// The larger of its shares of a partition's read and write units.
    pub fn share(&self) -> f64 {
        (self.reads_per_second / PARTITION_READ_UNITS)
            .max(self.writes_per_second / PARTITION_WRITE_UNITS)
    }

    pub fn hot(&self) -> bool {
        self.share() > HOT_SHARE
    }
}

/// The hottest key of each class of `uses` at the scenario's target, hottest first.
pub fn heat(
    scenario: &Scenario,
    uses: &[KeyUse],
    table_name: impl Fn(&str) -> String,
) -> Vec<KeyHeat> {
    let ops = scenario.ops.max(1) as f64;
    let mut classes: BTreeMap<(String, String, String), Vec<&KeyUse>> = BTreeMap::new();
    for u in uses {
        classes
            .entry((u.table.clone(), u.index.clone(), key_class(&u.key)))
            .or_default()
            .push(u);
    }
    let mut out: Vec<KeyHeat> = classes
        .into_iter()
        .filter_map(|((table, index, class), keys)| {
            let distinct = keys
                .iter()
                .map(|k| k.key.as_str())
                .collect::<BTreeSet<_>>()
                .len();
            let fraction = if distinct <= 1 {
                1.0
            } else {
                (distinct as f64 / scenario.spread.max(1.0)).min(1.0)
            };
            let rate = |units: f64| units / ops * scenario.target_per_second * fraction;
            keys.into_iter()
                .map(|k| KeyHeat {
                    system: scenario.system,
                    scenario: scenario.name,
                    table: table_name(&table),
                    index: index.clone(),
                    class: class.clone(),
                    key: k.key.clone(),
                    reads_per_second: rate(k.read_units),
                    writes_per_second: rate(k.write_units),
                })
                .max_by(|a, b| a.share().total_cmp(&b.share()))
        })
        .collect();
    out.sort_by(|a, b| b.share().total_cmp(&a.share()));
    out
}

/// Read and write units a second the whole scenario costs at target (every key, unscaled by
/// spread: the table's total traffic).
pub fn units_per_second(scenario: &Scenario, uses: &[KeyUse]) -> (f64, f64) {
    let ops = scenario.ops.max(1) as f64;
    let (reads, writes) = uses.iter().fold((0.0, 0.0), |(r, w), u| {
        (r + u.read_units, w + u.write_units)
    });
    (
        reads / ops * scenario.target_per_second,
        writes / ops * scenario.target_per_second,
    )
}

/// DynamoDB's on-demand request cost of a month at these rates, in dollars.
pub fn monthly_cost(reads_per_second: f64, writes_per_second: f64) -> f64 {
    (reads_per_second * PRICE_PER_MILLION_READS + writes_per_second * PRICE_PER_MILLION_WRITES)
        * SECONDS_PER_MONTH
        / 1e6
}

/// S3 Standard's prices (us-east-1): a PUT (or LIST) and a GET, and a GB stored a month.
pub const S3_PRICE_PER_THOUSAND_PUTS: f64 = 0.005;
pub const S3_PRICE_PER_THOUSAND_GETS: f64 = 0.0004;
pub const S3_PRICE_PER_GB_MONTH: f64 = 0.023;

/// S3's cost of a month at these request rates, keeping `stored_gb` (the retention's worth of
/// objects, steady state), in dollars.
pub fn s3_monthly_cost(puts_per_second: f64, gets_per_second: f64, stored_gb: f64) -> f64 {
    (puts_per_second * S3_PRICE_PER_THOUSAND_PUTS + gets_per_second * S3_PRICE_PER_THOUSAND_GETS)
        * SECONDS_PER_MONTH
        / 1e3
        + stored_gb * S3_PRICE_PER_GB_MONTH
}

/// CloudFront's regional edge caches: every edge location asks one of them, and each asks the
/// origin for a cached page once per expiry (no Origin Shield assumed).
pub const REGIONAL_EDGE_CACHES: f64 = 13.0;

/// How long a shared cache may keep an answer with this `Cache-Control`: its `s-maxage` (or
/// `max-age`) when `public`, and nothing when private, `no-store` or `no-cache`.
pub fn shared_max_age(cache_control: &str) -> Option<u32> {
    let directives: Vec<(String, Option<String>)> = cache_control
        .split(',')
        .map(|d| {
            let d = d.trim().to_ascii_lowercase();
            match d.split_once('=') {
                Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
                None => (d, None),
            }
        })
        .collect();
    let has = |name: &str| directives.iter().any(|(k, _)| k == name);
    if !has("public") || has("private") || has("no-store") || has("no-cache") {
        return None;
    }
    let seconds = |name: &str| {
        directives
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_deref()?.parse::<u32>().ok())
    };
    seconds("s-maxage")
        .or_else(|| seconds("max-age"))
        .filter(|s| *s > 0)
}

/// The reads a second that reach the origin when readers ask `target_per_second` times for
/// `pages` distinct URLs whose answers a CDN keeps `seconds` (None: not cacheable, all of them).
pub fn origin_rate(target_per_second: f64, pages: usize, seconds: Option<u32>) -> f64 {
    match seconds {
        Some(s) if s > 0 => {
            target_per_second.min(REGIONAL_EDGE_CACHES * pages.max(1) as f64 / f64::from(s))
        }
        _ => target_per_second,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn used(table: &str, index: &str, key: &str, read: f64, write: f64) -> KeyUse {
        KeyUse {
            table: table.into(),
            index: index.into(),
            key: key.into(),
            read_units: read,
            write_units: write,
            reads: 1,
            writes: 1,
        }
    }

    #[test]
    fn a_cdn_passes_on_one_read_per_regional_cache_per_expiry() {
        assert_eq!(shared_max_age("public, max-age=0, s-maxage=10"), Some(10));
        assert_eq!(shared_max_age("public, max-age=30"), Some(30));
        assert_eq!(shared_max_age("private, no-store"), None);
        assert_eq!(shared_max_age("public, no-cache, s-maxage=10"), None);
        assert_eq!(shared_max_age("max-age=60"), None);
        assert_eq!(shared_max_age("public, s-maxage=0"), None);
        // 20,000 reads a second of one page kept 10 s: 13 caches ask once each per 10 s.
        assert!((origin_rate(20_000.0, 1, Some(10)) - 1.3).abs() < 1e-9);
        assert!((origin_rate(20_000.0, 4, Some(10)) - 5.2).abs() < 1e-9);
        // Never more than the readers ask, and everything when nothing is cacheable.
        assert!((origin_rate(0.5, 1, Some(10)) - 0.5).abs() < 1e-9);
        assert!((origin_rate(20_000.0, 1, None) - 20_000.0).abs() < 1e-9);
    }

    #[test]
    fn ids_fold_and_buckets_stay() {
        assert_eq!(
            key_class("USER#4f1c2a9e-0c1b-4d5e-8f90-123456789abc"),
            "USER#{id}"
        );
        assert_eq!(
            key_class("SOURCE#0123456789abcdef0123456789abcdef"),
            "SOURCE#{id}"
        );
        assert_eq!(key_class("RECIPE#0001764300000000123"), "RECIPE#{id}");
        assert_eq!(key_class("LOGIN#kh000042"), "LOGIN#kh{id}");
        assert_eq!(key_class("LOG#2026-11-28T04#3"), "LOG#2026-11-28T04#3");
        assert_eq!(key_class("STATS"), "STATS");
        assert_eq!(key_class("T#coffee"), "T#coffee");
        assert_eq!(key_class("COUNTER"), "COUNTER");
    }

    /// A hand-computed case: 40 creates by 8 users, 2,000 a second at target over a million
    /// users. The counter took 1 unit per create; each user's partition 2 units per create,
    /// 5 creates each.
    #[test]
    fn a_shared_key_takes_the_whole_rate_and_an_entitys_its_share() {
        let scenario = Scenario {
            system: "recipes",
            name: "create",
            target_per_second: 2000.0,
            spread: 1e6,
            ops: 40,
        };
        let mut uses = vec![used("t", "", "COUNTER", 0.0, 40.0)];
        for user in 0..8 {
            uses.push(used("t", "", &format!("USER#kh{user:06}"), 0.0, 10.0));
        }
        let heat = heat(&scenario, &uses, |t| t.to_string());
        assert_eq!(heat.len(), 2, "{heat:?}");
        // 40 units / 40 creates × 2,000/s = 2,000 WCU/s: twice a partition.
        assert_eq!(heat[0].class, "COUNTER");
        assert!((heat[0].writes_per_second - 2000.0).abs() < 1e-9);
        assert!((heat[0].share() - 2.0).abs() < 1e-9);
        assert!(heat[0].hot());
        // One user: 10 units / 40 creates × 2,000/s × 8 users / 1,000,000 = 0.004 WCU/s.
        assert_eq!(heat[1].class, "USER#kh{id}");
        assert!((heat[1].writes_per_second - 0.004).abs() < 1e-12);
        assert!(!heat[1].hot());
        // The whole: 120 units / 40 × 2,000 = 6,000 WCU/s; a month of it at $0.625 a million.
        let (r, w) = units_per_second(&scenario, &uses);
        assert!((r - 0.0).abs() < 1e-9 && (w - 6000.0).abs() < 1e-9);
        let cost = monthly_cost(r, w);
        assert!(
            (cost - 6000.0 * 0.625 * 2_592_000.0 / 1e6).abs() < 1e-6,
            "{cost}"
        );
    }

    #[test]
    fn s3_costs_its_requests_and_its_storage() {
        // 1,280 PUTs a second (80 batches of 12,500 logs into 16 buckets) for a month:
        // 1,280 × 2,592,000 / 1,000 × $0.005 = $16,588.80; 100 GETs a second:
        // 100 × 2,592,000 / 1,000 × $0.0004 = $103.68; 1,000 GB: $23.
        let cost = s3_monthly_cost(1_280.0, 100.0, 1_000.0);
        assert!((cost - (16_588.8 + 103.68 + 23.0)).abs() < 1e-6, "{cost}");
    }

    #[test]
    fn reads_count_against_three_thousand_and_writes_against_one_thousand() {
        let hot = KeyHeat {
            system: "s",
            scenario: "n",
            table: "t".into(),
            index: String::new(),
            class: "K".into(),
            key: "K".into(),
            reads_per_second: 1500.0,
            writes_per_second: 400.0,
        };
        assert!((hot.share() - 0.5).abs() < 1e-9);
        assert!(!hot.hot());
        assert!(KeyHeat {
            reads_per_second: 1501.0,
            ..hot.clone()
        }
        .hot());
        assert!(KeyHeat {
            writes_per_second: 501.0,
            ..hot
        }
        .hot());
    }

    /// The emulator's meter against a case computed by hand from DynamoDB's rules (an item of
    /// 3,009 bytes: `pk`=A 3, `sk`=1 3, `g`=G 2, `v` 3,001; its keys-only index image 8).
    #[tokio::test]
    async fn the_emulator_meters_as_dynamodb_bills() {
        use aws_sdk_dynamodb::types::{
            AttributeDefinition, AttributeValue as A, BillingMode, ConditionCheck,
            GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection, ProjectionType, Put,
            ScalarAttributeType, TransactWriteItem,
        };
        let prefix = format!("keyheat-{}-", uuid::Uuid::new_v4().simple());
        let table = format!("{prefix}t");
        let db = aws_sdk_dynamodb::Client::new(&platform::aws::sdk_config(
            &platform::Env::from_process(),
        ));
        let attribute = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap()
        };
        let schema = |name: &str, kind: KeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kind)
                .build()
                .unwrap()
        };
        db.create_table()
            .table_name(&table)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(attribute("pk"))
            .attribute_definitions(attribute("sk"))
            .attribute_definitions(attribute("g"))
            .key_schema(schema("pk", KeyType::Hash))
            .key_schema(schema("sk", KeyType::Range))
            .global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name("gsi1")
                    .key_schema(schema("g", KeyType::Hash))
                    .projection(
                        Projection::builder()
                            .projection_type(ProjectionType::KeysOnly)
                            .build(),
                    )
                    .build()
                    .unwrap(),
            )
            .send()
            .await
            .unwrap();
        let meter = Meter::start(&crate::emulator(), &prefix).await;
        let s = |v: &str| A::S(v.into());
        let key_a = || [("pk".to_string(), s("A")), ("sk".to_string(), s("1"))];
        db.put_item()
            .table_name(&table)
            .set_item(Some(
                key_a()
                    .into_iter()
                    .chain([("g".into(), s("G")), ("v".into(), s(&"x".repeat(3000)))])
                    .collect(),
            ))
            .send()
            .await
            .unwrap();
        for consistent in [true, false] {
            db.get_item()
                .table_name(&table)
                .set_key(Some(key_a().into_iter().collect()))
                .consistent_read(consistent)
                .send()
                .await
                .unwrap();
        }
        for (index, name, value) in [(None, "pk", "A"), (Some("gsi1"), "g", "G")] {
            db.query()
                .table_name(&table)
                .set_index_name(index.map(str::to_string))
                .key_condition_expression(format!("{name} = :v"))
                .expression_attribute_values(":v", s(value))
                .send()
                .await
                .unwrap();
        }
        db.update_item()
            .table_name(&table)
            .set_key(Some(key_a().into_iter().collect()))
            .update_expression("SET g = :h")
            .expression_attribute_values(":h", s("H"))
            .send()
            .await
            .unwrap();
        let refused = db
            .put_item()
            .table_name(&table)
            .set_item(Some(key_a().into_iter().collect()))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        assert!(refused.is_err());
        db.transact_write_items()
            .transact_items(
                TransactWriteItem::builder()
                    .condition_check(
                        ConditionCheck::builder()
                            .table_name(&table)
                            .key("pk", s("B"))
                            .key("sk", s("1"))
                            .condition_expression("attribute_not_exists(pk)")
                            .build()
                            .unwrap(),
                    )
                    .build(),
            )
            .transact_items(
                TransactWriteItem::builder()
                    .put(
                        Put::builder()
                            .table_name(&table)
                            .item("pk", s("C"))
                            .item("sk", s("1"))
                            .build()
                            .unwrap(),
                    )
                    .build(),
            )
            .send()
            .await
            .unwrap();
        db.delete_item()
            .table_name(&table)
            .set_key(Some(key_a().into_iter().collect()))
            .send()
            .await
            .unwrap();

        let mut uses = meter.take().await;
        uses.sort_by(|a, b| (&a.index, &a.key).cmp(&(&b.index, &b.key)));
        let row = |index: &str, key: &str, read: f64, write: f64, reads: u64, writes: u64| KeyUse {
            table: table.clone(),
            index: index.into(),
            key: key.into(),
            read_units: read,
            write_units: write,
            reads,
            writes,
        };
        assert_eq!(
            uses,
            vec![
                // Reads: GetItem 1 (consistent) + 0.5, Query 0.5 (3,009 B under 4 KB).
                // Writes, 3 units each (3,009 B): put, update, the refused put, delete.
                row("", "A", 2.0, 12.0, 3, 4),
                // A ConditionCheck on nothing: 1 unit, doubled in a transaction; the Put too.
                row("", "B", 0.0, 2.0, 0, 1),
                row("", "C", 0.0, 2.0, 0, 1),
                // The index: the put (8 B), the Query (0.5), the update moving it away.
                row("gsi1", "G", 0.5, 2.0, 1, 2),
                // ...to H, and the delete removing it.
                row("gsi1", "H", 0.0, 2.0, 0, 2),
            ]
        );
        db.delete_table().table_name(&table).send().await.unwrap();
    }
}
