//! Tags and the words a recipe is found by.
//!
//! A tag is trimmed, lowercased and its inner whitespace made single (`" Weeknight  Dinner"`
//! is `weeknight dinner`); a recipe has at most [`MAX_TAGS`], each 1 to [`MAX_TAG`]
//! characters, duplicates dropped. A recipe's search words are the words of its title, its
//! ingredients' names and its tags, lowercased with the common Latin diacritics folded
//! (`crêpes` is found by `crepes`, `Pörkölt` by `porkolt`); a query's words must each begin
//! some word of the recipe (`lentil` finds `Lentils`), all of them (AND), and `tag` must be
//! one of its tags exactly (after the same normalisation).

use std::collections::BTreeSet;

use platform::FieldError;

use crate::model::RecipeInput;

pub const MAX_TAGS: usize = 20;
pub const MAX_TAG: usize = 50;
/// The longest `q` and the most words in it.
pub const MAX_QUERY: usize = 200;
pub const MAX_QUERY_WORDS: usize = 10;
/// A word longer than this is kept to its first this many characters (so is the query's).
const MAX_WORD: usize = 40;

/// A tag as stored, or why it cannot be one.
pub fn tag(raw: &str) -> Result<String, &'static str> {
    if raw.chars().any(char::is_control) {
        return Err("must not contain control characters");
    }
    if raw.chars().count() > MAX_TAG {
        return Err("must be at most 50 characters");
    }
    let tag = raw
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    if tag.is_empty() {
        return Err("must not be blank");
    }
    Ok(tag)
}

/// A recipe's tags, each named by its index when wrong (`tags[2]`); `None` when any is.
pub fn tags(raw: &[String], errors: &mut Vec<FieldError>) -> Option<Vec<String>> {
    if raw.len() > MAX_TAGS {
        errors.push(FieldError::new(
            "tags",
            format!("must have at most {MAX_TAGS} entries"),
        ));
        return None;
    }
    let before = errors.len();
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    for (i, raw) in raw.iter().enumerate() {
        match tag(raw) {
            Ok(tag) if !out.contains(&tag) => out.push(tag),
            Ok(_) => {}
            Err(reason) => errors.push(FieldError::new(format!("tags[{i}]"), reason)),
        }
    }
    (errors.len() == before).then_some(out)
}

/// A letter with its diacritic removed, for the languages the service speaks (EN, DE, HU) and
/// their neighbours.
fn fold(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ő' | 'ø' => 'o',
        'ú' | 'ù' | 'û' | 'ü' | 'ű' => 'u',
        'ç' => 'c',
        'ñ' => 'n',
        'ß' => 's',
        other => other,
    }
}

/// The searchable words of `text`: lowercase, folded, split at anything not a letter or
/// digit, each at most [`MAX_WORD`] characters.
pub fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().map(fold).take(MAX_WORD).collect())
        .collect()
}

/// Every word `recipe` is found by, once each, in order.
pub fn recipe_words(recipe: &RecipeInput) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    out.extend(words(&recipe.title));
    for ingredient in &recipe.ingredients {
        out.extend(words(&ingredient.name));
    }
    for tag in &recipe.tags {
        out.extend(words(tag));
    }
    out
}

/// A search: words that must all begin a word of the recipe, and a tag it must carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchQuery {
    pub words: Vec<String>,
    pub tag: Option<String>,
}

impl SearchQuery {
    /// `q` (at most [`MAX_QUERY`] characters, [`MAX_QUERY_WORDS`] words) and `tag`; every
    /// field that is wrong is named.
    pub fn parse(q: Option<&str>, tag_raw: Option<&str>) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut query = Self::default();
        if let Some(q) = q {
            if q.chars().count() > MAX_QUERY || q.chars().any(char::is_control) {
                errors.push(FieldError::new(
                    "q",
                    format!("must be at most {MAX_QUERY} characters without control characters"),
                ));
            } else {
                let mut found = words(q);
                found.dedup();
                if found.len() > MAX_QUERY_WORDS {
                    errors.push(FieldError::new(
                        "q",
                        format!("must have at most {MAX_QUERY_WORDS} words"),
                    ));
                }
                query.words = found;
            }
        }
        if let Some(raw) = tag_raw {
            match tag(raw) {
                Ok(tag) => query.tag = Some(tag),
                Err(reason) => errors.push(FieldError::new("tag", reason)),
            }
        }
        if errors.is_empty() {
            Ok(query)
        } else {
            Err(errors)
        }
    }

    /// Whether a recipe with these words and tags is found.
    pub fn matches(&self, recipe_words: &[&str], tags: &[&str]) -> bool {
        self.tag
            .as_deref()
            .is_none_or(|wanted| tags.contains(&wanted))
            && self
                .words
                .iter()
                .all(|q| recipe_words.iter().any(|w| w.starts_with(q.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_normalised_bounded_and_deduplicated() {
        assert_eq!(tag(" Weeknight   Dinner "), Ok("weeknight dinner".into()));
        assert!(tag("  ").is_err());
        assert!(tag(&"x".repeat(51)).is_err());
        assert!(tag(&"x".repeat(50)).is_ok());
        assert!(tag("a\u{7}b").is_err());
        let mut errors = Vec::new();
        let raw: Vec<String> = ["Soup", "soup", "Vegan"].map(String::from).to_vec();
        assert_eq!(
            tags(&raw, &mut errors),
            Some(vec!["soup".into(), "vegan".into()])
        );
        let too_many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
        assert_eq!(tags(&too_many, &mut errors), None);
        assert_eq!(errors[0].field, "tags");
        let mut errors = Vec::new();
        assert_eq!(tags(&["ok".into(), " ".into()], &mut errors), None);
        assert_eq!(errors[0].field, "tags[1]");
    }

    #[test]
    fn words_fold_case_and_diacritics() {
        assert_eq!(
            words("Crêpes, Pörkölt & lentil-soup"),
            ["crepes", "porkolt", "lentil", "soup"]
        );
    }

    #[test]
    fn every_query_word_begins_a_recipe_word() {
        let query = SearchQuery::parse(Some("Lentil  soup"), None).unwrap();
        assert!(query.matches(&["red", "lentils", "soup"], &[]));
        assert!(!query.matches(&["red", "lentils"], &[]));
        assert!(!query.matches(&["lentil"], &[]));
        let tagged = SearchQuery::parse(None, Some(" Weeknight ")).unwrap();
        assert!(tagged.matches(&[], &["weeknight"]));
        assert!(!tagged.matches(&[], &["weeknights"]));
        let eleven: Vec<String> = (0..11).map(|i| format!("w{i}")).collect();
        let errors = SearchQuery::parse(Some(&eleven.join(" ")), Some(" ")).unwrap_err();
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["q", "tag"]);
    }
}
