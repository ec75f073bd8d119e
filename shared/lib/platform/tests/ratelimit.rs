//! The rate limiter against the emulator (`AWS_ENDPOINT_URL`, which `local/test` starts), on
//! a fresh table keyed as `template.yaml` declares `RateLimitTable`: the count per window, the
//! window reset, keys and rules apart, exactness under concurrency, and a failing table.

// Test code: a failed unwrap, expect or index is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use chrono::{TimeZone, Utc};
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::ratelimit::{ClientKey, Limit, RateLimiter, Rule, Verdict};
use platform::{Clock, Env};

/// A new limits table in the emulator, and a clock standing at 12:00:10 (10 s into a minute).
/// The SDK, an independent client, to set up and check the table.
async fn sdk() -> aws_sdk_dynamodb::Client {
    aws_sdk_dynamodb::Client::new(&platform::aws::sdk_config(&Env::from_process()))
}

async fn limiter() -> (RateLimiter, Clock, Table) {
    assert!(
        std::env::var_os("AWS_ENDPOINT_URL").is_some(),
        "AWS_ENDPOINT_URL is not set: run through local/test, which starts the emulator"
    );
    let aws = AwsClients::from_env(&Env::from_process()).await;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let name = format!("ratelimit-{}-{nanos}", std::process::id());
    sdk()
        .await
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("create table");
    let clock = Clock::fixed(Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 10).unwrap());
    let table = Table::new(aws.dynamodb.clone(), name);
    (RateLimiter::new(table.clone(), clock.clone()), clock, table)
}

fn per_minute(limit: u32) -> Limit {
    Limit::new(
        "test",
        vec![Rule {
            limit,
            window: Duration::from_secs(60),
        }],
    )
}

#[tokio::test]
async fn the_limit_refuses_until_the_window_ends_then_counts_afresh() {
    let (limiter, clock, table) = limiter().await;
    let limit = per_minute(3);
    let alice = ClientKey::address("203.0.113.7");
    for _ in 0..3 {
        assert_eq!(
            limiter.check(&limit, &alice).await.unwrap(),
            Verdict::Allowed
        );
    }
    // 10 s into the minute: the window ends in 50 s.
    assert_eq!(
        limiter.check(&limit, &alice).await.unwrap(),
        Verdict::Limited { retry_after: 50 }
    );
    clock.advance(chrono::Duration::milliseconds(49_500));
    assert_eq!(
        limiter.check(&limit, &alice).await.unwrap(),
        Verdict::Limited { retry_after: 1 },
        "a part second left is one second"
    );
    // Another client, another count.
    let bob = ClientKey::address("198.51.100.2");
    assert_eq!(limiter.check(&limit, &bob).await.unwrap(), Verdict::Allowed);
    // The next minute: a new window, although nothing expired the old item.
    clock.advance(chrono::Duration::milliseconds(500));
    for _ in 0..3 {
        assert_eq!(
            limiter.check(&limit, &alice).await.unwrap(),
            Verdict::Allowed
        );
    }
    assert!(matches!(
        limiter.check(&limit, &alice).await.unwrap(),
        Verdict::Limited { retry_after: 60 }
    ));

    // Each item expires (TTL) a minute after its window; refused hits were not counted.
    let items = sdk()
        .await
        .scan()
        .table_name(table.name())
        .send()
        .await
        .unwrap()
        .items
        .unwrap_or_default();
    let first = items
        .iter()
        .find(|i| {
            i["pk"]
                .as_s()
                .unwrap()
                .ends_with(&format!("ip:203.0.113.7#{}", 1_795_435_210 / 60))
        })
        .expect("the first window's item");
    assert_eq!(first["hits"].as_n().unwrap(), "3");
    let window_end = (1_795_435_210 / 60 + 1) * 60;
    assert_eq!(
        first["expiresAt"].as_n().unwrap(),
        &(window_end + 60).to_string()
    );
    assert!(items.iter().all(|i| i["pk"].as_s().unwrap().len() < 100));
}

#[tokio::test]
async fn every_rule_of_a_limit_applies_and_the_refusing_one_says_how_long() {
    let (limiter, clock, _) = limiter().await;
    let limit = Limit::parse("burst-and-day", "2/60,3/86400").unwrap();
    let key = ClientKey::user("u-1");
    for _ in 0..2 {
        assert_eq!(limiter.check(&limit, &key).await.unwrap(), Verdict::Allowed);
    }
    assert!(matches!(
        limiter.check(&limit, &key).await.unwrap(),
        Verdict::Limited { retry_after: 50 }
    ));
    clock.advance(chrono::Duration::minutes(1));
    assert_eq!(limiter.check(&limit, &key).await.unwrap(), Verdict::Allowed);
    // The day's third request is spent: the rest of the day (12:01:10 to midnight) to wait.
    let verdict = limiter.check(&limit, &key).await.unwrap();
    assert_eq!(
        verdict,
        Verdict::Limited {
            retry_after: 12 * 3600 - 70
        }
    );
}

#[tokio::test]
async fn concurrent_requests_never_pass_more_than_the_limit() {
    let (limiter, _, _) = limiter().await;
    let limit = per_minute(5);
    let key = ClientKey::username("Mallory");
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let (limiter, limit, key) = (limiter.clone(), limit.clone(), key.clone());
        tasks.push(tokio::spawn(
            async move { limiter.check(&limit, &key).await },
        ));
    }
    let mut allowed = 0;
    for task in tasks {
        if task.await.unwrap().unwrap() == Verdict::Allowed {
            allowed += 1;
        }
    }
    assert_eq!(allowed, 5);
}

#[tokio::test]
async fn a_missing_table_is_an_error_not_a_pass() {
    let (limiter, clock, table) = limiter().await;
    let gone = RateLimiter::new(
        Table::new(table.client().clone(), format!("{}-gone", table.name())),
        clock,
    );
    assert!(gone
        .check(&per_minute(1), &ClientKey::address("203.0.113.9"))
        .await
        .is_err());
    // No rules: nothing is asked of the table at all.
    let unlimited = Limit::parse("off", "").unwrap();
    assert_eq!(
        gone.check(&unlimited, &ClientKey::address("203.0.113.9"))
            .await
            .unwrap(),
        Verdict::Allowed
    );
    drop(limiter);
}
