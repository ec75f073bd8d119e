//! Shopping lists: ingredients of several recipes, each scaled to its planned portions, merged
//! by ingredient name and compatible unit.
//!
//! Names merge when they are the same words, case and a plural `s`/`es` aside (`Egg` and
//! `eggs`, `tomato` and `tomatoes`). Units merge within a family and are written in the
//! family's unit that reads best: mass (`mg`, `g`, `kg`, `oz`, `lb`: grams, from 1,000 g in
//! kg), metric volume (`ml`, `cl`, `dl`, `l`: millilitres, from 1,000 ml in l), US volume
//! (`tsp`, `tbsp`, `cup`: from a cup in cups, from 3 tsp in tbsp), counts (no unit, `piece`,
//! `pcs`); any other unit (`clove`, `can`, `pinch`) merges only with itself. Metric and US
//! volumes stay apart (a cook measures with one or the other), as do quantities and lines
//! without one (`salt to taste` is listed once, beside `5 g salt`).

use serde::{Deserialize, Serialize};

use crate::model::RecipeIngredient;
use crate::scaling::render;

/// The most items a list holds (built and added together).
pub const MAX_ITEMS: usize = 500;

/// One line of the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShoppingItem {
    /// The item's id in the list (8 hex digits).
    #[schema(pattern = "^[0-9a-f]{8}$")]
    pub id: String,
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// The merged quantity in `unit`; absent for lines without one (`salt to taste`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub quantity: Option<f64>,
    #[schema(max_length = 20)]
    pub unit: String,
    /// The quantity written for a cook (`1 ½`, `750`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
    pub checked: bool,
    /// Added by hand (kept when the list is built again), not from a recipe.
    pub extra: bool,
    /// The recipes it comes from (ids).
    #[serde(default)]
    pub recipes: Vec<i64>,
}

/// A unit's family and its factor to the family's base unit.
#[derive(Debug, Clone, PartialEq)]
enum Family {
    Mass,
    MetricVolume,
    UsVolume,
    Count,
    Other(String),
}

fn family(unit: &str) -> (Family, f64) {
    let unit = unit.trim().to_lowercase();
    match unit.as_str() {
        "mg" => (Family::Mass, 0.001),
        "g" => (Family::Mass, 1.0),
        "kg" => (Family::Mass, 1000.0),
        "oz" => (Family::Mass, 28.349_523_125),
        "lb" => (Family::Mass, 453.592_37),
        "ml" => (Family::MetricVolume, 1.0),
        "cl" => (Family::MetricVolume, 10.0),
        "dl" => (Family::MetricVolume, 100.0),
        "l" => (Family::MetricVolume, 1000.0),
        "tsp" => (Family::UsVolume, 1.0),
        "tbsp" => (Family::UsVolume, 3.0),
        "cup" => (Family::UsVolume, 48.0),
        "" | "piece" | "pieces" | "pcs" | "pc" => (Family::Count, 1.0),
        _ => (Family::Other(unit), 1.0),
    }
}

/// The unit and value a family's base quantity is written in.
fn written(family: &Family, base: f64) -> (String, f64) {
    match family {
        Family::Mass if base >= 1000.0 => ("kg".into(), base / 1000.0),
        Family::Mass => ("g".into(), base),
        Family::MetricVolume if base >= 1000.0 => ("l".into(), base / 1000.0),
        Family::MetricVolume => ("ml".into(), base),
        Family::UsVolume if base >= 48.0 => ("cup".into(), base / 48.0),
        Family::UsVolume if base >= 3.0 => ("tbsp".into(), base / 3.0),
        Family::UsVolume => ("tsp".into(), base),
        Family::Count => (String::new(), base),
        Family::Other(unit) => (unit.clone(), base),
    }
}

/// The name ingredients merge by: lowercase words, a plural ending dropped.
pub fn name_key(name: &str) -> String {
    crate::search::words(name)
        .iter()
        .map(|w| singular(w))
        .collect::<Vec<_>>()
        .join(" ")
}

fn singular(word: &str) -> String {
    if word.len() > 3 {
        for (plural, one) in [("oes", "o"), ("ies", "y"), ("ches", "ch"), ("shes", "sh")] {
            if let Some(stem) = word.strip_suffix(plural) {
                return format!("{stem}{one}");
            }
        }
        if word.ends_with('s') && !word.ends_with("ss") {
            return word[..word.len() - 1].to_string();
        }
    }
    word.to_string()
}

/// One ingredient to buy, from one recipe, already scaled.
#[derive(Debug, Clone)]
pub struct Needed {
    pub recipe: i64,
    pub ingredient: RecipeIngredient,
}

/// The key an item merges by: its name and its unit family (`None` without a quantity).
pub fn merge_key(ingredient: &RecipeIngredient) -> String {
    let family = ingredient
        .quantity
        .map(|_| format!("{:?}", family(&ingredient.unit).0));
    format!(
        "{}|{}",
        name_key(&ingredient.name),
        family.unwrap_or_default()
    )
}

/// The merged list of `needed`, in the order each item first appears; `id` names each item
/// (from its merge key).
pub fn merge(needed: &[Needed], mut id: impl FnMut(&str) -> String) -> Vec<ShoppingItem> {
    struct Acc {
        key: String,
        name: String,
        family: Option<Family>,
        base: f64,
        recipes: Vec<i64>,
    }
    let mut acc: Vec<Acc> = Vec::new();
    for need in needed {
        let i = &need.ingredient;
        let key = merge_key(i);
        let (fam, factor) = family(&i.unit);
        let quantity = i.quantity.map(|q| q * factor);
        let entry = match acc.iter_mut().find(|a| a.key == key) {
            Some(entry) => entry,
            None => {
                acc.push(Acc {
                    key: key.clone(),
                    name: i.name.clone(),
                    family: quantity.map(|_| fam),
                    base: 0.0,
                    recipes: Vec::new(),
                });
                let Some(last) = acc.last_mut() else { continue };
                last
            }
        };
        if let Some(q) = quantity {
            entry.base += q;
        }
        if !entry.recipes.contains(&need.recipe) {
            entry.recipes.push(need.recipe);
        }
    }
    acc.into_iter()
        .map(|a| {
            let (unit, quantity, amount) = match &a.family {
                Some(family) => {
                    let (unit, value) = written(family, a.base);
                    let value = (value * 1000.0).round() / 1000.0;
                    let amount = render(value, &unit);
                    (unit, Some(value), Some(amount))
                }
                None => (String::new(), None, None),
            };
            ShoppingItem {
                id: id(&a.key),
                name: a.name,
                quantity,
                unit,
                amount,
                checked: false,
                extra: false,
                recipes: a.recipes,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn need(recipe: i64, quantity: Option<f64>, unit: &str, name: &str) -> Needed {
        Needed {
            recipe,
            ingredient: RecipeIngredient {
                quantity,
                unit: unit.into(),
                name: name.into(),
                ..Default::default()
            },
        }
    }

    fn lines(items: &[ShoppingItem]) -> Vec<String> {
        items
            .iter()
            .map(|i| {
                [
                    i.amount.clone().unwrap_or_default(),
                    i.unit.clone(),
                    i.name.clone(),
                ]
                .into_iter()
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
            })
            .collect()
    }

    #[test]
    fn compatible_units_merge_and_read_well() {
        let items = merge(
            &[
                need(1, Some(600.0), "g", "Flour"),
                need(2, Some(0.5), "kg", "flour"),
                need(1, Some(250.0), "ml", "milk"),
                need(2, Some(1.0), "l", "Milk"),
                need(1, Some(2.0), "tsp", "sugar"),
                need(2, Some(1.0), "tbsp", "sugar"),
                need(3, Some(0.5), "cup", "sugar"),
                need(1, Some(2.0), "", "egg"),
                need(2, Some(1.0), "piece", "Eggs"),
                need(1, Some(2.0), "clove", "garlic"),
                need(2, Some(1.0), "tbsp", "garlic"),
                need(1, None, "", "salt"),
                need(2, Some(5.0), "g", "salt"),
                need(3, None, "", "Salt"),
                need(3, Some(1.0), "cup", "milk"),
            ],
            |k| k.to_string(),
        );
        assert_eq!(
            lines(&items),
            [
                "1.1 kg Flour",
                "1.25 l milk",
                "9 ⅔ tbsp sugar",
                "3 egg",
                "2 clove garlic",
                "1 tbsp garlic",
                "salt",
                "5 g salt",
                "1 cup milk",
            ]
        );
        assert_eq!(items[0].recipes, [1, 2]);
        assert_eq!(items[6].recipes, [1, 3]);
    }

    #[test]
    fn plurals_merge() {
        assert_eq!(name_key("Tomatoes"), name_key("tomato"));
        assert_eq!(name_key("Cherries"), name_key("cherry"));
        assert_eq!(name_key("glass"), "glass");
    }
}
