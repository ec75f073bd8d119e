//! What an import reads from a page's HTML, in one pass of html5gum's tokenizer (the WHATWG
//! tokenization rules, character references decoded as a browser decodes them): the JSON-LD
//! scripts, the schema.org microdata items (as JSON-LD-shaped objects, so one reader serves
//! both), and the page's visible text (for the model when there is no structured data).

use html5gum::{DefaultEmitter, HtmlString, Token, Tokenizer};
use serde_json::{Map, Value};

/// Elements that never have content (no end tag to wait for).
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];
/// Elements a new one of the same name closes (`<li>a<li>b`).
const SELF_CLOSING_SIBLINGS: &[&str] = &["li", "p", "dt", "dd", "option", "tr", "td", "th"];
/// Elements whose text is no part of what a reader sees.
const HIDDEN: &[&str] = &["script", "style", "noscript", "template", "svg", "head"];
/// Elements after which the visible text breaks a line.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "li",
    "br",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "section",
    "article",
    "header",
    "footer",
    "ul",
    "ol",
    "table",
    "dt",
    "dd",
    "blockquote",
    "pre",
];
/// Most visible text kept for the model.
pub const MAX_TEXT: usize = 24_000;
/// Most microdata items read from one page (a page is not a database).
const MAX_ITEMS: usize = 200;

/// What a page holds for an import.
#[derive(Debug, Default)]
pub struct Page {
    /// The text of each `<script type="application/ld+json">`.
    pub json_ld: Vec<String>,
    /// Microdata items that are not a property of another item, each as
    /// `{"@type": [..], "prop": [values]}`.
    pub items: Vec<Value>,
    /// The visible text, lines joined, at most [`MAX_TEXT`] characters.
    pub text: String,
    /// `<title>`.
    pub title: Option<String>,
    /// `og:image` (relative or absolute as written).
    pub og_image: Option<String>,
    /// `og:site_name`.
    pub site_name: Option<String>,
}

fn string(bytes: &HtmlString) -> String {
    String::from_utf8_lossy(&bytes.0).into_owned()
}

/// An element open while the page is read.
struct Open {
    name: String,
    /// The microdata item this element opened (`itemscope`), an index into `items`.
    item: Option<usize>,
    /// The properties this element's text is the value of: `(item, names)`.
    text_props: Option<(usize, Vec<String>)>,
    /// Where this element's text starts in `capture`.
    capture_from: usize,
    /// Inside `<script type="application/ld+json">`.
    json_ld: bool,
    hidden: bool,
}

struct Item {
    types: Vec<String>,
    props: Map<String, Value>,
    /// Whether the item is a property of another (not a top-level item).
    nested: bool,
}

impl Item {
    fn add(&mut self, name: &str, value: Value) {
        match self.props.get_mut(name) {
            Some(Value::Array(values)) => values.push(value),
            _ => {
                self.props
                    .insert(name.to_string(), Value::Array(vec![value]));
            }
        }
    }
}

fn add(items: &mut [Item], index: usize, name: &str, value: Value) {
    if let Some(item) = items.get_mut(index) {
        item.add(name, value);
    }
}

fn props_are_urls(props: &[String]) -> bool {
    props.iter().any(|p| {
        let p = p.to_ascii_lowercase();
        p.contains("url") || p.contains("image") || p == "sameas" || p == "mainentityofpage"
    })
}

/// The value of a property held by an attribute (`content`, `src`, `href`, `datetime`).
fn attribute_value(
    name: &str,
    props: &[String],
    attrs: &std::collections::BTreeMap<String, String>,
) -> Option<String> {
    if let Some(content) = attrs.get("content") {
        return Some(content.clone());
    }
    // Publishers mark up category links (`<a itemprop="recipeCategory" href>`): a link is
    // the value of a URL property only; of any other, its text is.
    let key = match name {
        "a" | "area" if !props_are_urls(props) => return None,
        "img" | "audio" | "video" | "source" | "embed" | "iframe" | "track" => "src",
        "a" | "link" | "area" => "href",
        "object" => "data",
        "time" => "datetime",
        "data" | "meter" => "value",
        _ => return None,
    };
    attrs.get(key).cloned()
}

/// html5gum's tokenizer, switching to raw text after `<script>`, `<style>` and the like as a
/// browser's tree builder would.
fn tokenizer(src: &str) -> Tokenizer<html5gum::StringReader<'_>, DefaultEmitter> {
    let mut emitter = DefaultEmitter::default();
    emitter.naively_switch_states(true);
    Tokenizer::new_with_emitter(src, emitter)
}

/// Reads `html` once: JSON-LD, microdata items and visible text.
pub fn read(html: &str) -> Page {
    let tokenizer = tokenizer(html);
    let mut page = Page::default();
    let mut stack: Vec<Open> = Vec::new();
    let mut items: Vec<Item> = Vec::new();
    // The text of the elements whose text is a property (shared buffer, each element marks
    // where its text starts).
    let mut capture = String::new();
    let mut capturing = 0usize;
    let mut script = String::new();
    let mut text = String::new();
    let mut title = String::new();
    let mut in_title = false;
    for token in tokenizer {
        let Ok(token) = token;
        match token {
            Token::StartTag(tag) => {
                let name = string(&tag.name).to_ascii_lowercase();
                let attrs: std::collections::BTreeMap<String, String> = tag
                    .attributes
                    .iter()
                    .map(|(k, v)| (string(k).to_ascii_lowercase(), string(&v.value)))
                    .collect();
                if SELF_CLOSING_SIBLINGS.contains(&name.as_str())
                    && stack.last().is_some_and(|o| o.name == name)
                {
                    close_top(&mut stack, &mut items, &mut capture, &mut capturing);
                }
                if name == "meta" {
                    let property = attrs
                        .get("property")
                        .or_else(|| attrs.get("name"))
                        .map(|p| p.to_ascii_lowercase());
                    match (property.as_deref(), attrs.get("content")) {
                        (Some("og:image"), Some(c)) if page.og_image.is_none() => {
                            page.og_image = Some(c.clone());
                        }
                        (Some("og:site_name"), Some(c)) if page.site_name.is_none() => {
                            page.site_name = Some(c.clone());
                        }
                        _ => {}
                    }
                }
                if name == "title" && page.title.is_none() {
                    in_title = true;
                }
                let parent_item = stack.iter().rev().find_map(|o| o.item);
                let props: Vec<String> = attrs
                    .get("itemprop")
                    .map(|p| p.split_whitespace().map(str::to_string).collect())
                    .unwrap_or_default();
                let mut opened_item = None;
                if attrs.contains_key("itemscope") && items.len() < MAX_ITEMS {
                    let types = attrs
                        .get("itemtype")
                        .map(|t| t.split_whitespace().map(str::to_string).collect())
                        .unwrap_or_default();
                    let index = items.len();
                    items.push(Item {
                        types,
                        props: Map::new(),
                        nested: !props.is_empty() && parent_item.is_some(),
                    });
                    if let Some(parent) = parent_item.filter(|_| !props.is_empty()) {
                        for p in &props {
                            add(
                                &mut items,
                                parent,
                                p,
                                Value::String(format!("\u{0}item:{index}")),
                            );
                        }
                    }
                    opened_item = Some(index);
                }
                let mut text_props = None;
                if opened_item.is_none() && !props.is_empty() {
                    if let Some(parent) = parent_item {
                        match attribute_value(&name, &props, &attrs) {
                            Some(value) => {
                                for p in &props {
                                    add(&mut items, parent, p, Value::String(value.clone()));
                                }
                            }
                            None if !VOID.contains(&name.as_str()) => {
                                text_props = Some((parent, props));
                            }
                            None => {}
                        }
                    }
                }
                let json_ld = name == "script"
                    && attrs
                        .get("type")
                        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"));
                if BLOCKS.contains(&name.as_str()) {
                    text.push('\n');
                    if capturing > 0 {
                        capture.push('\n');
                    }
                }
                if VOID.contains(&name.as_str()) || tag.self_closing && name != "script" {
                    continue;
                }
                let hidden =
                    HIDDEN.contains(&name.as_str()) || stack.last().is_some_and(|o| o.hidden);
                if text_props.is_some() {
                    capturing += 1;
                }
                stack.push(Open {
                    name,
                    item: opened_item,
                    text_props,
                    capture_from: capture.len(),
                    json_ld,
                    hidden,
                });
            }
            Token::EndTag(tag) => {
                let name = string(&tag.name).to_ascii_lowercase();
                if name == "title" {
                    in_title = false;
                    if page.title.is_none() && !title.trim().is_empty() {
                        page.title = Some(collapse(&title));
                    }
                }
                if BLOCKS.contains(&name.as_str()) {
                    text.push('\n');
                }
                // Close up to the most recent element of that name, if one is open.
                if let Some(at) = stack.iter().rposition(|o| o.name == name) {
                    while stack.len() > at {
                        if stack.last().is_some_and(|o| o.json_ld) {
                            page.json_ld.push(std::mem::take(&mut script));
                        }
                        close_top(&mut stack, &mut items, &mut capture, &mut capturing);
                    }
                }
            }
            Token::String(s) => {
                let s = string(&s.value);
                if in_title {
                    title.push_str(&s);
                }
                match stack.last() {
                    Some(open) if open.json_ld => script.push_str(&s),
                    Some(open) if open.hidden => {}
                    _ => {
                        if text.len() < MAX_TEXT * 4 {
                            text.push_str(&s);
                        }
                        if capturing > 0 {
                            capture.push_str(&s);
                        }
                    }
                }
            }
            Token::Comment(_) | Token::Doctype(_) | Token::Error(_) => {}
        }
    }
    while !stack.is_empty() {
        if stack.last().is_some_and(|o| o.json_ld) {
            page.json_ld.push(std::mem::take(&mut script));
        }
        close_top(&mut stack, &mut items, &mut capture, &mut capturing);
    }
    page.items = top_items(&items);
    page.text = visible_text(&text);
    page
}

fn close_top(
    stack: &mut Vec<Open>,
    items: &mut [Item],
    capture: &mut String,
    capturing: &mut usize,
) {
    let Some(open) = stack.pop() else {
        return;
    };
    if let Some((item, props)) = open.text_props {
        let value = capture.get(open.capture_from..).unwrap_or("").to_string();
        for p in &props {
            add(items, item, p, Value::String(value.clone()));
        }
        *capturing = capturing.saturating_sub(1);
        if *capturing == 0 {
            capture.clear();
        }
    }
}

/// The top-level items, nested items put in place of their references.
fn top_items(items: &[Item]) -> Vec<Value> {
    fn expand(items: &[Item], index: usize, depth: usize) -> Value {
        let Some(item) = items.get(index) else {
            return Value::Null;
        };
        let mut object = Map::new();
        object.insert(
            "@type".into(),
            Value::Array(item.types.iter().cloned().map(Value::String).collect()),
        );
        for (name, values) in &item.props {
            let values = values.as_array().cloned().unwrap_or_default();
            let expanded: Vec<Value> = values
                .into_iter()
                .map(
                    |v| match v.as_str().and_then(|s| s.strip_prefix("\u{0}item:")) {
                        Some(i) => match i.parse::<usize>() {
                            Ok(i) if i > index && depth < 8 => expand(items, i, depth + 1),
                            _ => Value::Null,
                        },
                        None => v,
                    },
                )
                .collect();
            object.insert(name.clone(), Value::Array(expanded));
        }
        Value::Object(object)
    }
    (0..items.len())
        .filter(|i| items.get(*i).is_some_and(|item| !item.nested))
        .map(|i| expand(items, i, 0))
        .collect()
}

/// Whitespace collapsed within lines, blank lines dropped, at most [`MAX_TEXT`] characters.
fn visible_text(raw: &str) -> String {
    let mut out = String::new();
    for line in raw.lines() {
        let line = collapse(line);
        if line.is_empty() {
            continue;
        }
        if out.chars().count() + line.chars().count() > MAX_TEXT {
            break;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Runs of whitespace as one space, trimmed.
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text that may hold markup and character references (`&amp;`, `<p>`): references decoded,
/// tags dropped (a block element breaking the line), whitespace collapsed per line.
pub fn plain_text(raw: &str) -> String {
    if !raw.contains(['<', '&']) {
        return raw
            .lines()
            .map(collapse)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
    }
    let tokenizer = tokenizer(raw);
    let mut out = String::new();
    let mut hidden = 0usize;
    for token in tokenizer {
        let Ok(token) = token;
        match token {
            Token::StartTag(tag) => {
                let name = string(&tag.name).to_ascii_lowercase();
                if BLOCKS.contains(&name.as_str()) {
                    out.push('\n');
                }
                if HIDDEN.contains(&name.as_str()) && !tag.self_closing {
                    hidden += 1;
                }
            }
            Token::EndTag(tag) => {
                let name = string(&tag.name).to_ascii_lowercase();
                if HIDDEN.contains(&name.as_str()) {
                    hidden = hidden.saturating_sub(1);
                }
                if BLOCKS.contains(&name.as_str()) {
                    out.push('\n');
                }
            }
            Token::String(s) if hidden == 0 => out.push_str(&string(&s.value)),
            _ => {}
        }
    }
    out.lines()
        .map(collapse)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ld_microdata_and_text() {
        let page = read(
            r#"<html><head><title>Soup &amp; bread</title>
            <meta property="og:image" content="/soup.jpg">
            <script type="application/ld+json">{"@type":"Recipe","name":"a < b"}</script></head>
            <body><div itemscope itemtype="https://schema.org/Recipe">
              <h1 itemprop="name">Lentil <b>soup</b></h1>
              <img itemprop="image" src="/l.jpg">
              <meta itemprop="prepTime" content="PT10M">
              <ul><li itemprop="recipeIngredient">1 cup lentils<li itemprop="recipeIngredient">2 carrots</ul>
              <div itemprop="recipeInstructions" itemscope itemtype="https://schema.org/HowToStep">
                <span itemprop="text">Boil.</span></div>
              <div itemprop="aggregateRating" itemscope><span itemprop="ratingValue">5</span></div>
            </div><p>Visible &eacute;t&eacute;</p><script>var hidden = 1;</script></body></html>"#,
        );
        assert_eq!(page.json_ld, [r#"{"@type":"Recipe","name":"a < b"}"#]);
        assert_eq!(page.title.as_deref(), Some("Soup & bread"));
        assert_eq!(page.og_image.as_deref(), Some("/soup.jpg"));
        assert_eq!(page.items.len(), 1);
        let recipe = &page.items[0];
        assert_eq!(recipe["@type"][0], "https://schema.org/Recipe");
        assert_eq!(recipe["name"][0], "Lentil soup");
        assert_eq!(recipe["image"][0], "/l.jpg");
        assert_eq!(recipe["prepTime"][0], "PT10M");
        assert_eq!(recipe["recipeIngredient"][0], "1 cup lentils");
        assert_eq!(recipe["recipeIngredient"][1], "2 carrots");
        assert_eq!(
            recipe["recipeInstructions"][0]["text"][0]
                .as_str()
                .map(str::trim),
            Some("Boil.")
        );
        assert!(page.text.contains("Visible été"));
        assert!(!page.text.contains("hidden"));
    }

    #[test]
    fn markup_in_text_is_stripped() {
        assert_eq!(
            plain_text("<p>Heat the oven&nbsp;to 180&deg;C.</p><p>Bake &amp; serve.</p>"),
            "Heat the oven to 180°C.\nBake & serve."
        );
        assert_eq!(plain_text("  a  b \n\n c "), "a b\nc");
    }
}
