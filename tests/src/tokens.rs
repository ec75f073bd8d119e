//! Tokens a test makes or reads itself: the claims of a token (read, not verified), and
//! tokens signed with the stack's key or another one, to forge what the platform must refuse.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::stack::TestStack;

/// One base64url JSON part of a JWT, decoded.
pub fn decode_part(part: &str) -> Value {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("base64url")).expect("json")
}

/// A JWT's claims, read without checking the signature.
pub fn claims(token: &str) -> Value {
    decode_part(token.split('.').nth(1).expect("payload"))
}

/// `value` as a base64url JSON part of a JWT.
pub fn encode_part(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(value).expect("json"))
}

/// Claims for `profile` issued two hours ago, expiring `exp_offset` seconds from now.
pub fn claims_for(profile: &Value, exp_offset: i64, aud: &str) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({
        "sub": profile["id"], "username": profile["username"], "roles": ["USER"],
        "iss": "news-platform", "aud": aud, "iat": now - 7200, "exp": now + exp_offset,
    })
}

/// `claims` signed with EdDSA by the Ed25519 key in `private_pem`.
pub fn sign(private_pem: &str, claims: &Value) -> String {
    let (der, _) = platform::keys::parse_private_pem(private_pem).expect("key");
    platform::jwt::install();
    jsonwebtoken::encode(
        &Header::new(Algorithm::EdDSA),
        claims,
        &EncodingKey::from_ed_der(&der),
    )
    .expect("sign")
}

impl TestStack {
    /// `claims` signed with the stack's own key: a token the platform accepts if the claims are right.
    pub fn sign(&self, claims: &Value) -> String {
        sign(&self.keys.private_pem, claims)
    }
}
