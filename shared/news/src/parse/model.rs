//! What a feed document says, read from any of the formats, before it becomes plain text.

use chrono::{DateTime, Utc};
use url::Url;

#[derive(Debug, Default)]
pub(super) struct Feed {
    pub title: Option<Text>,
    pub description: Option<Text>,
    pub links: Vec<Link>,
    pub authors: Vec<Person>,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Default)]
pub(super) struct Entry {
    /// `guid`, `id`; empty when the entry has none.
    pub id: String,
    pub title: Option<Text>,
    pub links: Vec<Link>,
    /// The full body (`content:encoded`, Atom `content`, `content_html`).
    pub content: Option<Text>,
    /// `description`, `summary`.
    pub summary: Option<Text>,
    pub authors: Vec<Person>,
    pub published: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    pub categories: Vec<Category>,
    /// `media:thumbnail`, then `itunes:image`, resolved against `xml:base`.
    pub thumbnails: Vec<String>,
    /// `media:content` then `enclosure`: URL and declared MIME type.
    pub media: Vec<Media>,
    /// JSON Feed `image`, `banner_image`.
    pub image: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    Plain,
    /// HTML (escaped or CDATA) or re-serialised XHTML.
    Html,
}

#[derive(Debug)]
pub(super) struct Text {
    pub content: String,
    pub kind: TextKind,
}

#[derive(Debug)]
pub(super) struct Link {
    pub href: String,
    /// `None` for RSS links and JSON Feed URLs; Atom links default to `alternate`.
    pub rel: Option<String>,
    pub media_type: Option<String>,
}

impl Link {
    /// A link to `href`, resolved against `base` (`xml:base`, else the feed URL) when relative.
    pub fn new(href: &str, base: Option<&Url>) -> Link {
        Link {
            href: resolve(href, base),
            rel: None,
            media_type: None,
        }
    }
}

#[derive(Debug)]
pub(super) struct Person {
    pub name: Option<String>,
    pub email: Option<String>,
}

impl Person {
    /// "Name", "email@example.com (Name)", "Name <email@example.com>", "mailto:...".
    pub fn parse(raw: &str) -> Person {
        let Some((start, end)) = email_span(raw) else {
            return Person {
                name: Some(raw.trim().to_string()).filter(|n| !n.is_empty()),
                email: None,
            };
        };
        let email = raw.get(start..end).unwrap_or_default().to_string();
        let before = raw.get(..start).unwrap_or_default();
        let before = before.trim_end().strip_suffix("mailto:").unwrap_or(before);
        let after = raw.get(end..).unwrap_or_default();
        // The name is the longer of what comes before and after the address.
        let name = if before.len() > after.len() {
            before
        } else {
            after
        };
        let name = name
            .trim_matches(|c: char| c.is_whitespace() || "<>[]()\"".contains(c))
            .to_string();
        Person {
            name: Some(name).filter(|n| !n.is_empty()),
            email: Some(email),
        }
    }
}

/// Byte range of the first e-mail address in `raw`: local@domain.tld.
fn email_span(raw: &str) -> Option<(usize, usize)> {
    let at = raw.find('@')?;
    let local_char = |c: char| c.is_ascii_alphanumeric() || "._%+-".contains(c);
    let domain_char = |c: char| c.is_ascii_alphanumeric() || ".-".contains(c);
    let start = raw
        .get(..at)?
        .char_indices()
        .rev()
        .take_while(|(_, c)| local_char(*c))
        .last()
        .map(|(i, _)| i)?;
    let domain = raw.get(at + 1..)?;
    let len = domain
        .find(|c: char| !domain_char(c))
        .unwrap_or(domain.len());
    let domain = domain.get(..len)?.trim_end_matches('.');
    let tld = domain.rsplit_once('.')?.1;
    if tld.len() < 2 || !tld.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    Some((start, at + 1 + domain.len()))
}

#[derive(Debug)]
pub(super) struct Category {
    pub term: String,
    pub label: Option<String>,
}

#[derive(Debug)]
pub(super) struct Media {
    pub url: String,
    pub media_type: Option<String>,
}

/// The base URL inside an element: its `xml:base` resolved against the `parent` base.
pub(super) fn element_base(xml_base: Option<&str>, parent: Option<&Url>) -> Option<Url> {
    let Some(xml_base) = xml_base else {
        return parent.cloned();
    };
    match (Url::parse(xml_base.trim()), parent) {
        (Ok(url), _) => Some(url),
        (Err(url::ParseError::RelativeUrlWithoutBase), Some(parent)) => parent
            .join(xml_base.trim())
            .ok()
            .or_else(|| Some(parent.clone())),
        // An unusable xml:base is ignored.
        _ => parent.cloned(),
    }
}

/// `href` resolved against `base` when it is relative and there is one; else as given.
pub(super) fn resolve(href: &str, base: Option<&Url>) -> String {
    let href = href.trim();
    match (Url::parse(href), base) {
        (Err(url::ParseError::RelativeUrlWithoutBase), Some(base)) => base
            .join(href)
            .map(String::from)
            .unwrap_or_else(|_| href.to_string()),
        (Ok(url), _) => url.to_string(),
        _ => href.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_with_and_without_addresses() {
        let cases = [
            ("Priya Raman", Some("Priya Raman"), None),
            (
                "editor@circuit.example.com (Sam Okafor)",
                Some("Sam Okafor"),
                Some("editor@circuit.example.com"),
            ),
            (
                "Sam Okafor <sam@example.com>",
                Some("Sam Okafor"),
                Some("sam@example.com"),
            ),
            ("mailto:desk@example.org", None, Some("desk@example.org")),
            (
                "Desk (mailto:desk@example.org)",
                Some("Desk"),
                Some("desk@example.org"),
            ),
            ("@handle on Mastodon", Some("@handle on Mastodon"), None),
            ("  ", None, None),
        ];
        for (raw, name, email) in cases {
            let person = Person::parse(raw);
            assert_eq!(person.name.as_deref(), name, "{raw}");
            assert_eq!(person.email.as_deref(), email, "{raw}");
        }
    }
}
