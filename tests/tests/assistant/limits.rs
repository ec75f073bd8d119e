//! The brake on the paid model, through the local stack: per-client limits (address when
//! anonymous, user and address when signed in) on `/api/ai/*` and the function URL alike, the
//! 429 with `Retry-After`, the window's reset, a failing limits table refusing before the
//! model, `max_tokens` per operation, and the model's time budget through the HTTP API.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use stack_tests::genai::{function_url, stack, ARTICLE};
use stack_tests::limits::{assert_rate_limited, from, in_one_window};
use stack_tests::llm::FakeLlm;
use stack_tests::{assert_news_error, router, Call, TestStack};

/// `POST url` with `body`, from client address `ip`, with a user token when given.
async fn ask(
    t: &TestStack,
    url: &str,
    ip: &str,
    token: Option<&str>,
    body: &Value,
) -> reqwest::Response {
    let mut request = from(t.http.post(url), ip).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.call().await
}

/// The tests' windows: a day, so that no window ends in the middle of a test (a fixed
/// window starts afresh at its end, which `the_count_starts_afresh_when_the_window_ends`
/// checks on its own).
const DAY: u64 = 86_400;

/// A request the cache cannot answer (the text differs each time), as an abuser sends.
fn fresh(n: usize) -> Value {
    json!({"text": format!("{ARTICLE}\n\nVariant {n}.")})
}

#[tokio::test]
async fn anonymous_clients_are_limited_per_address_on_the_api_and_the_function_url() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("AiRateLimitAnonymous", "3/86400")]).await;
    let api = t.url("/api/ai/summarize");
    let own = format!("{}/summarize", function_url(&t));
    for n in 0..2 {
        assert_eq!(
            ask(&t, &api, "203.0.113.1", None, &fresh(n)).await.status(),
            200
        );
    }
    // The function URL counts against the same client.
    assert_eq!(
        ask(&t, &own, "203.0.113.1", None, &fresh(2)).await.status(),
        200
    );
    let refused = ask(&t, &api, "203.0.113.1", None, &fresh(3)).await;
    assert_rate_limited(refused, "/summarize", DAY).await;
    let refused = ask(&t, &own, "203.0.113.1", None, &fresh(4)).await;
    assert_rate_limited(refused, "/summarize", DAY).await;
    assert_eq!(
        llm.call_count(),
        3,
        "a refused request never reaches the model"
    );
    // Another address has its own count; health and docs are not counted.
    assert_eq!(
        ask(&t, &api, "198.51.100.9", None, &fresh(5))
            .await
            .status(),
        200
    );
    let health = from(t.http.get(t.url("/api/ai/health")), "203.0.113.1")
        .call()
        .await;
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn signed_in_readers_are_counted_as_users_under_an_address_ceiling() {
    let llm = FakeLlm::start().await;
    let t = stack(
        &llm,
        &[
            ("AiRateLimitPerUser", "2/86400"),
            ("AiRateLimitPerAddress", "3/86400"),
            ("AiRateLimitAnonymous", "1/86400"),
        ],
    )
    .await;
    let (_, alice) = t.user("alice").await;
    let (_, bob) = t.user("bob").await;
    let qa = t.url("/api/ai/qa");
    let question =
        |n: usize| json!({"text": format!("{ARTICLE} {n}"), "question": "How many homes?"});
    const OFFICE: &str = "192.0.2.50";
    // Alice's two, then her own limit; her refused request does not count for the office.
    for n in 0..2 {
        assert_eq!(
            ask(&t, &qa, OFFICE, Some(&alice), &question(n))
                .await
                .status(),
            200
        );
    }
    assert_rate_limited(
        ask(&t, &qa, OFFICE, Some(&alice), &question(2)).await,
        "/qa",
        DAY,
    )
    .await;
    // From elsewhere Alice is still Alice.
    assert_rate_limited(
        ask(&t, &qa, "203.0.113.77", Some(&alice), &question(3)).await,
        "/qa",
        DAY,
    )
    .await;
    // Bob has his own count, but the office's ceiling (3) is reached with his first.
    assert_eq!(
        ask(&t, &qa, OFFICE, Some(&bob), &question(4))
            .await
            .status(),
        200
    );
    assert_rate_limited(
        ask(&t, &qa, OFFICE, Some(&bob), &question(5)).await,
        "/qa",
        DAY,
    )
    .await;
    // Without a token (or with a bad one) a client is anonymous: counted apart, and tighter.
    assert_eq!(ask(&t, &qa, OFFICE, None, &question(6)).await.status(), 200);
    assert_rate_limited(
        ask(&t, &qa, OFFICE, Some("not-a-token"), &question(7)).await,
        "/qa",
        DAY,
    )
    .await;
    assert_eq!(llm.call_count(), 4);
}

#[tokio::test]
async fn an_ipv6_client_is_one_client_for_its_whole_64() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("AiRateLimitAnonymous", "2/86400")]).await;
    let api = t.url("/api/ai/summarize");
    // One subscriber's /64: a fresh address per request gains nothing.
    for (n, ip) in ["2001:db8:7:1::1", "2001:db8:7:1:ffff:ffff:ffff:fffe"]
        .into_iter()
        .enumerate()
    {
        assert_eq!(ask(&t, &api, ip, None, &fresh(n)).await.status(), 200);
    }
    let refused = ask(&t, &api, "2001:db8:7:1:1234::9", None, &fresh(2)).await;
    assert_rate_limited(refused, "/summarize", DAY).await;
    // The next /64 is another subscriber.
    assert_eq!(
        ask(&t, &api, "2001:db8:7:2::1", None, &fresh(3))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn a_crowd_of_clients_meets_the_global_budget_on_the_model() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("AiRateLimitGlobal", "4/86400")]).await;
    let api = t.url("/api/ai/summarize");
    let own = format!("{}/summarize", function_url(&t));
    let (_, reader) = t.user("crowd_reader").await;
    // Every request from another address, each within its own limits.
    for n in 0..3 {
        let ip = format!("198.51.100.{}", n + 1);
        assert_eq!(ask(&t, &api, &ip, None, &fresh(n)).await.status(), 200);
    }
    assert_eq!(
        ask(&t, &own, "198.51.100.9", Some(&reader), &fresh(3))
            .await
            .status(),
        200
    );
    let before = llm.call_count();
    for (n, (url, token)) in [(&api, None), (&own, Some(reader.as_str()))]
        .into_iter()
        .enumerate()
    {
        let ip = format!("203.0.113.{}", n + 50);
        let refused = ask(&t, url, &ip, token, &fresh(10 + n)).await;
        assert_rate_limited(refused, "/summarize", DAY).await;
    }
    assert_eq!(
        llm.call_count(),
        before,
        "the budget refuses before the model"
    );
}

#[tokio::test]
async fn the_count_starts_afresh_when_the_window_ends() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("AiRateLimitAnonymous", "2/4")]).await;
    let url = t.url("/api/ai/sentiment");
    let mut n = 0;
    let mut next = || {
        n += 1;
        fresh(n)
    };
    // Start at a window's beginning, so the two requests fall in one window.
    in_one_window(4, Duration::from_millis(3_700)).await;
    for _ in 0..2 {
        assert_eq!(
            ask(&t, &url, "203.0.113.5", None, &next()).await.status(),
            200
        );
    }
    let (_, retry_after) = assert_rate_limited(
        ask(&t, &url, "203.0.113.5", None, &next()).await,
        "/sentiment",
        4,
    )
    .await;
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    assert_eq!(
        ask(&t, &url, "203.0.113.5", None, &next()).await.status(),
        200
    );
}

#[tokio::test]
async fn a_failing_limits_table_refuses_with_503_before_the_model() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let env = t.env("AssistantFunction").with(
        "RATE_LIMIT_TABLE",
        format!("{}-missing", t.table("RateLimitTable")),
    );
    let genai = assistant_function::router(env).await.expect("router");
    let answer = router::post_json(&genai, "/api/ai/summarize", &json!({"text": ARTICLE})).await;
    let body = answer.json_or_null();
    assert_eq!(answer.status, 503, "{body}");
    assert_eq!(body["path"], "/summarize");
    assert_eq!(llm.call_count(), 0, "unguarded, the model is not called");
}

#[tokio::test]
async fn each_operation_bounds_the_answer_with_its_max_tokens() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("LlmMaxTokens", "qa=120, explain=2000")]).await;
    let text = json!({"text": ARTICLE, "question": "Who?"});
    for (operation, expected) in [
        ("summarize", 700),
        ("explain", 2000),
        ("sentiment", 300),
        ("qa", 120),
    ] {
        let response = t.post_json(&format!("/api/ai/{operation}"), &text).await;
        assert_eq!(response.status(), 200, "{operation}");
        assert_eq!(llm.last_call().body["max_tokens"], expected, "{operation}");
    }
}

#[tokio::test]
async fn a_slow_model_is_a_502_before_the_gateway_gives_up_but_the_function_url_waits() {
    let llm = FakeLlm::start().await;
    let t = stack(
        &llm,
        &[("LlmApiTimeoutSeconds", "1"), ("LlmTimeoutSeconds", "10")],
    )
    .await;
    llm.delay(Some(Duration::from_millis(2500)));
    let started = Instant::now();
    let late = t
        .post_json("/api/ai/summarize", &json!({"text": ARTICLE}))
        .await;
    let body = assert_news_error(late, 502, "/summarize").await;
    assert!(
        started.elapsed() < Duration::from_millis(2000),
        "{:?}",
        started.elapsed()
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("no answer within"),
        "{body}"
    );
    // The function URL keeps the provider's own timeout.
    let waited = t
        .http
        .post(format!("{}/summarize", function_url(&t)))
        .json(&json!({"text": ARTICLE}))
        .call()
        .await;
    assert_eq!(waited.status(), 200);
}
