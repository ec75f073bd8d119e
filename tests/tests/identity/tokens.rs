//! Tokens: every forgery of a user token is refused, the verification key is published,
//! and service clients get scoped tokens by the client-credentials grant.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};
use stack_tests::tokens::{claims_for, decode_part, encode_part, sign};
use stack_tests::users::{JWKS, ME};
use stack_tests::{assert_news_error, header, Call, TestStack, SERVICE_CLIENT, SERVICE_SECRET};

/// The audience of user tokens.
const API: &str = "news-platform-api";

#[tokio::test]
async fn bad_tokens_are_401() {
    let t = TestStack::start().await;
    let (profile, token) = t.user("dave").await;

    // A token we forge with the stack's own key is accepted: the forgeries below differ in one way each.
    let good = t.sign(&claims_for(&profile, 600, API));
    assert_eq!(t.get_auth(ME, &good).await.status(), 200);

    let missing = t.get(ME).await;
    assert_eq!(header(missing.headers(), "www-authenticate"), "Bearer");
    assert_news_error(missing, 401, "/users/me").await;

    let not_bearer = t
        .http
        .get(t.url(ME))
        .header("authorization", format!("Token {token}"))
        .call()
        .await;
    assert_news_error(not_bearer, 401, "/users/me").await;

    assert_news_error(t.get_auth(ME, "garbage").await, 401, "/users/me").await;

    let expired = t.sign(&claims_for(&profile, -1, API));
    assert_news_error(t.get_auth(ME, &expired).await, 401, "/users/me").await;

    let wrong_audience = t.sign(&claims_for(&profile, 600, "someone-else"));
    assert_news_error(t.get_auth(ME, &wrong_audience).await, 401, "/users/me").await;

    // Tampered: the payload changed (another user id) and the signature kept.
    let mut parts: Vec<String> = token.split('.').map(str::to_string).collect();
    let mut claims = decode_part(&parts[1]);
    claims["sub"] = json!(uuid::Uuid::new_v4().to_string());
    claims["roles"] = json!(["USER", "ADMIN"]);
    parts[1] = encode_part(&claims);
    let tampered = parts.join(".");
    assert_news_error(t.get_auth(ME, &tampered).await, 401, "/users/me").await;

    // alg: none, unsigned.
    let none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#),
        encode_part(&claims_for(&profile, 600, API))
    );
    assert_news_error(t.get_auth(ME, &none).await, 401, "/users/me").await;

    // HS256 keyed with the public key (the classic algorithm-confusion attack), both as the
    // PEM text and as the published JWKS bytes.
    let jwks: Value = t.get(JWKS).await.json().await.expect("json");
    let x = URL_SAFE_NO_PAD
        .decode(jwks["keys"][0]["x"].as_str().expect("x"))
        .expect("b64");
    for secret in [t.keys.public_pem.as_bytes().to_vec(), x] {
        let hs = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims_for(&profile, 600, API),
            &EncodingKey::from_secret(&secret),
        )
        .expect("sign");
        assert_news_error(t.get_auth(ME, &hs).await, 401, "/users/me").await;
    }

    // Signed by a key the platform does not trust.
    let stranger = platform::keys::generate_ed25519().expect("key");
    let foreign = sign(&stranger.private_pem, &claims_for(&profile, 600, API));
    assert_news_error(t.get_auth(ME, &foreign).await, 401, "/users/me").await;
}

#[tokio::test]
async fn jwks_publishes_the_verification_key() {
    let t = TestStack::start().await;
    let response = t.get(JWKS).await;
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
    let service = Some((SERVICE_CLIENT, SERVICE_SECRET));
    let client_credentials = ("grant_type", "client_credentials");

    let ok = t
        .token_request(service, &[client_credentials, ("scope", "source.write")])
        .await;
    assert_eq!(ok.status(), 200);
    assert_eq!(header(ok.headers(), "cache-control"), "no-store");
    let body: Value = ok.json().await.expect("json");
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["scope"], "source.write");
    assert_eq!(body["expires_in"], 3600);
    let service_token = body["access_token"].as_str().expect("token").to_string();

    // The secret in the form body works too (RFC 6749 client_secret_post).
    let post = t
        .token_request(
            None,
            &[
                client_credentials,
                ("client_id", SERVICE_CLIENT),
                ("client_secret", SERVICE_SECRET),
            ],
        )
        .await;
    assert_eq!(post.status(), 200);

    let bad_secret = t
        .token_request(
            Some((SERVICE_CLIENT, "wrong-secret")),
            &[client_credentials],
        )
        .await;
    assert_eq!(header(bad_secret.headers(), "www-authenticate"), "Basic");
    let body = assert_news_error(bad_secret, 401, "/oauth2/token").await;
    assert_eq!(body["error"], "invalid_client");

    let unknown_client = t
        .token_request(Some(("stranger", SERVICE_SECRET)), &[client_credentials])
        .await;
    assert_eq!(unknown_client.status(), 401);

    let no_auth = t.token_request(None, &[client_credentials]).await;
    assert_eq!(no_auth.status(), 401);

    let bad_scope = t
        .token_request(
            service,
            &[client_credentials, ("scope", "admin.everything")],
        )
        .await;
    let body = assert_news_error(bad_scope, 400, "/oauth2/token").await;
    assert_eq!(body["error"], "invalid_scope");

    let password_grant = t
        .token_request(service, &[("grant_type", "password")])
        .await;
    let body = assert_news_error(password_grant, 400, "/oauth2/token").await;
    assert_eq!(body["error"], "unsupported_grant_type");

    // A service token is not a user: user routes answer 403.
    let me = t.get_auth(ME, &service_token).await;
    assert_news_error(me, 403, "/users/me").await;
}
