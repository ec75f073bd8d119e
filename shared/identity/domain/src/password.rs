//! Password hashing with Argon2id (memory-hard), off the async runtime's worker threads.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

/// OWASP's recommended Argon2id parameters: 19 MiB, 2 passes, 1 lane.
fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

#[derive(Debug, thiserror::Error)]
#[error("password hashing failed: {0}")]
pub struct HashError(String);

pub async fn hash(password: String) -> Result<String, HashError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        hasher()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| HashError(e.to_string()))
    })
    .await
    .map_err(|e| HashError(e.to_string()))?
}

/// Checks `password` against `stored`. With no stored hash (unknown user) it still spends the
/// same time on a dummy hash, so response timing does not reveal which usernames exist.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let dummy;
        let encoded = match &stored {
            Some(s) => s.as_str(),
            None => {
                dummy = dummy_hash();
                dummy.as_str()
            }
        };
        let ok = PasswordHash::new(encoded)
            .map(|parsed| {
                hasher()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
            })
            .unwrap_or(false);
        ok && stored.is_some()
    })
    .await
    .unwrap_or(false)
}

fn dummy_hash() -> String {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY
        .get_or_init(|| {
            let salt = SaltString::generate(&mut OsRng);
            hasher()
                .hash_password(b"timing-equaliser", &salt)
                .map(|h| h.to_string())
                .unwrap_or_default()
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_differ() {
        let a = hash("correct horse".into()).await.expect("hash");
        let b = hash("correct horse".into()).await.expect("hash");
        assert_ne!(a, b, "salted");
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify("correct horse".into(), Some(a.clone())).await);
        assert!(!verify("wrong horse".into(), Some(a)).await);
        assert!(!verify("timing-equaliser".into(), None).await);
    }
}
