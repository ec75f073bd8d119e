//! Quantities scaled to other portions, and written back the way cooks write them.
//!
//! A scaled quantity is written as a fraction where cooks use fractions (spoons, cups, pieces,
//! no unit: `1 ½`, `⅓`, `2 ¾`) when it lies within 0.02 of a half, third, quarter or eighth,
//! else as a decimal rounded to what can be measured (whole from 100 up, one decimal from 10, two below). An ingredient without a
//! quantity (`salt to taste`) and the units no one scales (`pinch`, `dash`) stay as written.

use crate::model::{Recipe, RecipeIngredient, RecipeNutrients};

/// Units a cook does not multiply (a pinch of salt for 8 is still a pinch).
const UNSCALED_UNITS: &[&str] = &["pinch", "dash", "splash", "handful", "to taste"];
/// Units measured by weight or metric volume: decimals, never fractions.
const METRIC_UNITS: &[&str] = &["g", "kg", "mg", "ml", "l", "cl", "dl"];

/// The fractions a cook reads, by value.
const FRACTIONS: &[(f64, &str)] = &[
    (0.125, "⅛"),
    (0.25, "¼"),
    (1.0 / 3.0, "⅓"),
    (0.375, "⅜"),
    (0.5, "½"),
    (0.625, "⅝"),
    (2.0 / 3.0, "⅔"),
    (0.75, "¾"),
    (0.875, "⅞"),
];

/// `value` written for a cook using `unit`.
pub fn render(value: f64, unit: &str) -> String {
    let metric = METRIC_UNITS.contains(&unit.to_ascii_lowercase().as_str());
    if !metric && value > 0.0 {
        let whole = value.floor();
        let part = value - whole;
        if part < 0.03 && whole >= 1.0 {
            return format_whole(whole);
        }
        if part > 0.97 {
            return format_whole(whole + 1.0);
        }
        if let Some((_, glyph)) = FRACTIONS.iter().find(|(f, _)| (part - f).abs() <= 0.02) {
            return if whole >= 1.0 {
                format!("{} {glyph}", format_whole(whole))
            } else {
                (*glyph).to_string()
            };
        }
    }
    decimal(value)
}

fn format_whole(value: f64) -> String {
    format!("{value:.0}")
}

/// A decimal rounded to what can be measured.
fn decimal(value: f64) -> String {
    let rounded = if value >= 100.0 {
        value.round()
    } else if value >= 10.0 {
        (value * 10.0).round() / 10.0
    } else {
        (value * 100.0).round() / 100.0
    };
    format!("{rounded}")
}

/// `ingredient` for `factor` times the portions.
pub fn scale_ingredient(ingredient: &RecipeIngredient, factor: f64) -> RecipeIngredient {
    let unscaled = UNSCALED_UNITS.contains(&ingredient.unit.to_ascii_lowercase().as_str());
    let Some(quantity) = ingredient.quantity.filter(|_| !unscaled) else {
        return ingredient.clone();
    };
    let low = quantity * factor;
    let high = ingredient.quantity_max.map(|q| q * factor);
    let amount = match high {
        Some(high) => format!(
            "{}-{}",
            render(low, &ingredient.unit),
            render(high, &ingredient.unit)
        ),
        None => render(low, &ingredient.unit),
    };
    RecipeIngredient {
        quantity: Some(low),
        quantity_max: high,
        amount: Some(amount),
        ..ingredient.clone()
    }
}

/// Nutrients times `factor`, rounded to 0.1.
pub fn scale_nutrients(n: RecipeNutrients, factor: f64) -> RecipeNutrients {
    let r = |v: f64| (v * factor * 10.0).round() / 10.0;
    RecipeNutrients {
        calories: r(n.calories),
        protein: r(n.protein),
        fat: r(n.fat),
        carbs: r(n.carbs),
    }
}

/// `recipe` scaled to `portions`: quantities and total nutrients times `portions / its
/// portions`, `scaledFrom` its own portions. The same recipe when they are equal.
pub fn scale(mut recipe: Recipe, portions: f64) -> Recipe {
    if (recipe.portions - portions).abs() < f64::EPSILON || recipe.portions <= 0.0 {
        return recipe;
    }
    let factor = portions / recipe.portions;
    recipe.ingredients = recipe
        .ingredients
        .iter()
        .map(|i| scale_ingredient(i, factor))
        .collect();
    recipe.nutrients = recipe.nutrients.map(|n| scale_nutrients(n, factor));
    recipe.scaled_from = Some(recipe.portions);
    recipe.portions = portions;
    recipe
}

/// Each portion's share of the whole recipe's nutrients.
pub fn per_portion(recipe: &Recipe) -> Option<RecipeNutrients> {
    let portions = recipe.portions;
    recipe
        .nutrients
        .filter(|_| portions > 0.0)
        .map(|n| scale_nutrients(n, 1.0 / portions))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ingredient(quantity: Option<f64>, unit: &str, name: &str) -> RecipeIngredient {
        RecipeIngredient {
            quantity,
            unit: unit.into(),
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn spoons_and_cups_in_fractions_grams_in_decimals() {
        assert_eq!(render(1.5, "cup"), "1 ½");
        assert_eq!(render(0.5, "tsp"), "½");
        assert_eq!(render(1.0 / 3.0, "cup"), "⅓");
        assert_eq!(render(2.75, ""), "2 ¾");
        assert_eq!(render(3.0, "tbsp"), "3");
        assert_eq!(render(2.99, "tbsp"), "3");
        assert_eq!(render(0.41, "cup"), "0.41");
        assert_eq!(render(375.4, "g"), "375");
        assert_eq!(render(1.25, "kg"), "1.25");
        assert_eq!(render(12.54, "g"), "12.5");
        assert_eq!(render(0.5, "l"), "0.5");
    }

    #[test]
    fn quantities_ranges_and_unscaled_lines() {
        let cream = scale_ingredient(&ingredient(Some(0.5), "cup", "cream"), 3.0);
        assert_eq!(cream.quantity, Some(1.5));
        assert_eq!(cream.amount.as_deref(), Some("1 ½"));
        let garlic = RecipeIngredient {
            quantity_max: Some(2.0),
            ..ingredient(Some(1.0), "clove", "garlic")
        };
        let doubled = scale_ingredient(&garlic, 2.0);
        assert_eq!(doubled.amount.as_deref(), Some("2-4"));
        assert_eq!(doubled.quantity_max, Some(4.0));
        let salt = ingredient(None, "", "salt");
        assert_eq!(scale_ingredient(&salt, 2.0), salt);
        let pinch = ingredient(Some(1.0), "pinch", "salt");
        assert_eq!(scale_ingredient(&pinch, 4.0), pinch);
    }
}
