//! The AI features' prompts, and the checks on what the model answers.
//!
//! The model is asked for JSON with the API's own field names (an array of RecipeInput; the
//! nutrients `calories`, `protein`, `fat`, `carbs`). What it answers is never passed on as
//! is: each generated recipe is repaired where that is safe (surrounding whitespace, blank
//! instruction steps dropped, lists cut to their bounds, a title cut to 255 characters,
//! portions missing or below 0.5 set to the smallest allowed) and must then pass the same
//! validation as a client's RecipeInput; a recipe naming one of the user's allergies, or
//! breaking a diet the service knows (vegetarian, vegan, pescatarian, gluten-free,
//! lactose-free/dairy-free), is dropped in code, whatever the model claimed.

use std::future::Future;

use serde::Deserialize;
use serde_json::Value;

use crate::input::{RawIngredient, RawRecipeInput};
use crate::model::{
    Language, RecipeInput, RecipeNutrients, MAX_INGREDIENTS, MAX_INSTRUCTIONS, MAX_NUTRIENT,
    MAX_TITLE, MIN_PORTIONS,
};

/// The most recipes one generation returns.
pub const MAX_GENERATED: usize = 5;

/// The caller's preferences as identity stores them (the fields the AI features use).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UserPreferences {
    pub language: Option<Language>,
    pub diet: Vec<String>,
    pub allergies: Vec<String>,
}

/// Identity's side could not say what the caller's preferences are.
#[derive(Debug, thiserror::Error)]
#[error("the user's preferences could not be read: {0}")]
pub struct PreferencesError(pub String);

/// The port to identity: the signed-in caller's recipe preferences (`None` when the account
/// is gone).
pub trait Preferences {
    fn preferences(
        &self,
    ) -> impl Future<Output = Result<Option<UserPreferences>, PreferencesError>> + Send;
}

/// Words that name an ingredient a diet excludes, matched case-insensitively as whole words
/// (or word prefixes: `chicken` matches `chickens`) in an ingredient's name.
const MEAT: &[&str] = &[
    "meat",
    "beef",
    "pork",
    "chicken",
    "turkey",
    "lamb",
    "veal",
    "bacon",
    "ham",
    "sausage",
    "salami",
    "duck",
    "goose",
    "venison",
    "prosciutto",
    "chorizo",
    "gelatin",
    "lard",
    "fleisch",
    "rind",
    "schwein",
    "hähnchen",
    "huhn",
    "speck",
    "schinken",
    "wurst",
    "hús",
    "csirke",
    "sertés",
    "marha",
    "sonka",
    "kolbász",
    "szalonna",
];
const FISH: &[&str] = &[
    "fish",
    "salmon",
    "tuna",
    "cod",
    "anchovy",
    "anchovies",
    "sardine",
    "shrimp",
    "prawn",
    "crab",
    "lobster",
    "oyster",
    "mussel",
    "clam",
    "squid",
    "fisch",
    "lachs",
    "thunfisch",
    "garnele",
    "hal",
    "lazac",
    "tonhal",
    "garnéla",
];
const ANIMAL_PRODUCTS: &[&str] = &[
    "egg",
    "eggs",
    "milk",
    "butter",
    "cheese",
    "cream",
    "yogurt",
    "yoghurt",
    "honey",
    "ghee",
    "whey",
    "mayonnaise",
    "ei",
    "eier",
    "milch",
    "käse",
    "sahne",
    "joghurt",
    "honig",
    "tojás",
    "tej",
    "vaj",
    "sajt",
    "tejszín",
    "joghurt",
    "méz",
];
const GLUTEN: &[&str] = &[
    "flour",
    "wheat",
    "barley",
    "rye",
    "bread",
    "pasta",
    "spaghetti",
    "noodle",
    "noodles",
    "couscous",
    "semolina",
    "bulgur",
    "mehl",
    "weizen",
    "gerste",
    "roggen",
    "brot",
    "nudeln",
    "liszt",
    "búza",
    "árpa",
    "rozs",
    "kenyér",
    "tészta",
];
const DAIRY: &[&str] = &[
    "milk", "butter", "cheese", "cream", "yogurt", "yoghurt", "ghee", "whey", "milch", "käse",
    "sahne", "joghurt", "tej", "vaj", "sajt", "tejszín",
];

/// The words a diet excludes, for the diets the service checks.
fn excluded_by(diet: &str) -> Option<Vec<&'static [&'static str]>> {
    let diet = diet.trim().to_lowercase();
    let compact: String = diet.chars().filter(|c| c.is_alphanumeric()).collect();
    Some(match compact.as_str() {
        "vegetarian" | "vegetarisch" | "vegetáriánus" => vec![MEAT, FISH],
        "vegan" | "vegán" => vec![MEAT, FISH, ANIMAL_PRODUCTS],
        "pescatarian" | "pescetarian" => vec![MEAT],
        "glutenfree" | "glutenfrei" | "gluténmentes" => vec![GLUTEN],
        "lactosefree" | "dairyfree" | "laktosefrei" | "laktózmentes" => vec![DAIRY],
        _ => return None,
    })
}

/// The lowercase words of `text`.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// `needle` (one or more words) appears in `haystack`'s words, each word matching a word of
/// the ingredient as a prefix (plurals and compounds: `peanut` matches `peanuts`).
pub(crate) fn mentions(haystack: &[String], needle: &str) -> bool {
    let needle = words(needle);
    if needle.is_empty() {
        return false;
    }
    haystack.windows(needle.len()).any(|window| {
        window
            .iter()
            .zip(&needle)
            .all(|(word, part)| word.starts_with(part.as_str()))
    })
}

/// Why `recipe` may not go to a user with `preferences`, if it may not.
pub fn forbidden(recipe: &RecipeInput, preferences: &UserPreferences) -> Option<String> {
    for ingredient in &recipe.ingredients {
        let name = words(&ingredient.name);
        if let Some(allergy) = preferences.allergies.iter().find(|a| mentions(&name, a)) {
            return Some(format!(
                "ingredient {:?} matches the allergy {allergy:?}",
                ingredient.name
            ));
        }
        for diet in &preferences.diet {
            let Some(lists) = excluded_by(diet) else {
                continue;
            };
            if let Some(word) = lists
                .iter()
                .flat_map(|l| l.iter())
                .find(|w| name.iter().any(|n| n == *w))
            {
                return Some(format!(
                    "ingredient {:?} ({word}) breaks the diet {diet:?}",
                    ingredient.name
                ));
            }
        }
    }
    None
}

/// The system prompt of a generation.
pub fn generate_instructions(language: Language, preferences: &UserPreferences) -> String {
    let mut prompt = format!(
        "You are a cooking assistant. Answer only with a JSON array of 1 to 3 recipes, each \
         an object with exactly these fields: \"title\" (string), \"ingredients\" (array of \
         strings, one ingredient line each as a cook writes it: \"1/2 cup cream\", \
         \"2 cloves garlic, crushed\", \"salt to taste\"), \"instructions\" \
         (array of non-empty strings, one step each), \"portions\" (number, at least 0.5), \
         \"nutrients\" (optional {{\"calories\", \"protein\", \"fat\", \"carbs\"}} for the \
         whole recipe). Write every title, ingredient name and instruction in {}.",
        language.name()
    );
    if !preferences.diet.is_empty() {
        prompt.push_str(&format!(
            " The user follows these diets; every recipe must fit all of them: {}.",
            preferences.diet.join(", ")
        ));
    }
    if !preferences.allergies.is_empty() {
        prompt.push_str(&format!(
            " The user is allergic to the following; never use any of them or anything \
             containing them: {}.",
            preferences.allergies.join(", ")
        ));
    }
    prompt
}

/// The recipes in a generation's answer that pass every rule and the user's diet and
/// allergies, and how many were refused (with the reasons, for the log).
pub fn generated_recipes(
    answer: &str,
    preferences: &UserPreferences,
) -> Result<(Vec<RecipeInput>, Vec<String>), String> {
    let value = llm::json_in_answer(answer).ok_or("the answer holds no JSON")?;
    let candidates = match value {
        Value::Array(items) => items,
        Value::Object(mut map) => match map.remove("recipes") {
            Some(Value::Array(items)) => items,
            Some(_) => return Err("\"recipes\" is not an array".into()),
            None => vec![Value::Object(map)],
        },
        _ => return Err("the JSON is neither an array nor an object".into()),
    };
    let mut accepted = Vec::new();
    let mut refused = Vec::new();
    for candidate in candidates.into_iter().take(MAX_GENERATED) {
        match repair(candidate) {
            Ok(recipe) => match forbidden(&recipe, preferences) {
                Some(reason) => refused.push(reason),
                None => accepted.push(recipe),
            },
            Err(reason) => refused.push(reason),
        }
    }
    Ok((accepted, refused))
}

/// A generated ingredient: a line (`"1/2 cup cream"`) or its parts, as the API takes them;
/// both go through the one parser's rules ([`crate::ingredients`]).
#[derive(Deserialize)]
#[serde(untagged)]
enum LooseIngredient {
    Line(String),
    Parts {
        #[serde(default)]
        line: Option<String>,
        #[serde(default)]
        quantity: Option<f64>,
        #[serde(default)]
        unit: Option<String>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        note: Option<String>,
    },
}

impl LooseIngredient {
    fn into_raw(self) -> RawIngredient {
        match self {
            Self::Line(line) => RawIngredient {
                line: Some(line),
                ..Default::default()
            },
            Self::Parts {
                line: Some(line), ..
            } => RawIngredient {
                line: Some(line),
                ..Default::default()
            },
            Self::Parts {
                quantity,
                unit,
                name,
                note,
                ..
            } => RawIngredient {
                // A model's quantity of 0 means "none given" (`salt to taste`).
                quantity: quantity.filter(|q| *q > 0.0),
                unit: Some(unit.unwrap_or_default()),
                name,
                note: note.filter(|n| !n.trim().is_empty()),
                ..Default::default()
            },
        }
    }
}

#[derive(Deserialize)]
struct LooseRecipe {
    title: String,
    ingredients: Vec<LooseIngredient>,
    instructions: Vec<String>,
    #[serde(default)]
    portions: Option<f64>,
    #[serde(default)]
    nutrients: Option<RecipeNutrients>,
}

/// One generated recipe, repaired where that is safe, then validated as a client's would be.
fn repair(candidate: Value) -> Result<RecipeInput, String> {
    let loose: LooseRecipe =
        serde_json::from_value(candidate).map_err(|e| format!("not a recipe: {e}"))?;
    let title: String = loose.title.trim().chars().take(MAX_TITLE).collect();
    let ingredients = loose
        .ingredients
        .into_iter()
        .take(MAX_INGREDIENTS)
        .map(LooseIngredient::into_raw)
        .collect();
    let instructions = loose
        .instructions
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .take(MAX_INSTRUCTIONS)
        .collect();
    let portions = loose
        .portions
        .filter(|p| p.is_finite())
        .map_or(MIN_PORTIONS, |p| p.max(MIN_PORTIONS));
    let nutrients = loose.nutrients.filter(|n| {
        [n.calories, n.protein, n.fat, n.carbs]
            .iter()
            .all(|v| v.is_finite() && (0.0..=MAX_NUTRIENT).contains(v))
    });
    RawRecipeInput {
        title: Some(title),
        ingredients: Some(ingredients),
        instructions: Some(instructions),
        portions: Some(portions),
        nutrients,
        ..Default::default()
    }
    .parse()
    .map_err(|e| e.to_string())
}

/// The system prompt for the nutrients of ingredients the table does not know.
pub const NUTRIENTS_INSTRUCTIONS: &str = "You are a nutrition assistant. For the ingredients \
    listed, answer only with one JSON object {\"calories\": number, \"protein\": number, \
    \"fat\": number, \"carbs\": number}: the total energy in kcal and grams of protein, fat \
    and carbohydrate of all of them together, in the quantities given.";

/// The model's nutrients, checked.
pub fn model_nutrients(answer: &str) -> Result<RecipeNutrients, String> {
    let value = llm::json_in_answer(answer).ok_or("the answer holds no JSON")?;
    let n: RecipeNutrients =
        serde_json::from_value(value).map_err(|e| format!("not nutrients: {e}"))?;
    if [n.calories, n.protein, n.fat, n.carbs]
        .iter()
        .all(|v| v.is_finite() && (0.0..=MAX_NUTRIENT).contains(v))
    {
        Ok(n)
    } else {
        Err("a nutrient value is negative, too large or not a number".into())
    }
}

/// The system prompt of a question about a recipe.
pub fn ask_instructions(language: Language) -> String {
    format!(
        "You are a cooking assistant. Answer the user's question about the recipe given as \
         JSON, in {}, in plain text, briefly.",
        language.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preferences(diet: &[&str], allergies: &[&str]) -> UserPreferences {
        UserPreferences {
            language: None,
            diet: diet.iter().map(|s| s.to_string()).collect(),
            allergies: allergies.iter().map(|s| s.to_string()).collect(),
        }
    }

    const ANSWER: &str = r#"```json
[{"title":"Peanut noodles","ingredients":[{"quantity":100,"unit":"g","name":"Roasted peanuts"}],"instructions":["Cook"],"portions":2},
 {"title":"  Salad ","ingredients":[{"quantity":1,"unit":"","name":"tomato"}],"instructions":["Cut", " "],"portions":0.1},
 {"title":"Ham toast","ingredients":[{"quantity":1,"unit":"slice","name":"ham"}],"instructions":["Toast"],"portions":1},
 {"title":"","ingredients":[],"instructions":[],"portions":1}]
```"#;

    #[test]
    fn allergies_diets_and_repairs() {
        let (ok, refused) =
            generated_recipes(ANSWER, &preferences(&["vegetarian"], &["peanut"])).unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].title, "Salad");
        assert_eq!(ok[0].instructions, ["Cut"]);
        assert!((ok[0].portions - 0.5).abs() < f64::EPSILON);
        assert_eq!(refused.len(), 3, "{refused:?}");
        let (ok, _) = generated_recipes(ANSWER, &preferences(&[], &[])).unwrap();
        assert_eq!(ok.len(), 3);
    }

    #[test]
    fn nutrients_from_the_model_are_checked() {
        assert!(model_nutrients(r#"{"calories":1,"protein":2,"fat":3,"carbs":4}"#).is_ok());
        assert!(model_nutrients(r#"{"calories":-1,"protein":2,"fat":3,"carbs":4}"#).is_err());
        assert!(model_nutrients("no").is_err());
    }
}
