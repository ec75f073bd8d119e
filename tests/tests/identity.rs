//! Identity end to end through the local stack: registration, login, profile, settings,
//! tokens and client credentials, over HTTP against the emulator.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};
use stack_tests::{assert_news_error, details, TestStack, SERVICE_CLIENT, SERVICE_SECRET};

#[tokio::test]
async fn register_login_and_read_profile() {
    let t = TestStack::start().await;
    let profile = t.register("alice").await;
    assert_eq!(profile["username"], "alice");
    assert_eq!(profile["email"], "alice@example.com");
    assert_eq!(profile["name"], "alice tester");
    assert_eq!(profile["roles"], json!(["USER"]));
    assert!(uuid::Uuid::parse_str(profile["id"].as_str().expect("id")).is_ok());
    assert!(profile.get("password").is_none() && profile.get("passwordHash").is_none());

    let token = t.login("alice").await;
    let me: Value = t
        .get_auth("/api/users/users/me", &token)
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(me, profile);

    // The token's claims are the documented ones.
    let payload = token.split('.').nth(1).expect("payload");
    let claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("b64")).expect("claims");
    assert_eq!(claims["sub"], profile["id"]);
    assert_eq!(claims["username"], "alice");
    assert_eq!(claims["roles"], json!(["USER"]));
    assert_eq!(
        claims["exp"].as_i64().unwrap_or(0) - claims["iat"].as_i64().unwrap_or(0),
        3600
    );
    assert!(claims["iss"].is_string() && claims["aud"].is_string());
}

#[tokio::test]
async fn admins_come_from_configuration() {
    let t = TestStack::start().await;
    let profile = t.register("admin").await;
    assert_eq!(profile["roles"], json!(["USER", "ADMIN"]));
    let token = t.login("admin").await;
    let payload = token.split('.').nth(1).expect("payload");
    let claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("b64")).expect("claims");
    assert_eq!(claims["roles"], json!(["USER", "ADMIN"]));
}

#[tokio::test]
async fn duplicate_username_or_email_is_409() {
    let t = TestStack::start().await;
    t.register("bob").await;
    let dup_name = t
        .post_json(
            "/api/users/auth/register",
            &json!({"username": "BOB", "email": "other@example.com", "password": "password-x1", "name": "B"}),
        )
        .await;
    let body = assert_news_error(dup_name, 409, "/auth/register").await;
    assert_eq!(details(&body), vec!["username: is already taken"]);

    let dup_email = t
        .post_json(
            "/api/users/auth/register",
            &json!({"username": "bobby", "email": "Bob@Example.com", "password": "password-x1"}),
        )
        .await;
    let body = assert_news_error(dup_email, 409, "/auth/register").await;
    assert_eq!(details(&body), vec!["email: is already taken"]);

    // The refused registrations left nothing behind: "bobby" is still free.
    t.register("bobby").await;
}

#[tokio::test]
async fn empty_and_invalid_bodies_are_400_naming_fields() {
    let t = TestStack::start().await;
    let empty = t
        .http
        .post(t.url("/api/users/auth/register"))
        .header("content-type", "application/json")
        .send()
        .await
        .expect("request");
    let body = assert_news_error(empty, 400, "/auth/register").await;
    assert_eq!(details(&body), vec!["body: must not be empty"]);

    let empty_object = t.post_json("/api/users/auth/register", &json!({})).await;
    let body = assert_news_error(empty_object, 400, "/auth/register").await;
    let d = details(&body);
    for field in ["username", "email", "password"] {
        assert!(
            d.iter().any(|x| x.starts_with(&format!("{field}: "))),
            "{d:?}"
        );
    }

    let invalid = t
        .post_json(
            "/api/users/auth/register",
            &json!({"username": "a b", "email": "nope", "password": "short", "name": "n".repeat(101)}),
        )
        .await;
    let body = assert_news_error(invalid, 400, "/auth/register").await;
    let d = details(&body);
    assert_eq!(d.len(), 4, "{d:?}");
    for field in ["username", "email", "password", "name"] {
        assert!(
            d.iter().any(|x| x.starts_with(&format!("{field}: "))),
            "{d:?}"
        );
    }

    let wrong_type = t
        .post_json("/api/users/auth/register", &json!({"username": 42}))
        .await;
    let body = assert_news_error(wrong_type, 400, "/auth/register").await;
    assert!(
        details(&body)[0].starts_with("username: invalid type"),
        "{body}"
    );

    let malformed = t
        .http
        .post(t.url("/api/users/auth/register"))
        .header("content-type", "application/json")
        .body("{\"username\": ")
        .send()
        .await
        .expect("request");
    let body = assert_news_error(malformed, 400, "/auth/register").await;
    assert_eq!(body["message"], "Malformed JSON body");

    let login_empty = t.post_json("/api/users/auth/login", &json!({})).await;
    assert_news_error(login_empty, 400, "/auth/login").await;
}

#[tokio::test]
async fn wrong_password_and_unknown_user_are_the_same_401() {
    let t = TestStack::start().await;
    t.register("carol").await;
    let wrong = t
        .post_json(
            "/api/users/auth/login",
            &json!({"username": "carol", "password": "not-her-password"}),
        )
        .await;
    let wrong = assert_news_error(wrong, 401, "/auth/login").await;
    let unknown = t
        .post_json(
            "/api/users/auth/login",
            &json!({"username": "nobody", "password": "whatever-pass"}),
        )
        .await;
    let unknown = assert_news_error(unknown, 401, "/auth/login").await;
    assert_eq!(wrong["message"], unknown["message"]);
    // Usernames are matched case-insensitively at login too.
    let upper = t
        .post_json(
            "/api/users/auth/login",
            &json!({"username": "CAROL", "password": "password-carol"}),
        )
        .await;
    assert_eq!(upper.status(), 200);
}

fn sign(t: &TestStack, alg: Algorithm, claims: &Value) -> String {
    let (der, _) = platform::keys::parse_private_pem(&t.keys.private_pem).expect("key");
    jsonwebtoken::encode(&Header::new(alg), claims, &EncodingKey::from_ed_der(&der)).expect("sign")
}

fn claims_for(profile: &Value, exp_offset: i64, aud: &str) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({
        "sub": profile["id"], "username": profile["username"], "roles": ["USER"],
        "iss": "news-platform", "aud": aud, "iat": now - 7200, "exp": now + exp_offset,
    })
}

#[tokio::test]
async fn bad_tokens_are_401() {
    let t = TestStack::start().await;
    let (profile, token) = t.user("dave").await;
    let me = "/api/users/users/me";

    // A token we forge with the stack's own key is accepted: the forgeries below differ in one way each.
    let good = sign(
        &t,
        Algorithm::EdDSA,
        &claims_for(&profile, 600, "news-platform-api"),
    );
    assert_eq!(t.get_auth(me, &good).await.status(), 200);

    let missing = t.http.get(t.url(me)).send().await.expect("request");
    assert_eq!(
        missing
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok()),
        Some("Bearer")
    );
    assert_news_error(missing, 401, "/users/me").await;

    let not_bearer = t
        .http
        .get(t.url(me))
        .header("authorization", format!("Token {token}"))
        .send()
        .await
        .expect("request");
    assert_news_error(not_bearer, 401, "/users/me").await;

    assert_news_error(t.get_auth(me, "garbage").await, 401, "/users/me").await;

    let expired = sign(
        &t,
        Algorithm::EdDSA,
        &claims_for(&profile, -1, "news-platform-api"),
    );
    assert_news_error(t.get_auth(me, &expired).await, 401, "/users/me").await;

    let wrong_audience = sign(
        &t,
        Algorithm::EdDSA,
        &claims_for(&profile, 600, "someone-else"),
    );
    assert_news_error(t.get_auth(me, &wrong_audience).await, 401, "/users/me").await;

    // Tampered: the payload changed (another user id) and the signature kept.
    let mut parts: Vec<String> = token.split('.').map(str::to_string).collect();
    let mut claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(&parts[1]).expect("b64")).expect("json");
    claims["sub"] = json!(uuid::Uuid::new_v4().to_string());
    claims["roles"] = json!(["USER", "ADMIN"]);
    parts[1] = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).expect("json"));
    let tampered = parts.join(".");
    assert_news_error(t.get_auth(me, &tampered).await, 401, "/users/me").await;

    // alg: none, unsigned.
    let none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(
            serde_json::to_vec(&claims_for(&profile, 600, "news-platform-api")).expect("json")
        )
    );
    assert_news_error(t.get_auth(me, &none).await, 401, "/users/me").await;

    // HS256 keyed with the public key (the classic algorithm-confusion attack), both as the
    // PEM text and as the published JWKS bytes.
    let jwks: Value = t
        .http
        .get(t.url("/api/users/.well-known/jwks.json"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    let x = URL_SAFE_NO_PAD
        .decode(jwks["keys"][0]["x"].as_str().expect("x"))
        .expect("b64");
    for secret in [t.keys.public_pem.as_bytes().to_vec(), x] {
        let hs = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims_for(&profile, 600, "news-platform-api"),
            &EncodingKey::from_secret(&secret),
        )
        .expect("sign");
        assert_news_error(t.get_auth(me, &hs).await, 401, "/users/me").await;
    }

    // Signed by a key the platform does not trust.
    let stranger = platform::keys::generate_ed25519().expect("key");
    let (der, _) = platform::keys::parse_private_pem(&stranger.private_pem).expect("key");
    let foreign = jsonwebtoken::encode(
        &Header::new(Algorithm::EdDSA),
        &claims_for(&profile, 600, "news-platform-api"),
        &EncodingKey::from_ed_der(&der),
    )
    .expect("sign");
    assert_news_error(t.get_auth(me, &foreign).await, 401, "/users/me").await;
}

#[tokio::test]
async fn jwks_publishes_the_verification_key() {
    let t = TestStack::start().await;
    let response = t
        .http
        .get(t.url("/api/users/.well-known/jwks.json"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let jwks: Value = response.json().await.expect("json");
    let key = &jwks["keys"][0];
    assert_eq!(key["kty"], "OKP");
    assert_eq!(key["crv"], "Ed25519");
    assert_eq!(key["alg"], "EdDSA");
    let x = URL_SAFE_NO_PAD
        .decode(key["x"].as_str().expect("x"))
        .expect("b64");
    let (_, public) = platform::keys::parse_private_pem(&t.keys.private_pem).expect("key");
    assert_eq!(x, public.to_vec());
    // The token header names the key.
    let (_, token) = t.user("erin").await;
    let header = jsonwebtoken::decode_header(&token).expect("header");
    assert_eq!(header.kid.as_deref(), key["kid"].as_str());
    assert_eq!(header.alg, Algorithm::EdDSA);
}

#[tokio::test]
async fn client_credentials_issue_scoped_service_tokens() {
    let t = TestStack::start().await;
    let url = t.url("/api/users/oauth2/token");
    let ok = t
        .http
        .post(&url)
        .basic_auth(SERVICE_CLIENT, Some(SERVICE_SECRET))
        .form(&[
            ("grant_type", "client_credentials"),
            ("scope", "source.write"),
        ])
        .send()
        .await
        .expect("request");
    assert_eq!(ok.status(), 200);
    assert_eq!(
        ok.headers()
            .get("cache-control")
            .and_then(|v| v.to_str().ok()),
        Some("no-store")
    );
    let body: Value = ok.json().await.expect("json");
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["scope"], "source.write");
    assert_eq!(body["expires_in"], 3600);
    let service_token = body["access_token"].as_str().expect("token").to_string();

    // The secret in the form body works too (RFC 6749 client_secret_post).
    let post = t
        .http
        .post(&url)
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", SERVICE_CLIENT),
            ("client_secret", SERVICE_SECRET),
        ])
        .send()
        .await
        .expect("request");
    assert_eq!(post.status(), 200);

    let bad_secret = t
        .http
        .post(&url)
        .basic_auth(SERVICE_CLIENT, Some("wrong-secret"))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .expect("request");
    assert_eq!(
        bad_secret
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok()),
        Some("Basic")
    );
    let body = assert_news_error(bad_secret, 401, "/oauth2/token").await;
    assert_eq!(body["error"], "invalid_client");

    let unknown_client = t
        .http
        .post(&url)
        .basic_auth("stranger", Some(SERVICE_SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .expect("request");
    assert_eq!(unknown_client.status(), 401);

    let no_auth = t
        .http
        .post(&url)
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .expect("request");
    assert_eq!(no_auth.status(), 401);

    let bad_scope = t
        .http
        .post(&url)
        .basic_auth(SERVICE_CLIENT, Some(SERVICE_SECRET))
        .form(&[
            ("grant_type", "client_credentials"),
            ("scope", "admin.everything"),
        ])
        .send()
        .await
        .expect("request");
    let body = assert_news_error(bad_scope, 400, "/oauth2/token").await;
    assert_eq!(body["error"], "invalid_scope");

    let password_grant = t
        .http
        .post(&url)
        .basic_auth(SERVICE_CLIENT, Some(SERVICE_SECRET))
        .form(&[("grant_type", "password")])
        .send()
        .await
        .expect("request");
    let body = assert_news_error(password_grant, 400, "/oauth2/token").await;
    assert_eq!(body["error"], "unsupported_grant_type");

    // A service token is not a user: user routes answer 403.
    let me = t.get_auth("/api/users/users/me", &service_token).await;
    assert_news_error(me, 403, "/users/me").await;
}

#[tokio::test]
async fn settings_round_trip() {
    let t = TestStack::start().await;
    let (_, token) = t.user("frank").await;
    let path = "/api/users/users/me/settings";
    let defaults: Value = t.get_auth(path, &token).await.json().await.expect("json");
    assert_eq!(
        defaults,
        json!({"enabledSourceIds": [], "followedTopics": [], "language": "en", "theme": "system",
               "summaryLength": "medium", "showBookmarks": true, "showLikes": true})
    );

    let put = t
        .http
        .put(t.url(path))
        .bearer_auth(&token)
        .json(
            &json!({"followedTopics": ["science", "tech"], "language": "pt-BR", "theme": "dark",
                      "summaryLength": "short", "showLikes": false, "enabledSourceIds": []}),
        )
        .send()
        .await
        .expect("request");
    assert_eq!(put.status(), 200);
    let saved: Value = put.json().await.expect("json");
    let read: Value = t.get_auth(path, &token).await.json().await.expect("json");
    assert_eq!(saved, read);
    assert_eq!(
        read,
        json!({"enabledSourceIds": [], "followedTopics": ["science", "tech"], "language": "pt-BR",
               "theme": "dark", "summaryLength": "short", "showBookmarks": true, "showLikes": false})
    );

    // A partial update keeps the rest.
    let partial = t
        .http
        .put(t.url(path))
        .bearer_auth(&token)
        .json(&json!({"showBookmarks": false}))
        .send()
        .await
        .expect("request");
    let partial: Value = partial.json().await.expect("json");
    assert_eq!(partial["showBookmarks"], false);
    assert_eq!(partial["followedTopics"], json!(["science", "tech"]));

    let invalid = t
        .http
        .put(t.url(path))
        .bearer_auth(&token)
        .json(&json!({"theme": "neon"}))
        .send()
        .await
        .expect("request");
    let body = assert_news_error(invalid, 400, "/users/me/settings").await;
    assert!(details(&body)[0].starts_with("theme: "), "{body}");

    let unknown_field = t
        .http
        .put(t.url(path))
        .bearer_auth(&token)
        .json(&json!({"colour": "red"}))
        .send()
        .await
        .expect("request");
    assert_news_error(unknown_field, 400, "/users/me/settings").await;

    // Settings are per user.
    let (_, other) = t.user("grace").await;
    let theirs: Value = t.get_auth(path, &other).await.json().await.expect("json");
    assert_eq!(theirs, defaults);

    let anonymous = t.http.get(t.url(path)).send().await.expect("request");
    assert_news_error(anonymous, 401, "/users/me/settings").await;
}

#[tokio::test]
async fn profile_update_moves_the_email_guard() {
    let t = TestStack::start().await;
    let (_, token) = t.user("heidi").await;
    t.register("ivan").await;
    let me = "/api/users/users/me";

    let taken = t
        .http
        .put(t.url(me))
        .bearer_auth(&token)
        .json(&json!({"email": "IVAN@example.com"}))
        .send()
        .await
        .expect("request");
    assert_news_error(taken, 409, "/users/me").await;

    let changed = t
        .http
        .put(t.url(me))
        .bearer_auth(&token)
        .json(&json!({"email": "heidi.new@example.com", "name": "Heidi N"}))
        .send()
        .await
        .expect("request");
    assert_eq!(changed.status(), 200);
    let body: Value = changed.json().await.expect("json");
    assert_eq!(body["email"], "heidi.new@example.com");
    assert_eq!(body["name"], "Heidi N");
    let read: Value = t.get_auth(me, &token).await.json().await.expect("json");
    assert_eq!(read, body);

    // The old address is free again; the new one is taken.
    t.post_json(
        "/api/users/auth/register",
        &json!({"username": "judy", "email": "heidi@example.com", "password": "password-judy"}),
    )
    .await
    .error_for_status()
    .expect("old email reusable");
    let reuse = t
        .post_json(
            "/api/users/auth/register",
            &json!({"username": "judy2", "email": "heidi.new@example.com", "password": "password-judy"}),
        )
        .await;
    assert_eq!(reuse.status(), 409);

    let invalid = t
        .http
        .put(t.url(me))
        .bearer_auth(&token)
        .json(&json!({"email": "not-an-email"}))
        .send()
        .await
        .expect("request");
    let body = assert_news_error(invalid, 400, "/users/me").await;
    assert!(details(&body)[0].starts_with("email: "));

    let cleared = t
        .http
        .put(t.url(me))
        .bearer_auth(&token)
        .json(&json!({"name": null}))
        .send()
        .await
        .expect("request");
    let body: Value = cleared.json().await.expect("json");
    assert!(body["name"].is_null(), "{body}");
    assert_eq!(body["email"], "heidi.new@example.com");
}

#[tokio::test]
async fn concurrent_registrations_of_one_username_create_one_user() {
    let t = TestStack::start().await;
    let attempts = (0..20).map(|i| {
        let body = json!({"username": "racer", "email": format!("racer{i}@example.com"), "password": "password-racer"});
        let t = &t;
        async move { t.post_json("/api/users/auth/register", &body).await }
    });
    let responses = futures::future::join_all(attempts).await;
    let statuses: Vec<u16> = responses.iter().map(|r| r.status().as_u16()).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        19,
        "{statuses:?}"
    );

    // Exactly one profile and one email guard were written (a Scan is fine in a test).
    let table = t.stack.physical_name("UsersTable").expect("table");
    let db = aws_sdk_dynamodb::Client::new(&aws_config::load_from_env().await);
    let items = db
        .scan()
        .table_name(&table)
        .send()
        .await
        .expect("scan")
        .items
        .unwrap_or_default();
    let count = |prefix: &str| {
        items
            .iter()
            .filter(|i| {
                i.get("pk")
                    .and_then(|v| v.as_s().ok())
                    .is_some_and(|pk| pk.starts_with(prefix))
            })
            .count()
    };
    assert_eq!(count("USER#"), 1);
    assert_eq!(count("USERNAME#"), 1);
    assert_eq!(count("EMAIL#"), 1);
    t.login("racer").await;
}

#[tokio::test]
async fn framework_errors_use_the_news_shape() {
    let t = TestStack::start().await;
    let unknown = t
        .http
        .get(t.url("/api/users/nothing/here"))
        .send()
        .await
        .expect("request");
    assert_news_error(unknown, 404, "/nothing/here").await;

    let wrong_method = t
        .http
        .delete(t.url("/api/users/auth/login"))
        .send()
        .await
        .expect("request");
    assert_news_error(wrong_method, 405, "/auth/login").await;

    let too_large = t
        .http
        .post(t.url("/api/users/auth/register"))
        .header("content-type", "application/json")
        .body(format!("{{\"name\": \"{}\"}}", "x".repeat(200 * 1024)))
        .send()
        .await
        .expect("request");
    assert_news_error(too_large, 413, "/auth/register").await;

    let xml = t
        .http
        .post(t.url("/api/users/auth/register"))
        .header("content-type", "application/xml")
        .body("<user/>")
        .send()
        .await
        .expect("request");
    assert_news_error(xml, 415, "/auth/register").await;
}

#[tokio::test]
async fn health_checks_the_table() {
    let t = TestStack::start().await;
    let up = t
        .http
        .get(t.url("/api/users/actuator/health"))
        .send()
        .await
        .expect("request");
    assert_eq!(up.status(), 200);
    assert_eq!(
        up.json::<Value>().await.expect("json"),
        json!({"status": "UP"})
    );

    // The same function code with its table gone answers 503 DOWN.
    let mut env = t.stack.function_env("UsersFunction").expect("env").clone();
    env.set("USERS_TABLE", format!("{}-missing", t.stack_name));
    let router = users_function::router(env).await.expect("router");
    let request = http::Request::get("/api/users/actuator/health")
        .body(axum::body::Body::empty())
        .expect("request");
    let response = tower::ServiceExt::oneshot(router, request)
        .await
        .expect("response");
    assert_eq!(response.status(), 503);
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .expect("body")
        .to_bytes();
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).expect("json"),
        json!({"status": "DOWN"})
    );
}
