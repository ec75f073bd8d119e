//! The recipe service's accounts: the same accounts as the news reader's, under
//! The recipe service's Credentials rules (username 1 to 64 of `^[a-zA-Z0-9_.-]+$`, password
//! 4 to 128, no email), with the recipe preferences kept on the profile.
//!
//! A recipe account logs in to the news reader with the same username and password (as long
//! as they fit the news reader's own login bounds), and a news account logs in here; the
//! token is the platform's one JWT. What clients send is parsed here, like [`crate::input`].

use platform::{FieldError, Invalid};
use serde::Deserialize;

use crate::input::Credentials;

// The answers identity serves the recipe service, defined with its client.
pub use identity_client::recipes::{RecipeLanguage, RecipeTheme, RecipeUser, UserPreferences};

/// The longest recipe username and the password bounds (the recipe service's Credentials).
pub const MAX_USERNAME: usize = 64;
pub const MIN_PASSWORD: usize = 4;
pub const MAX_PASSWORD: usize = 128;
/// Bounds of the preference lists: entries per list and characters per entry.
pub const MAX_DIET: usize = 20;
pub const MAX_ALLERGIES: usize = 50;
pub const MAX_ABOUT_ME: usize = 20;
pub const MAX_TAG_CHARS: usize = 100;
pub const MAX_ABOUT_ME_CHARS: usize = 1000;

/// The recipe service's Credentials, as sent.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[schema(as = RecipeCredentials)]
pub struct RecipeCredentials {
    /// Unique (case-insensitively) across the whole platform.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 64, pattern = "^[a-zA-Z0-9_.-]+$", example = "alice")]
    pub username: Option<String>,
    #[schema(required = true, value_type = String, format = Password, min_length = 4, max_length = 128)]
    pub password: Option<String>,
}

/// Valid recipe credentials.
pub struct RecipeAccount {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for RecipeAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RecipeAccount({}, ***)", self.username)
    }
}

impl RecipeAccount {
    /// The form uniqueness is enforced on (the login item's key).
    pub fn key(&self) -> String {
        self.username.to_ascii_lowercase()
    }
}

fn parse_username(raw: Option<&str>) -> Result<String, FieldError> {
    let Some(raw) = raw.filter(|r| !r.is_empty()) else {
        return Err(FieldError::new("username", "is required"));
    };
    if raw.chars().count() > MAX_USERNAME {
        return Err(FieldError::new(
            "username",
            format!("must be 1 to {MAX_USERNAME} characters"),
        ));
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
    Ok(raw.to_string())
}

fn parse_password(raw: Option<&str>) -> Result<String, FieldError> {
    let Some(raw) = raw.filter(|r| !r.is_empty()) else {
        return Err(FieldError::new("password", "is required"));
    };
    let len = raw.chars().count();
    if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&len) {
        return Err(FieldError::new(
            "password",
            format!("must be {MIN_PASSWORD} to {MAX_PASSWORD} characters"),
        ));
    }
    Ok(raw.to_string())
}

impl RecipeCredentials {
    /// Checked against the recipe service's Credentials rules, every field named.
    pub fn parse(self) -> Result<RecipeAccount, Invalid> {
        match (
            parse_username(self.username.as_deref()),
            parse_password(self.password.as_deref()),
        ) {
            (Ok(username), Ok(password)) => Ok(RecipeAccount { username, password }),
            (username, password) => Err(Invalid(
                [username.err(), password.err()]
                    .into_iter()
                    .flatten()
                    .collect(),
            )),
        }
    }

    /// A recipe login: the same rules (a longer or malformed value can name no account).
    pub fn parse_login(self) -> Result<Credentials, Invalid> {
        let account = self.parse()?;
        Ok(Credentials {
            username_key: account.key(),
            password: account.password,
        })
    }
}

/// A preference entry (diet, allergy): 1 to 100 characters, not blank.
#[derive(utoipa::ToSchema)]
#[schema(min_length = 1, max_length = 100, pattern = "\\S")]
#[allow(dead_code)]
pub struct PreferenceTag(String);

/// An aboutMe entry: 1 to 1000 characters, not blank.
#[derive(utoipa::ToSchema)]
#[schema(min_length = 1, max_length = 1000, pattern = "\\S")]
#[allow(dead_code)]
pub struct AboutMeEntry(String);

/// Preference changes as sent: each absent field keeps its value.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = UserPreferencesUpdate)]
pub struct PreferencesUpdate {
    pub language: Option<RecipeLanguage>,
    pub theme: Option<RecipeTheme>,
    #[schema(max_items = 20, value_type = Option<Vec<PreferenceTag>>)]
    pub diet: Option<Vec<String>>,
    #[schema(max_items = 50, value_type = Option<Vec<PreferenceTag>>)]
    pub allergies: Option<Vec<String>>,
    #[schema(max_items = 20, value_type = Option<Vec<AboutMeEntry>>)]
    pub about_me: Option<Vec<String>>,
}

/// Update user (recipe service): every field optional, each under the Credentials rules.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecipeUserUpdate {
    /// A new username, unique across the platform.
    #[schema(value_type = Option<String>, min_length = 1, max_length = 64, pattern = "^[a-zA-Z0-9_.-]+$")]
    pub username: Option<String>,
    /// A new password; needs `currentPassword`. Every other session of the account ends.
    #[schema(value_type = Option<String>, format = Password, min_length = 4, max_length = 128)]
    pub password: Option<String>,
    /// The password now: required with `password` (403 when it is wrong).
    #[serde(rename = "currentPassword")]
    #[schema(value_type = Option<String>, format = Password, min_length = 1, max_length = 128)]
    pub current_password: Option<String>,
    pub preferences: Option<PreferencesUpdate>,
}

/// A valid change of a recipe user.
#[derive(Default)]
pub struct RecipeUserChange {
    pub username: Option<String>,
    pub password: Option<String>,
    /// Present whenever `password` is.
    pub current_password: Option<String>,
    pub preferences: Option<PreferencesChange>,
}

impl std::fmt::Debug for RecipeUserChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RecipeUserChange({:?}, password: {}, {:?})",
            self.username,
            self.password.is_some(),
            self.preferences
        )
    }
}

/// Valid preference changes.
#[derive(Debug, Default)]
pub struct PreferencesChange {
    pub language: Option<RecipeLanguage>,
    pub theme: Option<RecipeTheme>,
    pub diet: Option<Vec<String>>,
    pub allergies: Option<Vec<String>>,
    pub about_me: Option<Vec<String>>,
}

impl PreferencesChange {
    pub fn apply(&self, mut preferences: UserPreferences) -> UserPreferences {
        if let Some(language) = self.language {
            preferences.language = language;
        }
        if let Some(theme) = self.theme {
            preferences.theme = theme;
        }
        if let Some(diet) = &self.diet {
            preferences.diet.clone_from(diet);
        }
        if let Some(allergies) = &self.allergies {
            preferences.allergies.clone_from(allergies);
        }
        if let Some(about_me) = &self.about_me {
            preferences.about_me.clone_from(about_me);
        }
        preferences
    }
}

/// A bounded list of non-blank entries (trimmed).
fn parse_list(
    field: &str,
    raw: Option<Vec<String>>,
    max_items: usize,
    max_chars: usize,
    errors: &mut Vec<FieldError>,
) -> Option<Vec<String>> {
    let raw = raw?;
    if raw.len() > max_items {
        errors.push(FieldError::new(
            field,
            format!("must have at most {max_items} entries"),
        ));
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    for entry in raw {
        let trimmed = entry.trim();
        if trimmed.is_empty() {
            errors.push(FieldError::new(field, "entries must not be blank"));
            return None;
        }
        if entry.chars().count() > max_chars {
            errors.push(FieldError::new(
                field,
                format!("entries must be at most {max_chars} characters"),
            ));
            return None;
        }
        out.push(trimmed.to_string());
    }
    Some(out)
}

impl RecipeUserUpdate {
    pub fn parse(self) -> Result<RecipeUserChange, Invalid> {
        let mut errors = Vec::new();
        let username = match self.username.as_deref().map(|u| parse_username(Some(u))) {
            Some(Ok(u)) => Some(u),
            Some(Err(e)) => {
                errors.push(e);
                None
            }
            None => None,
        };
        let password = match self.password.as_deref().map(|p| parse_password(Some(p))) {
            Some(Ok(p)) => Some(p),
            Some(Err(e)) => {
                errors.push(e);
                None
            }
            None => None,
        };
        let current_password = self.current_password.filter(|p| !p.is_empty());
        if let Some(current) = &current_password {
            if current.chars().count() > MAX_PASSWORD {
                errors.push(FieldError::new(
                    "currentPassword",
                    format!("must be at most {MAX_PASSWORD} characters"),
                ));
            }
        }
        if self.password.is_some() && current_password.is_none() {
            errors.push(FieldError::new(
                "currentPassword",
                "is required to change the password",
            ));
        }
        let preferences = self.preferences.map(|p| PreferencesChange {
            language: p.language,
            theme: p.theme,
            diet: parse_list(
                "preferences.diet",
                p.diet,
                MAX_DIET,
                MAX_TAG_CHARS,
                &mut errors,
            ),
            allergies: parse_list(
                "preferences.allergies",
                p.allergies,
                MAX_ALLERGIES,
                MAX_TAG_CHARS,
                &mut errors,
            ),
            about_me: parse_list(
                "preferences.aboutMe",
                p.about_me,
                MAX_ABOUT_ME,
                MAX_ABOUT_ME_CHARS,
                &mut errors,
            ),
        });
        if errors.is_empty() {
            Ok(RecipeUserChange {
                username,
                password,
                current_password,
                preferences,
            })
        } else {
            Err(Invalid(errors))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(username: &str, password: &str) -> RecipeCredentials {
        RecipeCredentials {
            username: Some(username.into()),
            password: Some(password.into()),
        }
    }

    #[test]
    fn credentials_follow_document_c() {
        assert!(creds("a", "abcd").parse().is_ok());
        assert!(creds(&"a".repeat(64), &"p".repeat(128)).parse().is_ok());
        let too_long = creds(&"a".repeat(65), "abc").parse().unwrap_err();
        let fields: Vec<_> = too_long.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["username", "password"]);
        assert!(creds("al ice", "abcd").parse().is_err());
        assert!(creds("alice", &"p".repeat(129)).parse().is_err());
        assert!(RecipeCredentials::default().parse().is_err());
    }

    #[test]
    fn preference_lists_are_bounded() {
        let update = RecipeUserUpdate {
            preferences: Some(PreferencesUpdate {
                allergies: Some(vec!["x".into(); MAX_ALLERGIES + 1]),
                diet: Some(vec![" ".into()]),
                ..Default::default()
            }),
            ..Default::default()
        };
        let fields: Vec<_> = update
            .parse()
            .unwrap_err()
            .0
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(fields, ["preferences.diet", "preferences.allergies"]);
    }
}
