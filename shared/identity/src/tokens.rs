//! Issuing tokens (the users function alone holds the private key) and publishing the JWKS.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use platform::tokens::{Claims, TokenVerifier};
use platform::{keys, ConfigError, Env};
use serde_json::{json, Value};

pub struct TokenIssuer {
    key: EncodingKey,
    kid: String,
    issuer: String,
    audience: String,
    ttl_seconds: i64,
    /// Every key clients should trust: ours and any still-valid previous ones.
    published: Vec<[u8; 32]>,
}

/// A token as handed to a client.
pub struct IssuedToken {
    pub token: String,
    pub expires_in: i64,
}

impl TokenIssuer {
    /// From `JWT_PRIVATE_KEY` (PKCS#8 PEM), `JWT_PUBLIC_KEY` (extra published keys),
    /// `JWT_ISSUER`, `JWT_AUDIENCE` and `JWT_TTL_SECONDS` (3600).
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
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
        Ok(Self {
            key: EncodingKey::from_ed_der(&der),
            kid: keys::key_id(&public),
            issuer: platform::tokens::issuer(env).to_string(),
            audience: platform::tokens::audience(env).to_string(),
            ttl_seconds,
            published,
        })
    }

    /// A verifier that trusts exactly the published keys.
    pub fn verifier(&self) -> TokenVerifier {
        TokenVerifier::new(&self.published, &self.issuer, &self.audience)
    }

    pub fn user_token(
        &self,
        user_id: &str,
        username: &str,
        roles: Vec<String>,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        self.sign(user_id, Some(username.to_string()), roles, None)
    }

    pub fn service_token(
        &self,
        client_id: &str,
        scopes: &[String],
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        self.sign(client_id, None, Vec::new(), Some(scopes.join(" ")))
    }

    fn sign(
        &self,
        sub: &str,
        username: Option<String>,
        roles: Vec<String>,
        scope: Option<String>,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        let now = chrono::Utc::now().timestamp();
        let claims = Claims {
            sub: sub.to_string(),
            username,
            roles,
            scope,
            iss: self.issuer.clone(),
            aud: self.audience.clone(),
            iat: now,
            exp: now + self.ttl_seconds,
        };
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.kid.clone());
        let token = jsonwebtoken::encode(&header, &claims, &self.key)?;
        Ok(IssuedToken {
            token,
            expires_in: self.ttl_seconds,
        })
    }

    /// The JSON Web Key Set of the published keys (RFC 8037 OKP keys).
    pub fn jwks(&self) -> Value {
        let keys: Vec<Value> = self
            .published
            .iter()
            .map(|raw| {
                json!({
                    "kty": "OKP",
                    "crv": "Ed25519",
                    "x": URL_SAFE_NO_PAD.encode(raw),
                    "kid": keys::key_id(raw),
                    "alg": "EdDSA",
                    "use": "sig",
                })
            })
            .collect();
        json!({ "keys": keys })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        let pair = keys::generate_ed25519().expect("key");
        Env::new().with("JWT_PRIVATE_KEY", pair.private_pem)
    }

    #[test]
    fn issued_tokens_verify_and_carry_claims() {
        let issuer = TokenIssuer::from_env(&env()).expect("issuer");
        let t = issuer
            .user_token("id-1", "alice", vec!["USER".into()])
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
        assert_eq!(issuer.jwks()["keys"][0]["crv"], "Ed25519");
    }

    #[test]
    fn refuses_bad_configuration() {
        assert!(TokenIssuer::from_env(&Env::new()).is_err());
        assert!(TokenIssuer::from_env(&Env::new().with("JWT_PRIVATE_KEY", "x")).is_err());
        assert!(TokenIssuer::from_env(&env().with("JWT_TTL_SECONDS", "5")).is_err());
    }
}
