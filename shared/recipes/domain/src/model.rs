//! Recipes as the API shows them (the recipe service's RecipeInput, Recipe, RecipeIngredient,
//! RecipeNutrients) and the language generated text is written in.

use serde::{Deserialize, Serialize};

/// Bounds of a recipe, chosen so the largest recipe (every string at its longest, in 4-byte
/// characters) stays far below DynamoDB's 400 KB item and 20 of them below Lambda's 6 MB
/// response.
pub const MAX_TITLE: usize = 255;
pub const MAX_INGREDIENTS: usize = 100;
pub const MAX_INGREDIENT_NAME: usize = 100;
pub const MAX_UNIT: usize = 20;
pub const MAX_INSTRUCTIONS: usize = 50;
pub const MAX_INSTRUCTION: usize = 1000;
pub const MIN_PORTIONS: f64 = 0.5;
pub const MAX_PORTIONS: f64 = 1000.0;
pub const MAX_QUANTITY: f64 = 100_000.0;
pub const MAX_NUTRIENT: f64 = 10_000_000.0;

pub const MAX_AMOUNT: usize = 50;
pub const MAX_NOTE: usize = 200;
pub const MAX_URL: usize = 2048;
pub const MAX_SOURCE_NAME: usize = 255;
/// The longest time of a recipe step: 30 days (cured, fermented, aged).
pub const MAX_MINUTES: u32 = 43_200;

/// One ingredient: `1/2 cup cream` is `{quantity: 0.5, amount: "1/2", unit: "cup", name:
/// "cream"}`; `salt to taste` is `{unit: "", name: "salt", note: "to taste"}` (no quantity).
/// Recipes stored before quantities were optional (`{quantity, unit, name}`) read as they are.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipeIngredient {
    /// The quantity as a number, for scaling and merging (a range's lower bound); absent
    /// when none was given (`salt to taste`). At most 100,000 as written; an answer scaled
    /// to `?portions` (up to 2,000 times) or a shopping list's sum can be more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub quantity: Option<f64>,
    /// A range's upper bound (`1-2 cloves`: 2), bounded as `quantity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub quantity_max: Option<f64>,
    /// The quantity exactly as written (`½`, `1 1/2`, `1-2`, `a`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 50, pattern = "\\S")]
    pub amount: Option<String>,
    /// The canonical unit: `g`, `kg`, `ml`, `l`, `cup`, `tbsp`, `tsp`, `oz`, `lb`, `clove`,
    /// `pinch`, ... or empty.
    #[schema(max_length = 20)]
    pub unit: String,
    #[schema(min_length = 1, max_length = 100, pattern = "\\S")]
    pub name: String,
    /// What follows the name (`finely chopped`, `to taste`, `optional`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200, pattern = "\\S")]
    pub note: Option<String>,
}

impl RecipeIngredient {
    /// The quantity nutrients count: a range's middle, none as nothing (`salt to taste`).
    pub fn typical_quantity(&self) -> f64 {
        match (self.quantity, self.quantity_max) {
            (Some(low), Some(high)) => (low + high) / 2.0,
            (Some(q), None) => q,
            _ => 0.0,
        }
    }
}

/// How an imported recipe was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImportedBy {
    /// From the page's schema.org Recipe (JSON-LD or microdata).
    Structured,
    /// The page had none: the model read the recipe from its text.
    Model,
}

/// Where a recipe came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipeSource {
    /// The page (http or https).
    #[schema(min_length = 1, max_length = 2048, pattern = "^https?://")]
    pub url: String,
    /// The publisher or author the page names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 255, pattern = "\\S")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_by: Option<ImportedBy>,
    /// The page's image of the recipe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 2048, pattern = "^https?://")]
    pub image_url: Option<String>,
}

/// A recipe's times, in minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(
    rename_all = "camelCase",
    try_from = "serde_json::Map<String, serde_json::Value>"
)]
pub struct RecipeTimes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 43200)]
    pub prep_minutes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 43200)]
    pub cook_minutes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 43200)]
    pub total_minutes: Option<u32>,
}

/// Only a JSON object is a recipe's times (serde's derive would take an array too).
impl TryFrom<serde_json::Map<String, serde_json::Value>> for RecipeTimes {
    type Error = String;

    fn try_from(fields: serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        let mut times = Self::default();
        for (name, value) in fields {
            let minutes = match value {
                serde_json::Value::Null => None,
                serde_json::Value::Number(n) => Some(
                    n.as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| format!("{name}: must be a whole number of minutes"))?,
                ),
                _ => return Err(format!("{name}: must be a whole number of minutes")),
            };
            match name.as_str() {
                "prepMinutes" => times.prep_minutes = minutes,
                "cookMinutes" => times.cook_minutes = minutes,
                "totalMinutes" => times.total_minutes = minutes,
                // As before: a field the recipe does not know is left out.
                _ => {}
            }
        }
        Ok(times)
    }
}

impl RecipeTimes {
    pub fn is_empty(&self) -> bool {
        self.prep_minutes.is_none() && self.cook_minutes.is_none() && self.total_minutes.is_none()
    }
}

/// Nutrients of the whole recipe (kcal and grams).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RecipeNutrients {
    #[schema(minimum = 0, maximum = 10000000)]
    pub calories: f64,
    #[schema(minimum = 0, maximum = 10000000)]
    pub protein: f64,
    #[schema(minimum = 0, maximum = 10000000)]
    pub fat: f64,
    #[schema(minimum = 0, maximum = 10000000)]
    pub carbs: f64,
}

/// A recipe's nutrients as an answer gives them: the stored ones (each at most 10,000,000),
/// or up to 2,000 times that when scaled to `?portions`. The contract's shape only.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct RecipeNutrientsServed {
    #[schema(minimum = 0)]
    calories: f64,
    #[schema(minimum = 0)]
    protein: f64,
    #[schema(minimum = 0)]
    fat: f64,
    #[schema(minimum = 0)]
    carbs: f64,
}

/// Nutrients of one portion: the recipe's divided by its portions (at least 0.5, so up to
/// twice a recipe's bound). The contract's shape only.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct NutrientsPerPortion {
    #[schema(minimum = 0, maximum = 20000000)]
    calories: f64,
    #[schema(minimum = 0, maximum = 20000000)]
    protein: f64,
    #[schema(minimum = 0, maximum = 20000000)]
    fat: f64,
    #[schema(minimum = 0, maximum = 20000000)]
    carbs: f64,
}

/// A valid recipe without its id and times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RecipeInput {
    #[schema(min_length = 1, max_length = 255, pattern = "\\S")]
    pub title: String,
    #[schema(min_items = 1, max_items = 100)]
    pub ingredients: Vec<RecipeIngredient>,
    #[schema(min_items = 1, max_items = 50, value_type = Vec<InstructionStep>)]
    pub instructions: Vec<String>,
    #[schema(minimum = 0.5, maximum = 1000)]
    pub portions: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nutrients: Option<RecipeNutrients>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<RecipeSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<RecipeTimes>,
    /// At most 20, each 1-50 characters, lowercase, inner spaces single.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(max_items = 20, value_type = Vec<Tag>)]
    pub tags: Vec<String>,
}

/// A tag: 1 to 50 characters, stored lowercase with single inner spaces.
#[derive(utoipa::ToSchema)]
#[schema(as = RecipeTag, min_length = 1, max_length = 50, pattern = "\\S")]
#[allow(dead_code)]
pub struct Tag(String);

/// One instruction: 1 to 1000 characters, not blank.
#[derive(utoipa::ToSchema)]
#[schema(min_length = 1, max_length = 1000, pattern = "\\S")]
#[allow(dead_code)]
pub struct InstructionStep(String);

/// A stored recipe.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Recipe {
    #[schema(minimum = 1, format = Int64)]
    pub id: i64,
    pub title: String,
    pub ingredients: Vec<RecipeIngredient>,
    pub instructions: Vec<String>,
    pub portions: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<RecipeNutrientsServed>)]
    pub nutrients: Option<RecipeNutrients>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<RecipeSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub times: Option<RecipeTimes>,
    /// Lowercase; empty when none.
    #[schema(max_items = 20, value_type = Vec<Tag>)]
    pub tags: Vec<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// The last update, if any.
    #[schema(format = DateTime)]
    pub edited_at: Option<String>,
    /// The last time the recipe was read on its own (`GET /recipes/{recipeId}`).
    #[schema(format = DateTime)]
    pub opened_at: Option<String>,
    /// The recipe's photo, when one was uploaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<RecipeImage>,
    /// `nutrients` divided by `portions`, rounded to 0.1 (when nutrients are stored).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<NutrientsPerPortion>)]
    pub nutrients_per_portion: Option<RecipeNutrients>,
    /// The reader's allergies its ingredients name (empty: none); absent when the reader's
    /// preferences could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allergens: Option<Vec<Allergen>>,
    /// The portions the recipe is written for, when the answer was scaled to `portions`
    /// (`?portions=N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.5, maximum = 1000)]
    pub scaled_from: Option<f64>,
    /// Each ingredient written as one line by the service's one writer (`1/2 cup cream`, `a
    /// pinch of salt`, `salt to taste`), in `ingredients`' order: what a client shows and
    /// sends back as `{line}`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ingredient_lines: Vec<String>,
}

/// One of the reader's allergies and the ingredients that name it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = RecipeAllergen)]
pub struct Allergen {
    /// The allergy as the reader's preferences write it.
    pub allergy: String,
    /// The ingredients' names, as written in the recipe.
    #[schema(min_items = 1)]
    pub ingredients: Vec<String>,
}

/// A recipe's photo: its storage key and a URL the browser can show for an hour at least (a
/// presigned GET, the same within the hour).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct RecipeImage {
    #[schema(pattern = "^recipes/")]
    pub key: String,
    #[schema(format = "uri")]
    pub url: String,
}

impl Recipe {
    pub fn input(&self) -> RecipeInput {
        RecipeInput {
            title: self.title.clone(),
            ingredients: self.ingredients.clone(),
            instructions: self.instructions.clone(),
            portions: self.portions,
            nutrients: self.nutrients,
            source: self.source.clone(),
            times: self.times,
            tags: self.tags.clone(),
        }
    }
}

/// The language of the recipe service's UI and of generated recipes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = RecipeLanguage)]
pub enum Language {
    #[default]
    #[serde(rename = "EN")]
    En,
    #[serde(rename = "DE")]
    De,
    #[serde(rename = "HU")]
    Hu,
}

impl Language {
    /// The language's English name, for the model.
    pub fn name(self) -> &'static str {
        match self {
            Self::En => "English",
            Self::De => "German",
            Self::Hu => "Hungarian",
        }
    }
}

/// A recipe's id: an integer of at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecipeId(i64);

impl RecipeId {
    /// A path's id: a decimal integer ≥ 1 (anything else is refused by the caller as a 400).
    pub fn parse(raw: &str) -> Option<Self> {
        if raw.is_empty() || raw.len() > 19 || !raw.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        raw.parse::<i64>().ok().filter(|id| *id >= 1).map(Self)
    }

    pub fn new(id: i64) -> Option<Self> {
        (id >= 1).then_some(Self(id))
    }

    pub fn get(self) -> i64 {
        self.0
    }
}

impl std::fmt::Display for RecipeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipe_ids_are_positive_integers() {
        assert_eq!(RecipeId::parse("1").map(RecipeId::get), Some(1));
        assert_eq!(
            RecipeId::parse("9223372036854775807").map(RecipeId::get),
            Some(i64::MAX)
        );
        for bad in [
            "0",
            "-1",
            "+1",
            "1.0",
            "abc",
            "",
            "9223372036854775808",
            " 1",
        ] {
            assert!(RecipeId::parse(bad).is_none(), "{bad}");
        }
    }
}
