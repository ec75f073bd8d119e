//! App passwords: a person's per-device passwords for the apps that speak the Google Reader
//! API (never the account's password). Each is shown once at creation, stored only as a
//! SHA-256 hash (the secret is 160 random bits, so a fast hash is enough: nothing to
//! brute-force), revoked one by one, and all end with the account's sessions.
//!
//! `ClientLogin` answers an [`ReaderAuth`] value, `{userId}/{appPasswordId}/{secret}`: opaque
//! to clients, and checked with one GetItem and a constant-time hash compare.

use platform::{FieldError, Invalid};
use ring::rand::{SecureRandom, SystemRandom};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::model::UserId;

/// The most app passwords a person holds at once.
pub const MAX_APP_PASSWORDS: usize = 20;
/// The longest app password name, in characters.
pub const MAX_APP_PASSWORD_NAME: usize = 100;
/// Characters of a secret: 32 of base32's alphabet, 160 random bits.
pub const SECRET_CHARS: usize = 32;
/// The longest `Auth` value identity makes (a user id of at most 200 characters, an id and a
/// secret), and so the longest it reads.
pub const MAX_AUTH_CHARS: usize = 260;
/// The longest `Email` a `ClientLogin` takes: an address's limit (usernames are shorter).
pub const MAX_LOGIN_EMAIL: usize = 254;
/// The longest `Passwd` a `ClientLogin` takes: the account password's limit (an app password
/// is 32 characters; a longer one can match none).
pub const MAX_LOGIN_PASSWD: usize = 128;

/// RFC 4648 base32's alphabet, lowercase (apps' password fields and people type it).
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// A new app password as sent.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct AppPasswordRequest {
    /// What the person calls it (the device or app): 1-100 characters, no control characters.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 100, pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$", example = "Reeder on my phone")]
    pub name: Option<String>,
}

impl AppPasswordRequest {
    /// The name, trimmed.
    pub fn parse(self) -> Result<String, Invalid> {
        let name = self.name.as_deref().map(str::trim).unwrap_or("");
        let problem = if name.is_empty() {
            Some("is required".to_string())
        } else if name.chars().count() > MAX_APP_PASSWORD_NAME {
            Some(format!(
                "must be at most {MAX_APP_PASSWORD_NAME} characters"
            ))
        } else if name.chars().any(char::is_control) {
            Some("must not contain control characters".to_string())
        } else {
            None
        };
        match problem {
            Some(reason) => Err(Invalid(vec![FieldError::new("name", reason)])),
            None => Ok(name.to_string()),
        }
    }
}

/// An app password as its person sees it in the list (never its secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppPassword {
    #[schema(pattern = "^[0-9a-f]{16}$")]
    pub id: String,
    pub name: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// When an app last signed in or read with it, to the hour (null: never).
    #[schema(format = DateTime)]
    pub last_used_at: Option<String>,
}

/// A page of a person's app passwords, newest first.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppPasswordPage {
    pub items: Vec<AppPassword>,
    /// The `cursor` of the next page; null on the last one.
    #[schema(pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    pub next_cursor: Option<String>,
}

/// A new app password: the only answer that holds its secret.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedAppPassword {
    #[schema(pattern = "^[0-9a-f]{16}$")]
    pub id: String,
    pub name: String,
    /// The password to give the app, shown this once: 32 characters of `a-z` and `2-7`.
    #[schema(pattern = "^[a-z2-7]{32}$")]
    pub password: String,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// A `ClientLogin` as sent (a form or a query): `Email` is the username or the account's
/// address, `Passwd` an app password. Other fields apps send (`service`, `accountType`,
/// `source`, `client`) are ignored.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct ClientLoginRequest {
    /// The username (what apps send) or the account's address.
    #[serde(rename = "Email")]
    #[schema(required = true, value_type = String, min_length = 1, max_length = 254, pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]", example = "alice")]
    pub email: Option<String>,
    /// An app password of the account (never the account's own password).
    #[serde(rename = "Passwd")]
    #[schema(required = true, value_type = String, format = Password, min_length = 1, max_length = 128)]
    pub passwd: Option<String>,
}

/// A `ClientLogin` with both parts present and within bounds.
pub struct ClientLogin {
    /// The username or address, lowercased (the login and email items' keys).
    pub login_key: String,
    pub password: String,
}

impl std::fmt::Debug for ClientLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientLogin({}, ***)", self.login_key)
    }
}

impl ClientLoginRequest {
    pub fn parse(self) -> Result<ClientLogin, Invalid> {
        let email = self.email.as_deref().map(str::trim).unwrap_or("");
        let passwd = self.passwd.unwrap_or_default();
        let mut problems = Vec::new();
        if email.is_empty() {
            problems.push(FieldError::new("Email", "is required"));
        } else if email.chars().count() > MAX_LOGIN_EMAIL {
            problems.push(FieldError::new(
                "Email",
                format!("must be at most {MAX_LOGIN_EMAIL} characters"),
            ));
        }
        if passwd.is_empty() {
            problems.push(FieldError::new("Passwd", "is required"));
        } else if passwd.chars().count() > MAX_LOGIN_PASSWD {
            problems.push(FieldError::new(
                "Passwd",
                format!("must be at most {MAX_LOGIN_PASSWD} characters"),
            ));
        }
        if !problems.is_empty() {
            return Err(Invalid(problems));
        }
        Ok(ClientLogin {
            login_key: email.to_lowercase(),
            // Apps and people may add spaces around a pasted password; a secret has none.
            password: passwd.trim().to_string(),
        })
    }
}

/// The `Auth` value of an app password: `{userId}/{appPasswordId}/{secret}`.
#[derive(Clone, PartialEq, Eq)]
pub struct ReaderAuth {
    pub user_id: UserId,
    pub id: String,
    pub secret: String,
}

impl std::fmt::Debug for ReaderAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReaderAuth({}/{}/***)", self.user_id, self.id)
    }
}

impl ReaderAuth {
    /// The value as given to the app.
    pub fn encode(&self) -> String {
        format!("{}/{}/{}", self.user_id, self.id, self.secret)
    }

    /// An `Auth` value's parts; `None` for text identity never made (answered as a wrong one).
    pub fn parse(raw: &str) -> Option<Self> {
        if raw.len() > MAX_AUTH_CHARS {
            return None;
        }
        let mut parts = raw.split('/');
        let (user, id, secret) = (parts.next()?, parts.next()?, parts.next()?);
        let id_ok = id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit());
        let secret_ok =
            secret.len() == SECRET_CHARS && secret.bytes().all(|b| ALPHABET.contains(&b));
        let user_ok = !user.is_empty()
            && user.len() <= 200
            && user.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        (parts.next().is_none() && id_ok && secret_ok && user_ok).then(|| Self {
            user_id: UserId::new(user),
            id: id.to_ascii_lowercase(),
            secret: secret.to_string(),
        })
    }
}

#[derive(Debug, thiserror::Error)]
#[error("the system's random source failed")]
pub struct RandomError;

/// `count` random bytes from the operating system.
fn random_bytes<const N: usize>() -> Result<[u8; N], RandomError> {
    let mut bytes = [0u8; N];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| RandomError)?;
    Ok(bytes)
}

/// A new app password's id: 16 hex digits (64 random bits).
pub fn new_id() -> Result<String, RandomError> {
    Ok(random_bytes::<8>()?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// A new secret: 32 characters of base32 (160 random bits, 5 per character).
pub fn new_secret() -> Result<String, RandomError> {
    let bytes = random_bytes::<SECRET_CHARS>()?;
    Ok(bytes
        .iter()
        .filter_map(|b| ALPHABET.get(usize::from(b & 31)).copied().map(char::from))
        .collect())
}

/// What the table keeps of a secret: SHA-256, lowercase hex.
pub fn secret_hash(secret: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, secret.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// True when `secret` is the one `stored` was made from, compared in constant time.
pub fn secret_matches(secret: &str, stored: &str) -> bool {
    secret_hash(secret)
        .as_bytes()
        .ct_eq(stored.as_bytes())
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_random_and_checked_by_hash() {
        let a = new_secret().expect("random");
        let b = new_secret().expect("random");
        assert_eq!(a.len(), SECRET_CHARS);
        assert!(a.bytes().all(|c| ALPHABET.contains(&c)));
        assert_ne!(a, b);
        let stored = secret_hash(&a);
        assert_eq!(stored.len(), 64);
        assert!(secret_matches(&a, &stored));
        assert!(!secret_matches(&b, &stored));
        assert_eq!(new_id().expect("random").len(), 16);
    }

    #[test]
    fn auth_values_round_trip_and_refuse_anything_else() {
        let auth = ReaderAuth {
            user_id: UserId::new("0b6f3a52-0000-4000-8000-000000000001"),
            id: "0123456789abcdef".into(),
            secret: "abcdefghijklmnopqrstuvwxyz234567".into(),
        };
        assert_eq!(ReaderAuth::parse(&auth.encode()), Some(auth.clone()));
        assert!(!format!("{auth:?}").contains("abcdefghij"));
        for bad in [
            "",
            "u/0123456789abcdef",
            "u/0123456789abcdeg/abcdefghijklmnopqrstuvwxyz234567",
            "u/0123456789abcdef/abcdefghijklmnopqrstuvwxyz23456",
            "u/0123456789abcdef/abcdefghijklmnopqrstuvwxyz234567/x",
            "u#/0123456789abcdef/abcdefghijklmnopqrstuvwxyz234567",
            "/0123456789abcdef/abcdefghijklmnopqrstuvwxyz234567",
        ] {
            assert_eq!(ReaderAuth::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn names_and_logins_are_bounded_and_named() {
        let name = |n: &str| {
            AppPasswordRequest {
                name: Some(n.into()),
            }
            .parse()
        };
        assert_eq!(name("  Reeder ").expect("valid"), "Reeder");
        for bad in ["", "   ", "a\u{7}b", &"x".repeat(101)] {
            let err = name(bad).expect_err("invalid");
            assert_eq!(err.0[0].field, "name");
        }
        assert!(AppPasswordRequest::default().parse().is_err());

        let login = ClientLoginRequest {
            email: Some(" Alice ".into()),
            passwd: Some(" secret ".into()),
        }
        .parse()
        .expect("valid");
        assert_eq!(
            (login.login_key.as_str(), login.password.as_str()),
            ("alice", "secret")
        );
        let err = ClientLoginRequest::default().parse().expect_err("empty");
        let fields: Vec<_> = err.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["Email", "Passwd"]);
        let err = ClientLoginRequest {
            email: Some("a".repeat(255)),
            passwd: Some("p".repeat(129)),
        }
        .parse()
        .expect_err("too long");
        assert_eq!(err.0.len(), 2);
    }
}
