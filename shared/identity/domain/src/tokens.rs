//! Issuing tokens (the identity function alone holds the private key) and publishing the JWKS.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use platform::tokens::{Claims, TokenVerifier};
use platform::{keys, Clock, ConfigError, Env};
use serde::Serialize;

pub struct TokenIssuer {
    key: EncodingKey,
    kid: String,
    issuer: String,
    audience: String,
    ttl_seconds: i64,
    /// Every key clients should trust: ours and any still-valid previous ones.
    published: Vec<[u8; 32]>,
    clock: Clock,
}

/// A token as handed to a client.
#[derive(Debug)]
pub struct IssuedToken {
    pub token: String,
    pub expires_in: i64,
}

impl TokenIssuer {
    /// From `JWT_PRIVATE_KEY` (PKCS#8 PEM), `JWT_PUBLIC_KEY` (extra published keys),
    /// `JWT_ISSUER`, `JWT_AUDIENCE` and `JWT_TTL_SECONDS` (3600). Tokens are dated by `clock`.
    pub fn from_env(env: &Env, clock: Clock) -> Result<Self, ConfigError> {
        let pem = env.require("JWT_PRIVATE_KEY")?;
        let (der, public) = keys::parse_private_pem(pem).map_err(|e| ConfigError::Invalid {
            name: "JWT_PRIVATE_KEY".into(),
            reason: e.to_string(),
        })?;
        let mut published = vec![public];
        if let Some(extra) = env.get("JWT_PUBLIC_KEY") {
            for k in keys::parse_public_pems(extra).map_err(|e| ConfigError::Invalid {
                name: "JWT_PUBLIC_KEY".into(),
                reason: e.to_string(),
            })? {
                if !published.contains(&k) {
                    published.push(k);
                }
            }
        }
        let ttl_seconds: i64 = env.parse_or("JWT_TTL_SECONDS", 3600)?;
        if ttl_seconds < 60 {
            return Err(ConfigError::Invalid {
                name: "JWT_TTL_SECONDS".into(),
                reason: "must be at least 60".into(),
            });
        }
        platform::jwt::install();
        Ok(Self {
            key: EncodingKey::from_ed_der(&der),
            kid: keys::key_id(&public),
            issuer: platform::tokens::issuer(env).to_string(),
            audience: platform::tokens::audience(env).to_string(),
            ttl_seconds,
            published,
            clock,
        })
    }

    /// A verifier that trusts exactly the published keys.
    pub fn verifier(&self) -> TokenVerifier {
        TokenVerifier::new(&self.published, &self.issuer, &self.audience)
    }

    /// A user's token, of the account's session version `session_version` (it ends when the
    /// account's sessions move past it).
    pub fn user_token(
        &self,
        user_id: &str,
        username: &str,
        roles: Vec<String>,
        session_version: u64,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        self.sign(
            user_id,
            Some(username.to_string()),
            roles,
            None,
            Some(session_version),
        )
    }

    /// A user's token that lasts `ttl_seconds` rather than `JWT_TTL_SECONDS` (an app's
    /// short-lived reader session), of session version `session_version`.
    pub fn short_user_token(
        &self,
        user_id: &str,
        username: &str,
        roles: Vec<String>,
        session_version: u64,
        ttl_seconds: i64,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        self.sign_lasting(
            user_id,
            Some(username.to_string()),
            roles,
            None,
            Some(session_version),
            ttl_seconds.min(self.ttl_seconds),
        )
    }

    pub fn service_token(
        &self,
        client_id: &str,
        scopes: &[String],
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        self.sign(client_id, None, Vec::new(), Some(scopes.join(" ")), None)
    }

    fn sign(
        &self,
        sub: &str,
        username: Option<String>,
        roles: Vec<String>,
        scope: Option<String>,
        sv: Option<u64>,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        self.sign_lasting(sub, username, roles, scope, sv, self.ttl_seconds)
    }

    fn sign_lasting(
        &self,
        sub: &str,
        username: Option<String>,
        roles: Vec<String>,
        scope: Option<String>,
        sv: Option<u64>,
        ttl_seconds: i64,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        let now = self.clock.now().timestamp();
        let claims = Claims {
            sub: sub.to_string(),
            username,
            roles,
            scope,
            sv,
            iss: self.issuer.clone(),
            aud: self.audience.clone(),
            iat: now,
            exp: now + ttl_seconds,
        };
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.kid.clone());
        let token = jsonwebtoken::encode(&header, &claims, &self.key)?;
        Ok(IssuedToken {
            token,
            expires_in: ttl_seconds,
        })
    }

    /// The JSON Web Key Set of the published keys (RFC 8037 OKP keys).
    pub fn jwks(&self) -> Jwks {
        Jwks {
            keys: self
                .published
                .iter()
                .map(|raw| Jwk {
                    kty: "OKP",
                    crv: "Ed25519",
                    x: URL_SAFE_NO_PAD.encode(raw),
                    kid: keys::key_id(raw),
                    alg: "EdDSA",
                    key_use: "sig",
                })
                .collect(),
        }
    }
}

/// An RFC 7517 JSON Web Key Set: the public keys tokens are verified with.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Jwks {
    pub keys: Vec<Jwk>,
}

/// One Ed25519 public key (RFC 8037).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Jwk {
    /// Always `OKP`.
    #[schema(example = "OKP")]
    pub kty: &'static str,
    /// Always `Ed25519`.
    #[schema(example = "Ed25519")]
    pub crv: &'static str,
    /// The public key, base64url without padding.
    pub x: String,
    /// The key id tokens name in their `kid` header.
    pub kid: String,
    /// Always `EdDSA`.
    #[schema(example = "EdDSA")]
    pub alg: &'static str,
    /// Always `sig`.
    #[serde(rename = "use")]
    #[schema(example = "sig")]
    pub key_use: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issuer(env: &Env) -> Result<TokenIssuer, ConfigError> {
        TokenIssuer::from_env(env, Clock::system())
    }

    fn env() -> Env {
        let pair = keys::generate_ed25519().expect("key");
        Env::new().with("JWT_PRIVATE_KEY", pair.private_pem)
    }

    #[test]
    fn issued_tokens_verify_and_carry_claims() {
        let issuer = issuer(&env()).expect("issuer");
        let t = issuer
            .user_token("id-1", "alice", vec!["USER".into()], 0)
            .expect("sign");
        let claims = issuer.verifier().verify(&t.token).expect("verify");
        assert_eq!(claims.username.as_deref(), Some("alice"));
        assert_eq!(claims.exp - claims.iat, 3600);
        let s = issuer
            .service_token("svc", &["source.write".into()])
            .expect("sign");
        let claims = issuer.verifier().verify(&s.token).expect("verify");
        assert!(claims.has_scope("source.write"));
        assert!(claims.roles.is_empty());
        let jwks = serde_json::to_value(issuer.jwks()).expect("json");
        assert_eq!(jwks["keys"][0]["crv"], "Ed25519");
        assert_eq!(jwks["keys"][0]["use"], "sig");
    }

    #[test]
    fn tokens_are_dated_by_the_clock() {
        let at = chrono::DateTime::from_timestamp(1_800_000_000, 0).expect("instant");
        let issuer = TokenIssuer::from_env(&env(), Clock::fixed(at)).expect("issuer");
        let t = issuer.service_token("svc", &[]).expect("sign");
        let payload = t.token.split('.').nth(1).expect("payload");
        let claims: Claims =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64"))
                .expect("json");
        assert_eq!((claims.iat, claims.exp), (1_800_000_000, 1_800_003_600));
    }

    #[test]
    fn refuses_bad_configuration() {
        assert!(issuer(&Env::new()).is_err());
        assert!(issuer(&Env::new().with("JWT_PRIVATE_KEY", "x")).is_err());
        assert!(issuer(&env().with("JWT_TTL_SECONDS", "5")).is_err());
    }
}
