//! OPML 2.0 documents: reading a subscription list another reader exported, and writing the
//! person's own.
//!
//! Reading is one pass of quick-xml's streaming reader over the decoded text (no tree, time
//! linear in the file): the root must be `<opml>`, outlines nest at most [`MAX_NESTING`]
//! deep, and at most [`MAX_FEED_OUTLINES`] outlines name a feed. Entities are never expanded:
//! a `<!DOCTYPE>` declaring any is refused, and a reference to one that is not XML's own is
//! malformed, so an "XML bomb" costs its bytes and no more.
//!
//! What other readers export, and how each is read:
//! - a feed is an outline with an `xmlUrl` (any case: `xmlurl`, `XMLURL`), whatever its
//!   `type` (`rss`, `atom`, none); its title is `title`, else `text`; `htmlUrl` is its site;
//! - outlines around it are folders (Miniflux, FreshRSS, Feedly, Inoreader nest one level;
//!   others deeper): every enclosing folder's name (`title`, else `text`) becomes a label;
//! - its `category` attribute (OPML 2.0: comma-separated `/`-paths, `/Tech/Rust,news`) adds
//!   every path segment as a label;
//! - the same feed in several folders (by its normalised URL) is one feed with each folder's
//!   label, as it appears in the file first;
//! - an outline with neither `xmlUrl` nor children (a link, an empty folder) is skipped.
//!
//! Label names are cleaned as the reader stores them: control characters dropped, `/`
//! (which stream ids embed) made `-`, spaces trimmed, at most [`MAX_LABEL_CHARS`]
//! characters, at most [`MAX_LABELS_PER_FEED`] a feed (the rest are left out and said so).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use platform::Invalid;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::parse::{decode, line_and_column};
use crate::url::normalise_feed_url;

/// The largest file accepted, in bytes.
pub const MAX_OPML_BYTES: usize = 1024 * 1024;
/// Outlines naming a feed accepted in one file (repeats of one feed count each time).
pub const MAX_FEED_OUTLINES: usize = 1_000;
/// Deepest nesting of outlines; exports nest one or two folders.
pub const MAX_NESTING: usize = 32;
/// Labels of one subscription, and the characters of one label name (the reader's own caps).
pub const MAX_LABELS_PER_FEED: usize = 10;
pub const MAX_LABEL_CHARS: usize = 100;
/// Longest title kept from the file, in characters.
pub const MAX_TITLE_CHARS: usize = 500;

/// The field of a file that cannot be read at all.
pub const FILE_FIELD: &str = "file";
/// The field of a file with too many (or no) feeds.
pub const OUTLINES_FIELD: &str = "outlines";

/// One feed of an imported file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpmlFeed {
    /// The `xmlUrl` as written (trimmed).
    pub url: String,
    /// `title`, else `text`; empty when the outline has neither.
    pub title: String,
    /// The labels, in the order met: enclosing folders first, then categories.
    pub labels: Vec<String>,
    /// Labels past [`MAX_LABELS_PER_FEED`] left out.
    pub labels_left_out: usize,
}

/// What an imported file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpmlDocument {
    /// Each feed once, in the order of its first outline.
    pub feeds: Vec<OpmlFeed>,
    /// Outlines that named a feed, repeats included.
    pub feed_outlines: usize,
}

/// An outline open during the read: a folder's label, or none (a feed with children).
type Frame = Option<String>;

/// Reads an OPML file; a file that is too large, is not XML, is not OPML, declares entities
/// or names no feed is refused naming `file`, one with too many feeds naming `outlines`.
pub fn parse_opml(bytes: &[u8]) -> Result<OpmlDocument, Invalid> {
    if bytes.len() > MAX_OPML_BYTES {
        return Err(Invalid::field(
            FILE_FIELD,
            format!("must be at most 1 MiB ({MAX_OPML_BYTES} bytes)"),
        ));
    }
    let text = decode(bytes);
    let mut reader = Reader::from_str(&text);
    reader.config_mut().trim_text(true);
    let malformed = |at: u64, reason: String| {
        let at = usize::try_from(at).unwrap_or(usize::MAX);
        Invalid::field(
            FILE_FIELD,
            format!(
                "is not well-formed XML at {}: {reason}",
                line_and_column(&text, at)
            ),
        )
    };

    let mut document = OpmlDocument::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut open: Vec<Frame> = Vec::new();
    let mut root = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| malformed(reader.error_position(), e.to_string()))?;
        match event {
            Event::Start(ref start) | Event::Empty(ref start) => {
                let empty = matches!(event, Event::Empty(_));
                let name = start.local_name();
                let name = name.as_ref();
                if !root {
                    if !name.eq_ignore_ascii_case("opml") {
                        return Err(not_opml());
                    }
                    root = true;
                    if !empty {
                        open.push(None);
                    }
                    continue;
                }
                if open.len() > MAX_NESTING {
                    return Err(Invalid::field(
                        FILE_FIELD,
                        format!("nests outlines more than {MAX_NESTING} deep"),
                    ));
                }
                let frame = if name.eq_ignore_ascii_case("outline") {
                    let outline = read_outline(start)
                        .map_err(|reason| malformed(reader.buffer_position(), reason))?;
                    match outline.xml_url {
                        Some(url) => {
                            document.feed_outlines += 1;
                            if document.feed_outlines > MAX_FEED_OUTLINES {
                                return Err(Invalid::field(
                                    OUTLINES_FIELD,
                                    format!(
                                        "at most {MAX_FEED_OUTLINES} feed outlines (xmlUrl) a file"
                                    ),
                                ));
                            }
                            let folders = open.iter().flatten().cloned();
                            let labels = folders.chain(outline.categories).collect();
                            add_feed(&mut document, &mut seen, url, outline.title, labels);
                            None
                        }
                        None => outline.title.map(|t| label(&t)).filter(|l| !l.is_empty()),
                    }
                } else {
                    None
                };
                if !empty {
                    open.push(frame);
                }
            }
            Event::End(_) => {
                open.pop();
            }
            Event::DocType(doctype) => {
                if doctype
                    .xml10_content()
                    .to_ascii_uppercase()
                    .contains("<!ENTITY")
                {
                    return Err(Invalid::field(
                        FILE_FIELD,
                        "declares entities (<!ENTITY>), which are not accepted",
                    ));
                }
            }
            Event::GeneralRef(reference) => {
                // Text is never used, but an undefined entity is malformed wherever it is.
                let known = matches!(reference.resolve_char_ref(), Ok(Some(_)))
                    || quick_xml::escape::resolve_predefined_entity(&reference).is_some();
                if !known {
                    return Err(malformed(
                        reader.buffer_position(),
                        "a reference to an undefined entity".into(),
                    ));
                }
            }
            Event::Eof => {
                if !root {
                    return Err(not_opml());
                }
                if !open.is_empty() {
                    return Err(malformed(
                        reader.buffer_position(),
                        "the file ends before </opml>".into(),
                    ));
                }
                break;
            }
            Event::Decl(_)
            | Event::Text(_)
            | Event::CData(_)
            | Event::Comment(_)
            | Event::PI(_) => {}
        }
    }
    if document.feeds.is_empty() {
        return Err(Invalid::field(
            OUTLINES_FIELD,
            "the file has no feed outline (an <outline> with an xmlUrl)",
        ));
    }
    Ok(document)
}

fn not_opml() -> Invalid {
    Invalid::field(
        FILE_FIELD,
        "is not an OPML document (its root element must be <opml>)",
    )
}

/// What one `<outline>` says.
struct Outline {
    xml_url: Option<String>,
    /// `title`, else `text`.
    title: Option<String>,
    /// The labels of its `category` attribute.
    categories: Vec<String>,
}

fn read_outline(start: &BytesStart<'_>) -> Result<Outline, String> {
    let mut xml_url = None;
    let mut title = None;
    let mut text = None;
    let mut categories = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| e.to_string())?;
        let key = attribute.key.local_name();
        let key = key.as_ref();
        let value = || -> Result<String, String> {
            let value = quick_xml::escape::unescape(&attribute.value).map_err(|e| e.to_string())?;
            Ok(value.trim().to_string())
        };
        if key.eq_ignore_ascii_case("xmlUrl") {
            xml_url = Some(value()?).filter(|v| !v.is_empty());
        } else if key.eq_ignore_ascii_case("title") {
            title = Some(value()?).filter(|v| !v.is_empty());
        } else if key.eq_ignore_ascii_case("text") {
            text = Some(value()?).filter(|v| !v.is_empty());
        } else if key.eq_ignore_ascii_case("category") {
            categories = value()?
                .split(',')
                .flat_map(|path| path.split('/'))
                .map(label)
                .filter(|l| !l.is_empty())
                .collect();
        }
    }
    Ok(Outline {
        xml_url,
        title: title.or(text),
        categories,
    })
}

/// Adds a feed, or its labels to the feed already read with the same normalised URL.
fn add_feed(
    document: &mut OpmlDocument,
    seen: &mut HashMap<String, usize>,
    url: String,
    title: Option<String>,
    labels: Vec<String>,
) {
    let key = normalise_feed_url(&url).unwrap_or_else(|_| url.clone());
    let index = *seen.entry(key).or_insert_with(|| {
        document.feeds.push(OpmlFeed {
            url,
            title: String::new(),
            labels: Vec::new(),
            labels_left_out: 0,
        });
        document.feeds.len() - 1
    });
    let Some(feed) = document.feeds.get_mut(index) else {
        return;
    };
    if feed.title.is_empty() {
        feed.title = clean(title.as_deref().unwrap_or_default(), MAX_TITLE_CHARS);
    }
    for label in labels {
        if feed.labels.contains(&label) {
            continue;
        }
        if feed.labels.len() < MAX_LABELS_PER_FEED {
            feed.labels.push(label);
        } else {
            feed.labels_left_out += 1;
        }
    }
}

/// A label name as the reader stores it.
fn label(raw: &str) -> String {
    clean(&raw.replace('/', "-"), MAX_LABEL_CHARS)
}

/// `raw` without control characters, its runs of white space one space, trimmed, at most
/// `max` characters.
fn clean(raw: &str, max: usize) -> String {
    let words = raw
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty());
    let mut out = String::new();
    for word in words {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    match out.char_indices().nth(max) {
        Some((end, _)) => out.get(..end).unwrap_or_default().trim_end().to_string(),
        None => out,
    }
}

/// One subscription of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportFeed {
    pub title: String,
    pub xml_url: String,
    pub html_url: Option<String>,
    pub labels: Vec<String>,
}

/// The person's subscriptions as OPML 2.0: a folder per label (by name) holding its feeds
/// (by title), a feed with several labels in each of their folders, and the feeds without a
/// label after the folders. [`parse_opml`] reads it back to the same feeds and labels.
pub fn write_opml(title: &str, created: DateTime<Utc>, feeds: &[ExportFeed]) -> String {
    let mut by_label: std::collections::BTreeMap<&str, Vec<&ExportFeed>> = Default::default();
    let mut unlabelled = Vec::new();
    for feed in feeds {
        if feed.labels.is_empty() {
            unlabelled.push(feed);
        }
        for label in &feed.labels {
            by_label.entry(label.as_str()).or_default().push(feed);
        }
    }
    let by_title = |a: &&ExportFeed, b: &&ExportFeed| {
        (a.title.to_lowercase(), &a.xml_url).cmp(&(b.title.to_lowercase(), &b.xml_url))
    };
    let mut out = String::with_capacity(256 + feeds.len() * 256);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  <head>\n");
    out.push_str(&format!(
        "    <title>{}</title>\n    <dateCreated>{}</dateCreated>\n  </head>\n  <body>\n",
        xml_text(title),
        created.to_rfc2822()
    ));
    for (label, mut members) in by_label {
        members.sort_by(by_title);
        let name = xml_text(label);
        out.push_str(&format!("    <outline text=\"{name}\" title=\"{name}\">\n"));
        for feed in members {
            write_feed(&mut out, feed, "      ");
        }
        out.push_str("    </outline>\n");
    }
    unlabelled.sort_by(by_title);
    for feed in unlabelled {
        write_feed(&mut out, feed, "    ");
    }
    out.push_str("  </body>\n</opml>\n");
    out
}

fn write_feed(out: &mut String, feed: &ExportFeed, indent: &str) {
    let title = xml_text(&feed.title);
    out.push_str(&format!(
        "{indent}<outline type=\"rss\" text=\"{title}\" title=\"{title}\" xmlUrl=\"{}\"",
        xml_text(&feed.xml_url)
    ));
    if let Some(site) = &feed.html_url {
        out.push_str(&format!(" htmlUrl=\"{}\"", xml_text(site)));
    }
    out.push_str("/>\n");
}

/// `raw` escaped for an attribute or text, without the characters XML 1.0 cannot hold.
fn xml_text(raw: &str) -> String {
    let allowed: String = raw
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect();
    quick_xml::escape::escape(allowed.as_str()).into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn field(result: Result<OpmlDocument, Invalid>) -> (String, String) {
        let error = result.unwrap_err();
        let first = &error.errors()[0];
        (first.field.clone(), first.reason.clone())
    }

    #[test]
    fn reads_nested_folders_categories_and_repeats() {
        let file = br#"<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>Feeds</title></head>
  <body>
    <outline text="Tech" title="Tech">
      <outline text="Rust">
        <outline type="rss" text="This Week in Rust" xmlUrl="https://this-week-in-rust.org/rss.xml" htmlUrl="https://this-week-in-rust.org/"/>
      </outline>
      <outline type="rss" text="LWN" title="LWN.net" xmlUrl="https://lwn.net/headlines/rss" category="/News/Linux,weekly"/>
    </outline>
    <outline text="Favourites">
      <outline xmlurl="https://LWN.net/headlines/rss" text="again"/>
    </outline>
    <outline type="link" text="a page" url="https://example.org/"/>
    <outline xmlUrl="https://example.org/feed" text="A &amp; B"/>
  </body>
</opml>"#;
        let document = parse_opml(file).unwrap();
        assert_eq!(document.feed_outlines, 4);
        assert_eq!(document.feeds.len(), 3);
        assert_eq!(document.feeds[0].title, "This Week in Rust");
        assert_eq!(document.feeds[0].labels, ["Tech", "Rust"]);
        assert_eq!(document.feeds[1].url, "https://lwn.net/headlines/rss");
        assert_eq!(document.feeds[1].title, "LWN.net");
        assert_eq!(
            document.feeds[1].labels,
            ["Tech", "News", "Linux", "weekly", "Favourites"]
        );
        assert_eq!(document.feeds[2].title, "A & B");
        assert!(document.feeds[2].labels.is_empty());
    }

    #[test]
    fn reads_other_encodings_and_heads() {
        let mut file = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<opml version=\"1.0\"><body><outline text=\"Caf".to_vec();
        file.push(0xE9);
        file.extend_from_slice(
            b"\"><outline xmlUrl=\"https://example.org/f\"/></outline></body></opml>",
        );
        let document = parse_opml(&file).unwrap();
        assert_eq!(document.feeds[0].labels, ["Café"]);
    }

    #[test]
    fn cleans_label_names_and_caps_their_number() {
        let folders: String = (0..12)
            .map(|i| format!("<outline text=\"F{i}\">"))
            .collect();
        let closes = "</outline>".repeat(12);
        let file = format!(
            "<opml><body><outline text=\" a/b \u{7}c  d \">{folders}<outline xmlUrl=\"https://e.org/f\"/>{closes}</outline></body></opml>"
        );
        let document = parse_opml(file.as_bytes()).unwrap();
        let feed = &document.feeds[0];
        assert_eq!(feed.labels[0], "a-b c d");
        assert_eq!(feed.labels.len(), MAX_LABELS_PER_FEED);
        assert_eq!(feed.labels_left_out, 3);
    }

    #[test]
    fn refuses_what_is_not_opml() {
        assert_eq!(field(parse_opml(b"{\"feeds\": []}")).0, "file");
        assert_eq!(field(parse_opml(b"<rss><channel/></rss>")).0, "file");
        assert_eq!(field(parse_opml(b"")).0, "file");
        let (name, reason) = field(parse_opml(
            b"<opml><body><outline xmlUrl=\"x\"></body></opml>",
        ));
        assert_eq!(name, "file");
        assert!(reason.contains("not well-formed"), "{reason}");
        assert_eq!(
            field(parse_opml(
                b"<opml><body><outline text=\"empty\"/></body></opml>"
            ))
            .0,
            "outlines"
        );
    }

    #[test]
    fn refuses_entities_and_bombs() {
        let bomb = br#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<opml><body><outline text="&lol2;" xmlUrl="https://e.org/f"/></body></opml>"#;
        let (name, reason) = field(parse_opml(bomb));
        assert_eq!(name, "file");
        assert!(reason.contains("entities"), "{reason}");
        let undefined =
            br#"<opml><body><outline text="&lol2;" xmlUrl="https://e.org/f"/></body></opml>"#;
        assert_eq!(field(parse_opml(undefined)).0, "file");
        let in_text = br#"<opml><head><title>&lol2;</title></head><body><outline xmlUrl="https://e.org/f"/></body></opml>"#;
        assert_eq!(field(parse_opml(in_text)).0, "file");
    }

    #[test]
    fn bounds_size_outlines_and_nesting() {
        let too_big = vec![b' '; MAX_OPML_BYTES + 1];
        assert_eq!(field(parse_opml(&too_big)).0, "file");
        let many: String = (0..=MAX_FEED_OUTLINES)
            .map(|i| format!("<outline xmlUrl=\"https://e.org/{i}\"/>"))
            .collect();
        let file = format!("<opml><body>{many}</body></opml>");
        assert_eq!(field(parse_opml(file.as_bytes())).0, "outlines");
        let deep = format!(
            "<opml><body>{}<outline xmlUrl=\"https://e.org/f\"/>{}</body></opml>",
            "<outline text=\"d\">".repeat(MAX_NESTING + 1),
            "</outline>".repeat(MAX_NESTING + 1)
        );
        assert_eq!(field(parse_opml(deep.as_bytes())).0, "file");
    }

    #[test]
    fn an_export_reads_back_to_the_same_feeds_and_labels() {
        let feeds = vec![
            ExportFeed {
                title: "Rust <Blog> & \"news\"".into(),
                xml_url: "https://blog.rust-lang.org/feed.xml?a=1&b=2".into(),
                html_url: Some("https://blog.rust-lang.org/".into()),
                labels: vec!["Tech".into(), "Rust".into()],
            },
            ExportFeed {
                title: "Loose".into(),
                xml_url: "https://loose.example/rss".into(),
                html_url: None,
                labels: vec![],
            },
        ];
        let written = write_opml("Subscriptions", Utc::now(), &feeds);
        let read = parse_opml(written.as_bytes()).unwrap();
        assert_eq!(read.feeds.len(), 2);
        let rust = read
            .feeds
            .iter()
            .find(|f| f.url == feeds[0].xml_url)
            .unwrap();
        assert_eq!(rust.title, feeds[0].title);
        let mut labels = rust.labels.clone();
        labels.sort();
        assert_eq!(labels, ["Rust", "Tech"]);
        let loose = read.feeds.iter().find(|f| f.title == "Loose").unwrap();
        assert!(loose.labels.is_empty());
    }
}
