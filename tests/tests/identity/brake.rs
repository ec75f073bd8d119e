//! The brake on password guessing, through the local stack: login attempts counted per
//! username tried and per client address, the 429 with `Retry-After` even for the right
//! password once a limit is spent, and logins going on when the limits table fails.

use serde_json::json;
use stack_tests::limits::{assert_rate_limited, from};
use stack_tests::users::{password, LOGIN};
use stack_tests::{router, Call, TestStack};

async fn login(t: &TestStack, ip: &str, username: &str, password: &str) -> reqwest::Response {
    from(t.http.post(t.url(LOGIN)), ip)
        .json(&json!({"username": username, "password": password}))
        .call()
        .await
}

fn with(limits: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    limits
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test]
async fn guessing_one_username_is_braked_from_every_address() {
    let t = TestStack::start_with(with(&[("LoginRateLimitPerUsername", "3/86400")])).await;
    t.register("alice").await;
    t.register("bob").await;
    for (n, ip) in ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
        .iter()
        .enumerate()
    {
        let guess = login(&t, ip, "alice", &format!("guess-{n}")).await;
        assert_eq!(guess.status(), 401);
    }
    // Spent, whatever the address, the case of the name, or the password.
    assert_rate_limited(
        login(&t, "198.51.100.4", "ALICE", &password("alice")).await,
        "/auth/login",
        86_400,
    )
    .await;
    // Another username is not braked.
    assert_eq!(
        login(&t, "203.0.113.1", "bob", &password("bob"))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn one_address_trying_many_usernames_is_braked() {
    let t = TestStack::start_with(with(&[("LoginRateLimitPerAddress", "3/86400")])).await;
    t.register("carol").await;
    for name in ["x1", "x2", "x3"] {
        assert_eq!(
            login(&t, "203.0.113.9", name, "whatever-pass")
                .await
                .status(),
            401
        );
    }
    assert_rate_limited(
        login(&t, "203.0.113.9", "carol", &password("carol")).await,
        "/auth/login",
        86_400,
    )
    .await;
    // Carol from her own address logs in.
    assert_eq!(
        login(&t, "192.0.2.8", "carol", &password("carol"))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn logins_go_on_when_the_limits_table_fails() {
    let t = TestStack::start_with(with(&[("LoginRateLimitPerUsername", "1/86400")])).await;
    t.register("dave").await;
    let env = t.env("IdentityFunction").with(
        "RATE_LIMIT_TABLE",
        format!("{}-missing", t.table("RateLimitTable")),
    );
    let users = identity_function::router(env).await.expect("router");
    for _ in 0..2 {
        let answer = router::post_json(
            &users,
            LOGIN,
            &json!({"username": "dave", "password": password("dave")}),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.text());
    }
}
