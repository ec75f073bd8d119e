//! Accounts and settings, and the newtypes that make an invalid value unrepresentable. What
//! clients send, and its parsing into these, is in [`crate::input`].

use platform::FieldError;
use serde::{Deserialize, Serialize};

/// 3-50 characters of `[A-Za-z0-9_.-]`. Unique case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Username(String);

impl Username {
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        let len = raw.chars().count();
        if raw.trim().is_empty() {
            return Err(FieldError::new("username", "is required"));
        }
        if !(3..=50).contains(&len) {
            return Err(FieldError::new("username", "must be 3 to 50 characters"));
        }
        if !raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        {
            return Err(FieldError::new(
                "username",
                "may contain only letters, digits, '_', '.' and '-'",
            ));
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form uniqueness is enforced on.
    pub fn key(&self) -> String {
        self.0.to_ascii_lowercase()
    }
}

/// A syntactically valid address of at most 254 characters. Unique case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        let value = raw.trim();
        if value.is_empty() {
            return Err(FieldError::new("email", "is required"));
        }
        let invalid = || FieldError::new("email", "must be a valid email address");
        if value.len() > 254 || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(invalid());
        }
        let (local, domain) = value.rsplit_once('@').ok_or_else(invalid)?;
        let domain_ok = domain.len() >= 3
            && domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..")
            && domain
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '.');
        if local.is_empty() || local.len() > 64 || local.contains('@') || !domain_ok {
            return Err(invalid());
        }
        Ok(Self(value.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn key(&self) -> String {
        self.0.to_lowercase()
    }
}

/// 8-128 characters; never stored or logged.
pub struct Password(String);

impl Password {
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        let len = raw.chars().count();
        if raw.is_empty() {
            return Err(FieldError::new("password", "is required"));
        }
        if !(8..=128).contains(&len) {
            return Err(FieldError::new("password", "must be 8 to 128 characters"));
        }
        Ok(Self(raw.to_string()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

/// A display name of at most 100 characters (blank means none).
pub fn parse_name(raw: Option<&str>) -> Result<Option<String>, FieldError> {
    match raw.map(str::trim) {
        None | Some("") => Ok(None),
        Some(n) if n.chars().count() > 100 => {
            Err(FieldError::new("name", "must be at most 100 characters"))
        }
        Some(n) => Ok(Some(n.to_string())),
    }
}

/// An account's id (the tokens' `sub`), as a verified token names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UserId(String);

impl UserId {
    /// The subject of a verified user token; the token's signature is what vouches for it.
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for UserId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The id of a news source as the content service names them: 1-64 characters of
/// `[A-Za-z0-9_-]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceId(String);

impl SourceId {
    /// `None` for anything that cannot name a source: such an id is an unknown source,
    /// answered without asking the content service (it also keeps path tricks out of the
    /// URL the content service is called at).
    pub fn parse(raw: &str) -> Option<Self> {
        let plausible = !raw.is_empty()
            && raw.len() <= 64
            && raw
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        plausible.then(|| Self(raw.to_string()))
    }

    /// An id the users table holds: it was parsed before it was stored.
    pub(crate) fn stored(id: String) -> Self {
        Self(id)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SourceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The id of an article a user saves: the content service's id format (at most 64 letters,
/// digits, `-` and `_`). Whether the article still exists is the content service's business:
/// `POST /api/content/articles/saved` leaves out deleted ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedArticleId(String);

/// The most articles one account keeps saved.
pub const MAX_SAVED_ARTICLES: usize = 100;

impl SavedArticleId {
    pub fn parse(field: &str, raw: &str) -> Result<Self, platform::FieldError> {
        let plausible = !raw.is_empty()
            && raw.len() <= 64
            && raw
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if plausible {
            Ok(Self(raw.to_string()))
        } else {
            Err(platform::FieldError::new(
                field,
                "must be 1 to 64 letters, digits, '-' or '_'",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A user's saved articles, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SavedArticleIds {
    /// Article ids, newest saved first; at most 100.
    #[schema(max_items = 100)]
    pub ids: Vec<String>,
}

/// The sources a user subscribes to (enabled or not: `enabledSourceIds` in the settings says
/// which of them the personal feed shows).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscriptions {
    /// Source ids, in id order.
    pub source_ids: Vec<String>,
}

// The roles other products read too, defined with identity's client.
pub use identity_client::Role;

/// A user's profile as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// The user id (the tokens' `sub`).
    #[schema(format = Uuid)]
    pub id: String,
    pub username: String,
    /// Absent on an account registered through the recipe service (until one is set).
    #[schema(format = Email)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    pub name: Option<String>,
    /// `USER` for everyone, plus `OPERATOR` (the incident platform) and `ADMIN` (everything)
    /// where an administrator granted them.
    pub roles: Vec<Role>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// Reader preferences (news reader settings, plus the community's visibility flags).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The sources the user is subscribed to (kept in step by subscribe and unsubscribe).
    pub enabled_source_ids: Vec<String>,
    /// Topic ids the user follows.
    pub followed_topics: Vec<String>,
    /// A language tag such as `en` or `pt-BR`.
    #[schema(example = "en")]
    pub language: String,
    pub theme: Theme,
    /// The default length of AI summaries.
    pub summary_length: SummaryLength,
    /// Whether others see the user's bookmarks on their community profile;
    /// false until the user turns it on (the owner always sees their own).
    #[serde(default)]
    #[schema(required = true)]
    pub show_bookmarks: bool,
    /// Whether others see the user's likes on their community profile; false
    /// until the user turns it on (the owner always sees their own).
    #[serde(default)]
    #[schema(required = true)]
    pub show_likes: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            enabled_source_ids: Vec::new(),
            followed_topics: Vec::new(),
            language: "en".into(),
            theme: Theme::System,
            summary_length: SummaryLength::Medium,
            // Private by default: lists are shown to others only when the user says so.
            show_bookmarks: false,
            show_likes: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    Light,
    Dark,
    System,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SummaryLength {
    Short,
    Medium,
    Long,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_private_by_default_and_in_settings_stored_without_the_flags() {
        let fresh = Settings::default();
        assert!(!fresh.show_bookmarks && !fresh.show_likes);
        let stored = r#"{"enabledSourceIds":[],"followedTopics":[],"language":"en","theme":"dark","summaryLength":"short"}"#;
        let read: Settings = serde_json::from_str(stored).expect("stored settings");
        assert!(!read.show_bookmarks && !read.show_likes);
        assert_eq!(read.theme, Theme::Dark);
    }

    #[test]
    fn usernames() {
        assert!(Username::parse("alice_1.x-y").is_ok());
        assert!(Username::parse("ab").is_err());
        assert!(Username::parse(&"a".repeat(51)).is_err());
        assert!(Username::parse("al ice").is_err());
        assert!(Username::parse("älice").is_err());
        assert_eq!(
            Username::parse("Alice").map(|u| u.key()).ok(),
            Some("alice".into())
        );
    }

    #[test]
    fn emails() {
        assert!(Email::parse("a@example.com").is_ok());
        for bad in [
            "",
            "a",
            "a@",
            "@b.com",
            "a@b",
            "a b@c.com",
            "a@b..com",
            "a@.b.com",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passwords_and_names() {
        assert!(Password::parse("1234567").is_err());
        assert!(Password::parse("12345678").is_ok());
        assert!(Password::parse(&"x".repeat(129)).is_err());
        assert_eq!(
            format!("{:?}", Password::parse("secret-password").ok()),
            "Some(Password(***))"
        );
        assert_eq!(parse_name(Some("  ")), Ok(None));
        assert!(parse_name(Some(&"n".repeat(101))).is_err());
    }

    #[test]
    fn source_ids() {
        assert!(SourceId::parse("0123456789abcdef_-X").is_some());
        for bad in ["", "..", "a/b", "a%2Fb", &"x".repeat(65)] {
            assert!(SourceId::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(Role::parse("ADMIN"), Some(Role::Admin));
        assert_eq!(Role::parse("ROOT"), None);
        for name in platform::tokens::ROLES {
            assert_eq!(Role::parse(name).map(Role::as_str), Some(name));
        }
    }
}
