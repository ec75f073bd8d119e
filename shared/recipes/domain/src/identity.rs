//! The [`Preferences`] port over identity's client: the caller's recipe preferences from
//! `GET /api/recipes/users/me` (the identity function), asked with the caller's own token.

use identity_client::{CallError, Caller, RecipeLanguage};

use crate::ai::{Preferences, PreferencesError, UserPreferences};
use crate::model::Language;

impl Preferences for Caller<'_> {
    async fn preferences(&self) -> Result<Option<UserPreferences>, PreferencesError> {
        let user = self.recipe_user().await.map_err(|e| {
            PreferencesError(match e {
                CallError::Unreadable(e) => format!("unreadable user: {e}"),
                CallError::CutOff(e) => format!("unreadable user: {e}"),
                CallError::Status(status) => {
                    format!("GET /api/recipes/users/me answered {status}")
                }
                e => e.to_string(),
            })
        })?;
        Ok(user.map(|user| UserPreferences {
            language: Some(match user.preferences.language {
                RecipeLanguage::En => Language::En,
                RecipeLanguage::De => Language::De,
                RecipeLanguage::Hu => Language::Hu,
            }),
            diet: user.preferences.diet,
            allergies: user.preferences.allergies,
        }))
    }
}
