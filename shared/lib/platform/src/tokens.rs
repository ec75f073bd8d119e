//! Token verification, without HTTP: the claims every platform token carries, the verifier,
//! and the internal service token. The route guards built on them are in `auth` (edge).
//!
//! Tokens are EdDSA (Ed25519) JWTs issued by the identity function; every other function holds
//! only the public keys.

use std::sync::Arc;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::config::{ConfigError, Env};
use crate::keys;

pub const ROLE_USER: &str = "USER";
pub const ROLE_OPERATOR: &str = "OPERATOR";
pub const ROLE_ADMIN: &str = "ADMIN";
/// Every role an account can hold, in the order they are listed.
pub const ROLES: [&str; 3] = [ROLE_USER, ROLE_OPERATOR, ROLE_ADMIN];

/// The claims of every token the platform issues.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Claims {
    /// User id (uuid) for user tokens, client id for service tokens.
    pub sub: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// Space-separated scopes; service tokens only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The account's session version when the token was issued (user tokens; absent is 0):
    /// the token ends when the account's sessions move past it (see `sessions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sv: Option<u64>,
    pub iss: String,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
}

impl Claims {
    pub fn has_scope(&self, wanted: &str) -> bool {
        self.scope
            .as_deref()
            .is_some_and(|s| s.split_whitespace().any(|x| x == wanted))
    }

    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r == role)
    }
}

/// Why a token was refused; every variant is a 401.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("token is malformed")]
    Malformed,
    #[error("token algorithm is not accepted")]
    Algorithm,
    #[error("token signature is invalid")]
    Signature,
    #[error("token has expired")]
    Expired,
    #[error("token issuer or audience is wrong")]
    Claims,
}

/// Verifies platform tokens with the configured public keys, and, when it holds the sessions
/// table, that a user token's session has not ended.
pub struct TokenVerifier {
    keys: Vec<(String, DecodingKey)>,
    validation: Validation,
    #[cfg(feature = "aws")]
    sessions: Option<crate::sessions::SessionRegistry>,
}

impl TokenVerifier {
    pub fn new(public_keys: &[[u8; 32]], issuer: &str, audience: &str) -> Self {
        crate::jwt::install();
        let keys = public_keys
            .iter()
            .map(|raw| (keys::key_id(raw), DecodingKey::from_ed_der(raw)))
            .collect();
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_issuer(&[issuer]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = 0;
        Self {
            keys,
            validation,
            #[cfg(feature = "aws")]
            sessions: None,
        }
    }

    /// Checks sessions too ([`TokenVerifier::session_ended`]).
    #[cfg(feature = "aws")]
    pub fn with_sessions(mut self, sessions: Option<crate::sessions::SessionRegistry>) -> Self {
        self.sessions = sessions;
        self
    }

    /// The verifier of a function: keys from the environment (see [`TokenVerifier::from_env`])
    /// and the sessions table `SESSIONS_TABLE` when it is given.
    #[cfg(feature = "aws")]
    pub fn for_function(env: &Env, aws: &crate::aws::AwsClients) -> Result<Self, ConfigError> {
        Ok(Self::from_env(env, &[])?
            .with_sessions(crate::sessions::SessionRegistry::from_env(env, aws)?))
    }

    /// `Ok(true)` when the user token's session has ended (a password or role change, sign
    /// out everywhere, or the account's deletion came after it was issued); always `Ok(false)`
    /// for service tokens and without a sessions table.
    #[cfg(feature = "aws")]
    pub async fn session_ended(&self, claims: &Claims) -> Result<bool, crate::dynamo::DynamoError> {
        let Some(sessions) = &self.sessions else {
            return Ok(false);
        };
        if !claims.has_role(ROLE_USER) {
            return Ok(false);
        }
        let state = sessions.state(&claims.sub).await?;
        Ok(!state.admits(claims.sv.unwrap_or(0)))
    }

    /// From `JWT_PUBLIC_KEY` (one or more PEM blocks), `JWT_ISSUER` and `JWT_AUDIENCE`, plus
    /// any keys the caller already holds (the issuer's own).
    pub fn from_env(env: &Env, extra_keys: &[[u8; 32]]) -> Result<Self, ConfigError> {
        let mut public = match env.get("JWT_PUBLIC_KEY") {
            Some(pem) => keys::parse_public_pems(pem).map_err(|e| ConfigError::Invalid {
                name: "JWT_PUBLIC_KEY".into(),
                reason: e.to_string(),
            })?,
            None => Vec::new(),
        };
        for k in extra_keys {
            if !public.contains(k) {
                public.push(*k);
            }
        }
        if public.is_empty() {
            return Err(ConfigError::Missing("JWT_PUBLIC_KEY".into()));
        }
        Ok(Self::new(&public, issuer(env), audience(env)))
    }

    pub fn verify(&self, token: &str) -> Result<Claims, TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Malformed)?;
        if header.alg != Algorithm::EdDSA {
            return Err(TokenError::Algorithm);
        }
        let candidates = self
            .keys
            .iter()
            .filter(|(kid, _)| header.kid.as_deref().is_none_or(|wanted| wanted == kid));
        let mut last = TokenError::Signature;
        for (_, key) in candidates {
            match jsonwebtoken::decode::<Claims>(token, key, &self.validation) {
                Ok(data) => return Ok(data.claims),
                Err(e) => {
                    use jsonwebtoken::errors::ErrorKind as K;
                    last = match e.kind() {
                        K::ExpiredSignature => return Err(TokenError::Expired),
                        K::InvalidIssuer | K::InvalidAudience | K::MissingRequiredClaim(_) => {
                            return Err(TokenError::Claims)
                        }
                        K::InvalidSignature => TokenError::Signature,
                        _ => TokenError::Malformed,
                    };
                }
            }
        }
        Err(last)
    }
}

pub fn issuer(env: &Env) -> &str {
    env.get_or("JWT_ISSUER", "news-platform")
}

pub fn audience(env: &Env) -> &str {
    env.get_or("JWT_AUDIENCE", "news-platform-api")
}

/// The shared secret of the community's internal operations.
#[derive(Clone)]
pub struct InternalToken(Option<Arc<str>>);

impl InternalToken {
    pub fn from_env(env: &Env) -> Self {
        Self(env.get("INTERNAL_SERVICE_TOKEN").map(Arc::from))
    }

    /// Constant-time comparison; an unconfigured token matches nothing.
    pub fn matches(&self, presented: &str) -> bool {
        match &self.0 {
            Some(expected) => bool::from(expected.as_bytes().ct_eq(presented.as_bytes())),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use jsonwebtoken::{EncodingKey, Header};

    fn pair() -> (EncodingKey, [u8; 32]) {
        crate::jwt::install();
        let generated = keys::generate_ed25519().expect("key");
        let (der, public) = keys::parse_private_pem(&generated.private_pem).expect("parse");
        (EncodingKey::from_ed_der(&der), public)
    }

    fn claims(exp_offset: i64) -> Claims {
        let now = chrono::Utc::now().timestamp();
        Claims {
            sub: "u1".into(),
            username: Some("alice".into()),
            roles: vec![ROLE_USER.into()],
            scope: None,
            sv: None,
            iss: "iss".into(),
            aud: "aud".into(),
            iat: now,
            exp: now + exp_offset,
        }
    }

    #[test]
    fn accepts_good_and_refuses_bad_tokens() {
        let (key, public) = pair();
        let verifier = TokenVerifier::new(&[public], "iss", "aud");
        let good = jsonwebtoken::encode(&Header::new(Algorithm::EdDSA), &claims(60), &key)
            .expect("encode");
        assert_eq!(verifier.verify(&good).map(|c| c.sub), Ok("u1".to_string()));

        let expired = jsonwebtoken::encode(&Header::new(Algorithm::EdDSA), &claims(-5), &key)
            .expect("encode");
        assert_eq!(verifier.verify(&expired), Err(TokenError::Expired));

        let mut wrong_aud = claims(60);
        wrong_aud.aud = "other".into();
        let t =
            jsonwebtoken::encode(&Header::new(Algorithm::EdDSA), &wrong_aud, &key).expect("encode");
        assert_eq!(verifier.verify(&t), Err(TokenError::Claims));

        let (other_key, _) = pair();
        let forged = jsonwebtoken::encode(&Header::new(Algorithm::EdDSA), &claims(60), &other_key)
            .expect("encode");
        assert_eq!(verifier.verify(&forged), Err(TokenError::Signature));

        let hs = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims(60),
            &EncodingKey::from_secret(&public),
        )
        .expect("encode");
        assert_eq!(verifier.verify(&hs), Err(TokenError::Algorithm));

        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims(60)).expect("json"));
        let none = format!("{}.{body}.", URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#));
        assert!(verifier.verify(&none).is_err());
        assert_eq!(verifier.verify("garbage"), Err(TokenError::Malformed));
    }

    #[test]
    fn internal_token_needs_configuration() {
        assert!(!InternalToken::from_env(&Env::new()).matches(""));
        let t = InternalToken::from_env(&Env::new().with("INTERNAL_SERVICE_TOKEN", "s3cret"));
        assert!(t.matches("s3cret"));
        assert!(!t.matches("s3cre"));
    }
}
