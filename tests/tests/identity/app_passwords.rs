//! App passwords and the Google Reader API's sign-in, through the local stack: a person makes
//! and revokes per-device passwords; an app signs in with one (never the account's password)
//! at `ClientLogin`; the platform's functions exchange its `Auth` value for a short-lived user
//! token, and subscribe a person through identity; every such credential ends with the
//! account's sessions.

use std::time::Duration;

use identity_client::{IdentityClient, SubscriptionAnswer};
use serde_json::{json, Value};
use stack_tests::content::submit_id;
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer};
use stack_tests::limits::{assert_rate_limited, from};
use stack_tests::tokens::claims;
use stack_tests::users::{password, ME, PASSWORD, SESSIONS};
use stack_tests::{assert_news_error, Call, TestStack, INTERNAL_TOKEN};

const APP_PASSWORDS: &str = "/api/users/users/me/app-passwords";
const CLIENT_LOGIN: &str = "/api/greader/accounts/ClientLogin";
const READER_SESSIONS: &str = "/api/users/internal/reader-sessions";

fn app_password(id: &str) -> String {
    format!("{APP_PASSWORDS}/{id}")
}

/// Identity as the platform's other functions call it.
fn identity() -> IdentityClient {
    IdentityClient::new(Duration::from_secs(10), Some(INTERNAL_TOKEN.to_string())).unwrap()
}

async fn create(t: &TestStack, token: &str, name: &str) -> Value {
    let response = t
        .post_json_auth(APP_PASSWORDS, token, &json!({ "name": name }))
        .await;
    assert_eq!(response.status(), 201, "create {name}");
    assert_eq!(response.headers()["cache-control"], "no-store");
    response.json().await.unwrap()
}

async fn list(t: &TestStack, token: &str, query: &str) -> Value {
    let response = t.get_auth(&format!("{APP_PASSWORDS}{query}"), token).await;
    assert_eq!(response.status(), 200, "list {query}");
    response.json().await.unwrap()
}

/// `ClientLogin` as apps send it: a form.
async fn client_login(t: &TestStack, email: &str, passwd: &str) -> reqwest::Response {
    t.http
        .post(t.url(CLIENT_LOGIN))
        .form(&[
            ("Email", email),
            ("Passwd", passwd),
            ("service", "reader"),
            ("accountType", "HOSTED_OR_GOOGLE"),
        ])
        .call()
        .await
}

/// The `Auth` line of a successful `ClientLogin`, after checking the whole answer.
async fn signed_in(response: reqwest::Response) -> String {
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body = response.text().await.unwrap();
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 3, "{body}");
    let auth = lines[2]
        .strip_prefix("Auth=")
        .expect("Auth line")
        .to_string();
    assert_eq!(lines[0], format!("SID={auth}"));
    assert_eq!(lines[1], "LSID=null");
    assert!(body.ends_with('\n'));
    auth
}

async fn refused(response: reqwest::Response) {
    assert_eq!(response.status(), 401);
    assert_eq!(response.headers()["www-authenticate"], "GoogleLogin");
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    assert_eq!(response.text().await.unwrap(), "Error=BadAuthentication\n");
}

#[tokio::test]
async fn a_person_makes_lists_and_revokes_app_passwords() {
    let t = TestStack::start_only(&[]).await;
    let (_, token) = t.user("reader").await;
    let (_, other) = t.user("other").await;

    let phone = create(&t, &token, "  Reeder on my phone ").await;
    assert_eq!(phone["name"], "Reeder on my phone");
    let secret = phone["password"].as_str().unwrap();
    assert_eq!(secret.len(), 32);
    assert!(secret
        .bytes()
        .all(|b| matches!(b, b'a'..=b'z' | b'2'..=b'7')));
    let id = phone["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 16);
    tokio::time::sleep(Duration::from_millis(5)).await;
    let laptop = create(&t, &token, "NetNewsWire").await;
    assert_ne!(laptop["password"], phone["password"]);

    // Newest first, never a secret; another person sees none of them.
    let listed = list(&t, &token, "").await;
    assert_eq!(
        listed,
        json!({"items": [
            {"id": laptop["id"], "name": "NetNewsWire", "createdAt": laptop["createdAt"], "lastUsedAt": null},
            {"id": id, "name": "Reeder on my phone", "createdAt": phone["createdAt"], "lastUsedAt": null},
        ], "nextCursor": null})
    );
    assert!(!listed.to_string().contains(secret));
    assert_eq!(list(&t, &other, "").await["items"], json!([]));
    // A page at a time.
    let first = list(&t, &token, "?size=1").await;
    assert_eq!(first["items"][0]["id"], laptop["id"]);
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = list(&t, &token, &format!("?size=1&cursor={cursor}")).await;
    assert_eq!(second["items"][0]["id"], json!(id));
    assert!(second["nextCursor"].is_null());

    // Another person cannot revoke it; its owner can, once.
    assert_news_error(
        t.delete_auth(&app_password(&id), &other).await,
        404,
        &format!("/users/me/app-passwords/{id}"),
    )
    .await;
    assert_eq!(
        t.delete_auth(&app_password(&id), &token).await.status(),
        204
    );
    assert_news_error(
        t.delete_auth(&app_password(&id), &token).await,
        404,
        &format!("/users/me/app-passwords/{id}"),
    )
    .await;
    assert_eq!(
        t.delete_auth(&app_password("not-an-id"), &token)
            .await
            .status(),
        404
    );
    assert_eq!(
        list(&t, &token, "").await["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn app_password_routes_refuse_bad_input_strangers_and_services() {
    let t = TestStack::start_only(&[]).await;
    let (_, token) = t.user("bounded").await;
    for (body, detail) in [
        (json!({}), "name: is required"),
        (json!({"name": "   "}), "name: is required"),
        (
            json!({"name": "x".repeat(101)}),
            "name: must be at most 100 characters",
        ),
        (
            json!({"name": "tab\there"}),
            "name: must not contain control characters",
        ),
    ] {
        let error = assert_news_error(
            t.post_json_auth(APP_PASSWORDS, &token, &body).await,
            400,
            "/users/me/app-passwords",
        )
        .await;
        assert_eq!(error["details"], json!([detail]), "{body}");
    }
    for query in ["?size=0", "?size=21", "?size=x", "?cursor=zz"] {
        let error = assert_news_error(
            t.get_auth(&format!("{APP_PASSWORDS}{query}"), &token).await,
            400,
            "/users/me/app-passwords",
        )
        .await;
        let field = query[1..].split('=').next().unwrap();
        assert!(
            error["details"][0].as_str().unwrap().starts_with(field),
            "{query}: {error}"
        );
    }
    // No token: 401; a service token: 403, on each route.
    let service = t.service_token().await;
    assert_news_error(t.get(APP_PASSWORDS).await, 401, "/users/me/app-passwords").await;
    assert_news_error(
        t.post_json(APP_PASSWORDS, &json!({"name": "x"})).await,
        401,
        "/users/me/app-passwords",
    )
    .await;
    let one = app_password("0123456789abcdef");
    assert_eq!(t.http.delete(t.url(&one)).call().await.status(), 401);
    assert_eq!(t.get_auth(APP_PASSWORDS, &service).await.status(), 403);
    assert_eq!(
        t.post_json_auth(APP_PASSWORDS, &service, &json!({"name": "x"}))
            .await
            .status(),
        403
    );
    assert_eq!(t.delete_auth(&one, &service).await.status(), 403);

    // At most 20, exactly, even when made at once; a revoked one frees its place.
    let made = futures::future::join_all((0..24).map(|n| {
        let (t, token) = (&t, &token);
        async move {
            t.post_json_auth(APP_PASSWORDS, token, &json!({ "name": format!("app {n}") }))
                .await
        }
    }))
    .await;
    let statuses: Vec<u16> = made.iter().map(|r| r.status().as_u16()).collect();
    // A lost transaction race is a 409 too; none is anything else.
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 409),
        "{statuses:?}"
    );
    while list(&t, &token, "").await["items"]
        .as_array()
        .unwrap()
        .len()
        < 20
    {
        create(&t, &token, "filler").await;
    }
    let full = assert_news_error(
        t.post_json_auth(APP_PASSWORDS, &token, &json!({"name": "one more"}))
            .await,
        409,
        "/users/me/app-passwords",
    )
    .await;
    assert_eq!(
        full["details"],
        json!(["name: at most 20 app passwords; revoke one first"])
    );
    let listed = list(&t, &token, "").await;
    assert_eq!(listed["items"].as_array().unwrap().len(), 20);
    let first = listed["items"][0]["id"].as_str().unwrap();
    assert_eq!(
        t.delete_auth(&app_password(first), &token).await.status(),
        204
    );
    create(&t, &token, "one more").await;
}

#[tokio::test]
async fn an_app_signs_in_with_an_app_password_never_the_account_password() {
    let t = TestStack::start_only(&[]).await;
    let (profile, token) = t.user("greta").await;
    let created = create(&t, &token, "Reeder").await;
    let secret = created["password"].as_str().unwrap();

    // The username (what apps send), in any case, or the address; a form or a query.
    let auth = signed_in(client_login(&t, "greta", secret).await).await;
    assert!(auth.starts_with(&format!("{}/", profile["id"].as_str().unwrap())));
    assert_eq!(
        signed_in(client_login(&t, "GRETA", secret).await).await,
        auth
    );
    signed_in(client_login(&t, "greta@example.com", secret).await).await;
    let by_query = t
        .http
        .get(t.url(&format!("{CLIENT_LOGIN}?Email=greta&Passwd={secret}")))
        .call()
        .await;
    assert_eq!(signed_in(by_query).await, auth);

    // The account's own password, a wrong one, an unknown person: one answer.
    refused(client_login(&t, "greta", &password("greta")).await).await;
    refused(client_login(&t, "greta", "abcdefghijklmnopqrstuvwxyz234567").await).await;
    refused(client_login(&t, "nobody", secret).await).await;
    // Missing or oversized fields are named.
    for (form, detail) in [
        (vec![("Passwd", secret)], "Email: is required"),
        (vec![("Email", "greta")], "Passwd: is required"),
    ] {
        let response = t.http.post(t.url(CLIENT_LOGIN)).form(&form).call().await;
        let error = assert_news_error(response, 400, "/accounts/ClientLogin").await;
        assert_eq!(error["details"], json!([detail]));
    }
    let long = "x".repeat(255);
    let error = assert_news_error(
        client_login(&t, &long, secret).await,
        400,
        "/accounts/ClientLogin",
    )
    .await;
    assert_eq!(
        error["details"],
        json!(["Email: must be at most 254 characters"])
    );

    // Its use shows in the list, once an hour at most.
    let listed = list(&t, &token, "").await;
    assert!(listed["items"][0]["lastUsedAt"].is_string(), "{listed}");

    // Revoked: refused at once, its Auth value too.
    let id = created["id"].as_str().unwrap();
    assert_eq!(t.delete_auth(&app_password(id), &token).await.status(), 204);
    refused(client_login(&t, "greta", secret).await).await;
    let client = identity();
    let api = client.at(Some(t.url("")));
    assert_eq!(api.reader_session(&auth).await.unwrap(), None);
}

#[tokio::test]
async fn client_login_is_braked_like_login() {
    let mut limits = std::collections::BTreeMap::new();
    limits.insert(
        "LoginRateLimitPerUsername".to_string(),
        "3/86400".to_string(),
    );
    let t = TestStack::start_with(limits).await;
    t.register("hana").await;
    let token = t.login("hana").await;
    let secret = create(&t, &token, "phone").await["password"]
        .as_str()
        .unwrap()
        .to_string();
    // The login above spent one; two guesses spend the rest.
    for (n, ip) in ["203.0.113.1", "203.0.113.2"].iter().enumerate() {
        let guess = from(t.http.post(t.url(CLIENT_LOGIN)), ip)
            .form(&[("Email", "hana"), ("Passwd", &format!("guess-{n}"))])
            .call()
            .await;
        assert_eq!(guess.status(), 401);
    }
    let right = from(t.http.post(t.url(CLIENT_LOGIN)), "198.51.100.4")
        .form(&[("Email", "Hana"), ("Passwd", &secret)])
        .call()
        .await;
    assert_rate_limited(right, "/accounts/ClientLogin", 86_400).await;
}

#[tokio::test]
async fn an_auth_value_is_exchanged_for_a_short_user_token_until_sessions_end() {
    let t = TestStack::start().await;
    let (profile, token) = t.user("ivan").await;
    let user_id = profile["id"].as_str().unwrap();
    // An administrator's app password carries no administrator's powers.
    t.grant_roles(user_id, &["USER", "ADMIN"]).await;
    // The role change ended the first session.
    assert_eq!(t.get_auth(ME, &token).await.status(), 401);
    let token = t.login("ivan").await;
    let secret = create(&t, &token, "Reeder").await["password"]
        .as_str()
        .unwrap()
        .to_string();
    let auth = signed_in(client_login(&t, "ivan", &secret).await).await;
    let client = identity();
    let api = client.at(Some(t.url("")));

    let session = api.reader_session(&auth).await.unwrap().expect("a session");
    assert_eq!(session.user_id, user_id);
    assert_eq!(session.username, "ivan");
    assert_eq!(session.expires_in, 600);
    let c = claims(&session.access_token);
    assert_eq!(c["sub"], user_id);
    assert_eq!(c["roles"], json!(["USER"]));
    assert_eq!(c["exp"].as_i64().unwrap() - c["iat"].as_i64().unwrap(), 600);
    // An ordinary user token on the platform's routes; not an administrator's.
    assert_eq!(t.get_auth(ME, &session.access_token).await.status(), 200);
    assert_eq!(
        t.get_auth("/api/users/admin/users", &session.access_token)
            .await
            .status(),
        403
    );
    // Anything identity did not make, or tampered with, is refused.
    let tampered = format!("{}a", &auth[..auth.len() - 1]);
    for bad in [tampered.as_str(), "x", "a/b/c"] {
        assert_eq!(api.reader_session(bad).await.unwrap(), None, "{bad}");
    }

    // The route itself: the internal token first, then a bounded auth.
    let post = |body: Value, internal: Option<&str>| {
        let mut request = t.http.post(t.url(READER_SESSIONS)).json(&body);
        if let Some(token) = internal {
            request = request.header("x-internal-service-token", token);
        }
        request.call()
    };
    let no_token = assert_news_error(
        post(json!({"auth": auth}), None).await,
        401,
        "/internal/reader-sessions",
    )
    .await;
    assert!(no_token.to_string().contains("X-Internal-Service-Token"));
    assert_eq!(
        t.http
            .post(t.url(READER_SESSIONS))
            .bearer_auth(&token)
            .json(&json!({"auth": auth}))
            .call()
            .await
            .status(),
        401
    );
    for (body, detail) in [
        (json!({"auth": ""}), "auth: is required"),
        (
            json!({"auth": "a".repeat(261)}),
            "auth: must be at most 260 characters",
        ),
    ] {
        let error = assert_news_error(
            post(body, Some(INTERNAL_TOKEN)).await,
            400,
            "/internal/reader-sessions",
        )
        .await;
        assert_eq!(error["details"], json!([detail]));
    }
    let answer = post(json!({"auth": auth}), Some(INTERNAL_TOKEN)).await;
    assert_eq!(answer.headers()["cache-control"], "no-store");

    // Signing out everywhere ends the app password, its Auth value and the tokens it gave.
    assert_eq!(t.delete_auth(SESSIONS, &token).await.status(), 204);
    assert_eq!(api.reader_session(&auth).await.unwrap(), None);
    assert_eq!(t.get_auth(ME, &session.access_token).await.status(), 401);
    refused(client_login(&t, "ivan", &secret).await).await;
    let token = t.login("ivan").await;
    assert_eq!(list(&t, &token, "").await["items"], json!([]));

    // A password change ends them too.
    let secret = create(&t, &token, "again").await["password"]
        .as_str()
        .unwrap()
        .to_string();
    let auth = signed_in(client_login(&t, "ivan", &secret).await).await;
    assert!(api.reader_session(&auth).await.unwrap().is_some());
    let changed = t
        .put_json_auth(
            PASSWORD,
            &token,
            &json!({"currentPassword": password("ivan"), "password": "a-new-password"}),
        )
        .await;
    assert_eq!(changed.status(), 200);
    let token = changed.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(api.reader_session(&auth).await.unwrap(), None);
    refused(client_login(&t, "ivan", &secret).await).await;

    // The recipe service's password change (the same account) too.
    let secret = create(&t, &token, "recipes").await["password"]
        .as_str()
        .unwrap()
        .to_string();
    let auth = signed_in(client_login(&t, "ivan", &secret).await).await;
    let changed = t
        .patch_json_auth(
            "/api/recipes/users/me",
            &token,
            &json!({"currentPassword": "a-new-password", "password": "third-password"}),
        )
        .await;
    assert_eq!(changed.status(), 200);
    let token = changed.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(api.reader_session(&auth).await.unwrap(), None);
    assert_eq!(list(&t, &token, "").await["items"], json!([]));

    // And deleting the account.
    let secret = create(&t, &token, "last").await["password"]
        .as_str()
        .unwrap()
        .to_string();
    let auth = signed_in(client_login(&t, "ivan", &secret).await).await;
    assert_eq!(t.delete_auth(ME, &token).await.status(), 204);
    assert_eq!(api.reader_session(&auth).await.unwrap(), None);
    refused(client_login(&t, "ivan", &secret).await).await;
    // Nothing of the account's app passwords is left in the users table.
    let left: Vec<_> = t
        .scan("UsersTable")
        .await
        .into_iter()
        .filter(|item| {
            item.get("pk")
                .and_then(|v| v.as_s().ok())
                .is_some_and(|pk| pk == &format!("USER#{user_id}"))
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test]
async fn the_platform_subscribes_a_person_through_identity() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put(
        "/imported.xml",
        FeedDocument::rss(generated_rss("Imported", 0, 2)),
    );
    let (profile, token) = t.user("importer").await;
    let user_id = profile["id"].as_str().unwrap();
    let source_id = submit_id(&t, &token, &url).await;
    let client = identity();
    let api = client.at(Some(t.url("")));

    let SubscriptionAnswer::Source(source) = api.subscribe_user(user_id, &source_id).await.unwrap()
    else {
        panic!("subscribed");
    };
    assert_eq!(source["id"], json!(source_id));
    assert_eq!(source["subscriberCount"], 1);
    // Twice changes nothing.
    let again = api.subscribe_user(user_id, &source_id).await.unwrap();
    assert!(matches!(&again, SubscriptionAnswer::Source(s) if s["subscriberCount"] == 1));
    // The person's own view: subscribed and enabled.
    let mine: Value = t
        .get_auth("/api/users/users/me/subscriptions", &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(mine["sourceIds"], json!([source_id]));
    assert_eq!(
        t.settings(&token).await["enabledSourceIds"],
        json!([source_id])
    );

    // Unknown people and sources.
    let nobody = "00000000-0000-4000-8000-000000000000";
    assert_eq!(
        api.subscribe_user(nobody, &source_id).await.unwrap(),
        SubscriptionAnswer::NotFound
    );
    assert_eq!(
        api.subscribe_user(user_id, "0123456789abcdef0123456789abcdef")
            .await
            .unwrap(),
        SubscriptionAnswer::NotFound
    );
    // Only with the internal token: none, or a user's, is a 401.
    let path = format!("/api/users/internal/users/{user_id}/subscriptions/{source_id}");
    let short = path.trim_start_matches("/api/users");
    assert_news_error(t.http.post(t.url(&path)).call().await, 401, short).await;
    assert_news_error(t.post_auth(&path, &token).await, 401, short).await;
    assert_news_error(t.delete_auth(&path, &token).await, 401, short).await;
    let long = "x".repeat(201);
    let bad = t
        .http
        .post(t.url(&format!(
            "/api/users/internal/users/{long}/subscriptions/{source_id}"
        )))
        .header("x-internal-service-token", INTERNAL_TOKEN)
        .call()
        .await;
    assert_eq!(bad.status(), 400);

    // The last subscriber leaving deletes the source.
    assert_eq!(
        api.unsubscribe_user(user_id, &source_id).await.unwrap(),
        SubscriptionAnswer::SourceDeleted
    );
    assert_eq!(t.settings(&token).await["enabledSourceIds"], json!([]));
    assert_eq!(
        api.unsubscribe_user(user_id, &source_id).await.unwrap(),
        SubscriptionAnswer::NotFound
    );
}
