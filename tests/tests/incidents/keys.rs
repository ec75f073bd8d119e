//! Ingest keys: an admin issues one (shown once, stored hashed), binds it to services, gives
//! it its own rate limit and revokes it, without a redeploy; the deploy-time key keeps
//! working; an operator's token ingests, a plain user's never does.

use serde_json::{json, Value};
use stack_tests::incidents::{log, LOGS};
use stack_tests::limits::assert_rate_limited;
use stack_tests::stack::Call;
use stack_tests::{assert_news_error, details, TestStack};

const KEYS: &str = "/api/v1/ingest/keys";

async fn ingest_with(t: &TestStack, key: &str, body: &Value) -> reqwest::Response {
    t.http
        .post(t.url(LOGS))
        .header("x-api-key", key)
        .json(body)
        .call()
        .await
}

async fn issue(t: &TestStack, admin: &str, body: &Value) -> Value {
    let r = t.post_json_auth(KEYS, admin, body).await;
    let status = r.status();
    let issued: Value = r.json().await.unwrap();
    assert_eq!(status, 201, "{issued}");
    issued
}

fn is_issued_key(key: &str) -> bool {
    let Some((id, secret)) = key.strip_prefix("ik_").and_then(|k| k.split_once('_')) else {
        return false;
    };
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    hex(id, 32) && hex(secret, 64)
}

#[tokio::test]
async fn admins_issue_bind_limit_list_and_revoke_ingest_keys() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let admin = t.admin_token().await;
    let (_, oncall) = t.operator("oncall").await;

    // Issued once, with its secret; only its hash is kept.
    let payments = issue(
        &t,
        &admin,
        &json!({"name": "payments-prod", "services": ["payments", " payments "],
            "rateLimit": {"requests": 3, "windowSeconds": 3600}}),
    )
    .await;
    let secret = payments["key"].as_str().unwrap().to_string();
    assert!(is_issued_key(&secret), "{secret}");
    let id = payments["id"].as_str().unwrap().to_string();
    assert!(secret.starts_with(&format!("ik_{id}_")));
    assert_eq!(payments["name"], "payments-prod");
    assert_eq!(payments["services"], json!(["payments"]));
    assert_eq!(
        payments["rateLimit"],
        json!({"requests": 3, "windowSeconds": 3600})
    );
    assert_eq!(payments["createdBy"], "admin");
    assert!(payments.get("lastUsed").is_none());
    let stored = t.scan("IncidentsTable").await;
    let record = stored
        .iter()
        .find(|i| i["pk"].as_s().unwrap() == &format!("IKEY#{id}"))
        .expect("the key's record");
    assert_eq!(record["keyHash"].as_s().unwrap().len(), 64);
    assert!(
        !format!("{stored:?}").contains(&secret[3 + 32 + 1..]),
        "the secret is stored nowhere"
    );

    // A bound key sends its services; a batch beyond them is refused whole, naming each log.
    assert_eq!(
        ingest_with(&t, &secret, &log("payments", "INFO", "charged"))
            .await
            .status(),
        202
    );
    let beyond = assert_news_error(
        ingest_with(
            &t,
            &secret,
            &json!([
                log("payments", "INFO", "ok"),
                log("orders", "INFO", "not mine")
            ]),
        )
        .await,
        403,
        LOGS,
    )
    .await;
    assert_eq!(
        details(&beyond),
        ["[1].serviceName: this ingest key may not send orders"]
    );
    t.timeline_with(&oncall, "serviceName=payments", 1).await;
    assert!(t
        .get_ok_auth(&format!("{LOGS}?serviceName=orders"), &oncall)
        .await
        .as_array()
        .unwrap()
        .is_empty());

    // Its own limit: three requests an hour (the refused batch counted), then 429.
    assert_eq!(
        ingest_with(&t, &secret, &log("payments", "INFO", "third"))
            .await
            .status(),
        202
    );
    assert_rate_limited(
        ingest_with(&t, &secret, &log("payments", "INFO", "fourth")).await,
        LOGS,
        3600,
    )
    .await;
    // Other keys have their own: the deployment's key is not slowed by it.
    assert_eq!(t.ingest(&log("orders", "INFO", "x")).await.status(), 202);

    // Listed without secrets, with when it was last used.
    let listed = t.get_ok_auth(KEYS, &admin).await;
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], id.as_str());
    assert!(listed[0].get("key").is_none() && listed[0].get("keyHash").is_none());
    assert!(
        chrono::DateTime::parse_from_rfc3339(listed[0]["lastUsed"].as_str().unwrap()).is_ok(),
        "{}",
        listed[0]
    );
    assert!(!listed[0].to_string().contains(&secret));

    // Rotation: a new key, the sender moves to it, the old one is revoked: no redeploy.
    let rotated = issue(&t, &admin, &json!({"name": "payments-prod (2)"})).await;
    let new_secret = rotated["key"].as_str().unwrap();
    assert_eq!(
        rotated["rateLimit"],
        json!({"requests": 100000, "windowSeconds": 60}),
        "the deployment's default (IngestKeyRateLimit)"
    );
    assert_eq!(rotated["services"], json!([]), "unbound: any service");
    let revoke = format!("{KEYS}/{id}");
    assert_eq!(t.delete_auth(&revoke, &admin).await.status(), 204);
    assert_news_error(
        ingest_with(&t, &secret, &log("payments", "INFO", "old key")).await,
        401,
        LOGS,
    )
    .await;
    assert_news_error(t.delete_auth(&revoke, &admin).await, 404, &revoke).await;
    assert_eq!(
        ingest_with(&t, new_secret, &log("orders", "INFO", "new key"))
            .await
            .status(),
        202
    );
    let listed = t.get_ok_auth(KEYS, &admin).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["id"], rotated["id"]);
    assert!(!t
        .scan("IncidentsTable")
        .await
        .iter()
        .any(|i| i["pk"].as_s().unwrap() == &format!("IKEY#{id}")));

    // A key's shape with a wrong secret is no key.
    let forged = format!("ik_{}_{}", rotated["id"].as_str().unwrap(), "0".repeat(64));
    assert_news_error(
        ingest_with(&t, &forged, &log("orders", "INFO", "x")).await,
        401,
        LOGS,
    )
    .await;
}

#[tokio::test]
async fn ingestion_takes_a_key_or_an_operators_token_never_a_plain_users() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, reader) = t.user("reader").await;
    let (_, oncall) = t.operator("oncall").await;
    let admin = t.admin_token().await;
    let body = log("web", "WARN", "slow response");
    let refused = assert_news_error(t.post_json_auth(LOGS, &reader, &body).await, 403, LOGS).await;
    assert!(
        refused["message"].as_str().unwrap().contains("plain USER"),
        "{refused}"
    );
    for token in [&oncall, &admin] {
        assert_eq!(t.post_json_auth(LOGS, token, &body).await.status(), 202);
    }
    assert_eq!(t.ingest(&body).await.status(), 202, "the deploy-time key");
    assert_news_error(ingest_with(&t, "wrong", &body).await, 401, LOGS).await;
    t.timeline_with(&oncall, "serviceName=web", 3).await;
}

#[tokio::test]
async fn a_bad_key_request_is_a_400_naming_its_field() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let admin = t.admin_token().await;
    for (body, fields) in [
        (json!({}), vec!["name"]),
        (json!({"name": " "}), vec!["name"]),
        (json!({"name": "n".repeat(101)}), vec!["name"]),
        (
            json!({"name": "ci", "services": "payments"}),
            vec!["services"],
        ),
        (
            json!({"name": "ci", "services": ["ok", "", 7]}),
            vec!["services[1]", "services[2]"],
        ),
        (
            json!({"name": "ci", "services": (0..51).map(|i| format!("s{i}")).collect::<Vec<_>>()}),
            vec!["services"],
        ),
        (
            json!({"name": "ci", "rateLimit": {"requests": 0, "windowSeconds": 86401}}),
            vec!["rateLimit.requests", "rateLimit.windowSeconds"],
        ),
        (json!({"name": "ci", "rateLimit": 10}), vec!["rateLimit"]),
        (json!(["ci"]), vec!["body"]),
    ] {
        let r = t.post_json_auth(KEYS, &admin, &body).await;
        let answer = assert_news_error(r, 400, KEYS).await;
        let named: Vec<String> = details(&answer)
            .iter()
            .map(|d| d.split(':').next().unwrap_or_default().to_string())
            .collect();
        assert_eq!(named, fields, "{body}");
    }
    let bogus = format!("{KEYS}/not-a-key");
    assert_news_error(t.delete_auth(&bogus, &admin).await, 404, &bogus).await;
}
