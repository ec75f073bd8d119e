//! What clients send, as they send it, and its parsing into the values the [`crate::Identity`]
//! facade takes. Each `parse` names every invalid field at once ([`Invalid`]), which the edge
//! answers with a 400.

use platform::{FieldError, Invalid};
use serde::Deserialize;

use crate::model::{
    parse_name, Email, Password, SavedArticleId, Settings, SummaryLength, Theme, Username,
    MAX_SAVED_ARTICLES,
};

/// A new account. Every field is checked and each problem named in the 400's `details`.
// Kept as sent; `parse` checks it.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct Registration {
    /// Unique (case-insensitively).
    #[schema(required = true, value_type = String, min_length = 3, max_length = 50, pattern = "^[A-Za-z0-9_.-]+$", example = "alice")]
    pub username: Option<String>,
    /// A valid address, unique (case-insensitively).
    #[schema(required = true, value_type = String, format = Email, max_length = 254, example = "alice@example.com")]
    pub email: Option<String>,
    #[schema(required = true, value_type = String, format = Password, min_length = 8, max_length = 128)]
    pub password: Option<String>,
    /// Display name; blank means none.
    #[schema(max_length = 100, example = "Alice")]
    pub name: Option<String>,
}

/// A registration whose every field is valid.
#[derive(Debug)]
pub struct NewAccount {
    pub username: Username,
    pub email: Email,
    pub password: Password,
    pub name: Option<String>,
}

impl Registration {
    pub fn parse(self) -> Result<NewAccount, Invalid> {
        let username = Username::parse(self.username.as_deref().unwrap_or(""));
        let email = Email::parse(self.email.as_deref().unwrap_or(""));
        let password = Password::parse(self.password.as_deref().unwrap_or(""));
        let name = parse_name(self.name.as_deref());
        match (username, email, password, name) {
            (Ok(username), Ok(email), Ok(password), Ok(name)) => Ok(NewAccount {
                username,
                email,
                password,
                name,
            }),
            (username, email, password, name) => Err(Invalid(
                [username.err(), email.err(), password.err(), name.err()]
                    .into_iter()
                    .flatten()
                    .collect(),
            )),
        }
    }
}

/// A login: the username and password given at registration.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct Login {
    /// Not blank; at most 64 characters, the longest any registration allows (the recipe
    /// service's).
    #[schema(required = true, value_type = String, max_length = 64, pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]")]
    pub username: Option<String>,
    /// At most 128 characters, as at registration.
    #[schema(required = true, value_type = String, format = Password, min_length = 1, max_length = 128)]
    pub password: Option<String>,
}

/// The longest username and password a login accepts: those of the most generous
/// registration (the recipe service's 64), so an account registered on any system can log in
/// on every one, and a longer name can belong to no account (and never reaches the table or
/// Argon2).
const MAX_LOGIN_USERNAME: usize = 64;
const MAX_LOGIN_PASSWORD: usize = 128;

/// A login with both parts present. Not checked against the registration rules: a wrong
/// password of any length is the same 401.
pub struct Credentials {
    /// The username's case-insensitive form, the login item's key.
    pub username_key: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credentials({}, ***)", self.username_key)
    }
}

impl Login {
    pub fn parse(self) -> Result<Credentials, Invalid> {
        let username = self.username.filter(|u| !u.trim().is_empty());
        let password = self.password.filter(|p| !p.is_empty());
        let mut too_long = Vec::new();
        if username
            .as_ref()
            .is_some_and(|u| u.chars().count() > MAX_LOGIN_USERNAME)
        {
            too_long.push(FieldError::new(
                "username",
                format!("must be at most {MAX_LOGIN_USERNAME} characters"),
            ));
        }
        if password
            .as_ref()
            .is_some_and(|p| p.chars().count() > MAX_LOGIN_PASSWORD)
        {
            too_long.push(FieldError::new(
                "password",
                format!("must be at most {MAX_LOGIN_PASSWORD} characters"),
            ));
        }
        if !too_long.is_empty() {
            return Err(Invalid(too_long));
        }
        match (username, password) {
            (Some(username), Some(password)) => Ok(Credentials {
                username_key: username.trim().to_ascii_lowercase(),
                password,
            }),
            (username, password) => {
                let mut missing = Vec::new();
                if username.is_none() {
                    missing.push(FieldError::new("username", "is required"));
                }
                if password.is_none() {
                    missing.push(FieldError::new("password", "is required"));
                }
                Err(Invalid(missing))
            }
        }
    }
}

/// A password change as sent: the password now and the new one.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PasswordChangeRequest {
    /// The account's password now (403 when it is wrong).
    #[schema(required = true, value_type = String, format = Password, min_length = 1, max_length = 128)]
    pub current_password: Option<String>,
    /// The new password; every other session of the account ends.
    #[schema(required = true, value_type = String, format = Password, min_length = 8, max_length = 128)]
    pub password: Option<String>,
}

/// A valid password change.
pub struct PasswordChange {
    pub current: String,
    pub new: Password,
}

impl std::fmt::Debug for PasswordChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PasswordChange(***)")
    }
}

impl PasswordChangeRequest {
    pub fn parse(self) -> Result<PasswordChange, Invalid> {
        let current = match self.current_password.filter(|p| !p.is_empty()) {
            None => Err(FieldError::new("currentPassword", "is required")),
            Some(p) if p.chars().count() > 128 => Err(FieldError::new(
                "currentPassword",
                "must be at most 128 characters",
            )),
            Some(p) => Ok(p),
        };
        let new = Password::parse(self.password.as_deref().unwrap_or(""));
        match (current, new) {
            (Ok(current), Ok(new)) => Ok(PasswordChange { current, new }),
            (current, new) => Err(Invalid(
                [current.err(), new.err()].into_iter().flatten().collect(),
            )),
        }
    }
}

/// The roles an administrator gives an account, as sent.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleChangeRequest {
    /// The account's roles: `USER` is always kept; `OPERATOR` opens the incident platform,
    /// `ADMIN` everything.
    #[schema(required = true, value_type = Vec<crate::model::Role>, max_items = 3)]
    pub roles: Option<Vec<String>>,
}

impl RoleChangeRequest {
    pub fn parse(self) -> Result<Vec<crate::model::Role>, Invalid> {
        let Some(raw) = self.roles else {
            return Err(Invalid(vec![FieldError::new("roles", "is required")]));
        };
        if raw.len() > 3 {
            return Err(Invalid(vec![FieldError::new(
                "roles",
                "must name at most 3 roles",
            )]));
        }
        let mut roles = Vec::with_capacity(raw.len());
        for name in &raw {
            match crate::model::Role::parse(name) {
                Some(role) => roles.push(role),
                None => {
                    return Err(Invalid(vec![FieldError::new(
                        "roles",
                        format!("'{name}' is not a role (USER, OPERATOR or ADMIN)"),
                    )]))
                }
            }
        }
        Ok(roles)
    }
}

/// Profile changes as sent: absent fields are unchanged; `name: null` clears the name.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileUpdate {
    #[schema(value_type = Option<String>, format = Email)]
    pub email: Option<String>,
    /// Display name (at most 100 characters); `null` or blank clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub name: Option<Option<String>>,
}

fn double_option<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<String>>, D::Error> {
    Deserialize::deserialize(d).map(Some)
}

/// A valid profile change.
#[derive(Debug, Default)]
pub struct ProfileChange {
    /// A new email, or `None` to keep it.
    pub email: Option<Email>,
    /// `None`: the name is unchanged; `Some(None)`: cleared; `Some(Some(n))`: set.
    pub name: Option<Option<String>>,
}

impl ProfileUpdate {
    pub fn parse(self) -> Result<ProfileChange, Invalid> {
        let email = self.email.as_deref().map(Email::parse).transpose();
        let name = self.name.map(|raw| parse_name(raw.as_deref())).transpose();
        match (email, name) {
            (Ok(email), Ok(name)) => Ok(ProfileChange { email, name }),
            (email, name) => Err(Invalid(
                [email.err(), name.err()].into_iter().flatten().collect(),
            )),
        }
    }
}

/// A settings update: absent fields keep their current value.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsUpdate {
    /// At most 500 ids, each not blank and at most 100 characters.
    #[schema(max_items = 500, value_type = Option<Vec<SourceIdEntry>>)]
    pub enabled_source_ids: Option<Vec<String>>,
    /// At most 100 topics, each at most 50 characters with a letter or digit (any script);
    /// kept as their slugs ("Public Transport" is `public-transport`, "C#" `c-sharp`), one
    /// per slug.
    #[schema(max_items = 100, value_type = Option<Vec<TopicIdEntry>>)]
    pub followed_topics: Option<Vec<String>>,
    /// A language tag such as `en` or `pt-BR`.
    #[schema(pattern = "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$", example = "pt-BR")]
    pub language: Option<String>,
    pub theme: Option<Theme>,
    pub summary_length: Option<SummaryLength>,
    /// Show the user's bookmarks to others on their community profile (false until set).
    pub show_bookmarks: Option<bool>,
    /// Show the user's likes to others on their community profile (false until set).
    pub show_likes: Option<bool>,
}

/// One entry of `enabledSourceIds` (the schema of the list's items).
#[derive(utoipa::ToSchema)]
#[schema(
    max_length = 100,
    pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
)]
pub struct SourceIdEntry(pub String);

/// One entry of `followedTopics` (the schema of the list's items): a topic's slug, or a
/// name that becomes one; it needs a letter or digit of any script, which the pattern
/// approximates as a character that is neither whitespace nor ASCII punctuation.
#[derive(utoipa::ToSchema)]
#[schema(
    max_length = 50,
    pattern = "[^\\s!-/:-@\\[-`{-~]",
    example = "public-transport"
)]
pub struct TopicIdEntry(pub String);

pub const MAX_ENABLED_SOURCES: usize = 500;
pub const MAX_FOLLOWED_TOPICS: usize = 100;

/// A valid settings update, lists cleaned; applied to whatever settings are current when it
/// is saved.
#[derive(Debug, Clone, Default)]
pub struct SettingsChange {
    enabled_source_ids: Option<Vec<String>>,
    followed_topics: Option<Vec<String>>,
    language: Option<String>,
    theme: Option<Theme>,
    summary_length: Option<SummaryLength>,
    show_bookmarks: Option<bool>,
    show_likes: Option<bool>,
}

impl SettingsUpdate {
    /// Checks every field; names each invalid one.
    pub fn parse(self) -> Result<SettingsChange, Invalid> {
        let mut errors = Vec::new();
        let enabled_source_ids = self.enabled_source_ids.and_then(|ids| {
            clean_list("enabledSourceIds", ids, MAX_ENABLED_SOURCES, 100)
                .map_err(|e| errors.push(e))
                .ok()
        });
        let followed_topics = self.followed_topics.and_then(|topics| {
            clean_list("followedTopics", topics, MAX_FOLLOWED_TOPICS, 50)
                .and_then(topic_slugs)
                .map_err(|e| errors.push(e))
                .ok()
        });
        let language = self.language.filter(|language| {
            let valid = is_language_tag(language);
            if !valid {
                errors.push(FieldError::new(
                    "language",
                    "must be a language code such as 'en' or 'pt-BR'",
                ));
            }
            valid
        });
        if !errors.is_empty() {
            return Err(Invalid(errors));
        }
        Ok(SettingsChange {
            enabled_source_ids,
            followed_topics,
            language,
            theme: self.theme,
            summary_length: self.summary_length,
            show_bookmarks: self.show_bookmarks,
            show_likes: self.show_likes,
        })
    }
}

impl SettingsChange {
    /// The enabled sources this change sets, if it sets them.
    pub fn enabled_source_ids(&self) -> Option<&[String]> {
        self.enabled_source_ids.as_deref()
    }

    /// `current` with this change's fields replaced.
    pub fn apply(&self, current: Settings) -> Settings {
        let mut next = current;
        if let Some(ids) = &self.enabled_source_ids {
            next.enabled_source_ids.clone_from(ids);
        }
        if let Some(topics) = &self.followed_topics {
            next.followed_topics.clone_from(topics);
        }
        if let Some(language) = &self.language {
            next.language.clone_from(language);
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
        next
    }
}

/// Trims, drops duplicates (keeping order) and bounds the list `field` of identifiers or
/// names.
/// Followed topics as slugs (API.md, `platform::topic::slug`: "C#" is `c-sharp`, "日本"
/// `日本`), one per slug; an entry without a letter or digit names no topic.
fn topic_slugs(topics: Vec<String>) -> Result<Vec<String>, FieldError> {
    let mut out: Vec<String> = Vec::with_capacity(topics.len());
    for topic in topics {
        let slug = topic_slug(&topic);
        if slug.is_empty() {
            return Err(FieldError::new(
                "followedTopics",
                "entries must name a topic: at least one letter or digit",
            ));
        }
        if !out.contains(&slug) {
            out.push(slug);
        }
    }
    Ok(out)
}

/// The one slug rule of every system (`platform::topic`).
fn topic_slug(name: &str) -> String {
    platform::topic::slug(name)
}

fn clean_list(
    field: &str,
    items: Vec<String>,
    max_items: usize,
    max_len: usize,
) -> Result<Vec<String>, FieldError> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let item = item.trim().to_string();
        if item.is_empty() {
            return Err(FieldError::new(field, "must not contain blank entries"));
        }
        if item.chars().count() > max_len {
            return Err(FieldError::new(
                field,
                format!("entries must be at most {max_len} characters"),
            ));
        }
        if !out.contains(&item) {
            out.push(item);
        }
    }
    if out.len() > max_items {
        return Err(FieldError::new(
            field,
            format!("must have at most {max_items} entries"),
        ));
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
    fn registration_names_every_invalid_field_in_order() {
        let invalid = Registration::default().parse().expect_err("empty");
        let fields: Vec<&str> = invalid.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["username", "email", "password"]);

        let account = Registration {
            username: Some("alice".into()),
            email: Some(" alice@example.com ".into()),
            password: Some("password-alice".into()),
            name: Some("  ".into()),
        }
        .parse()
        .expect("valid");
        assert_eq!(account.email.as_str(), "alice@example.com");
        assert_eq!(account.name, None);
    }

    #[test]
    fn login_takes_the_longest_username_any_system_registers() {
        let login = |username: String| {
            Login {
                username: Some(username),
                password: Some("abcd".into()),
            }
            .parse()
        };
        assert!(
            login("r".repeat(64)).is_ok(),
            "a recipe account's 64 characters"
        );
        let too_long = login("r".repeat(65)).expect_err("65 characters");
        assert_eq!(too_long.errors()[0].field, "username");
    }

    #[test]
    fn login_needs_both_parts() {
        let missing = Login {
            username: Some(" ".into()),
            password: None,
        }
        .parse()
        .expect_err("missing");
        assert_eq!(
            missing.to_string(),
            "validation failed: username: is required; password: is required"
        );
        let credentials = Login {
            username: Some(" Alice ".into()),
            password: Some("x".into()),
        }
        .parse()
        .expect("present");
        assert_eq!(credentials.username_key, "alice");
        assert_eq!(format!("{credentials:?}"), "Credentials(alice, ***)");
    }

    #[test]
    fn profile_update_distinguishes_clearing_from_keeping_the_name() {
        let keep: ProfileUpdate = serde_json::from_str("{}").expect("json");
        assert!(keep.parse().expect("valid").name.is_none());
        let clear: ProfileUpdate = serde_json::from_str(r#"{"name": null}"#).expect("json");
        assert_eq!(clear.parse().expect("valid").name, Some(None));
        let bad: ProfileUpdate =
            serde_json::from_str(r#"{"email": "nope", "name": "ok"}"#).expect("json");
        assert_eq!(bad.parse().expect_err("invalid").errors().len(), 1);
    }

    #[test]
    fn settings_update_merges_and_validates() {
        let update = SettingsUpdate {
            followed_topics: Some(vec![
                " tech ".into(),
                "Tech".into(),
                "science".into(),
                "Public  Transport!".into(),
            ]),
            language: Some("pt-BR".into()),
            ..Default::default()
        };
        let s = update.parse().expect("valid").apply(Settings::default());
        assert_eq!(
            s.followed_topics,
            vec!["tech", "science", "public-transport"]
        );
        let no_topic = SettingsUpdate {
            followed_topics: Some(vec!["ok".into(), "--!".into()]),
            ..Default::default()
        };
        let errors = no_topic.parse().expect_err("invalid");
        assert_eq!(errors.errors().len(), 1);
        assert_eq!(s.language, "pt-BR");
        assert!(
            !s.show_likes && !s.show_bookmarks,
            "lists are private by default"
        );

        let bad = SettingsUpdate {
            language: Some("english!".into()),
            enabled_source_ids: Some(vec!["".into()]),
            ..Default::default()
        };
        let errors = bad.parse().expect_err("invalid");
        assert_eq!(errors.errors().len(), 2);
    }
}

/// Article ids to add to the saved articles (a browser's own list, when its user logs in).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SavedArticleIdsMerge {
    /// Article ids, newest first; those already saved are skipped, the rest are kept after
    /// the saved ones.
    #[schema(required = true, value_type = Vec<SavedArticleIdEntry>, max_items = 100)]
    pub ids: Option<Vec<String>>,
}

/// One entry of a saved-articles list: the content service's article id format.
#[derive(utoipa::ToSchema)]
#[schema(min_length = 1, max_length = 64, pattern = "^[A-Za-z0-9_-]+$")]
pub struct SavedArticleIdEntry(pub String);

impl SavedArticleIdsMerge {
    pub fn parse(self) -> Result<Vec<SavedArticleId>, Invalid> {
        let Some(ids) = self.ids else {
            return Err(Invalid::field("ids", "is required"));
        };
        if ids.len() > MAX_SAVED_ARTICLES {
            return Err(Invalid::field(
                "ids",
                format!("must list at most {MAX_SAVED_ARTICLES} ids"),
            ));
        }
        let mut errors = platform::FieldErrors::new();
        let parsed: Vec<SavedArticleId> = ids
            .iter()
            .filter_map(|id| errors.check(SavedArticleId::parse("ids", id)))
            .collect();
        errors.finish()?;
        Ok(parsed)
    }
}
