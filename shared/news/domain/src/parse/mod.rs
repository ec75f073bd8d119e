//! Feed documents (RSS 0.9x/1.0/2.0, Atom, JSON Feed) turned into plain-text entries.
//!
//! feed-rs reads the document. Before it does, `prepare` transcodes it to UTF-8 and checks
//! the bounds feed-rs does not enforce (nesting depth, element count) and the inputs it would
//! panic on; feed-rs's timestamps fall back to our lenient reading (`date`) where its own
//! gives up. This module turns what feed-rs read into plain text: titles, summaries and
//! paragraphs through [`crate::html`], links made absolute, topics, images and guids.

mod date;
pub mod discover;
mod prepare;

use chrono::{DateTime, Utc};
use feed_rs::model::{Entry, Feed, Link};
use feed_rs::parser::{ParseErrorKind, ParseFeedError};
use serde::Serialize;
use url::Url;

use crate::html::{
    collapse_whitespace, first_image_src, html_to_paragraphs, html_to_text, text_to_paragraphs,
    truncate_words,
};
use crate::model::FeedKind;
use crate::topic::{normalise_topics, Topic};

pub use self::prepare::{MAX_DEPTH, MAX_NODES};
// OPML files are decoded as feeds are (byte-order mark, declaration, else UTF-8).
pub(crate) use self::prepare::{decode, line_and_column};

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
    pub kind: FeedKind,
    /// The WebSub hubs the feed names (`<link rel="hub">`, `atom:link rel="hub"`), absolute.
    pub hubs: Vec<String>,
    /// The feed's own address as it names it (`rel="self"`), absolute: its WebSub topic.
    pub self_url: Option<String>,
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
    let text = prepare::decode(body);
    let base = Url::parse(feed_url).ok();
    let (feed, extras) = read_document(&text, base.as_ref()).map_err(ParseError::NotAFeed)?;

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
        .map(|(i, entry)| convert_entry(entry, &feed, extras.of(i), base.as_ref()))
        .collect();

    let linked = |rel: &'static str| {
        feed.links
            .iter()
            .filter(move |l| {
                l.rel
                    .as_deref()
                    .is_some_and(|r| r.eq_ignore_ascii_case(rel))
            })
            .filter_map(|l| absolute(&l.href, base.as_ref()))
    };
    let mut hubs: Vec<String> = Vec::new();
    for hub in linked("hub") {
        if !hubs.contains(&hub) {
            hubs.push(hub);
        }
    }
    let self_url = linked("self").next();
    let kind = match feed.feed_type {
        feed_rs::model::FeedType::Atom => FeedKind::Atom,
        feed_rs::model::FeedType::JSON => FeedKind::Json,
        _ => FeedKind::Rss,
    };

    Ok(ParsedFeed {
        title,
        site_url,
        description,
        entries,
        kind,
        hubs,
        self_url,
    })
}

/// What feed-rs does not read, by entry: the JSON Feed items' images, and the MediaRSS
/// thumbnails it drops (see [`prepare::Scan::thumbnails`]).
#[derive(Debug, Default)]
struct Extras {
    json_images: Vec<Option<String>>,
    thumbnails: Vec<Vec<String>>,
}

/// The extras of one entry.
#[derive(Debug, Default, Clone, Copy)]
struct EntryExtras<'a> {
    json_image: Option<&'a str>,
    thumbnails: &'a [String],
}

impl Extras {
    fn of(&self, entry: usize) -> EntryExtras<'_> {
        EntryExtras {
            json_image: self.json_images.get(entry).and_then(Option::as_deref),
            thumbnails: self.thumbnails.get(entry).map_or(&[], Vec::as_slice),
        }
    }
}

/// Reads the document in whichever format it is in, with the extras; the reason when it is
/// in none.
fn read_document(text: &str, base: Option<&Url>) -> Result<(Feed, Extras), String> {
    match sniff(text)? {
        Syntax::Json => {
            let scan = prepare::scan_json(text)?;
            let feed = feed_parser(base)
                .parse(text.as_bytes())
                .map_err(|e| reason(e, None))?;
            let extras = Extras {
                json_images: scan.images,
                thumbnails: Vec::new(),
            };
            Ok((feed, extras))
        }
        Syntax::Xml => {
            let text = prepare::without_declaration(text);
            let scan = prepare::scan_xml(&text, base)?;
            let feed = feed_parser(base)
                .parse(text.as_bytes())
                .map_err(|e| reason(e, scan.malformed))?;
            // The scan finds entries as feed-rs does; when it does not, its thumbnails are
            // left out rather than given to the wrong entries.
            let thumbnails = if scan.thumbnails.len() == feed.entries.len() {
                scan.thumbnails
            } else {
                Vec::new()
            };
            let extras = Extras {
                json_images: Vec::new(),
                thumbnails,
            };
            Ok((feed, extras))
        }
    }
}

/// feed-rs, with our timestamp fallback and without its generated ids (a hash of link and
/// title, else a random UUID: entries without an id get ours, see [`entry_guid`]).
fn feed_parser(base: Option<&Url>) -> feed_rs::parser::Parser {
    feed_rs::parser::Builder::new()
        .base_uri(base.map(Url::as_str))
        .id_generator(|_, _, _| String::new())
        .timestamp_parser(date::timestamp)
        .build()
}

/// Why feed-rs refused a document; `malformed` is where our scan found the XML broken.
fn reason(error: ParseFeedError, malformed: Option<String>) -> String {
    match error {
        ParseFeedError::ParseError(ParseErrorKind::NoFeedRoot) => {
            "no <rss>, <feed>, <rdf:RDF> or JSON Feed root was found".into()
        }
        ParseFeedError::ParseError(kind) => format!("the feed is malformed: {kind}"),
        ParseFeedError::JsonSerde(e) => format!("the JSON document is not a JSON Feed ({e})"),
        ParseFeedError::JsonUnsupportedVersion(version) => {
            format!("the JSON document is not a JSON Feed (version {version:?})")
        }
        ParseFeedError::XmlReader(e) => {
            malformed.unwrap_or_else(|| format!("the XML is malformed: {e}"))
        }
        ParseFeedError::IoError(e) => format!("the document could not be read: {e}"),
    }
}

enum Syntax {
    Xml,
    Json,
}

/// Quick checks that give a clearer reason than the parsers would.
fn sniff(text: &str) -> Result<Syntax, String> {
    let head = text.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\u{FEFF}');
    if head.is_empty() {
        return Err("the document is empty".into());
    }
    let prefix: String = head
        .chars()
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    if prefix.starts_with("<!doctype html") || prefix.starts_with("<html") {
        return Err(prepare::NOT_HTML.into());
    }
    match head.chars().next() {
        Some('<') => Ok(Syntax::Xml),
        Some('{') => Ok(Syntax::Json),
        _ => Err("the document is neither XML nor JSON".into()),
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

/// Whether a text is plain or markup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextKind {
    Plain,
    /// HTML (escaped or CDATA) or re-serialised XHTML.
    Html,
}

/// A text of an entry: its content and kind.
#[derive(Debug, Clone, Copy)]
struct Body<'a> {
    content: &'a str,
    kind: TextKind,
}

/// The kind of text a media type names; `None` for media that is not text (base64 images).
fn text_kind(media_type: &str) -> Option<TextKind> {
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "text/plain" => Some(TextKind::Plain),
        // feed-rs names Atom XHTML `application/xhtml`.
        "text/html" | "application/xhtml" | "application/xhtml+xml" => Some(TextKind::Html),
        e if e.ends_with("+xml") || e.ends_with("/xml") => Some(TextKind::Html),
        e if e.starts_with("text/") => Some(TextKind::Plain),
        _ => None,
    }
}

fn convert_entry(
    entry: &Entry,
    feed: &Feed,
    extras: EntryExtras<'_>,
    base: Option<&Url>,
) -> ParsedEntry {
    let link = entry_link(entry, base);
    // Links inside the body are relative to the article, else to the feed.
    let link_url = link.as_deref().and_then(|l| Url::parse(l).ok());
    let content_base = link_url.as_ref().or(base);

    // Content elsewhere (Atom `src`: no body) and media that is not text give no body.
    let body = entry.content.as_ref().and_then(|c| {
        Some(Body {
            content: c.body.as_deref()?,
            kind: text_kind(c.content_type.as_str())?,
        })
    });
    let summary_text = entry.summary.as_ref().map(|t| Body {
        content: &t.content,
        kind: text_kind(t.content_type.as_str()).unwrap_or(TextKind::Html),
    });

    let paragraphs = entry_paragraphs(body, summary_text);
    let summary = entry_summary(summary_text, &paragraphs);
    let title = entry_title(entry, summary.as_deref(), &paragraphs);
    let author = entry_author(entry, feed);

    let published_at = entry.published.or(entry.updated);

    let topics = normalise_topics(entry.categories.iter().map(|c| {
        c.label
            .as_deref()
            .filter(|l| !l.trim().is_empty())
            .unwrap_or(&c.term)
    }));

    let image_url = entry_image(entry, extras, [body, summary_text], base, content_base);

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

/// The entry's link, absolute: its first alternate link that is not an attachment, else
/// its first alternate link.
fn entry_link(entry: &Entry, base: Option<&Url>) -> Option<String> {
    entry
        .links
        .iter()
        .filter(|l| is_alternate(l) && !is_attachment(l))
        .chain(entry.links.iter().filter(|l| is_alternate(l)))
        .find_map(|l| absolute(&l.href, base))
}

/// The entry's paragraphs: its body's, else its summary's.
fn entry_paragraphs(body: Option<Body<'_>>, summary_text: Option<Body<'_>>) -> Vec<String> {
    let paragraphs = match body {
        Some(body) if !body.content.trim().is_empty() => text_paragraphs(body),
        _ => summary_text.map(text_paragraphs).unwrap_or_default(),
    };
    if paragraphs.is_empty() {
        summary_text.map(text_paragraphs).unwrap_or_default()
    } else {
        paragraphs
    }
}

/// The entry's summary, cut to [`MAX_SUMMARY_CHARS`]: its summary's text, else its
/// paragraphs'.
fn entry_summary(summary_text: Option<Body<'_>>, paragraphs: &[String]) -> Option<String> {
    let summary_source = summary_text
        .map(|t| text_paragraphs(t).join(" "))
        .filter(|s| !s.is_empty())
        .or_else(|| Some(paragraphs.join(" ")).filter(|s| !s.is_empty()));
    summary_source.map(|s| truncate_words(&s, MAX_SUMMARY_CHARS))
}

/// The entry's title as text; without one, the start of its summary or first paragraph,
/// else "Untitled".
fn entry_title(entry: &Entry, summary: Option<&str>, paragraphs: &[String]) -> String {
    entry
        .title
        .as_ref()
        .map(|t| html_to_text(&t.content))
        .filter(|t| !t.is_empty())
        .or_else(|| {
            summary
                .or(paragraphs.first().map(String::as_str))
                .map(|s| truncate_words(s, MAX_FALLBACK_TITLE_CHARS))
        })
        .unwrap_or_else(|| "Untitled".to_string())
}

/// The first name (without surrounding parentheses) or address of the entry's authors,
/// else of the feed's.
fn entry_author(entry: &Entry, feed: &Feed) -> Option<String> {
    entry
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
        .filter(|n| !n.is_empty())
}

fn text_paragraphs(text: Body<'_>) -> Vec<String> {
    if text.kind == TextKind::Plain && !looks_like_html(text.content) {
        text_to_paragraphs(text.content)
    } else {
        html_to_paragraphs(text.content)
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

/// The entry's picture, first found of: a MediaRSS thumbnail (else `itunes:image`), the JSON
/// Feed `image` (else `banner_image`), an image `media:content` or `enclosure`, an image link
/// (Atom enclosure, JSON Feed attachment), the first `<img>` of the body or summary.
fn entry_image(
    entry: &Entry,
    extras: EntryExtras<'_>,
    texts: [Option<Body<'_>>; 2],
    feed_base: Option<&Url>,
    content_base: Option<&Url>,
) -> Option<String> {
    // The scan's MediaRSS thumbnails, then feed-rs's (MediaRSS, then `itunes:image`).
    let thumbnail = || {
        let scanned = extras.thumbnails.iter().map(String::as_str);
        let read = entry.media.iter().flat_map(|m| m.thumbnails.iter());
        scanned
            .chain(read.map(|t| t.image.uri.as_str()))
            .find_map(|t| absolute(t, feed_base))
    };
    let json_image = || extras.json_image.and_then(|i| absolute(i, feed_base));
    let media_image = || {
        entry
            .media
            .iter()
            .flat_map(|m| m.content.iter())
            .find_map(|c| {
                let url = c.url.as_ref()?;
                let is_image = match &c.content_type {
                    Some(t) => t.ty().as_str().eq_ignore_ascii_case("image"),
                    None => has_image_extension(url.path()),
                };
                is_image
                    .then(|| absolute(url.as_str(), feed_base))
                    .flatten()
            })
    };
    let linked_image = || {
        entry.links.iter().find_map(|l| {
            let image_type = l
                .media_type
                .as_deref()
                .is_some_and(|t| t.trim().to_ascii_lowercase().starts_with("image/"));
            let enclosure = matches!(l.rel.as_deref(), None | Some("enclosure"));
            if image_type && enclosure {
                absolute(&l.href, feed_base)
            } else {
                None
            }
        })
    };
    let inline_image = || {
        texts
            .iter()
            .flatten()
            .filter_map(|t| first_image_src(t.content))
            .find_map(|src| absolute(&src, content_base))
    };
    thumbnail()
        .or_else(json_image)
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

/// A link to the page itself: no `rel` (RSS, JSON Feed) or `alternate` (Atom), and not one of
/// the comment links feed-rs adds (`comments`, `wfw:commentRss`).
fn is_alternate(link: &Link) -> bool {
    link.target.is_none() && matches!(link.rel.as_deref(), None | Some("alternate"))
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
