//! JSON Feed 1.0 and 1.1 (<https://jsonfeed.org/version/1.1>), read from a `serde_json::Value`
//! so that a field of an unexpected type is skipped rather than failing the whole feed.

use serde_json::Value;

use super::date::parse_date;
use super::model::{Category, Entry, Feed, Link, Person, Text, TextKind};

/// Reads a JSON Feed; the reason when the document is not one.
pub(super) fn read(text: &str) -> Result<Feed, String> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| format!("the JSON document is not a JSON Feed ({e})"))?;
    let version = value.get("version").and_then(Value::as_str).unwrap_or("");
    let version = version
        .strip_prefix("https://")
        .or_else(|| version.strip_prefix("http://"))
        .unwrap_or("");
    if !version.starts_with("jsonfeed.org/version/1") {
        return Err("the JSON document is not a JSON Feed (no JSON Feed version 1)".into());
    }
    let mut feed = Feed {
        title: string(&value, "title").map(plain),
        description: string(&value, "description").map(plain),
        links: ["home_page_url", "feed_url"]
            .iter()
            .filter_map(|k| string(&value, k))
            .map(|url| Link::new(&url, None))
            .collect(),
        authors: authors(&value),
        entries: Vec::new(),
    };
    if let Some(items) = value.get("items").and_then(Value::as_array) {
        feed.entries = items.iter().filter(|i| i.is_object()).map(item).collect();
    }
    Ok(feed)
}

fn item(item: &Value) -> Entry {
    let mut entry = Entry {
        // Ids are strings by the spec; some feeds write numbers.
        id: match item.get("id") {
            Some(Value::Number(n)) => n.to_string(),
            _ => string(item, "id").unwrap_or_default(),
        },
        title: string(item, "title").map(plain),
        links: ["url", "external_url"]
            .iter()
            .filter_map(|k| string(item, k))
            .map(|url| Link::new(&url, None))
            .collect(),
        content: string(item, "content_html").map(|content| Text {
            content: content.trim().to_string(),
            kind: TextKind::Html,
        }),
        summary: string(item, "summary").map(plain),
        authors: authors(item),
        published: string(item, "date_published").and_then(|d| parse_date(&d)),
        updated: string(item, "date_modified").and_then(|d| parse_date(&d)),
        image: string(item, "image").or_else(|| string(item, "banner_image")),
        ..Entry::default()
    };
    if let Some(text) = string(item, "content_text").map(|t| plain(t.trim().to_string())) {
        // Text is the body when there is no HTML, else the summary when there is none.
        if entry.content.is_none() {
            entry.content = Some(text);
        } else if entry.summary.is_none() {
            entry.summary = Some(text);
        }
    }
    if let Some(tags) = item.get("tags").and_then(Value::as_array) {
        entry.categories = tags
            .iter()
            .filter_map(Value::as_str)
            .map(|t| Category {
                term: t.to_string(),
                label: None,
            })
            .collect();
    }
    if let Some(attachments) = item.get("attachments").and_then(Value::as_array) {
        entry.links.extend(attachments.iter().filter_map(|a| {
            let mut link = Link::new(&string(a, "url")?, None);
            link.media_type = string(a, "mime_type");
            Some(link)
        }));
    }
    entry
}

/// `author` (1.0) and `authors` (1.1).
fn authors(value: &Value) -> Vec<Person> {
    let one = value.get("author").into_iter();
    let many = value
        .get("authors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    one.chain(many)
        .filter_map(|a| string(a, "name"))
        .map(|name| Person::parse(&name))
        .collect()
}

fn string(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

fn plain(content: String) -> Text {
    Text {
        content: content.trim().to_string(),
        kind: TextKind::Plain,
    }
}
