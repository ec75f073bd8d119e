//! Token verification and the extractors that gate routes.
//!
//! Tokens are EdDSA (Ed25519) JWTs issued by the users function; every other function holds
//! only the public keys. A missing, malformed, expired or badly signed token is 401; a valid
//! token without the needed role or scope is 403.

use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::header;
use axum::http::request::Parts;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::config::{ConfigError, Env};
use crate::error::ApiError;
use crate::keys;

pub const ROLE_USER: &str = "USER";
pub const ROLE_ADMIN: &str = "ADMIN";

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

/// Verifies platform tokens with the configured public keys.
pub struct TokenVerifier {
    keys: Vec<(String, DecodingKey)>,
    validation: Validation,
}

impl TokenVerifier {
    pub fn new(public_keys: &[[u8; 32]], issuer: &str, audience: &str) -> Self {
        let keys = public_keys
            .iter()
            .map(|raw| (keys::key_id(raw), DecodingKey::from_ed_der(raw)))
            .collect();
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_issuer(&[issuer]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = 0;
        Self { keys, validation }
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

fn bearer(parts: &Parts) -> Result<Option<&str>, ApiError> {
    let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("Authorization header is malformed"))?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim()))
        }
        _ => Err(ApiError::unauthorized(
            "Authorization header must be 'Bearer <token>'",
        )),
    }
}

fn verified(parts: &Parts, verifier: &TokenVerifier) -> Result<Option<Claims>, ApiError> {
    match bearer(parts)? {
        None => Ok(None),
        Some(token) => verifier.verify(token).map(Some).map_err(|e| {
            tracing::debug!(reason = %e, "token refused");
            ApiError::unauthorized(format!("Invalid token: {e}"))
        }),
    }
}

/// The signed-in user. No token or a bad token: 401; a service token: 403.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub id: String,
    pub username: String,
    pub roles: Vec<String>,
}

impl AuthUser {
    pub fn is_admin(&self) -> bool {
        self.roles.iter().any(|r| r == ROLE_ADMIN)
    }

    fn from_claims(claims: Claims) -> Result<Self, ApiError> {
        if !claims.has_role(ROLE_USER) {
            return Err(ApiError::forbidden("A user token is required"));
        }
        Ok(Self {
            id: claims.sub,
            username: claims.username.unwrap_or_default(),
            roles: claims.roles,
        })
    }
}

impl<S> FromRequestParts<S> for AuthUser
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let verifier = Arc::<TokenVerifier>::from_ref(state);
        match verified(parts, &verifier)? {
            Some(claims) => AuthUser::from_claims(claims),
            None => Err(ApiError::unauthorized("Authentication is required")),
        }
    }
}

/// The user when a token is sent; a bad token is still 401.
#[derive(Debug, Clone)]
pub struct MaybeUser(pub Option<AuthUser>);

impl<S> FromRequestParts<S> for MaybeUser
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let verifier = Arc::<TokenVerifier>::from_ref(state);
        match verified(parts, &verifier)? {
            Some(claims) => AuthUser::from_claims(claims).map(|u| MaybeUser(Some(u))),
            None => Ok(MaybeUser(None)),
        }
    }
}

/// A signed-in user with the ADMIN role (403 otherwise).
#[derive(Debug, Clone)]
pub struct AdminUser(pub AuthUser);

impl<S> FromRequestParts<S> for AdminUser
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let user = AuthUser::from_request_parts(parts, state).await?;
        if user.is_admin() {
            Ok(AdminUser(user))
        } else {
            Err(ApiError::forbidden("The ADMIN role is required"))
        }
    }
}

/// A service scope a route requires.
pub trait Scope: Send + Sync + 'static {
    const NAME: &'static str;
}

/// The scope that lets a service subscribe and unsubscribe users to sources.
pub struct SourceWrite;

impl Scope for SourceWrite {
    const NAME: &'static str = "source.write";
}

/// A caller holding scope `S`: no token or a bad token 401, a token without `S` 403.
#[derive(Debug, Clone)]
pub struct RequireScope<S: Scope> {
    pub client_id: String,
    _scope: PhantomData<S>,
}

impl<S, St> FromRequestParts<St> for RequireScope<S>
where
    S: Scope,
    St: Send + Sync,
    Arc<TokenVerifier>: FromRef<St>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &St) -> Result<Self, Self::Rejection> {
        let verifier = Arc::<TokenVerifier>::from_ref(state);
        let claims = verified(parts, &verifier)?
            .ok_or_else(|| ApiError::unauthorized("A service token is required"))?;
        if !claims.has_scope(S::NAME) {
            return Err(ApiError::forbidden(format!(
                "The scope {} is required",
                S::NAME
            )));
        }
        Ok(Self {
            client_id: claims.sub,
            _scope: PhantomData,
        })
    }
}

/// The shared secret of Document B's internal operations.
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

pub const INTERNAL_TOKEN_HEADER: &str = "x-internal-service-token";

/// A caller that presented the internal service token (401 otherwise).
#[derive(Debug, Clone, Copy)]
pub struct InternalService;

impl<S> FromRequestParts<S> for InternalService
where
    S: Send + Sync,
    InternalToken: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let expected = InternalToken::from_ref(state);
        let presented = parts
            .headers
            .get(INTERNAL_TOKEN_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if expected.matches(presented) {
            Ok(InternalService)
        } else {
            Err(
                ApiError::unauthorized("A valid X-Internal-Service-Token is required")
                    .with_challenge("X-Internal-Service-Token"),
            )
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
