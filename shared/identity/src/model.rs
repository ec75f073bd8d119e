//! Accounts and settings, and the newtypes that make an invalid value unrepresentable.

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Role {
    User,
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => platform::tokens::ROLE_USER,
            Role::Admin => platform::tokens::ROLE_ADMIN,
        }
    }
}

/// A user's profile as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// The user id (the tokens' `sub`).
    #[schema(format = Uuid)]
    pub id: String,
    pub username: String,
    #[schema(format = Email)]
    pub email: String,
    pub name: Option<String>,
    /// `USER`, plus `ADMIN` for the configured administrators.
    pub roles: Vec<Role>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// Reader preferences (Document A settings, plus Document B's visibility flags).
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
    /// Whether the user's bookmarks show on their community profile (Document B).
    pub show_bookmarks: bool,
    /// Whether the user's likes show on their community profile (Document B).
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
            show_bookmarks: true,
            show_likes: true,
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

/// A settings update: absent fields keep their current value.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsUpdate {
    /// At most 500 ids.
    #[schema(max_items = 500)]
    pub enabled_source_ids: Option<Vec<String>>,
    /// At most 100 topic ids.
    #[schema(max_items = 100)]
    pub followed_topics: Option<Vec<String>>,
    /// A language tag such as `en` or `pt-BR`.
    pub language: Option<String>,
    pub theme: Option<Theme>,
    pub summary_length: Option<SummaryLength>,
    pub show_bookmarks: Option<bool>,
    pub show_likes: Option<bool>,
}

pub const MAX_ENABLED_SOURCES: usize = 500;
pub const MAX_FOLLOWED_TOPICS: usize = 100;

impl SettingsUpdate {
    /// Applies the update to `current`, or names every invalid field.
    pub fn apply(self, current: Settings) -> Result<Settings, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut next = current;
        if let Some(ids) = self.enabled_source_ids {
            match clean_list(ids, MAX_ENABLED_SOURCES, 100) {
                Ok(ids) => next.enabled_source_ids = ids,
                Err(reason) => errors.push(FieldError::new("enabledSourceIds", reason)),
            }
        }
        if let Some(topics) = self.followed_topics {
            match clean_list(topics, MAX_FOLLOWED_TOPICS, 50) {
                Ok(t) => next.followed_topics = t,
                Err(reason) => errors.push(FieldError::new("followedTopics", reason)),
            }
        }
        if let Some(language) = self.language {
            if is_language_tag(&language) {
                next.language = language;
            } else {
                errors.push(FieldError::new(
                    "language",
                    "must be a language code such as 'en' or 'pt-BR'",
                ));
            }
        }
        if let Some(theme) = self.theme {
            next.theme = theme;
        }
        if let Some(length) = self.summary_length {
            next.summary_length = length;
        }
        if let Some(v) = self.show_bookmarks {
            next.show_bookmarks = v;
        }
        if let Some(v) = self.show_likes {
            next.show_likes = v;
        }
        if errors.is_empty() {
            Ok(next)
        } else {
            Err(errors)
        }
    }
}

/// Trims, drops duplicates (keeping order) and bounds a list of identifiers or names.
fn clean_list(items: Vec<String>, max_items: usize, max_len: usize) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let item = item.trim().to_string();
        if item.is_empty() {
            return Err("must not contain blank entries".into());
        }
        if item.chars().count() > max_len {
            return Err(format!("entries must be at most {max_len} characters"));
        }
        if !out.contains(&item) {
            out.push(item);
        }
    }
    if out.len() > max_items {
        return Err(format!("must have at most {max_items} entries"));
    }
    Ok(out)
}

fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let primary = parts.next().unwrap_or("");
    let primary_ok =
        (2..=3).contains(&primary.len()) && primary.chars().all(|c| c.is_ascii_lowercase());
    primary_ok
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn settings_update_merges_and_validates() {
        let update = SettingsUpdate {
            followed_topics: Some(vec![" tech ".into(), "tech".into(), "science".into()]),
            language: Some("pt-BR".into()),
            ..Default::default()
        };
        let s = update.apply(Settings::default()).expect("valid");
        assert_eq!(s.followed_topics, vec!["tech", "science"]);
        assert_eq!(s.language, "pt-BR");
        assert!(s.show_likes);

        let bad = SettingsUpdate {
            language: Some("english!".into()),
            enabled_source_ids: Some(vec!["".into()]),
            ..Default::default()
        };
        let errors = bad.apply(Settings::default()).expect_err("invalid");
        assert_eq!(errors.len(), 2);
    }
}
