//! Ed25519 signing keys in PEM, the form operators pass through template parameters.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair};

/// DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow it.
const ED25519_SPKI_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("not a PEM block of type {0}")]
    NotPem(&'static str),
    #[error("invalid key: {0}")]
    Invalid(String),
}

/// A newly generated key pair: PKCS#8 private key and SPKI public key, both PEM.
pub struct GeneratedKeyPair {
    pub private_pem: String,
    pub public_pem: String,
}

pub fn generate_ed25519() -> Result<GeneratedKeyPair, KeyError> {
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
        .map_err(|e| KeyError::Invalid(e.to_string()))?;
    let pair =
        Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).map_err(|e| KeyError::Invalid(e.to_string()))?;
    let public = public_key_bytes_of(&pair);
    Ok(GeneratedKeyPair {
        private_pem: to_pem("PRIVATE KEY", pkcs8.as_ref()),
        public_pem: public_pem_from_raw(&public),
    })
}

/// Reads an Ed25519 PKCS#8 private key and returns it with its raw public key.
pub fn parse_private_pem(pem: &str) -> Result<(Vec<u8>, [u8; 32]), KeyError> {
    let der = pem_blocks(pem, "PRIVATE KEY")
        .into_iter()
        .next()
        .ok_or(KeyError::NotPem("PRIVATE KEY"))?;
    let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der)
        .map_err(|e| KeyError::Invalid(e.to_string()))?;
    Ok((der, public_key_bytes_of(&pair)))
}

/// Reads every Ed25519 public key in `pem` (several blocks allow key rotation).
pub fn parse_public_pems(pem: &str) -> Result<Vec<[u8; 32]>, KeyError> {
    pem_blocks(pem, "PUBLIC KEY")
        .into_iter()
        .map(|der| {
            der.strip_prefix(&ED25519_SPKI_PREFIX[..])
                .and_then(|raw| <[u8; 32]>::try_from(raw).ok())
                .ok_or_else(|| KeyError::Invalid("not an Ed25519 public key".into()))
        })
        .collect()
}

pub fn public_pem_from_raw(raw: &[u8; 32]) -> String {
    let mut der = ED25519_SPKI_PREFIX.to_vec();
    der.extend_from_slice(raw);
    to_pem("PUBLIC KEY", &der)
}

/// A stable key id: the first 16 characters of the base64url SHA-256 of the public key.
pub fn key_id(raw_public: &[u8; 32]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, raw_public);
    URL_SAFE_NO_PAD.encode(digest.as_ref())[..16].to_string()
}

fn public_key_bytes_of(pair: &Ed25519KeyPair) -> [u8; 32] {
    let mut raw = [0u8; 32];
    raw.copy_from_slice(pair.public_key().as_ref());
    raw
}

fn to_pem(label: &str, der: &[u8]) -> String {
    let b64 = STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(chunk));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// Decodes every `label` block; tolerates `\n` written as a literal backslash-n, which is how
/// multi-line values often arrive through template parameters and env files.
fn pem_blocks(pem: &str, label: &str) -> Vec<Vec<u8>> {
    let text = pem.replace("\\n", "\n");
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let mut blocks = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find(&begin) {
        let after = &rest[start + begin.len()..];
        let Some(stop) = after.find(&end) else { break };
        let body: String = after[..stop].split_whitespace().collect();
        if let Ok(der) = STANDARD.decode(body) {
            blocks.push(der);
        }
        rest = &after[stop + end.len()..];
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_pair_round_trips() {
        let pair = generate_ed25519().expect("generate");
        let (_, public) = parse_private_pem(&pair.private_pem).expect("private");
        let publics = parse_public_pems(&pair.public_pem).expect("public");
        assert_eq!(publics, vec![public]);
        let escaped = pair.private_pem.replace('\n', "\\n");
        assert_eq!(parse_private_pem(&escaped).expect("escaped").1, public);
        assert_eq!(key_id(&public).len(), 16);
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_private_pem("nope").is_err());
        assert!(
            parse_public_pems("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")
                .is_err()
        );
    }
}
