//! Importing a recipe from a page on any recipe site.
//!
//! The page is fetched through the platform's guarded fetcher ([`platform::fetch`]: the news
//! feeds' SSRF guard, deadline, size cap and redirects), after the host's robots.txt allows
//! it. Its schema.org `Recipe` is read from JSON-LD and microdata ([`html`], [`schema`]);
//! the first recipe in the page's order with a title, an ingredient and a step is the one
//! imported (the page's `og:image` and `og:site_name` fill in a missing image and source
//! name). Without one, the model reads the recipe from the page's visible text
//! ([`MODEL_INSTRUCTIONS`]) and the recipe says so (`source.importedBy: "model"`).
//!
//! Either way the recipe is made to fit this service's bounds rather than refused: the title
//! cut to 255 characters, steps to 1,000, the first 100 ingredients and 50 steps kept,
//! portions brought into 0.5-1000 (1 when the page names none), times capped at 30 days;
//! every ingredient line goes through the one parser ([`crate::ingredients`]).

#[cfg(feature = "corpus")]
pub mod corpus;
pub mod html;
pub mod schema;

use serde::Deserialize;
use serde_json::Value;
use url::Url;

use platform::fetch::robots::Robots;
use platform::fetch::{
    FeedFetcher, FetchConfig, FetchError, FetchOutcome, Validators, ACCEPT_HTML,
};

use crate::input::{RawIngredient, RawRecipeInput};
use crate::model::{ImportedBy, RecipeInput, RecipeSource, RecipeTimes, MAX_URL};
pub use schema::Extracted;

/// The token a robots.txt group names this importer by.
pub const ROBOTS_AGENT: &str = "recipeimport";
/// The `User-Agent` of page fetches (unless `FEED_USER_AGENT` sets the platform's).
pub const USER_AGENT: &str = concat!(
    "RecipeImport/",
    env!("CARGO_PKG_VERSION"),
    " (recipe import; robots.txt respected)"
);

/// A recipe read from a page, and the page's own data beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub recipe: RecipeInput,
    /// The page's tag candidates (`keywords`, `recipeCategory`, `recipeCuisine`).
    pub tags: Vec<String>,
}

/// Decodes a page's bytes: the charset of `Content-Type`, else of a `<meta>` in its first
/// 1,024 bytes, else UTF-8 (a byte-order mark wins over both).
pub fn decode(body: &[u8], content_type: Option<&str>) -> String {
    let label = content_type.and_then(charset_in).or_else(|| {
        let head = String::from_utf8_lossy(body.get(..1024).unwrap_or(body)).to_lowercase();
        let at = head.find("charset=")?;
        let rest = head[at + 8..].trim_start_matches(['"', '\'']);
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(rest.len());
        Some(rest[..end].to_string())
    });
    let encoding = label
        .and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let (text, _, _) = encoding.decode(body);
    text.into_owned()
}

fn charset_in(content_type: &str) -> Option<String> {
    content_type.split(';').find_map(|part| {
        let (name, value) = part.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_string())
    })
}

/// Whether a `Content-Type` can be a page (absent counts as one).
pub fn is_html(content_type: Option<&str>) -> bool {
    content_type.is_none_or(|t| {
        let t = t.to_ascii_lowercase();
        t.contains("html") || t.starts_with("text/plain") || t.contains("xml")
    })
}

/// The JSON of a JSON-LD script: as written, else without the HTML comment or CDATA
/// wrappers some CMSs leave, else with control characters (raw line breaks in strings)
/// made spaces.
fn json_ld(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    let unwrapped = trimmed
        .trim_start_matches("<!--")
        .trim_end_matches("-->")
        .trim()
        .trim_start_matches("//<![CDATA[")
        .trim_start_matches("<![CDATA[")
        .trim_end_matches("//]]>")
        .trim_end_matches("]]>")
        .trim();
    if let Ok(v) = serde_json::from_str(unwrapped) {
        return Some(v);
    }
    let cleaned: String = unwrapped
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    serde_json::from_str(&cleaned).ok()
}

/// The page's schema.org recipe, if it has a usable one (a title, an ingredient, a step).
pub fn structured(page_html: &str, page_url: &Url) -> Option<Extracted> {
    let page = html::read(page_html);
    let mut documents: Vec<Value> = page.json_ld.iter().filter_map(|s| json_ld(s)).collect();
    documents.extend(page.items.iter().cloned());
    let graph = schema::Graph::new(&documents);
    let mut found = graph
        .recipes()
        .into_iter()
        .map(|node| schema::recipe(&graph, node, page_url))
        .find(|r| !r.title.is_empty() && !r.ingredients.is_empty() && !r.instructions.is_empty())?;
    if found.image.is_none() {
        found.image = page
            .og_image
            .as_deref()
            .and_then(|i| schema::absolute(i, page_url));
    }
    if found.source_name.is_none() {
        found.source_name = page.site_name.as_deref().map(html::collapse);
    }
    Some(found)
}

/// The page's visible text for the model, with its title first.
pub fn page_text(page_html: &str) -> String {
    let page = html::read(page_html);
    match page.title {
        Some(title) => format!("{title}\n{}", page.text),
        None => page.text,
    }
}

/// The system prompt of the model's reading of a page without structured data.
pub const MODEL_INSTRUCTIONS: &str = "You read recipe web pages. The user gives the visible \
    text of one page. If it holds a recipe, answer only with one JSON object: {\"title\": \
    string, \"ingredients\": [strings, one ingredient line each exactly as the page writes it, \
    such as \"1/2 cup cream\"], \"instructions\": [strings, one step each], \"portions\": \
    number or null, \"prepMinutes\": number or null, \"cookMinutes\": number or null, \
    \"totalMinutes\": number or null}. Copy from the page; never invent a recipe. If the page \
    holds no recipe, answer {\"recipe\": null}.";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelRecipe {
    title: Option<String>,
    #[serde(default)]
    ingredients: Vec<Value>,
    #[serde(default)]
    instructions: Vec<Value>,
    portions: Option<f64>,
    prep_minutes: Option<f64>,
    cook_minutes: Option<f64>,
    total_minutes: Option<f64>,
}

/// Why the model's answer gave no recipe.
#[derive(Debug, PartialEq, Eq)]
pub enum ModelAnswer {
    /// The model says the page holds no recipe (or what it answered has no title,
    /// ingredient or step).
    NoRecipe,
    /// The answer is not the JSON asked for.
    Unusable(String),
}

/// The recipe in the model's answer.
pub fn model_recipe(answer: &str) -> Result<Extracted, ModelAnswer> {
    let value = llm::json_in_answer(answer)
        .ok_or_else(|| ModelAnswer::Unusable("the answer holds no JSON".into()))?;
    if value.get("recipe").is_some_and(Value::is_null) {
        return Err(ModelAnswer::NoRecipe);
    }
    let value = match value {
        Value::Object(mut map) if map.get("recipe").is_some_and(Value::is_object) => {
            map.remove("recipe").unwrap_or_default()
        }
        other => other,
    };
    let model: ModelRecipe = serde_json::from_value(value)
        .map_err(|e| ModelAnswer::Unusable(format!("not a recipe: {e}")))?;
    let text = |v: &Value| match v {
        Value::String(s) => Some(html::plain_text(s)),
        Value::Object(map) => map
            .get("line")
            .or_else(|| map.get("text"))
            .or_else(|| map.get("name"))
            .and_then(Value::as_str)
            .map(html::plain_text),
        _ => None,
    };
    let minutes = |m: Option<f64>| {
        m.filter(|m| m.is_finite() && *m >= 0.0)
            .map(schema::to_minutes)
    };
    let extracted = Extracted {
        title: model
            .title
            .map(|t| html::collapse(&t))
            .unwrap_or_default()
            .chars()
            .take(crate::model::MAX_TITLE)
            .collect(),
        ingredients: model
            .ingredients
            .iter()
            .filter_map(text)
            .filter(|l| !l.trim().is_empty())
            .map(|l| crate::ingredients::parse(&l))
            .take(crate::model::MAX_INGREDIENTS)
            .collect(),
        instructions: model
            .instructions
            .iter()
            .filter_map(text)
            .map(|s| {
                s.chars()
                    .take(crate::model::MAX_INSTRUCTION)
                    .collect::<String>()
            })
            .filter(|s| !s.trim().is_empty())
            .take(crate::model::MAX_INSTRUCTIONS)
            .collect(),
        portions: model.portions.filter(|p| p.is_finite() && *p > 0.0),
        times: RecipeTimes {
            prep_minutes: minutes(model.prep_minutes),
            cook_minutes: minutes(model.cook_minutes),
            total_minutes: minutes(model.total_minutes),
        },
        ..Extracted::default()
    };
    if extracted.title.trim().is_empty()
        || extracted.ingredients.is_empty()
        || extracted.instructions.is_empty()
    {
        return Err(ModelAnswer::NoRecipe);
    }
    Ok(extracted)
}

/// The recipe to store: `extracted` brought into the recipe's bounds and checked as a
/// client's RecipeInput, its source the page.
pub fn into_recipe(
    extracted: Extracted,
    page_url: &str,
    imported_by: ImportedBy,
) -> Result<Imported, platform::Invalid> {
    let portions = extracted.portions.map_or(1.0, |p| {
        p.clamp(crate::model::MIN_PORTIONS, crate::model::MAX_PORTIONS)
    });
    let url: String = page_url.chars().take(MAX_URL).collect();
    let recipe = RawRecipeInput {
        title: Some(extracted.title),
        ingredients: Some(
            extracted
                .ingredients
                .into_iter()
                .map(RawIngredient::from)
                .collect(),
        ),
        instructions: Some(extracted.instructions),
        portions: Some(portions),
        nutrients: extracted.nutrients,
        source: Some(RecipeSource {
            url,
            name: extracted.source_name,
            imported_by: Some(imported_by),
            image_url: extracted.image,
        }),
        times: (!extracted.times.is_empty()).then_some(extracted.times),
        tags: Some(
            extracted
                .tags
                .iter()
                .filter(|t| crate::search::tag(t).is_ok())
                .take(crate::search::MAX_TAGS)
                .cloned()
                .collect(),
        ),
    }
    .parse()?;
    Ok(Imported {
        recipe,
        tags: extracted.tags,
    })
}

/// Why a page could not be read (the message follows `url: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("is not a fetchable URL ({0})")]
    InvalidUrl(String),
    #[error("is on a private or reserved network and cannot be fetched")]
    Blocked,
    #[error("is refused to importers by the site's robots.txt")]
    Robots,
    #[error("did not answer in time")]
    Timeout,
    #[error("is larger than the allowed size")]
    TooLarge,
    #[error("answered with HTTP status {0}")]
    Status(u16),
    #[error("could not be fetched: {0}")]
    Network(String),
    #[error("is not an HTML page")]
    NotHtml,
}

impl From<FetchError> for PageError {
    fn from(e: FetchError) -> Self {
        match e {
            FetchError::InvalidUrl(reason) => Self::InvalidUrl(reason),
            FetchError::Blocked(_) => Self::Blocked,
            FetchError::Timeout => Self::Timeout,
            FetchError::TooLarge => Self::TooLarge,
            FetchError::Status(status) => Self::Status(status),
            FetchError::Network(reason) => Self::Network(reason),
        }
    }
}

/// A fetched page.
#[derive(Debug, Clone)]
pub struct FetchedPage {
    pub html: String,
    /// Where the page was, after redirects.
    pub url: Url,
}

/// Fetches recipe pages: the platform's guarded fetcher, robots.txt first.
#[derive(Debug, Clone)]
pub struct Pages {
    fetcher: FeedFetcher,
}

impl Pages {
    /// From the platform's fetch settings (`FEED_FETCH_TIMEOUT_SECONDS`, `FEED_MAX_BYTES`,
    /// `FEED_ALLOW_PRIVATE_NETWORKS`; `FEED_USER_AGENT` else [`USER_AGENT`]).
    pub fn from_env(env: &platform::Env) -> Result<Self, platform::ConfigError> {
        let mut config = FetchConfig::from_env(env)?;
        if env.get("FEED_USER_AGENT").is_none() {
            config.user_agent = USER_AGENT.to_string();
        }
        Self::new(config).map_err(|e| platform::ConfigError::Invalid {
            name: "FEED_USER_AGENT".into(),
            reason: e.to_string(),
        })
    }

    pub fn new(config: FetchConfig) -> Result<Self, FetchError> {
        Ok(Self {
            fetcher: FeedFetcher::new(config)?,
        })
    }

    /// The page at `url`, once its host's robots.txt allows it.
    pub async fn fetch(&self, url: &Url) -> Result<FetchedPage, PageError> {
        self.fetcher.check(url.as_str())?;
        let robots = self.robots(url).await;
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        if !robots.allows(&path) {
            return Err(PageError::Robots);
        }
        match self
            .fetcher
            .fetch_accepting(url.as_str(), &Validators::default(), ACCEPT_HTML)
            .await?
        {
            FetchOutcome::Fetched {
                body,
                final_url,
                content_type,
                ..
            } => {
                if !is_html(content_type.as_deref()) {
                    return Err(PageError::NotHtml);
                }
                let url =
                    Url::parse(&final_url).map_err(|e| PageError::InvalidUrl(e.to_string()))?;
                Ok(FetchedPage {
                    html: decode(&body, content_type.as_deref()),
                    url,
                })
            }
            // No validators were sent: a 304 is the server's error.
            FetchOutcome::NotModified => Err(PageError::Status(304)),
        }
    }

    /// The image at `url` (its bytes; what they are is the image store's to judge), once its
    /// host's robots.txt allows it.
    pub async fn image(&self, url: &Url) -> Result<bytes::Bytes, PageError> {
        self.fetcher.check(url.as_str())?;
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        if !self.robots(url).await.allows(&path) {
            return Err(PageError::Robots);
        }
        match self
            .fetcher
            .fetch_accepting(
                url.as_str(),
                &Validators::default(),
                "image/avif, image/webp, image/png, image/jpeg, */*;q=0.5",
            )
            .await?
        {
            FetchOutcome::Fetched { body, .. } => Ok(body),
            FetchOutcome::NotModified => Err(PageError::Status(304)),
        }
    }

    /// The rules of `url`'s host for this importer: none when it has no robots.txt (4xx),
    /// everything refused when it cannot be read (as the news' page reader does).
    async fn robots(&self, url: &Url) -> Robots {
        let origin = url.origin().ascii_serialization();
        match self
            .fetcher
            .fetch_accepting(
                &format!("{origin}/robots.txt"),
                &Validators::default(),
                "text/plain, */*;q=0.5",
            )
            .await
        {
            Ok(FetchOutcome::Fetched { body, .. }) => {
                Robots::parse(&String::from_utf8_lossy(&body), ROBOTS_AGENT)
            }
            Err(FetchError::Status(status)) if (400..500).contains(&status) => Robots::default(),
            _ => Robots::deny_all(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets() {
        let latin1 = b"<meta charset=\"iso-8859-1\"><p>K\xe4se</p>";
        assert!(decode(latin1, None).contains("Käse"));
        assert!(decode(b"K\xe4se", Some("text/html; charset=ISO-8859-1")).contains("Käse"));
        assert_eq!(decode("Käse".as_bytes(), None), "Käse");
    }

    #[test]
    fn the_models_answer() {
        assert_eq!(
            model_recipe(r#"{"recipe": null}"#),
            Err(ModelAnswer::NoRecipe)
        );
        assert!(matches!(model_recipe("no"), Err(ModelAnswer::Unusable(_))));
        let r = model_recipe(
            r#"```json
{"title": "Toast", "ingredients": ["2 slices bread", "butter to taste"], "instructions": ["Toast."], "portions": 1, "prepMinutes": 5}
```"#,
        )
        .unwrap();
        assert_eq!(r.ingredients[0].unit, "slice");
        assert_eq!(r.ingredients[1].note.as_deref(), Some("to taste"));
        assert_eq!(r.times.prep_minutes, Some(5));
    }
}
