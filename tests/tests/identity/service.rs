//! The users function's own routes: the framework's errors in the news shape, and health.

use serde_json::{json, Value};
use stack_tests::users::{LOGIN, REGISTER};
use stack_tests::{assert_news_error, router, Call, TestStack};

#[tokio::test]
async fn framework_errors_use_the_news_shape() {
    let t = TestStack::start().await;
    let unknown = t.get("/api/users/nothing/here").await;
    assert_news_error(unknown, 404, "/nothing/here").await;

    let wrong_method = t.http.delete(t.url(LOGIN)).call().await;
    assert_news_error(wrong_method, 405, "/auth/login").await;

    let too_large = t
        .post_raw(
            REGISTER,
            "application/json",
            format!("{{\"name\": \"{}\"}}", "x".repeat(200 * 1024)),
        )
        .await;
    assert_news_error(too_large, 413, "/auth/register").await;

    let xml = t.post_raw(REGISTER, "application/xml", "<user/>").await;
    assert_news_error(xml, 415, "/auth/register").await;
}

#[tokio::test]
async fn health_checks_the_table() {
    let t = TestStack::start().await;
    let up = t.get("/api/users/actuator/health").await;
    assert_eq!(up.status(), 200);
    assert_eq!(
        up.json::<Value>().await.expect("json"),
        json!({"status": "UP"})
    );

    // The same function code with its table gone answers 503 DOWN.
    let env = t
        .env("IdentityFunction")
        .with("USERS_TABLE", format!("{}-missing", t.stack_name));
    let users = identity_function::router(env).await.expect("router");
    let down = router::get(&users, "/api/users/actuator/health").await;
    assert_eq!(down.status, 503);
    assert_eq!(down.json(), json!({"status": "DOWN"}));
}
