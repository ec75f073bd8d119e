//! The one ingredient-line parser (API input, generated recipes, imported pages).

use crate::model::RecipeIngredient;

/// Parses one ingredient line.
pub fn parse(line: &str) -> RecipeIngredient {
    RecipeIngredient {
        name: line.trim().to_string(),
        ..Default::default()
    }
}

/// The line an ingredient is written as.
pub fn line(i: &RecipeIngredient) -> String {
    let mut out = String::new();
    if let Some(amount) = &i.amount {
        out.push_str(amount);
    } else if let Some(q) = i.quantity {
        out.push_str(&q.to_string());
    }
    for part in [&i.unit, &i.name] {
        if !part.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(part);
        }
    }
    out
}
