//! The food composition table shipped with the service, and unit conversion.
//!
//! Values are per 100 g (energy in kcal, the rest in grams), rounded from USDA FoodData
//! Central's standard reference entries. An ingredient is *known* when its name (lowercase,
//! trimmed, a trailing plural `s`/`es` dropped) is one of an entry's names and its unit
//! converts to grams: mass units always; volume units through the food's density; pieces
//! (`piece`, `pc`, `clove`, an empty unit, ...) through its typical piece weight. Everything
//! else is left for the model (see [`crate::ai`]).

use crate::model::{RecipeIngredient, RecipeNutrients};

/// One food of the table.
pub struct Food {
    pub names: &'static [&'static str],
    /// Per 100 g: kcal, protein, fat, carbohydrate.
    pub per_100g: [f64; 4],
    /// Grams per millilitre, when a volume of it is meaningful.
    pub density: Option<f64>,
    /// Grams of one piece, when it is counted.
    pub piece: Option<f64>,
}

const fn food(
    names: &'static [&'static str],
    per_100g: [f64; 4],
    density: Option<f64>,
    piece: Option<f64>,
) -> Food {
    Food {
        names,
        per_100g,
        density,
        piece,
    }
}

/// The table.
pub const FOODS: &[Food] = &[
    food(
        &["flour", "wheat flour", "all-purpose flour", "mehl", "liszt"],
        [364.0, 10.3, 1.0, 76.3],
        Some(0.53),
        None,
    ),
    food(
        &["sugar", "white sugar", "zucker", "cukor"],
        [387.0, 0.0, 0.0, 100.0],
        Some(0.85),
        None,
    ),
    food(
        &["butter", "vaj"],
        [717.0, 0.9, 81.1, 0.1],
        Some(0.91),
        None,
    ),
    food(
        &["egg", "eggs", "ei", "eier", "tojás"],
        [143.0, 12.6, 9.5, 0.7],
        None,
        Some(50.0),
    ),
    food(
        &["milk", "whole milk", "milch", "tej"],
        [61.0, 3.2, 3.3, 4.8],
        Some(1.03),
        None,
    ),
    food(
        &["rice", "white rice", "reis", "rizs"],
        [365.0, 7.1, 0.7, 80.0],
        Some(0.85),
        None,
    ),
    food(
        &["pasta", "spaghetti", "nudeln", "tészta"],
        [371.0, 13.0, 1.5, 74.7],
        None,
        None,
    ),
    food(
        &["olive oil", "olivenöl", "olívaolaj"],
        [884.0, 0.0, 100.0, 0.0],
        Some(0.91),
        None,
    ),
    food(
        &["vegetable oil", "oil", "sunflower oil", "öl", "olaj"],
        [884.0, 0.0, 100.0, 0.0],
        Some(0.92),
        None,
    ),
    food(
        &["chicken breast", "chicken", "hähnchenbrust", "csirkemell"],
        [120.0, 22.5, 2.6, 0.0],
        None,
        None,
    ),
    food(
        &["ground beef", "beef", "rinderhack", "marhahús"],
        [254.0, 17.2, 20.0, 0.0],
        None,
        None,
    ),
    food(
        &["potato", "potatoes", "kartoffel", "krumpli", "burgonya"],
        [77.0, 2.0, 0.1, 17.5],
        None,
        Some(170.0),
    ),
    food(
        &["tomato", "tomatoes", "tomate", "paradicsom"],
        [18.0, 0.9, 0.2, 3.9],
        None,
        Some(120.0),
    ),
    food(
        &["onion", "zwiebel", "hagyma"],
        [40.0, 1.1, 0.1, 9.3],
        None,
        Some(110.0),
    ),
    food(
        &["carrot", "karotte", "répa", "sárgarépa"],
        [41.0, 0.9, 0.2, 9.6],
        None,
        Some(60.0),
    ),
    food(
        &["garlic", "knoblauch", "fokhagyma"],
        [149.0, 6.4, 0.5, 33.1],
        None,
        Some(3.0),
    ),
    food(
        &["salt", "salz", "só"],
        [0.0, 0.0, 0.0, 0.0],
        Some(1.2),
        None,
    ),
    food(
        &["water", "wasser", "víz"],
        [0.0, 0.0, 0.0, 0.0],
        Some(1.0),
        None,
    ),
    food(
        &["cheddar", "cheddar cheese", "cheese", "käse", "sajt"],
        [403.0, 24.9, 33.1, 1.3],
        None,
        None,
    ),
    food(
        &["apple", "apfel", "alma"],
        [52.0, 0.3, 0.2, 13.8],
        None,
        Some(180.0),
    ),
    food(
        &["banana", "banane", "banán"],
        [89.0, 1.1, 0.3, 22.8],
        None,
        Some(120.0),
    ),
    food(
        &["oats", "rolled oats", "oat", "haferflocken", "zabpehely"],
        [389.0, 16.9, 6.9, 66.3],
        Some(0.41),
        None,
    ),
    food(
        &["honey", "honig", "méz"],
        [304.0, 0.3, 0.0, 82.4],
        Some(1.42),
        None,
    ),
    food(
        &["heavy cream", "cream", "sahne", "tejszín"],
        [340.0, 2.8, 36.1, 2.7],
        Some(1.0),
        None,
    ),
    food(
        &["lentils", "lentil", "linsen", "lencse"],
        [352.0, 24.6, 1.1, 63.4],
        Some(0.85),
        None,
    ),
    food(
        &["spinach", "spinat", "spenót"],
        [23.0, 2.9, 0.4, 3.6],
        None,
        None,
    ),
];

/// A unit and what it converts to.
enum Unit {
    Grams(f64),
    Millilitres(f64),
    Pieces,
}

fn unit(raw: &str) -> Option<Unit> {
    let u = raw.trim().to_lowercase();
    let u = u.trim_end_matches('.');
    Some(match u {
        "g" | "gr" | "gram" | "grams" | "gramm" => Unit::Grams(1.0),
        "kg" | "kilogram" | "kilograms" => Unit::Grams(1000.0),
        "mg" | "milligram" | "milligrams" => Unit::Grams(0.001),
        "dkg" | "dag" => Unit::Grams(10.0),
        "oz" | "ounce" | "ounces" => Unit::Grams(28.3495),
        "lb" | "lbs" | "pound" | "pounds" => Unit::Grams(453.592),
        "ml" | "millilitre" | "milliliter" | "millilitres" | "milliliters" => {
            Unit::Millilitres(1.0)
        }
        "cl" => Unit::Millilitres(10.0),
        "dl" => Unit::Millilitres(100.0),
        "l" | "litre" | "liter" | "litres" | "liters" => Unit::Millilitres(1000.0),
        "cup" | "cups" => Unit::Millilitres(240.0),
        "tbsp" | "tablespoon" | "tablespoons" | "el" => Unit::Millilitres(15.0),
        "tsp" | "teaspoon" | "teaspoons" | "tl" => Unit::Millilitres(5.0),
        "" | "piece" | "pieces" | "pc" | "pcs" | "whole" | "stück" | "db" | "clove" | "cloves" => {
            Unit::Pieces
        }
        _ => return None,
    })
}

/// The table's food for an ingredient name.
pub fn lookup(name: &str) -> Option<&'static Food> {
    let name = name.trim().to_lowercase();
    let candidates = [
        Some(name.as_str()),
        name.strip_suffix("es"),
        name.strip_suffix('s'),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find_map(|n| FOODS.iter().find(|f| f.names.contains(&n)));
    found
}

/// The grams of `ingredient`, when its food and unit are known.
pub fn grams(food: &Food, ingredient: &RecipeIngredient) -> Option<f64> {
    let quantity = ingredient.typical_quantity();
    match unit(&ingredient.unit)? {
        Unit::Grams(factor) => Some(quantity * factor),
        Unit::Millilitres(ml) => food.density.map(|d| quantity * ml * d),
        Unit::Pieces => food.piece.map(|p| quantity * p),
    }
}

/// The table's nutrients of one ingredient, when it is known.
pub fn from_table(ingredient: &RecipeIngredient) -> Option<RecipeNutrients> {
    let food = lookup(&ingredient.name)?;
    let grams = grams(food, ingredient)?;
    let [kcal, protein, fat, carbs] = food.per_100g;
    let f = grams / 100.0;
    Some(RecipeNutrients {
        calories: kcal * f,
        protein: protein * f,
        fat: fat * f,
        carbs: carbs * f,
    })
}

pub fn add(a: RecipeNutrients, b: RecipeNutrients) -> RecipeNutrients {
    RecipeNutrients {
        calories: a.calories + b.calories,
        protein: a.protein + b.protein,
        fat: a.fat + b.fat,
        carbs: a.carbs + b.carbs,
    }
}

/// Rounded to one decimal.
pub fn rounded(n: RecipeNutrients) -> RecipeNutrients {
    let r = |v: f64| (v * 10.0).round() / 10.0;
    RecipeNutrients {
        calories: r(n.calories),
        protein: r(n.protein),
        fat: r(n.fat),
        carbs: r(n.carbs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ingredient(quantity: f64, unit: &str, name: &str) -> RecipeIngredient {
        RecipeIngredient {
            quantity: Some(quantity),
            unit: unit.into(),
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn units_convert() {
        let flour = from_table(&ingredient(0.5, "kg", "Flour")).unwrap();
        assert!((flour.calories - 1820.0).abs() < 1e-9);
        let eggs = from_table(&ingredient(2.0, "", "eggs")).unwrap();
        assert!((eggs.protein - 12.6).abs() < 1e-9);
        let milk = from_table(&ingredient(1.0, "cup", "milk")).unwrap();
        assert!((milk.calories - 61.0 * 2.4 * 1.03).abs() < 1e-9);
        assert!(from_table(&ingredient(1.0, "cup", "chicken breast")).is_none());
        assert!(from_table(&ingredient(1.0, "g", "dragon fruit")).is_none());
    }
}
