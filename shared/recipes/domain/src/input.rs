//! What clients send, as they send it, and its parsing into [`crate::model`] values. Each
//! `parse` names every invalid field at once ([`Invalid`]), which the edge answers with a 400.
//! The model's generated recipes go through the same rules ([`RawRecipeInput::parse`]).

use platform::{FieldError, Invalid};
use serde::Deserialize;

use crate::ingredients;
use crate::model::{
    Language, RecipeIngredient, RecipeInput, RecipeNutrients, RecipeSource, RecipeTimes,
    MAX_AMOUNT, MAX_INGREDIENTS, MAX_INGREDIENT_NAME, MAX_INSTRUCTION, MAX_INSTRUCTIONS,
    MAX_MINUTES, MAX_NOTE, MAX_NUTRIENT, MAX_PORTIONS, MAX_QUANTITY, MAX_SOURCE_NAME, MAX_TITLE,
    MAX_UNIT, MAX_URL, MIN_PORTIONS,
};

/// The longest ingredient line (`{line}`): its parts always fit their own bounds.
pub const MAX_LINE: usize = 300;

/// An ingredient as sent: a line the server parses (`{line: "1/2 cup cream"}`), or its
/// parts (`{quantity, unit, name}`, each part but `name` optional).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawIngredient {
    pub line: Option<String>,
    pub quantity: Option<f64>,
    pub quantity_max: Option<f64>,
    pub amount: Option<String>,
    pub unit: Option<String>,
    pub name: Option<String>,
    pub note: Option<String>,
}

impl From<RecipeIngredient> for RawIngredient {
    fn from(i: RecipeIngredient) -> Self {
        Self {
            line: None,
            quantity: i.quantity,
            quantity_max: i.quantity_max,
            amount: i.amount,
            unit: Some(i.unit),
            name: Some(i.name),
            note: i.note,
        }
    }
}

/// An ingredient on input (the contract's `oneOf`; [`RawIngredient`] reads both).
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum IngredientInput {
    Line(IngredientLine),
    Structured(StructuredIngredient),
}

/// An ingredient as one line, parsed on the server: `1/2 cup cream`, `½ tsp chili flakes`,
/// `1-2 cloves garlic, crushed`, `a pinch of salt`, `salt to taste`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct IngredientLine {
    #[schema(min_length = 1, max_length = 300, pattern = "\\S")]
    line: String,
}

/// An ingredient by its parts. `quantityMax` below `quantity` is read as the range the other
/// way round; `quantityMax` alone as the quantity.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub struct StructuredIngredient {
    #[schema(minimum = 0, maximum = 100000)]
    quantity: Option<f64>,
    #[schema(minimum = 0, maximum = 100000)]
    quantity_max: Option<f64>,
    #[schema(min_length = 1, max_length = 50, pattern = "\\S")]
    amount: Option<String>,
    /// Empty or absent when none.
    #[schema(max_length = 20)]
    unit: Option<String>,
    #[schema(min_length = 1, max_length = 100, pattern = "\\S")]
    name: String,
    #[schema(min_length = 1, max_length = 200, pattern = "\\S")]
    note: Option<String>,
}

/// The longest generate and ask prompt.
pub const MAX_PROMPT: usize = 4096;

/// A RecipeInput as sent.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RecipeInputBody)]
pub struct RawRecipeInput {
    #[schema(required = true, value_type = String, min_length = 1, max_length = 255, pattern = "\\S")]
    pub title: Option<String>,
    #[schema(required = true, value_type = Vec<IngredientInput>, min_items = 1, max_items = 100)]
    pub ingredients: Option<Vec<RawIngredient>>,
    #[schema(required = true, value_type = Vec<crate::model::InstructionStep>, min_items = 1, max_items = 50)]
    pub instructions: Option<Vec<String>>,
    #[schema(required = true, value_type = f64, minimum = 0.5, maximum = 1000)]
    pub portions: Option<f64>,
    pub nutrients: Option<RecipeNutrients>,
    pub source: Option<RecipeSource>,
    pub times: Option<RecipeTimes>,
    /// At most 20, each 1-50 characters; stored lowercase, duplicates dropped.
    #[schema(value_type = Option<Vec<crate::model::Tag>>, max_items = 20)]
    pub tags: Option<Vec<String>>,
}

/// A partial update: absent fields keep their value; `nutrients: null` clears them.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RecipePatchBody)]
pub struct RecipePatch {
    #[schema(value_type = Option<String>, min_length = 1, max_length = 255, pattern = "\\S")]
    pub title: Option<String>,
    #[schema(value_type = Option<Vec<IngredientInput>>, min_items = 1, max_items = 100)]
    pub ingredients: Option<Vec<RawIngredient>>,
    #[schema(value_type = Option<Vec<crate::model::InstructionStep>>, min_items = 1, max_items = 50)]
    pub instructions: Option<Vec<String>>,
    #[schema(value_type = Option<f64>, minimum = 0.5, maximum = 1000)]
    pub portions: Option<f64>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<RecipeNutrients>)]
    pub nutrients: Option<Option<RecipeNutrients>>,
    /// `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<RecipeSource>)]
    pub source: Option<Option<RecipeSource>>,
    /// `null` clears them.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<RecipeTimes>)]
    pub times: Option<Option<RecipeTimes>>,
    /// The whole list (`[]` removes every tag).
    #[schema(value_type = Option<Vec<crate::model::Tag>>, max_items = 20)]
    pub tags: Option<Vec<String>>,
}

fn double_option<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
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
    pub source: Option<Option<RecipeSource>>,
    pub times: Option<Option<RecipeTimes>>,
    pub tags: Option<Vec<String>>,
}

impl RecipeChange {
    pub fn apply(&self, mut recipe: RecipeInput) -> RecipeInput {
        if let Some(title) = &self.title {
            recipe.title.clone_from(title);
        }
        if let Some(ingredients) = &self.ingredients {
            // Nutrients computed for other ingredients are wrong now (unless given anew below).
            if *ingredients != recipe.ingredients {
                recipe.nutrients = None;
            }
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
        if let Some(source) = &self.source {
            recipe.source.clone_from(source);
        }
        if let Some(times) = self.times {
            recipe.times = times;
        }
        if let Some(tags) = &self.tags {
            recipe.tags.clone_from(tags);
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
    raw: &[RawIngredient],
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
    let out: Vec<RecipeIngredient> = raw
        .iter()
        .enumerate()
        .filter_map(|(i, ingredient)| self::ingredient(i, ingredient, errors))
        .collect();
    (errors.len() == before).then_some(out)
}

fn quantity(field: String, raw: Option<f64>, errors: &mut Vec<FieldError>) -> Option<f64> {
    let q = raw?;
    if q.is_finite() && (0.0..=MAX_QUANTITY).contains(&q) {
        Some(q)
    } else {
        errors.push(FieldError::new(
            field,
            format!("must be 0 to {MAX_QUANTITY}"),
        ));
        None
    }
}

/// One ingredient: a line through [`ingredients::parse`], or its parts checked.
fn ingredient(
    i: usize,
    raw: &RawIngredient,
    errors: &mut Vec<FieldError>,
) -> Option<RecipeIngredient> {
    let field = |part: &str| format!("ingredients[{i}].{part}");
    if let Some(line) = &raw.line {
        let structured = [&raw.amount, &raw.unit, &raw.name, &raw.note]
            .iter()
            .any(|p| p.is_some())
            || raw.quantity.is_some()
            || raw.quantity_max.is_some();
        if structured {
            errors.push(FieldError::new(
                field("line"),
                "must not be combined with quantity, quantityMax, amount, unit, name or note",
            ));
            return None;
        }
        let line = text(&field("line"), line, MAX_LINE, false, errors)?;
        return Some(ingredients::parse(&line));
    }
    let before = errors.len();
    let low = quantity(field("quantity"), raw.quantity, errors);
    let high = quantity(field("quantityMax"), raw.quantity_max, errors);
    let amount = raw
        .amount
        .as_deref()
        .and_then(|a| text(&field("amount"), a, MAX_AMOUNT, false, errors));
    let unit = text(
        &field("unit"),
        raw.unit.as_deref().unwrap_or(""),
        MAX_UNIT,
        true,
        errors,
    );
    let name = match &raw.name {
        Some(name) => text(&field("name"), name, MAX_INGREDIENT_NAME, false, errors),
        None => {
            errors.push(FieldError::new(
                field("name"),
                "is required (or give `line`)",
            ));
            None
        }
    };
    let note = raw
        .note
        .as_deref()
        .and_then(|n| text(&field("note"), n, MAX_NOTE, false, errors));
    if errors.len() != before {
        return None;
    }
    // A range the other way round is the same range; an upper bound alone is the quantity.
    let (quantity, quantity_max) = match (low, high) {
        (Some(a), Some(b)) if b < a => (Some(b), Some(a)),
        (Some(a), Some(b)) if b == a => (Some(a), None),
        (None, Some(b)) => (Some(b), None),
        other => other,
    };
    Some(RecipeIngredient {
        quantity,
        quantity_max,
        amount,
        unit: unit?,
        name: name?,
        note,
    })
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

fn http_url(field: &str, raw: &str, errors: &mut Vec<FieldError>) -> Option<String> {
    let url = text(field, raw, MAX_URL, false, errors)?;
    let lower = url.to_ascii_lowercase();
    if (lower.starts_with("http://") || lower.starts_with("https://"))
        && !url.contains(char::is_whitespace)
    {
        Some(url)
    } else {
        errors.push(FieldError::new(field, "must be an http or https URL"));
        None
    }
}

fn source(raw: Option<RecipeSource>, errors: &mut Vec<FieldError>) -> Option<Option<RecipeSource>> {
    let Some(raw) = raw else {
        return Some(None);
    };
    let before = errors.len();
    let url = http_url("source.url", &raw.url, errors);
    let name = raw
        .name
        .as_deref()
        .and_then(|n| text("source.name", n, MAX_SOURCE_NAME, false, errors));
    let image_url = raw
        .image_url
        .as_deref()
        .and_then(|u| http_url("source.imageUrl", u, errors));
    (errors.len() == before).then(|| {
        url.map(|url| RecipeSource {
            url,
            name,
            imported_by: raw.imported_by,
            image_url,
        })
    })
}

fn times(raw: Option<RecipeTimes>, errors: &mut Vec<FieldError>) -> Option<Option<RecipeTimes>> {
    let Some(t) = raw else {
        return Some(None);
    };
    let before = errors.len();
    for (name, value) in [
        ("prepMinutes", t.prep_minutes),
        ("cookMinutes", t.cook_minutes),
        ("totalMinutes", t.total_minutes),
    ] {
        if value.is_some_and(|v| v > MAX_MINUTES) {
            errors.push(FieldError::new(
                format!("times.{name}"),
                format!("must be 0 to {MAX_MINUTES}"),
            ));
        }
    }
    (errors.len() == before).then(|| (!t.is_empty()).then_some(t))
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
        let src = source(self.source, &mut errors);
        let tm = times(self.times, &mut errors);
        let tg = crate::search::tags(&self.tags.unwrap_or_default(), &mut errors);
        match (t, i, s, p, n, src, tm, tg) {
            (
                Some(title),
                Some(ingredients),
                Some(instructions),
                Some(portions),
                Some(nutrients),
                Some(source),
                Some(times),
                Some(tags),
            ) if errors.is_empty() => Ok(RecipeInput {
                title,
                ingredients,
                instructions,
                portions,
                nutrients,
                source,
                times,
                tags,
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
            source: match self.source {
                Some(s) => source(s, &mut errors),
                None => None,
            },
            times: match self.times {
                Some(t) => times(t, &mut errors),
                None => None,
            },
            tags: self.tags.and_then(|t| crate::search::tags(&t, &mut errors)),
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

/// Import a recipe from a page, as sent.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// The recipe page (http or https, no user name or password).
    #[schema(required = true, value_type = String, min_length = 1, max_length = 2048, pattern = "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@]+([/?#]\\S*)?$")]
    pub url: Option<String>,
}

impl ImportRequest {
    /// The page's URL: absolute http(s) with a host, no credentials, at most 2048 characters.
    pub fn parse(self) -> Result<url::Url, Invalid> {
        let Some(raw) = self.url.filter(|u| !u.trim().is_empty()) else {
            return Err(Invalid::field("url", "is required"));
        };
        let raw = raw.trim();
        if raw.chars().count() > MAX_URL {
            return Err(Invalid::field(
                "url",
                format!("must be at most {MAX_URL} characters"),
            ));
        }
        let url = url::Url::parse(raw)
            .map_err(|e| Invalid::field("url", format!("is not a valid absolute URL ({e})")))?;
        platform::fetch::check_url(&url).map_err(|e| Invalid::field("url", e))?;
        Ok(url)
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

    fn ingredient(name: &str) -> RawIngredient {
        RawIngredient {
            quantity: Some(1.0),
            unit: Some("g".into()),
            name: Some(name.into()),
            ..Default::default()
        }
    }

    fn raw() -> RawRecipeInput {
        RawRecipeInput {
            title: Some("Pancakes".into()),
            ingredients: Some(vec![ingredient("flour")]),
            instructions: Some(vec!["Mix".into()]),
            portions: Some(0.5),
            ..Default::default()
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
            ..Default::default()
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
