//! What clients send, as they send it, and its parsing into [`crate::model`] values. Each
//! `parse` names every invalid field at once ([`Invalid`]), which the edge answers with a 400.
//! The model's generated recipes go through the same rules ([`RawRecipeInput::parse`]).

use platform::{FieldError, Invalid};
use serde::Deserialize;

use crate::model::{
    Language, RecipeIngredient, RecipeInput, RecipeNutrients, MAX_INGREDIENTS, MAX_INGREDIENT_NAME,
    MAX_INSTRUCTION, MAX_INSTRUCTIONS, MAX_NUTRIENT, MAX_PORTIONS, MAX_QUANTITY, MAX_TITLE,
    MAX_UNIT, MIN_PORTIONS,
};

/// The longest generate and ask prompt.
pub const MAX_PROMPT: usize = 4096;

/// A RecipeInput as sent.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RecipeInputBody)]
pub struct RawRecipeInput {
    #[schema(required = true, value_type = String, min_length = 1, max_length = 255, pattern = "\\S")]
    pub title: Option<String>,
    #[schema(required = true, value_type = Vec<RecipeIngredient>, min_items = 1, max_items = 100)]
    pub ingredients: Option<Vec<RecipeIngredient>>,
    #[schema(required = true, value_type = Vec<crate::model::InstructionStep>, min_items = 1, max_items = 50)]
    pub instructions: Option<Vec<String>>,
    #[schema(required = true, value_type = f64, minimum = 0.5, maximum = 1000)]
    pub portions: Option<f64>,
    pub nutrients: Option<RecipeNutrients>,
}

/// A partial update: absent fields keep their value; `nutrients: null` clears them.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RecipePatchBody)]
pub struct RecipePatch {
    #[schema(value_type = Option<String>, min_length = 1, max_length = 255, pattern = "\\S")]
    pub title: Option<String>,
    #[schema(value_type = Option<Vec<RecipeIngredient>>, min_items = 1, max_items = 100)]
    pub ingredients: Option<Vec<RecipeIngredient>>,
    #[schema(value_type = Option<Vec<crate::model::InstructionStep>>, min_items = 1, max_items = 50)]
    pub instructions: Option<Vec<String>>,
    #[schema(value_type = Option<f64>, minimum = 0.5, maximum = 1000)]
    pub portions: Option<f64>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<RecipeNutrients>)]
    pub nutrients: Option<Option<RecipeNutrients>>,
}

fn double_option<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<RecipeNutrients>>, D::Error> {
    Deserialize::deserialize(d).map(Some)
}

/// A valid partial update.
#[derive(Debug, Clone, Default)]
pub struct RecipeChange {
    pub title: Option<String>,
    pub ingredients: Option<Vec<RecipeIngredient>>,
    pub instructions: Option<Vec<String>>,
    pub portions: Option<f64>,
    pub nutrients: Option<Option<RecipeNutrients>>,
}

impl RecipeChange {
    pub fn apply(&self, mut recipe: RecipeInput) -> RecipeInput {
        if let Some(title) = &self.title {
            recipe.title.clone_from(title);
        }
        if let Some(ingredients) = &self.ingredients {
            recipe.ingredients.clone_from(ingredients);
        }
        if let Some(instructions) = &self.instructions {
            recipe.instructions.clone_from(instructions);
        }
        if let Some(portions) = self.portions {
            recipe.portions = portions;
        }
        if let Some(nutrients) = self.nutrients {
            recipe.nutrients = nutrients;
        }
        recipe
    }
}

/// Control characters other than newline and tab have no place in a recipe.
fn has_control(s: &str) -> bool {
    s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
}

fn text(
    field: &str,
    raw: &str,
    max: usize,
    allow_empty: bool,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    let value = raw.trim();
    if value.is_empty() && !allow_empty {
        errors.push(FieldError::new(field, "must not be blank"));
        return None;
    }
    if raw.chars().count() > max {
        errors.push(FieldError::new(
            field,
            format!("must be at most {max} characters"),
        ));
        return None;
    }
    if has_control(raw) {
        errors.push(FieldError::new(
            field,
            "must not contain control characters",
        ));
        return None;
    }
    Some(value.to_string())
}

fn title(raw: &str, errors: &mut Vec<FieldError>) -> Option<String> {
    text("title", raw, MAX_TITLE, false, errors)
}

fn ingredients(
    raw: &[RecipeIngredient],
    errors: &mut Vec<FieldError>,
) -> Option<Vec<RecipeIngredient>> {
    if raw.is_empty() {
        errors.push(FieldError::new("ingredients", "must not be empty"));
        return None;
    }
    if raw.len() > MAX_INGREDIENTS {
        errors.push(FieldError::new(
            "ingredients",
            format!("must have at most {MAX_INGREDIENTS} entries"),
        ));
        return None;
    }
    let before = errors.len();
    let mut out = Vec::with_capacity(raw.len());
    for (i, ingredient) in raw.iter().enumerate() {
        let quantity = ingredient.quantity;
        if !quantity.is_finite() || !(0.0..=MAX_QUANTITY).contains(&quantity) {
            errors.push(FieldError::new(
                format!("ingredients[{i}].quantity"),
                format!("must be 0 to {MAX_QUANTITY}"),
            ));
        }
        let unit = text(
            &format!("ingredients[{i}].unit"),
            &ingredient.unit,
            MAX_UNIT,
            true,
            errors,
        );
        let name = text(
            &format!("ingredients[{i}].name"),
            &ingredient.name,
            MAX_INGREDIENT_NAME,
            false,
            errors,
        );
        if let (Some(unit), Some(name)) = (unit, name) {
            out.push(RecipeIngredient {
                quantity,
                unit,
                name,
            });
        }
    }
    (errors.len() == before).then_some(out)
}

fn instructions(raw: &[String], errors: &mut Vec<FieldError>) -> Option<Vec<String>> {
    if raw.is_empty() {
        errors.push(FieldError::new("instructions", "must not be empty"));
        return None;
    }
    if raw.len() > MAX_INSTRUCTIONS {
        errors.push(FieldError::new(
            "instructions",
            format!("must have at most {MAX_INSTRUCTIONS} entries"),
        ));
        return None;
    }
    let before = errors.len();
    let out: Vec<String> = raw
        .iter()
        .enumerate()
        .filter_map(|(i, step)| {
            text(
                &format!("instructions[{i}]"),
                step,
                MAX_INSTRUCTION,
                false,
                errors,
            )
        })
        .collect();
    (errors.len() == before).then_some(out)
}

fn portions(raw: f64, errors: &mut Vec<FieldError>) -> Option<f64> {
    if raw.is_finite() && (MIN_PORTIONS..=MAX_PORTIONS).contains(&raw) {
        Some(raw)
    } else {
        errors.push(FieldError::new(
            "portions",
            format!("must be {MIN_PORTIONS} to {MAX_PORTIONS}"),
        ));
        None
    }
}

fn nutrients(
    raw: Option<RecipeNutrients>,
    errors: &mut Vec<FieldError>,
) -> Option<Option<RecipeNutrients>> {
    let Some(n) = raw else {
        return Some(None);
    };
    let before = errors.len();
    for (name, value) in [
        ("calories", n.calories),
        ("protein", n.protein),
        ("fat", n.fat),
        ("carbs", n.carbs),
    ] {
        if !value.is_finite() || !(0.0..=MAX_NUTRIENT).contains(&value) {
            errors.push(FieldError::new(
                format!("nutrients.{name}"),
                format!("must be 0 to {MAX_NUTRIENT}"),
            ));
        }
    }
    (errors.len() == before).then_some(Some(n))
}

fn required<T>(field: &str, value: Option<T>, errors: &mut Vec<FieldError>) -> Option<T> {
    if value.is_none() {
        errors.push(FieldError::new(field, "is required"));
    }
    value
}

impl RawRecipeInput {
    /// The recipe service's RecipeInput rules and this service's bounds.
    pub fn parse(self) -> Result<RecipeInput, Invalid> {
        let mut errors = Vec::new();
        let t = required("title", self.title, &mut errors).and_then(|t| title(&t, &mut errors));
        let i = required("ingredients", self.ingredients, &mut errors)
            .and_then(|i| ingredients(&i, &mut errors));
        let s = required("instructions", self.instructions, &mut errors)
            .and_then(|s| instructions(&s, &mut errors));
        let p =
            required("portions", self.portions, &mut errors).and_then(|p| portions(p, &mut errors));
        let n = nutrients(self.nutrients, &mut errors);
        match (t, i, s, p, n) {
            (
                Some(title),
                Some(ingredients),
                Some(instructions),
                Some(portions),
                Some(nutrients),
            ) if errors.is_empty() => Ok(RecipeInput {
                title,
                ingredients,
                instructions,
                portions,
                nutrients,
            }),
            _ => Err(Invalid(errors)),
        }
    }
}

impl RecipePatch {
    pub fn parse(self) -> Result<RecipeChange, Invalid> {
        let mut errors = Vec::new();
        let change = RecipeChange {
            title: self.title.and_then(|t| title(&t, &mut errors)),
            ingredients: self.ingredients.and_then(|i| ingredients(&i, &mut errors)),
            instructions: self
                .instructions
                .and_then(|s| instructions(&s, &mut errors)),
            portions: self.portions.and_then(|p| portions(p, &mut errors)),
            nutrients: match self.nutrients {
                Some(n) => nutrients(n, &mut errors),
                None => None,
            },
        };
        if errors.is_empty() {
            Ok(change)
        } else {
            Err(Invalid(errors))
        }
    }
}

/// A prompt of 1 to 4096 characters, not blank.
pub fn prompt(raw: Option<&str>) -> Result<String, FieldError> {
    let Some(raw) = raw.filter(|p| !p.trim().is_empty()) else {
        return Err(FieldError::new("prompt", "is required"));
    };
    if raw.chars().count() > MAX_PROMPT {
        return Err(FieldError::new(
            "prompt",
            format!("must be 1 to {MAX_PROMPT} characters"),
        ));
    }
    Ok(raw.to_string())
}

/// Generate recipes, as sent.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateRequest {
    #[schema(required = true, value_type = String, min_length = 1, max_length = 4096, pattern = "\\S")]
    pub prompt: Option<String>,
    /// The language of the recipes; else the user's preference; else EN.
    pub language: Option<Language>,
}

/// A valid generate request.
#[derive(Debug)]
pub struct Generate {
    pub prompt: String,
    pub language: Option<Language>,
}

impl GenerateRequest {
    pub fn parse(self) -> Result<Generate, Invalid> {
        let prompt = prompt(self.prompt.as_deref()).map_err(|e| Invalid(vec![e]))?;
        Ok(Generate {
            prompt,
            language: self.language,
        })
    }
}

/// Compute nutrients, as sent.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NutrientsRequest {
    #[schema(required = true, value_type = RawRecipeInput)]
    pub recipe: Option<RawRecipeInput>,
}

impl NutrientsRequest {
    pub fn parse(self) -> Result<RecipeInput, Invalid> {
        let raw = self
            .recipe
            .ok_or_else(|| Invalid::field("recipe", "is required"))?;
        raw.parse().map_err(nest("recipe"))
    }
}

/// Ask about a recipe, as sent.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    #[schema(required = true, value_type = RawRecipeInput)]
    pub recipe: Option<RawRecipeInput>,
    #[schema(required = true, value_type = String, min_length = 1, max_length = 4096, pattern = "\\S")]
    pub prompt: Option<String>,
}

/// A valid question.
#[derive(Debug)]
pub struct Ask {
    pub recipe: RecipeInput,
    pub prompt: String,
}

impl AskRequest {
    pub fn parse(self) -> Result<Ask, Invalid> {
        let recipe = match self.recipe {
            Some(raw) => raw.parse().map_err(nest("recipe")),
            None => Err(Invalid::field("recipe", "is required")),
        };
        let prompt = prompt(self.prompt.as_deref());
        match (recipe, prompt) {
            (Ok(recipe), Ok(prompt)) => Ok(Ask { recipe, prompt }),
            (recipe, prompt) => {
                let mut errors = recipe.err().map(|e| e.0).unwrap_or_default();
                errors.extend(prompt.err());
                Err(Invalid(errors))
            }
        }
    }
}

/// Prefixes every field of an [`Invalid`] with `parent.`.
fn nest(parent: &'static str) -> impl Fn(Invalid) -> Invalid {
    move |invalid| {
        Invalid(
            invalid
                .0
                .into_iter()
                .map(|e| FieldError::new(format!("{parent}.{}", e.field), e.reason))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ingredient(name: &str) -> RecipeIngredient {
        RecipeIngredient {
            quantity: 1.0,
            unit: "g".into(),
            name: name.into(),
        }
    }

    fn raw() -> RawRecipeInput {
        RawRecipeInput {
            title: Some("Pancakes".into()),
            ingredients: Some(vec![ingredient("flour")]),
            instructions: Some(vec!["Mix".into()]),
            portions: Some(0.5),
            nutrients: None,
        }
    }

    fn fields(invalid: Invalid) -> Vec<String> {
        invalid.0.into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn recipe_input_rules() {
        assert!(raw().parse().is_ok());
        let bad = RawRecipeInput {
            title: Some("t".repeat(256)),
            ingredients: Some(vec![]),
            instructions: Some(vec!["ok".into(), " ".into()]),
            portions: Some(0.49),
            nutrients: Some(RecipeNutrients {
                calories: -1.0,
                ..Default::default()
            }),
        };
        assert_eq!(
            fields(bad.parse().unwrap_err()),
            [
                "title",
                "ingredients",
                "instructions[1]",
                "portions",
                "nutrients.calories"
            ]
        );
        assert_eq!(
            fields(RawRecipeInput::default().parse().unwrap_err()),
            ["title", "ingredients", "instructions", "portions"]
        );
    }

    #[test]
    fn prompts_are_bounded() {
        assert!(prompt(Some(&"p".repeat(4096))).is_ok());
        assert!(prompt(Some(&"p".repeat(4097))).is_err());
        assert!(prompt(Some("  ")).is_err());
    }
}
