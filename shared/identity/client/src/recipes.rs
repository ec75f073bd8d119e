//! The recipe service's view of its signed-in user (`GET /api/recipes/users/me`), which
//! identity serves and the recipe service reads for its AI features.

use serde::{Deserialize, Serialize};

/// The language of the recipe service's UI and of generated recipes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema), schema(as = RecipeLanguage))]
pub enum RecipeLanguage {
    #[default]
    #[serde(rename = "EN")]
    En,
    #[serde(rename = "DE")]
    De,
    #[serde(rename = "HU")]
    Hu,
}

/// The recipe UI's theme.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema), schema(as = RecipeTheme))]
pub enum RecipeTheme {
    #[default]
    #[serde(rename = "LIGHT")]
    Light,
    #[serde(rename = "DARK")]
    Dark,
}

/// The recipe service's UserPreferences, as stored and shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct UserPreferences {
    pub language: RecipeLanguage,
    pub theme: RecipeTheme,
    /// Diets the user follows (`vegetarian`, `vegan`, ...); generation honours them.
    #[cfg_attr(feature = "schema", schema(max_items = 20))]
    pub diet: Vec<String>,
    /// Ingredients the user must not get; a generated recipe naming one is never returned.
    #[cfg_attr(feature = "schema", schema(max_items = 50))]
    pub allergies: Vec<String>,
    #[cfg_attr(feature = "schema", schema(max_items = 20))]
    pub about_me: Vec<String>,
}

/// The recipe service's view of the signed-in user.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct RecipeUser {
    pub username: String,
    pub preferences: UserPreferences,
}
