//! Registration, login and the profile: validation, unique usernames, emails that do not
//! reveal whose they are, and roles from configuration.

use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{json, Value};
use stack_tests::tokens::claims;
use stack_tests::users::{password, LOGIN, ME, REGISTER};
use stack_tests::{assert_news_error, details, TestStack};

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
    let me: Value = t.get_auth(ME, &token).await.json().await.expect("json");
    assert_eq!(me, profile);

    // The token's claims are the documented ones.
    let claims = claims(&token);
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
async fn a_taken_username_is_409_and_a_taken_email_is_not_revealed() {
    let t = TestStack::start().await;
    let bob = t.register("bob").await;
    let dup_name = t
        .post_json(
            REGISTER,
            &json!({"username": "BOB", "email": "other@example.com", "password": "password-x1", "name": "B"}),
        )
        .await;
    let body = assert_news_error(dup_name, 409, "/auth/register").await;
    assert_eq!(details(&body), vec!["username: is already taken"]);

    // Someone else's address: the same answer as a free one, so nobody can test which
    // addresses have accounts.
    let dup_email = t
        .post_json(
            REGISTER,
            &json!({"username": "bobby", "email": "Bob@Example.com", "password": "password-bobby"}),
        )
        .await;
    assert_eq!(dup_email.status(), 201);
    let bobby: Value = dup_email.json().await.unwrap();
    let free = t
        .post_json(
            REGISTER,
            &json!({"username": "freddy", "email": "freddy@example.com", "password": "password-freddy"}),
        )
        .await;
    assert_eq!(free.status(), 201);
    let freddy: Value = free.json().await.unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&bobby), keys(&freddy));
    assert_eq!(bobby["email"], "Bob@Example.com");
    let token = t.login("bobby").await;
    let me: Value = t.get_auth(ME, &token).await.json().await.unwrap();
    assert_eq!(me["email"], "Bob@Example.com");

    // An email change to someone's address answers as any change does.
    let freddy_token = t.login("freddy").await;
    let changed = t
        .put_json_auth(ME, &freddy_token, &json!({"email": "bob@example.com"}))
        .await;
    assert_eq!(changed.status(), 200);
    let changed: Value = changed.json().await.unwrap();
    assert_eq!(changed["email"], "bob@example.com");

    // The address stays its owner's: neither account took its guard, and deleting them
    // leaves it where it was, while freddy's old address is free again.
    assert_eq!(
        email_guard(&t, "bob@example.com").await.as_deref(),
        bob["id"].as_str()
    );
    assert_eq!(email_guard(&t, "freddy@example.com").await, None);
    assert_eq!(t.delete_auth(ME, &token).await.status(), 204);
    assert_eq!(t.delete_auth(ME, &freddy_token).await.status(), 204);
    assert_eq!(
        email_guard(&t, "bob@example.com").await.as_deref(),
        bob["id"].as_str()
    );
    let owner = t.login("bob").await;
    let me: Value = t.get_auth(ME, &owner).await.json().await.unwrap();
    assert_eq!(me["email"], "bob@example.com");
}

/// The account holding `address`'s uniqueness guard (read from the table itself: the API
/// answers alike whoever holds it).
async fn email_guard(t: &TestStack, address: &str) -> Option<String> {
    let table = t
        .env("IdentityFunction")
        .get("USERS_TABLE")
        .unwrap()
        .to_string();
    let item = t
        .dynamodb()
        .await
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::S(format!("EMAIL#{address}")))
        .key("sk", AttributeValue::S("EMAIL".into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    item.item()
        .and_then(|i| i.get("userId"))
        .and_then(|v| v.as_s().ok())
        .cloned()
}

/// Asserts that every one of `fields` has a detail.
fn assert_names_fields(details: &[String], fields: &[&str]) {
    for field in fields {
        assert!(
            details.iter().any(|x| x.starts_with(&format!("{field}: "))),
            "{details:?}"
        );
    }
}

#[tokio::test]
async fn empty_and_invalid_bodies_are_400_naming_fields() {
    let t = TestStack::start().await;
    let empty = t.post_raw(REGISTER, "application/json", "").await;
    let body = assert_news_error(empty, 400, "/auth/register").await;
    assert_eq!(details(&body), vec!["body: must not be empty"]);

    let empty_object = t.post_json(REGISTER, &json!({})).await;
    let body = assert_news_error(empty_object, 400, "/auth/register").await;
    assert_names_fields(&details(&body), &["username", "email", "password"]);

    let invalid = t
        .post_json(
            REGISTER,
            &json!({"username": "a b", "email": "nope", "password": "short", "name": "n".repeat(101)}),
        )
        .await;
    let body = assert_news_error(invalid, 400, "/auth/register").await;
    let d = details(&body);
    assert_eq!(d.len(), 4, "{d:?}");
    assert_names_fields(&d, &["username", "email", "password", "name"]);

    let wrong_type = t.post_json(REGISTER, &json!({"username": 42})).await;
    let body = assert_news_error(wrong_type, 400, "/auth/register").await;
    assert!(
        details(&body)[0].starts_with("username: invalid type"),
        "{body}"
    );

    let malformed = t
        .post_raw(REGISTER, "application/json", "{\"username\": ")
        .await;
    let body = assert_news_error(malformed, 400, "/auth/register").await;
    assert_eq!(body["message"], "Malformed JSON body");

    let login_empty = t.post_json(LOGIN, &json!({})).await;
    assert_news_error(login_empty, 400, "/auth/login").await;
}

#[tokio::test]
async fn wrong_password_and_unknown_user_are_the_same_401() {
    let t = TestStack::start().await;
    t.register("carol").await;
    let wrong = t.login_as("carol", "not-her-password").await;
    let wrong = assert_news_error(wrong, 401, "/auth/login").await;
    let unknown = t.login_as("nobody", "whatever-pass").await;
    let unknown = assert_news_error(unknown, 401, "/auth/login").await;
    assert_eq!(wrong["message"], unknown["message"]);
    // Usernames are matched case-insensitively at login too.
    let upper = t.login_as("CAROL", &password("carol")).await;
    assert_eq!(upper.status(), 200);
}

#[tokio::test]
async fn profile_update_moves_the_email_guard() {
    let t = TestStack::start().await;
    let (heidi, token) = t.user("heidi").await;
    let ivan = t.register("ivan").await;

    // Another account's address: answered as any change, kept unclaimed; heidi's own address
    // is released, ivan's guard stays his.
    let taken = t
        .put_json_auth(ME, &token, &json!({"email": "IVAN@example.com"}))
        .await;
    assert_eq!(taken.status(), 200);
    assert_eq!(
        email_guard(&t, "ivan@example.com").await.as_deref(),
        ivan["id"].as_str()
    );
    assert_eq!(email_guard(&t, "heidi@example.com").await, None);

    let changed = t
        .put_json_auth(
            ME,
            &token,
            &json!({"email": "heidi.new@example.com", "name": "Heidi N"}),
        )
        .await;
    assert_eq!(changed.status(), 200);
    let body: Value = changed.json().await.expect("json");
    assert_eq!(body["email"], "heidi.new@example.com");
    assert_eq!(body["name"], "Heidi N");
    let read: Value = t.get_auth(ME, &token).await.json().await.expect("json");
    assert_eq!(read, body);
    assert_eq!(
        email_guard(&t, "heidi.new@example.com").await.as_deref(),
        heidi["id"].as_str()
    );
    assert_eq!(
        email_guard(&t, "ivan@example.com").await.as_deref(),
        ivan["id"].as_str()
    );

    // The old address is free again; the new one is held, whoever registers with it.
    let judy: Value = t
        .post_json(
            REGISTER,
            &json!({"username": "judy", "email": "heidi@example.com", "password": "password-judy"}),
        )
        .await
        .error_for_status()
        .expect("old email reusable")
        .json()
        .await
        .unwrap();
    assert_eq!(
        email_guard(&t, "heidi@example.com").await.as_deref(),
        judy["id"].as_str()
    );
    let reuse = t
        .post_json(
            REGISTER,
            &json!({"username": "judy2", "email": "heidi.new@example.com", "password": "password-judy"}),
        )
        .await;
    assert_eq!(reuse.status(), 201);
    assert_eq!(
        email_guard(&t, "heidi.new@example.com").await.as_deref(),
        heidi["id"].as_str()
    );

    let invalid = t
        .put_json_auth(ME, &token, &json!({"email": "not-an-email"}))
        .await;
    let body = assert_news_error(invalid, 400, "/users/me").await;
    assert!(details(&body)[0].starts_with("email: "));

    let cleared = t.put_json_auth(ME, &token, &json!({"name": null})).await;
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
        async move { t.post_json(REGISTER, &body).await }
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

    // Exactly one profile and one email guard were written.
    let items = t.scan("UsersTable").await;
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
    // Beside the provisioned administrator's (who has no email).
    assert_eq!(count("USER#"), 2);
    assert_eq!(count("USERNAME#"), 2);
    assert_eq!(count("EMAIL#"), 1);
    t.login("racer").await;
}
