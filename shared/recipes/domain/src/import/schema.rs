//! schema.org `Recipe` as publishers write it, into a recipe of this service.
//!
//! Read as real pages write it: JSON-LD documents that are an object, an array or a `@graph`
//! (Yoast, WP Recipe Maker, Tasty Recipes), recipes found as `mainEntity` too, `@type` a
//! string or an array (`["Recipe", "NewsArticle"]`, `schema:Recipe`, full IRIs), nodes
//! referenced by `@id`; microdata items arrive in the same shape (every property an array).
//! Fields: `name`; `recipeIngredient` (or the older `ingredients`) through the one parser;
//! `recipeInstructions` as text (split on lines), strings, `HowToStep`s, `HowToSection`s of
//! steps, `ItemList`s; `recipeYield` a number, a string (`Serves 4-6`) or an array;
//! `prepTime`/`cookTime`/`totalTime` ISO 8601 durations (`PT1H30M`, `P0DT0H45M`); `image` a URL,
//! an `ImageObject` or an array of either; `keywords`, `recipeCategory`, `recipeCuisine` as tag
//! candidates; `nutrition` (per serving, as schema.org and publishers mean it) times the
//! portions; `publisher`/`author` for the source's name.

use serde_json::{Map, Value};
use url::Url;

use super::html::plain_text;
use crate::ingredients;
use crate::model::{
    RecipeIngredient, RecipeNutrients, RecipeTimes, MAX_INGREDIENTS, MAX_INSTRUCTION,
    MAX_INSTRUCTIONS, MAX_MINUTES, MAX_NUTRIENT, MAX_PORTIONS, MAX_SOURCE_NAME, MAX_TITLE, MAX_URL,
    MIN_PORTIONS,
};

/// Most tag candidates kept, and their longest (the recipe's tag bounds).
pub const MAX_TAGS: usize = 20;
pub const MAX_TAG: usize = 50;

/// A recipe read from a page, before it is checked as a RecipeInput.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    pub title: String,
    pub ingredients: Vec<RecipeIngredient>,
    pub instructions: Vec<String>,
    /// `None` when the page names no yield.
    pub portions: Option<f64>,
    pub times: RecipeTimes,
    pub image: Option<String>,
    pub tags: Vec<String>,
    pub nutrients: Option<RecipeNutrients>,
    pub source_name: Option<String>,
}

/// Whether a node's `@type` names `wanted` (`Recipe`, `schema:Recipe`,
/// `https://schema.org/Recipe`, in a string or an array).
pub fn has_type(node: &Value, wanted: &str) -> bool {
    let is = |t: &str| {
        let short = t.rsplit(['/', ':', '#']).next().unwrap_or(t);
        short.eq_ignore_ascii_case(wanted)
    };
    match node.get("@type") {
        Some(Value::String(t)) => is(t),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).any(is),
        _ => false,
    }
}

/// Every node of a JSON-LD document, depth first (arrays, `@graph`, nested objects).
fn walk<'a>(value: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    if depth > 12 {
        return;
    }
    match value {
        Value::Array(values) => values.iter().for_each(|v| walk(v, out, depth + 1)),
        Value::Object(map) => {
            out.push(value);
            for v in map.values() {
                walk(v, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// The JSON-LD documents' nodes by `@id` (Yoast and WP Recipe Maker reference authors,
/// images and the recipe itself that way).
pub struct Graph<'a> {
    nodes: Vec<&'a Value>,
}

impl<'a> Graph<'a> {
    pub fn new(documents: &'a [Value]) -> Self {
        let mut nodes = Vec::new();
        for d in documents {
            walk(d, &mut nodes, 0);
        }
        Self { nodes }
    }

    /// The recipes, in document order, each once (a node referenced twice is one recipe).
    pub fn recipes(&self) -> Vec<&'a Value> {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for node in &self.nodes {
            if !has_type(node, "Recipe") {
                continue;
            }
            if let Some(id) = node.get("@id").and_then(Value::as_str) {
                if seen.contains(&id) {
                    continue;
                }
                seen.push(id);
            }
            out.push(*node);
        }
        out
    }

    /// `value`, or the node it references when it is only `{"@id": ...}`.
    fn resolve(&self, value: &'a Value) -> &'a Value {
        if let Value::Object(map) = value {
            if map.len() == 1 {
                if let Some(id) = map.get("@id").and_then(Value::as_str) {
                    if let Some(node) = self.nodes.iter().find(|n| {
                        n.get("@id").and_then(Value::as_str) == Some(id)
                            && n.as_object().is_some_and(|m| m.len() > 1)
                    }) {
                        return node;
                    }
                }
            }
        }
        value
    }
}

/// The values of a property: an array's items, else the value itself.
fn values<'a>(node: &'a Value, name: &str) -> Vec<&'a Value> {
    match node.get(name) {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(v) => vec![v],
    }
}

/// A property's first text (a string, a number, or an object's `name`/`@value`).
fn first_text(graph: &Graph, node: &Value, name: &str) -> Option<String> {
    values(node, name)
        .into_iter()
        .find_map(|v| text_of(graph, v))
}

fn text_of(graph: &Graph, value: &Value) -> Option<String> {
    let text = match graph.resolve(value) {
        Value::String(s) => plain_text(s),
        Value::Number(n) => n.to_string(),
        Value::Object(map) => {
            let inner = map
                .get("name")
                .or_else(|| map.get("@value"))
                .or_else(|| map.get("text"))?;
            return match inner {
                Value::Array(items) => items.iter().find_map(|v| text_of(graph, v)),
                other => text_of(graph, other),
            };
        }
        _ => return None,
    };
    let text = text.replace('\n', " ");
    let text = super::html::collapse(&text);
    (!text.is_empty()).then_some(text)
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    head.trim_end().to_string()
}

/// Reads one Recipe node.
pub fn recipe(graph: &Graph, node: &Value, page_url: &Url) -> Extracted {
    let title = first_text(graph, node, "name")
        .or_else(|| first_text(graph, node, "headline"))
        .map(|t| cut(&t, MAX_TITLE))
        .unwrap_or_default();
    let ingredients = ingredient_lines(graph, node)
        .into_iter()
        .map(|line| ingredients::parse(&line))
        .filter(|i| !i.name.is_empty())
        .take(MAX_INGREDIENTS)
        .collect();
    let mut instructions = Vec::new();
    for v in values(node, "recipeInstructions") {
        steps(graph, v, &mut instructions, 0);
    }
    let instructions = instructions
        .into_iter()
        .map(|s| cut(&s, MAX_INSTRUCTION))
        .filter(|s| !s.is_empty())
        .take(MAX_INSTRUCTIONS)
        .collect();
    let portions = values(node, "recipeYield")
        .into_iter()
        .chain(values(node, "yield"))
        .find_map(|v| yield_portions(graph.resolve(v)));
    let minutes = |name: &str| {
        values(node, name)
            .into_iter()
            .find_map(|v| v.as_str().and_then(duration_minutes))
    };
    let times = RecipeTimes {
        prep_minutes: minutes("prepTime"),
        cook_minutes: minutes("cookTime"),
        total_minutes: minutes("totalTime"),
    };
    let image = values(node, "image")
        .into_iter()
        .chain(values(node, "thumbnailUrl"))
        .find_map(|v| image_url(graph, v, page_url));
    let mut tags: Vec<String> = Vec::new();
    for name in ["recipeCategory", "recipeCuisine", "keywords"] {
        for v in values(node, name) {
            let Some(text) = (match graph.resolve(v) {
                Value::String(s) => Some(plain_text(s)),
                other => text_of(graph, other),
            }) else {
                continue;
            };
            for tag in text.split([',', ';', '\n']) {
                let tag = super::html::collapse(tag);
                if tag.is_empty() || tag.chars().count() > MAX_TAG || tags.len() >= MAX_TAGS {
                    continue;
                }
                if !tags.iter().any(|t| t.eq_ignore_ascii_case(&tag)) {
                    tags.push(tag);
                }
            }
        }
    }
    let nutrients = values(node, "nutrition")
        .first()
        .and_then(|n| nutrition(graph.resolve(n), portions.unwrap_or(1.0)));
    let source_name = ["publisher", "author", "creator"]
        .iter()
        .flat_map(|name| values(node, name))
        .find_map(|v| text_of(graph, v))
        .map(|n| cut(&n, MAX_SOURCE_NAME));
    Extracted {
        title,
        ingredients,
        instructions,
        portions,
        times,
        image,
        tags,
        nutrients,
        source_name,
    }
}

/// The ingredient lines: `recipeIngredient` (or the older `ingredients`), strings or a text
/// of lines.
fn ingredient_lines(graph: &Graph, node: &Value) -> Vec<String> {
    let mut raw = values(node, "recipeIngredient");
    if raw.is_empty() {
        raw = values(node, "ingredients");
    }
    let mut lines = Vec::new();
    for v in raw {
        let text = match graph.resolve(v) {
            Value::String(s) => plain_text(s),
            other => match text_of(graph, other) {
                Some(t) => t,
                None => continue,
            },
        };
        lines.extend(
            text.lines()
                .map(super::html::collapse)
                .filter(|l| !l.is_empty()),
        );
    }
    lines
}

/// The steps of one `recipeInstructions` value, in order.
fn steps(graph: &Graph, value: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 6 {
        return;
    }
    let value = graph.resolve(value);
    match value {
        Value::String(s) => {
            out.extend(
                plain_text(s)
                    .lines()
                    .map(super::html::collapse)
                    .map(|l| strip_step_number(&l))
                    .filter(|l| !l.is_empty()),
            );
        }
        Value::Array(items) => items.iter().for_each(|v| steps(graph, v, out, depth + 1)),
        Value::Object(map) => {
            let list = map.get("itemListElement").filter(|v| !v.is_null());
            if let Some(list) = list {
                // A HowToSection or an ItemList: its steps (the section's name is a heading,
                // not a step).
                let mut items: Vec<&Value> = match list {
                    Value::Array(items) => items.iter().collect(),
                    other => vec![other],
                };
                items.sort_by_key(|v| v.get("position").and_then(Value::as_u64).unwrap_or(0));
                items
                    .into_iter()
                    .for_each(|v| steps(graph, v, out, depth + 1));
                return;
            }
            // A HowToStep (or HowToDirection/HowToTip): its text, else its name.
            if let Some(text) = step_text(graph, map) {
                out.extend(
                    text.lines()
                        .map(super::html::collapse)
                        .filter(|l| !l.is_empty()),
                );
            }
        }
        _ => {}
    }
}

fn step_text(graph: &Graph, map: &Map<String, Value>) -> Option<String> {
    let read = |name: &str| -> Option<String> {
        let v = map.get(name)?;
        let v = match v {
            Value::Array(items) => items.first()?,
            other => other,
        };
        match graph.resolve(v) {
            Value::String(s) => Some(plain_text(s)).filter(|t| !t.is_empty()),
            other => text_of(graph, other),
        }
    };
    read("text")
        .or_else(|| read("description"))
        .or_else(|| read("name"))
}

/// `1. Mix` and `Step 2: Bake` are steps without their numbers (the list numbers them).
fn strip_step_number(line: &str) -> String {
    let lower = line.to_lowercase();
    let rest = if lower.starts_with("step ") {
        &line[5..]
    } else {
        line
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits <= 2 {
        let after = &rest[digits..];
        if let Some(stripped) = after
            .strip_prefix(['.', ')', ':'])
            .filter(|s| s.starts_with(' '))
        {
            return stripped.trim().to_string();
        }
    }
    line.to_string()
}

/// Portions from a yield: `4`, `"4"`, `"4 servings"`, `"Serves 4-6"` (4), `"Makes 12
/// cookies"` (12), `["4", "4 servings"]`.
fn yield_portions(value: &Value) -> Option<f64> {
    let n = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => ingredients::leading_quantity(&first_number_onwards(s)?)?.0,
        Value::Object(map) => return map.get("value").and_then(yield_portions),
        _ => return None,
    };
    (n.is_finite() && n > 0.0).then(|| n.clamp(MIN_PORTIONS, MAX_PORTIONS))
}

/// The text from its first digit or vulgar fraction on (`Serves 4-6` → `4-6`).
fn first_number_onwards(text: &str) -> Option<String> {
    let start = text.find(|c: char| c.is_ascii_digit() || "½⅓⅔¼¾".contains(c))?;
    Some(text[start..].to_string())
}

/// Minutes of an ISO 8601 duration (`PT1H30M`, `P0DT0H45M`, `PT90M`, `PT0.5H`, `P1D`,
/// `PT1H30M0S`); a plain number of minutes too. Capped at [`MAX_MINUTES`].
pub fn duration_minutes(raw: &str) -> Option<u32> {
    let minutes = |m: f64| to_minutes(m);
    let raw = raw.trim();
    if let Ok(n) = raw.parse::<f64>() {
        return (n.is_finite() && n >= 0.0).then(|| minutes(n));
    }
    let upper = raw.to_ascii_uppercase();
    let rest = upper.strip_prefix('P')?;
    let (date, time) = match rest.split_once('T') {
        Some((d, t)) => (d, t),
        None => (rest, ""),
    };
    let mut total = 0.0;
    let mut read = |part: &str, units: &[(char, f64)]| -> Option<()> {
        let mut number = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() || c == '.' || c == ',' {
                number.push(if c == ',' { '.' } else { c });
                continue;
            }
            let factor = units.iter().find(|(u, _)| *u == c)?.1;
            let n: f64 = number.parse().ok()?;
            total += n * factor;
            number.clear();
        }
        number.is_empty().then_some(())
    };
    read(
        date,
        &[
            ('Y', 525_600.0),
            ('M', 43_200.0),
            ('W', 10_080.0),
            ('D', 1_440.0),
        ],
    )?;
    read(time, &[('H', 60.0), ('M', 1.0), ('S', 1.0 / 60.0)])?;
    if date.is_empty() && time.is_empty() {
        return None;
    }
    Some(minutes(total))
}

/// Whole minutes of a finite, non-negative number, at most [`MAX_MINUTES`].
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn to_minutes(m: f64) -> u32 {
    // Clamped into 0..=MAX_MINUTES first, so the cast is exact.
    m.round().clamp(0.0, f64::from(MAX_MINUTES)) as u32
}

/// An image's absolute http(s) URL: a string, an `ImageObject` (`url`, `contentUrl`), or
/// the first of an array.
fn image_url(graph: &Graph, value: &Value, page: &Url) -> Option<String> {
    match graph.resolve(value) {
        Value::String(s) => absolute(s, page),
        Value::Array(items) => items.iter().find_map(|v| image_url(graph, v, page)),
        Value::Object(map) => ["url", "contentUrl", "@id"]
            .iter()
            .filter_map(|k| map.get(*k))
            .find_map(|v| match v {
                Value::String(s) => absolute(s, page),
                Value::Array(items) => items.iter().find_map(|v| image_url(graph, v, page)),
                _ => None,
            }),
        _ => None,
    }
}

/// `raw` resolved against the page, when it is an http(s) URL of at most 2048 characters.
pub fn absolute(raw: &str, page: &Url) -> Option<String> {
    let raw = plain_text(raw);
    if raw.is_empty() || raw.starts_with("data:") {
        return None;
    }
    let url = page.join(&raw).ok()?;
    let url = url.to_string();
    ((url.starts_with("https://") || url.starts_with("http://")) && url.len() <= MAX_URL)
        .then_some(url)
}

/// The whole recipe's nutrients from a `NutritionInformation` per serving (`"240 kcal"`,
/// `"12 g"`), when it names calories, protein, fat and carbohydrate.
fn nutrition(node: &Value, portions: f64) -> Option<RecipeNutrients> {
    let amount = |name: &str| -> Option<f64> {
        let v = values(node, name).into_iter().next()?;
        let n = match v {
            Value::Number(n) => n.as_f64()?,
            Value::String(s) => {
                let s = s.replace(',', ".");
                let start = s.find(|c: char| c.is_ascii_digit())?;
                let digits: String = s[start..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                digits.parse().ok()?
            }
            _ => return None,
        };
        let whole = n * portions;
        (whole.is_finite() && (0.0..=MAX_NUTRIENT).contains(&whole))
            .then(|| (whole * 10.0).round() / 10.0)
    };
    Some(RecipeNutrients {
        calories: amount("calories")?,
        protein: amount("proteinContent")?,
        fat: amount("fatContent")?,
        carbs: amount("carbohydrateContent")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for (raw, minutes) in [
            ("PT1H30M", Some(90)),
            ("PT90M", Some(90)),
            ("P0DT0H45M", Some(45)),
            ("PT0.5H", Some(30)),
            ("P1D", Some(1440)),
            ("PT1H30M0S", Some(90)),
            ("pt20m", Some(20)),
            ("PT30S", Some(1)),
            ("25", Some(25)),
            ("P100D", Some(MAX_MINUTES)),
            ("PT", None),
            ("1 hour", None),
            ("P", None),
        ] {
            assert_eq!(duration_minutes(raw), minutes, "{raw}");
        }
    }

    #[test]
    fn yields() {
        for (raw, portions) in [
            (serde_json::json!(4), Some(4.0)),
            (serde_json::json!("4"), Some(4.0)),
            (serde_json::json!("Serves 4-6"), Some(4.0)),
            (serde_json::json!("Makes 12 cookies"), Some(12.0)),
            (serde_json::json!("6 Portionen"), Some(6.0)),
            (serde_json::json!("one loaf"), None),
            (serde_json::json!(0), None),
        ] {
            assert_eq!(yield_portions(&raw), portions, "{raw}");
        }
    }

    #[test]
    fn types_and_graphs() {
        let docs = vec![serde_json::json!({
            "@context": "https://schema.org",
            "@graph": [
                {"@type": "WebPage", "@id": "p", "mainEntity": {"@id": "r"}},
                {"@type": ["Recipe", "NewsArticle"], "@id": "r", "name": "A",
                 "author": {"@id": "me"}},
                {"@type": "Person", "@id": "me", "name": "Ann"}
            ]
        })];
        let graph = Graph::new(&docs);
        let recipes = graph.recipes();
        assert_eq!(recipes.len(), 1);
        let page = Url::parse("https://example.com/a").unwrap();
        let r = recipe(&graph, recipes[0], &page);
        assert_eq!(r.title, "A");
        assert_eq!(r.source_name.as_deref(), Some("Ann"));
        assert!(has_type(
            &serde_json::json!({"@type": "schema:Recipe"}),
            "Recipe"
        ));
        assert!(has_type(
            &serde_json::json!({"@type": ["http://schema.org/Recipe"]}),
            "Recipe"
        ));
    }

    #[test]
    fn step_numbers_go() {
        assert_eq!(strip_step_number("1. Mix well"), "Mix well");
        assert_eq!(strip_step_number("Step 2: Bake"), "Bake");
        assert_eq!(strip_step_number("350 g flour"), "350 g flour");
    }
}
