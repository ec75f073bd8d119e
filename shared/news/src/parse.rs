//! Feed documents (RSS 0.9x/1.0/2.0, Atom, JSON Feed) turned into plain-text entries.

use chrono::{DateTime, Utc};
use feed_rs::model::{Entry, Feed, FeedType, Link, Text};
use serde::Serialize;
use url::Url;

use crate::html::{
    collapse_whitespace, first_image_src, html_to_paragraphs, html_to_text, text_to_paragraphs,
    truncate_words,
};
use crate::topic::{normalise_topics, Topic};

/// Longest summary kept, in characters.
pub const MAX_SUMMARY_CHARS: usize = 500;
/// Longest title made from an entry's text when it has none, in characters.
pub const MAX_FALLBACK_TITLE_CHARS: usize = 80;
/// Longest entry guid kept as given, in bytes; longer ones are replaced by a hash.
pub const MAX_GUID_LEN: usize = 512;

/// A parsed feed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedFeed {
    /// Plain-text title; the feed URL's host when the feed has none.
    pub title: String,
    /// The publisher's site, absolute.
    pub site_url: Option<String>,
    /// Plain-text description.
    pub description: Option<String>,
    /// Entries in document order.
    pub entries: Vec<ParsedEntry>,
}

/// One entry of a feed, as plain text.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedEntry {
    /// The entry's id, else its link, else `sha256:` and a hash of its title, date and text.
    pub guid: String,
    /// Plain text; the first ~80 characters of the entry's text when it has no title.
    pub title: String,
    /// Absolute link to the article, resolved against the feed URL.
    pub link: Option<String>,
    pub author: Option<String>,
    /// Published, else updated.
    pub published_at: Option<DateTime<Utc>>,
    /// Plain text, at most ~500 characters, cut at a word boundary.
    pub summary: Option<String>,
    /// The body as plain-text paragraphs (full content when the feed has it, else the summary).
    pub paragraphs: Vec<String>,
    /// Normalised, deduplicated, at most 10.
    pub topics: Vec<Topic>,
    /// Absolute URL of a representative image.
    pub image_url: Option<String>,
}

/// Why a document could not be read as a feed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The document is not a feed (an HTML page, other JSON, other XML, garbage), or is too
    /// broken to read; the reason says which.
    #[error("not an RSS, Atom or JSON feed: {0}")]
    NotAFeed(String),
}

/// Parses a feed document fetched from `feed_url` (the URL relative links are resolved
/// against; pass the final URL after redirects).
pub fn parse_feed(body: &[u8], feed_url: &str) -> Result<ParsedFeed, ParseError> {
    sniff(body)?;
    let base = Url::parse(feed_url).ok();
    let parser = feed_rs::parser::Builder::new()
        .base_uri(base.as_ref().map(Url::as_str))
        // Leave missing ids empty: they are derived below, deterministically.
        .id_generator(|_, _, _| String::new())
        .sanitize_content(false)
        .build();
    let feed = parser
        .parse(body)
        .map_err(|e| ParseError::NotAFeed(describe_feed_error(&e)))?;

    // Images feed-rs does not report: JSON Feed `image`, and MediaRSS thumbnails that stand
    // alone (outside a media:content or media:group).
    let extra_images = if feed.feed_type == FeedType::JSON {
        json_feed_images(body)
    } else {
        xml_item_thumbnails(body, feed.entries.len())
    };

    let site_url = feed
        .links
        .iter()
        .filter(|l| is_alternate(l))
        .filter_map(|l| absolute(&l.href, base.as_ref()))
        .find(|href| Some(href.as_str()) != base.as_ref().map(Url::as_str));
    let title = feed
        .title
        .as_ref()
        .map(|t| html_to_text(&t.content))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| fallback_feed_title(site_url.as_deref(), base.as_ref()));
    let description = feed
        .description
        .as_ref()
        .map(|t| html_to_text(&t.content))
        .filter(|t| !t.is_empty());

    let entries = feed
        .entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let extra_image = extra_images.get(i).cloned().flatten();
            convert_entry(entry, &feed, base.as_ref(), extra_image)
        })
        .collect();

    Ok(ParsedFeed {
        title,
        site_url,
        description,
        entries,
    })
}

/// Quick checks that give a clearer reason than the parser would.
fn sniff(body: &[u8]) -> Result<(), ParseError> {
    if body.starts_with(&[0xFF, 0xFE]) || body.starts_with(&[0xFE, 0xFF]) {
        // UTF-16 with a byte-order mark: left to the XML reader.
        return Ok(());
    }
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF)
        .unwrap_or(body.len());
    let head = body.get(start..).unwrap_or_default();
    let head = head.get(..1024).unwrap_or(head);
    if head.is_empty() {
        return Err(ParseError::NotAFeed("the document is empty".into()));
    }
    let lower = String::from_utf8_lossy(head).to_ascii_lowercase();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        return Err(ParseError::NotAFeed(
            "the document is an HTML page, not a feed".into(),
        ));
    }
    if !lower.starts_with('<') && !lower.starts_with('{') {
        return Err(ParseError::NotAFeed(
            "the document is neither XML nor JSON".into(),
        ));
    }
    Ok(())
}

fn describe_feed_error(error: &feed_rs::parser::ParseFeedError) -> String {
    use feed_rs::parser::{ParseErrorKind, ParseFeedError};
    match error {
        ParseFeedError::ParseError(ParseErrorKind::NoFeedRoot) => {
            "no <rss>, <feed>, <rdf:RDF> or JSON Feed root was found".into()
        }
        ParseFeedError::JsonSerde(_) | ParseFeedError::JsonUnsupportedVersion(_) => {
            "the JSON document is not a JSON Feed".into()
        }
        ParseFeedError::XmlReader(e) => format!("the XML is malformed ({e})"),
        other => other.to_string(),
    }
}

fn fallback_feed_title(site_url: Option<&str>, base: Option<&Url>) -> String {
    site_url
        .and_then(|s| Url::parse(s).ok())
        .as_ref()
        .or(base)
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| "Untitled feed".to_string())
}

fn convert_entry(
    entry: &Entry,
    feed: &Feed,
    base: Option<&Url>,
    extra_image: Option<String>,
) -> ParsedEntry {
    let link = entry
        .links
        .iter()
        .filter(|l| is_alternate(l) && !is_attachment(l))
        .chain(entry.links.iter().filter(|l| is_alternate(l)))
        .find_map(|l| absolute(&l.href, base));
    // Links inside the body are relative to the article, else to the feed.
    let link_url = link.as_deref().and_then(|l| Url::parse(l).ok());
    let content_base = link_url.as_ref().or(base);

    let body_html = entry
        .content
        .as_ref()
        .and_then(|c| c.body.as_deref().map(|b| (b, c.content_type.to_string())));
    let summary_text: Option<&Text> = entry.summary.as_ref();

    let paragraphs = match &body_html {
        Some((body, ct)) if !body.trim().is_empty() => text_paragraphs(body, ct),
        _ => summary_text
            .map(|t| text_paragraphs(&t.content, t.content_type.as_str()))
            .unwrap_or_default(),
    };
    let paragraphs = if paragraphs.is_empty() {
        summary_text
            .map(|t| text_paragraphs(&t.content, t.content_type.as_str()))
            .unwrap_or_default()
    } else {
        paragraphs
    };

    let summary_source = summary_text
        .map(|t| text_paragraphs(&t.content, t.content_type.as_str()).join(" "))
        .filter(|s| !s.is_empty())
        .or_else(|| Some(paragraphs.join(" ")).filter(|s| !s.is_empty()));
    let summary = summary_source.map(|s| truncate_words(&s, MAX_SUMMARY_CHARS));

    let title = entry
        .title
        .as_ref()
        .map(|t| html_to_text(&t.content))
        .filter(|t| !t.is_empty())
        .or_else(|| {
            summary
                .as_deref()
                .or(paragraphs.first().map(String::as_str))
                .map(|s| truncate_words(s, MAX_FALLBACK_TITLE_CHARS))
        })
        .unwrap_or_else(|| "Untitled".to_string());

    let author = entry
        .authors
        .iter()
        .chain(feed.authors.iter())
        .find_map(|p| {
            p.name
                .as_deref()
                .map(|n| collapse_whitespace(n.trim_start_matches('(').trim_end_matches(')')))
                .filter(|n| !n.is_empty())
                .or_else(|| p.email.as_deref().map(collapse_whitespace))
        })
        .filter(|n| !n.is_empty());

    let published_at = entry.published.or(entry.updated);

    let topics = normalise_topics(entry.categories.iter().map(|c| {
        c.label
            .as_deref()
            .filter(|l| !l.trim().is_empty())
            .unwrap_or(&c.term)
    }));

    let image_url = entry_image(
        entry,
        extra_image,
        body_html.as_ref().map(|(b, _)| *b),
        base,
        content_base,
    );

    let guid = entry_guid(entry, link.as_deref(), &title, published_at, &paragraphs);

    ParsedEntry {
        guid,
        title,
        link,
        author,
        published_at,
        summary,
        paragraphs,
        topics,
        image_url,
    }
}

fn text_paragraphs(text: &str, content_type: &str) -> Vec<String> {
    if content_type.starts_with("text/plain") && !looks_like_html(text) {
        text_to_paragraphs(text)
    } else {
        html_to_paragraphs(text)
    }
}

/// Plain-text fields often carry markup anyway.
fn looks_like_html(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["<p", "<br", "<div", "</", "<img", "<a ", "&amp;", "&#"]
        .iter()
        .any(|m| lower.contains(m))
}

fn entry_guid(
    entry: &Entry,
    link: Option<&str>,
    title: &str,
    published_at: Option<DateTime<Utc>>,
    paragraphs: &[String],
) -> String {
    let id = entry.id.trim();
    let chosen = if !id.is_empty() {
        Some(id.to_string())
    } else {
        link.map(str::to_string)
    };
    match chosen {
        Some(g) if g.len() <= MAX_GUID_LEN => g,
        Some(g) => format!("sha256:{}", crate::url::short_hash(g.as_bytes())),
        None => {
            let mut material = String::new();
            material.push_str(title);
            material.push('\n');
            if let Some(p) = published_at {
                material.push_str(&p.to_rfc3339());
            }
            material.push('\n');
            if let Some(first) = paragraphs.first() {
                material.push_str(first);
            }
            format!("sha256:{}", crate::url::short_hash(material.as_bytes()))
        }
    }
}

fn entry_image(
    entry: &Entry,
    extra_image: Option<String>,
    body_html: Option<&str>,
    feed_base: Option<&Url>,
    content_base: Option<&Url>,
) -> Option<String> {
    let thumbnail = || {
        entry
            .media
            .iter()
            .flat_map(|m| m.thumbnails.iter())
            .find_map(|t| absolute(&t.image.uri, feed_base))
    };
    // media:content and enclosures (feed-rs reports both as media content).
    let media_image = || {
        entry
            .media
            .iter()
            .flat_map(|m| m.content.iter())
            .find_map(|c| {
                let url = c.url.as_ref()?;
                let is_image = match &c.content_type {
                    Some(ct) => ct.ty() == "image",
                    None => has_image_extension(url.path()),
                };
                if is_image {
                    absolute(url.as_str(), feed_base)
                } else {
                    None
                }
            })
    };
    // Atom enclosures and JSON Feed attachments.
    let linked_image = || {
        entry.links.iter().find_map(|l| {
            let image_type = l
                .media_type
                .as_deref()
                .map(|t| t.starts_with("image/"))
                .unwrap_or(false);
            let enclosure = matches!(l.rel.as_deref(), None | Some("enclosure"));
            if image_type && enclosure {
                absolute(&l.href, feed_base)
            } else {
                None
            }
        })
    };
    let inline_image = || {
        body_html
            .into_iter()
            .chain(entry.summary.as_ref().map(|t| t.content.as_str()))
            .filter_map(first_image_src)
            .find_map(|src| absolute(&src, content_base))
    };
    thumbnail()
        .or_else(|| extra_image.and_then(|i| absolute(&i, feed_base)))
        .or_else(media_image)
        .or_else(linked_image)
        .or_else(inline_image)
}

fn has_image_extension(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// `image` (else `banner_image`) of each item of a JSON Feed, in item order; feed-rs does
/// not read these fields.
fn json_feed_images(body: &[u8]) -> Vec<Option<String>> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return Vec::new();
    };
    value
        .get("items")
        .and_then(|items| items.as_array())
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    ["image", "banner_image"]
                        .iter()
                        .find_map(|k| item.get(*k).and_then(|v| v.as_str()))
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The first `<media:thumbnail url>` of each `<item>` / `<entry>` of an XML feed, in document
/// order; empty unless the document has exactly `entries` items (so that the positions match
/// feed-rs's entries).
fn xml_item_thumbnails(body: &[u8], entries: usize) -> Vec<Option<String>> {
    if entries == 0
        || !body
            .windows(10)
            .any(|w| w.eq_ignore_ascii_case(b":thumbnail"))
    {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(body);
    let mut items: Vec<Option<String>> = Vec::new();
    crate::html::for_each_start_tag(&text, |name, attrs| {
        let local = name.rsplit(':').next().unwrap_or(name);
        if local == "item" || local == "entry" {
            items.push(None);
        } else if name == "media:thumbnail" {
            if let Some(slot @ None) = items.last_mut() {
                *slot = crate::html::attribute(attrs, "url");
            }
        }
    });
    if items.len() == entries {
        items
    } else {
        Vec::new()
    }
}

fn is_alternate(link: &Link) -> bool {
    matches!(link.rel.as_deref(), None | Some("alternate"))
}

fn is_attachment(link: &Link) -> bool {
    link.media_type
        .as_deref()
        .map(|t| !t.starts_with("text/html") && !t.starts_with("application/xhtml"))
        .unwrap_or(false)
}

/// `href` as an absolute http(s) URL, resolved against `base` when relative.
fn absolute(href: &str, base: Option<&Url>) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    let url = match Url::parse(href) {
        Ok(u) => u,
        Err(url::ParseError::RelativeUrlWithoutBase) => base?.join(href).ok()?,
        Err(_) => return None,
    };
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}
