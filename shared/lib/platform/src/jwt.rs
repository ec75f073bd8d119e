//! The JWT crate's crypto backend: ring, the provider TLS already links, instead of aws-lc
//! (about 1 MB of every bootstrap). Only what platform tokens use is implemented: EdDSA
//! (Ed25519), and HMAC so that HS* tokens are refused by `alg` rather than by a missing
//! backend. Any other algorithm is `InvalidAlgorithm`.

use jsonwebtoken::crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::{ErrorKind, Result};
use jsonwebtoken::signature::{Error as SignatureError, Signer, Verifier};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, EncodingKey};
use ring::hmac;
use ring::signature::{Ed25519KeyPair, UnparsedPublicKey, ED25519};

static RING: CryptoProvider = CryptoProvider {
    signer_factory: signer,
    verifier_factory: verifier,
    key_utils: KeyUtils::new_unimplemented(),
};

/// Makes ring the process's JWT backend. Idempotent; call it before the first encode or
/// decode (the token verifier and the identity issuer do, when they are built).
pub fn install() {
    // "Already installed" is fine: only this provider is ever installed.
    let _ = RING.install_default();
}

fn signer(algorithm: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    match (algorithm, key.family()) {
        (Algorithm::EdDSA, AlgorithmFamily::Ed) => {
            // PKCS#8 v1 (OpenSSL's form) as well as v2.
            let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(key.as_bytes())
                .map_err(|_| ErrorKind::InvalidEddsaKey)?;
            Ok(Box::new(EdSigner(pair)))
        }
        (_, AlgorithmFamily::Hmac) => {
            let hmac = hmac_algorithm(algorithm)?;
            Ok(Box::new(Hmac {
                key: hmac::Key::new(hmac, key.as_bytes()),
                algorithm: *algorithm,
            }))
        }
        (Algorithm::EdDSA, _) => Err(ErrorKind::InvalidKeyFormat.into()),
        _ => Err(ErrorKind::InvalidAlgorithm.into()),
    }
}

fn verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    match (algorithm, key.family()) {
        (Algorithm::EdDSA, AlgorithmFamily::Ed) => {
            Ok(Box::new(EdVerifier(key.try_get_as_bytes()?.to_vec())))
        }
        (_, AlgorithmFamily::Hmac) => {
            let hmac = hmac_algorithm(algorithm)?;
            Ok(Box::new(Hmac {
                key: hmac::Key::new(hmac, key.try_get_as_bytes()?),
                algorithm: *algorithm,
            }))
        }
        (Algorithm::EdDSA, _) => Err(ErrorKind::InvalidKeyFormat.into()),
        _ => Err(ErrorKind::InvalidAlgorithm.into()),
    }
}

fn hmac_algorithm(algorithm: &Algorithm) -> Result<hmac::Algorithm> {
    match algorithm {
        Algorithm::HS256 => Ok(hmac::HMAC_SHA256),
        Algorithm::HS384 => Ok(hmac::HMAC_SHA384),
        Algorithm::HS512 => Ok(hmac::HMAC_SHA512),
        _ => Err(ErrorKind::InvalidAlgorithm.into()),
    }
}

struct EdSigner(Ed25519KeyPair);

impl Signer<Vec<u8>> for EdSigner {
    fn try_sign(&self, msg: &[u8]) -> std::result::Result<Vec<u8>, SignatureError> {
        Ok(self.0.sign(msg).as_ref().to_vec())
    }
}

impl JwtSigner for EdSigner {
    fn algorithm(&self) -> Algorithm {
        Algorithm::EdDSA
    }
}

struct EdVerifier(Vec<u8>);

impl Verifier<Vec<u8>> for EdVerifier {
    fn verify(&self, msg: &[u8], signature: &Vec<u8>) -> std::result::Result<(), SignatureError> {
        UnparsedPublicKey::new(&ED25519, &self.0)
            .verify(msg, signature)
            .map_err(|_| SignatureError::new())
    }
}

impl JwtVerifier for EdVerifier {
    fn algorithm(&self) -> Algorithm {
        Algorithm::EdDSA
    }
}

struct Hmac {
    key: hmac::Key,
    algorithm: Algorithm,
}

impl Signer<Vec<u8>> for Hmac {
    fn try_sign(&self, msg: &[u8]) -> std::result::Result<Vec<u8>, SignatureError> {
        Ok(hmac::sign(&self.key, msg).as_ref().to_vec())
    }
}

impl Verifier<Vec<u8>> for Hmac {
    fn verify(&self, msg: &[u8], signature: &Vec<u8>) -> std::result::Result<(), SignatureError> {
        hmac::verify(&self.key, msg, signature).map_err(|_| SignatureError::new())
    }
}

impl JwtSigner for Hmac {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

impl JwtVerifier for Hmac {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{decode, encode, Header, Validation};
    use serde_json::{json, Value};

    fn claims() -> Value {
        json!({"sub": "u", "exp": 4_000_000_000_i64})
    }

    #[test]
    fn ed25519_tokens_round_trip_and_a_changed_signature_is_refused() {
        install();
        let pair = crate::keys::generate_ed25519().expect("key");
        let (der, public) = crate::keys::parse_private_pem(&pair.private_pem).expect("pem");
        let token = encode(
            &Header::new(Algorithm::EdDSA),
            &claims(),
            &EncodingKey::from_ed_der(&der),
        )
        .expect("sign");
        let key = DecodingKey::from_ed_der(&public);
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.required_spec_claims.clear();
        validation.validate_aud = false;
        let read = decode::<Value>(&token, &key, &validation).expect("verify");
        assert_eq!(read.claims, claims());

        let (head, signature) = token.rsplit_once('.').expect("three parts");
        let flipped = if signature.starts_with('A') { "B" } else { "A" };
        let forged = format!("{head}.{flipped}{}", &signature[1..]);
        assert!(decode::<Value>(&forged, &key, &validation).is_err());
    }

    #[test]
    fn hmac_signs_and_other_algorithms_are_refused_not_panicking() {
        install();
        let secret = EncodingKey::from_secret(b"secret");
        let token = encode(&Header::new(Algorithm::HS256), &claims(), &secret).expect("hs256");
        let mut validation = Validation::new(Algorithm::HS256);
        validation.required_spec_claims.clear();
        validation.validate_aud = false;
        assert!(decode::<Value>(&token, &DecodingKey::from_secret(b"secret"), &validation).is_ok());
        assert!(decode::<Value>(&token, &DecodingKey::from_secret(b"other"), &validation).is_err());

        let rs = encode(&Header::new(Algorithm::RS256), &claims(), &secret);
        assert!(matches!(
            rs.map_err(|e| e.into_kind()),
            Err(ErrorKind::InvalidAlgorithm)
        ));
    }
}
