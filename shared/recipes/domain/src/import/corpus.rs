//! The import corpus's cases and its per-field accuracy, shared by the domain's corpus test
//! and the stack's import test (feature `corpus`; no production code uses it).
// serde_json's `Value` index reads `Null` for a missing key or a non-object: it never panics.
#![allow(clippy::indexing_slicing)]

use std::path::Path;

use serde_json::{json, Value};

use crate::model::RecipeInput;

/// One page of the corpus and the recipe expected of it.
pub struct Case {
    /// The file name without `.html`.
    pub name: String,
    pub body: Vec<u8>,
    /// The `Content-Type` to serve it with, when not UTF-8 HTML.
    pub content_type: Option<String>,
    /// `{title, ingredients, instructions, portions, times, imageUrl, tags, sourceName,
    /// importedBy}` (`imageUrl` may start with `{base}`, the site's origin).
    pub expected: Value,
}

/// The cases of a corpus directory (`NN-name.html` beside `NN-name.expected.json`), in name
/// order.
pub fn cases(dir: &Path) -> std::io::Result<Vec<Case>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter_map(|n| n.strip_suffix(".html").map(str::to_string))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let body = std::fs::read(dir.join(format!("{name}.html")))?;
        let meta: Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("{name}.expected.json")))?)
                .map_err(std::io::Error::other)?;
        out.push(Case {
            name,
            body,
            content_type: meta["contentType"].as_str().map(str::to_string),
            expected: meta["expected"].clone(),
        });
    }
    Ok(out)
}

/// A stored recipe (the API's JSON) in the expected shape.
pub fn actual_from_json(recipe: &Value) -> Value {
    json!({
        "title": recipe["title"],
        "ingredients": recipe["ingredients"],
        "instructions": recipe["instructions"],
        "portions": recipe["portions"],
        "times": recipe.get("times").cloned().unwrap_or_else(|| json!({})),
        "imageUrl": recipe["source"]["imageUrl"],
        "tags": recipe.get("tags").cloned().unwrap_or_else(|| json!([])),
        "sourceName": recipe["source"]["name"],
        "importedBy": recipe["source"]["importedBy"],
    })
}

/// A recipe read in the expected shape.
pub fn actual(recipe: &RecipeInput) -> Value {
    actual_from_json(&serde_json::to_value(recipe).unwrap_or_default())
}

/// The fields measured, in the report's order.
pub const FIELDS: &[&str] = &[
    "title",
    "ingredients",
    "instructions",
    "portions",
    "times",
    "imageUrl",
    "tags",
    "sourceName",
    "importedBy",
];

/// Per-field counts: `(right, measured)`; ingredients count one per expected ingredient.
#[derive(Debug, Default)]
pub struct Score {
    pub counts: std::collections::BTreeMap<&'static str, (usize, usize)>,
    pub misses: Vec<String>,
    pub pages: usize,
}

fn same_number(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-6,
        _ => a.is_null() && b.is_null(),
    }
}

fn same_ingredient(expected: &Value, got: &Value) -> bool {
    ["quantity", "quantityMax"]
        .iter()
        .all(|k| same_number(&expected[*k], &got[*k]))
        && ["amount", "unit", "name", "note"]
            .iter()
            .all(|k| expected[*k] == got[*k])
}

impl Score {
    /// Compares one page's recipe with what was expected of it; `base` replaces `{base}`.
    pub fn add(&mut self, page: &str, expected: &Value, got: &Value, base: &str) {
        self.pages += 1;
        for field in FIELDS {
            let want = match (&expected[*field], *field) {
                (Value::String(s), "imageUrl") => Value::String(s.replace("{base}", base)),
                (Value::Null, "times") => json!({}),
                // Tags are stored lowercase (the recipe box's rule).
                (Value::Array(tags), "tags") => Value::Array(
                    tags.iter()
                        .filter_map(Value::as_str)
                        .map(|t| Value::String(t.to_lowercase()))
                        .collect(),
                ),
                (other, _) => other.clone(),
            };
            let have = &got[*field];
            if *field == "ingredients" {
                let empty = Vec::new();
                let want = want.as_array().unwrap_or(&empty);
                let have = have.as_array().unwrap_or(&empty);
                let right = want
                    .iter()
                    .enumerate()
                    .filter(|(i, w)| {
                        let ok = have.get(*i).is_some_and(|h| same_ingredient(w, h));
                        if !ok {
                            self.misses.push(format!(
                                "{page} ingredient {i}: expected {w}, got {}",
                                have.get(*i).unwrap_or(&Value::Null)
                            ));
                        }
                        ok
                    })
                    .count();
                let entry = self.counts.entry(field).or_default();
                entry.0 += right;
                entry.1 += want.len();
                continue;
            }
            let ok = if *field == "portions" {
                same_number(&want, have)
            } else {
                &want == have
            };
            if !ok {
                self.misses
                    .push(format!("{page} {field}: expected {want}, got {have}"));
            }
            let entry = self.counts.entry(field).or_default();
            entry.0 += usize::from(ok);
            entry.1 += 1;
        }
    }

    /// `field: right/measured (percent)` per line.
    pub fn report(&self) -> String {
        let mut out = format!("import accuracy over {} pages\n", self.pages);
        for field in FIELDS {
            if let Some((right, all)) = self.counts.get(field) {
                let pct = if *all == 0 {
                    100.0
                } else {
                    100.0 * f64::from(u32::try_from(*right).unwrap_or(u32::MAX))
                        / f64::from(u32::try_from(*all).unwrap_or(u32::MAX))
                };
                out.push_str(&format!("{field:<12} {right:>4}/{all:<4} {pct:5.1}%\n"));
            }
        }
        out
    }
}
