//! What happens to a document before feed-rs reads it: transcoding to UTF-8, the bounds
//! feed-rs does not enforce, and the inputs known to make feed-rs 3.0 panic (a panic aborts a
//! function: its release profile has `panic = "abort"`), refused as not a feed instead.
//!
//! XML is scanned once with quick-xml's reader (no tree is built, time linear in the
//! document): nesting deeper than [`MAX_DEPTH`] and more than [`MAX_NODES`] elements and
//! attributes are refused, as is an XML declaration anywhere but at the start. The scan also
//! gives a malformed document's line and column, which feed-rs's errors lack. JSON is read
//! into a `serde_json::Value` (serde_json's recursion limit bounds its depth) for the same
//! checks and for the item images feed-rs does not read.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use regex::Regex;
use serde_json::Value;
use url::Url;

/// Deepest element nesting accepted; real feeds, XHTML content included, stay far below.
pub const MAX_DEPTH: usize = 256;
/// Elements and attributes accepted per document: a 5 MB feed of real articles has tens of
/// thousands, a flood of `<x/>` over a million (which feed-rs would turn into as many values).
pub const MAX_NODES: usize = 400_000;
/// Namespace declarations in scope at once: quick-xml's own limit, which feed-rs does not
/// report as such.
const MAX_NAMESPACE_BINDINGS: usize = quick_xml::name::DEFAULT_MAX_NAMESPACE_BINDINGS;
/// Longest run of digits accepted in a time feed-rs reads as "normal play time"
/// (`itunes:duration`, `media:text` `start`/`end`, `media:thumbnail` `time`).
const MAX_TIME_DIGITS: usize = 15;

pub(super) const NOT_HTML: &str = "the document is an HTML page, not a feed";

/// The document as UTF-8: the encoding comes from the byte-order mark, else from the XML
/// declaration, else UTF-8; bytes that do not decode become U+FFFD.
pub(crate) fn decode(body: &[u8]) -> Cow<'_, str> {
    let (encoding, start) = match Encoding::for_bom(body) {
        Some((encoding, bom)) => (encoding, bom),
        // UTF-16 without a byte-order mark still starts with "<?".
        None if body.starts_with(&[b'<', 0, b'?', 0]) => (UTF_16LE, 0),
        None if body.starts_with(&[0, b'<', 0, b'?']) => (UTF_16BE, 0),
        None => {
            let declared = declared_encoding(body).and_then(|l| Encoding::for_label(l.as_bytes()));
            // An ASCII-readable declaration cannot really be UTF-16: the label is wrong.
            let encoding = declared
                .filter(|e| *e != UTF_16LE && *e != UTF_16BE)
                .unwrap_or(UTF_8);
            (encoding, 0)
        }
    };
    let rest = body.get(start..).unwrap_or_default();
    encoding.decode_without_bom_handling(rest).0
}

/// The `encoding` of an `<?xml ...?>` declaration at the start of an ASCII-compatible document.
fn declared_encoding(body: &[u8]) -> Option<String> {
    let head = body.get(..body.len().min(512))?;
    let head = String::from_utf8_lossy(head);
    let decl = head.trim_start().strip_prefix("<?xml")?;
    let decl = decl.get(..decl.find("?>")?)?;
    let after = decl.get(decl.find("encoding")? + "encoding".len()..)?;
    let after = after.trim_start().strip_prefix('=')?.trim_start();
    let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = after.get(1..)?;
    Some(value.get(..value.find(quote)?)?.trim().to_string())
}

/// The document with its leading XML declaration blanked out (spaces, so that lines and
/// columns stay where they were). The text is UTF-8 by now, whatever the declaration says,
/// and feed-rs would decode it again with the declared encoding.
pub(super) fn without_declaration(text: &str) -> Cow<'_, str> {
    let start = text.len() - text.trim_start().len();
    let rest = text.get(start..).unwrap_or_default();
    let is_declaration = rest.starts_with("<?xml")
        && rest
            .as_bytes()
            .get(5)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b'?');
    let Some(end) = rest.find("?>").filter(|_| is_declaration) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(text.get(..start).unwrap_or_default());
    // Newlines are kept; everything else of the declaration becomes a space.
    out.extend(rest.get(..end + 2).unwrap_or_default().chars().map(|c| {
        if c == '\n' {
            '\n'
        } else {
            ' '
        }
    }));
    out.push_str(rest.get(end + 2..).unwrap_or_default());
    Cow::Owned(out)
}

/// The outcome of scanning an XML document.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// Where and how the XML is malformed, when it is: the reason to give if feed-rs refuses
    /// the document (feed-rs has the last word: it may finish before it reaches the fault).
    pub malformed: Option<String>,
    /// The `media:thumbnail` URLs of each item or entry, then its `itunes:image`, in document
    /// order, resolved against `xml:base`: feed-rs 3.0 drops a thumbnail that comes without a
    /// `media:content` (the way most feeds give one) and an `itunes:image` that comes without
    /// other iTunes details.
    pub thumbnails: Vec<Vec<String>>,
}

/// An element open during the scan.
#[derive(Debug)]
struct Open {
    /// The qualified name.
    name: String,
    /// The element's `xml:base`, resolved, when it has one.
    base: Option<Url>,
    /// Whether it is an item or entry (its media thumbnails are collected).
    entry: bool,
    /// The namespaces it declares.
    bindings: usize,
}

/// Scans an XML document (already without its declaration) fetched from `base`; the reason
/// when it is refused.
pub(super) fn scan_xml(text: &str, base: Option<&Url>) -> Result<Scan, String> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(false);

    let mut scanner = Scanner {
        base,
        ..Scanner::default()
    };
    loop {
        let event = match reader.read_event() {
            Ok(event) => event,
            // Past the root, feed-rs reads at most one more event: a fault there is no fault.
            Err(_) if scanner.root_closed => break,
            Err(e) => {
                let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                scanner.scan.malformed = Some(format!(
                    "the XML is malformed at {}: {e}",
                    line_and_column(text, at)
                ));
                return Ok(scanner.scan);
            }
        };
        match event {
            Event::Start(ref start) | Event::Empty(ref start) => {
                scanner.start(start, matches!(event, Event::Empty(_)))?;
            }
            Event::End(_) => scanner.end()?,
            Event::Text(t) => {
                if let Some(text) = scanner.captured() {
                    text.push_str(&t.xml10_content());
                }
            }
            Event::CData(t) => {
                if let Some(text) = scanner.captured() {
                    text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                if let Some(text) = scanner.captured() {
                    match r.resolve_char_ref() {
                        Ok(Some(c)) => text.push(c),
                        Ok(None) => {
                            if let Some(s) = quick_xml::escape::resolve_predefined_entity(&r) {
                                text.push_str(s);
                            }
                        }
                        Err(_) => {}
                    }
                }
            }
            // feed-rs switches its decoder to the declared encoding, and panics when the
            // declaration comes after its first 64 bytes.
            Event::Decl(_) => {
                return Err("the document has an XML declaration after its start".into());
            }
            Event::Eof => {
                if let Some(element) = scanner.open.last() {
                    scanner.scan.malformed = Some(format!(
                        "the XML ends before <{}> is closed (at {})",
                        element.name,
                        line_and_column(text, text.len())
                    ));
                }
                break;
            }
            Event::Comment(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    Ok(scanner.scan)
}

/// What [`scan_xml`] knows between two events.
#[derive(Debug, Default)]
struct Scanner<'a> {
    /// Where the document was fetched from.
    base: Option<&'a Url>,
    scan: Scan,
    open: Vec<Open>,
    root: Option<String>,
    nodes: usize,
    root_closed: bool,
    /// The text of an element feed-rs reads as a person or a time, while it is being read.
    capture: Option<(Capture, String)>,
    /// The `itunes:image` of the entry being read: they come after its thumbnails.
    artwork: Vec<String>,
    /// Namespace bindings in scope: more than quick-xml allows make feed-rs refuse the
    /// document with a reason that does not say so.
    bindings: usize,
}

impl Scanner<'_> {
    /// A start tag (`empty`: self-closing): the root checked, the size bounds counted, its
    /// thumbnail or artwork collected, and the element opened unless it is empty.
    fn start(&mut self, start: &BytesStart<'_>, empty: bool) -> Result<(), String> {
        if let Some((kind, text)) = self.capture.take() {
            check_capture(kind, &text)?;
        }
        let local = local_name(start);
        if self.root.is_none() {
            if local.eq_ignore_ascii_case("html") {
                return Err(NOT_HTML.into());
            }
            self.root = Some(local.clone());
        }
        let attributes = read_attributes(start, &local)?;
        self.nodes += 1 + attributes.count;
        if self.nodes > MAX_NODES {
            return Err(format!(
                "the XML has more than {MAX_NODES} elements and attributes"
            ));
        }
        let parent_base = self
            .open
            .iter()
            .rev()
            .find_map(|o| o.base.as_ref())
            .or(self.base);
        let element_base = attributes
            .xml_base
            .as_deref()
            .and_then(|b| resolve(b, parent_base));
        let element_base_ref = element_base.as_ref().or(parent_base);
        if let (Some(url), Some(slot)) = (attributes.url, self.scan.thumbnails.last_mut()) {
            if self.open.iter().any(|o| o.entry) {
                let url = resolve(&url, element_base_ref).map_or(url, String::from);
                if local == "image" {
                    self.artwork.push(url);
                } else {
                    slot.push(url);
                }
            }
        }
        self.bindings += attributes.bindings;
        if self.bindings > MAX_NAMESPACE_BINDINGS {
            return Err(format!(
                "the XML declares more than {MAX_NAMESPACE_BINDINGS} namespaces at once"
            ));
        }
        if !empty {
            if self.open.len() >= MAX_DEPTH {
                return Err(format!("the XML nests elements more than {MAX_DEPTH} deep"));
            }
            let entry = is_entry(self.root.as_deref(), &self.open, &local);
            if entry {
                self.scan.thumbnails.push(Vec::new());
            }
            let name = start.name();
            let name: &str = name.as_ref();
            self.open.push(Open {
                name: name.to_string(),
                base: element_base,
                entry,
                bindings: attributes.bindings,
            });
            let prefixed = start.name().prefix().is_some();
            self.capture = Capture::of(&local, prefixed).map(|kind| (kind, String::new()));
        } else {
            self.bindings -= attributes.bindings;
        }
        Ok(())
    }

    /// An end tag: the element closed, an entry's artwork put after its thumbnails.
    fn end(&mut self) -> Result<(), String> {
        if let Some((kind, text)) = self.capture.take() {
            check_capture(kind, &text)?;
        }
        if let Some(closed) = self.open.pop() {
            self.bindings = self.bindings.saturating_sub(closed.bindings);
            if closed.entry {
                if let Some(slot) = self.scan.thumbnails.last_mut() {
                    slot.append(&mut self.artwork);
                }
            }
        }
        if self.open.is_empty() {
            self.root_closed = true;
        }
        Ok(())
    }

    /// The text being captured, while an element feed-rs reads as a person or a time is open.
    fn captured(&mut self) -> Option<&mut String> {
        self.capture.as_mut().map(|(_, text)| text)
    }
}

/// Whether an element named `local` opened inside `open` is one feed-rs reads as an entry:
/// an `item` of an RSS 2.0/0.9x channel or of an RSS 1.0 document, an `entry` of an Atom
/// feed, or the root of an Atom entry document.
fn is_entry(root: Option<&str>, open: &[Open], local: &str) -> bool {
    match (root, open.len(), local) {
        (Some("entry"), 0, "entry") => true,
        (Some("feed"), 1, "entry") | (Some("RDF"), 1, "item") => true,
        (Some("rss"), 2, "item") => open
            .get(1)
            .is_some_and(|c| c.name.rsplit(':').next() == Some("channel")),
        _ => false,
    }
}

/// `href` resolved against `base` (absolute as it is); `None` when it is no URL.
fn resolve(href: &str, base: Option<&Url>) -> Option<Url> {
    match Url::parse(href.trim()) {
        Ok(url) => Some(url),
        Err(url::ParseError::RelativeUrlWithoutBase) => base?.join(href.trim()).ok(),
        Err(_) => None,
    }
}

/// The local name of an element (`encoded` of `content:encoded`).
fn local_name(start: &BytesStart<'_>) -> String {
    let name = start.local_name();
    let name: &str = name.as_ref();
    name.to_string()
}

/// What the scan keeps of a start tag's attributes.
#[derive(Debug, Default)]
struct Attributes {
    count: usize,
    /// `xmlns` and `xmlns:*` declarations.
    bindings: usize,
    xml_base: Option<String>,
    /// `url` of a `media:thumbnail`, `href` of an `itunes:image`.
    url: Option<String>,
}

/// The attributes of a start tag (values unescaped as feed-rs unescapes them); refused when
/// one would make feed-rs panic.
fn read_attributes(start: &BytesStart<'_>, local: &str) -> Result<Attributes, String> {
    // `media:text` `start` and `end`, `media:thumbnail` `time` (whatever the prefix).
    let timed = matches!(local, "text" | "thumbnail");
    let mut out = Attributes::default();
    for attribute in start.attributes().with_checks(false).flatten() {
        out.count += 1;
        let key = attribute.key;
        let key: &str = key.as_ref();
        if key == "xmlns" || key.starts_with("xmlns:") {
            out.bindings += 1;
        }
        let wanted = match key {
            "xml:base" => true,
            "url" => local == "thumbnail",
            "href" => local == "image" && start.name().prefix().is_some(),
            "start" | "end" | "time" => timed,
            _ => false,
        };
        if !wanted {
            continue;
        }
        let value = quick_xml::escape::unescape(&attribute.value)
            .unwrap_or_else(|_| attribute.value.clone())
            .into_owned();
        match key {
            "xml:base" => out.xml_base = Some(value),
            "url" | "href" => out.url = Some(value),
            _ => check_time(&value)?,
        }
    }
    Ok(out)
}

/// Elements whose text feed-rs reads in a way that can panic.
#[derive(Debug, Clone, Copy)]
enum Capture {
    /// `author`, `managingEditor`, `webMaster`, `dc:creator`, `itunes:author`, `itunes:name`.
    Person,
    /// `itunes:duration`.
    Time,
}

impl Capture {
    /// The capture of an element with this local name, prefixed or not.
    fn of(local_name: &str, prefixed: bool) -> Option<Capture> {
        match local_name {
            "author" | "managingEditor" | "webMaster" | "creator" => Some(Capture::Person),
            // `itunes:name` (an Atom author's `name` is not read as "name <address>").
            "name" if prefixed => Some(Capture::Person),
            "duration" => Some(Capture::Time),
            _ => None,
        }
    }
}

fn check_capture(kind: Capture, text: &str) -> Result<(), String> {
    match kind {
        Capture::Person => check_person(text),
        Capture::Time => check_time(text),
    }
}

/// feed-rs 3.0 reads a time with `\d+` (any Unicode digit) and unwraps its parse as a `u64`:
/// a non-ASCII digit or an overlong number panics.
fn check_time(value: &str) -> Result<(), String> {
    let mut run = 0_usize;
    for c in value.chars() {
        if c.is_numeric() && !c.is_ascii_digit() {
            return Err(format!("the feed has an unreadable time {value:?}"));
        }
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        if run > MAX_TIME_DIGITS {
            return Err(format!("the feed has an unreadable time {value:?}"));
        }
    }
    Ok(())
}

/// feed-rs 3.0 splits "name <address>" around the address it finds with this expression, one
/// byte before or after the match: a panic when that byte is inside a character («a@b.org»).
fn check_person(raw: &str) -> Result<(), String> {
    static EMAIL: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let email = EMAIL.get_or_init(|| {
        Regex::new(r"\b(<\[\()?(mailto:)?([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})(>]\))?\b")
            .ok()
    });
    let Some(email) = email else { return Ok(()) };
    let Some(captures) = email.captures(raw) else {
        return Ok(());
    };
    let (Some(span), Some(_)) = (captures.get(0), captures.get(3)) else {
        return Ok(());
    };
    let before = span.start();
    let after = raw.len() - span.end();
    let cut = if before > after {
        Some(span.start() - 1)
    } else if span.end() < raw.len() {
        Some(span.end() + 1)
    } else {
        None
    };
    match cut {
        Some(cut) if !raw.is_char_boundary(cut) => {
            Err(format!("the feed has an unreadable person {raw:?}"))
        }
        _ => Ok(()),
    }
}

/// What the scan of a JSON document keeps: each item's image (`image`, else `banner_image`),
/// in the order of the items.
#[derive(Debug, Default)]
pub(super) struct JsonScan {
    pub images: Vec<Option<String>>,
}

/// Reads a JSON document; the reason when it is refused.
pub(super) fn scan_json(text: &str) -> Result<JsonScan, String> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| format!("the JSON document is not a JSON Feed ({e})"))?;
    let names = |v: &Value| -> Vec<String> {
        let one = v.get("author").into_iter();
        let many = v
            .get("authors")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        one.chain(many)
            .filter_map(|a| a.get("name").and_then(Value::as_str))
            .map(str::to_string)
            .collect()
    };
    for name in names(&value) {
        check_person(&name)?;
    }
    let mut scan = JsonScan::default();
    if let Some(items) = value.get("items").and_then(Value::as_array) {
        for item in items {
            for name in names(item) {
                check_person(&name)?;
            }
            let image = ["image", "banner_image"]
                .iter()
                .find_map(|k| item.get(*k).and_then(Value::as_str))
                .map(str::to_string);
            scan.images.push(image);
        }
    }
    Ok(scan)
}

/// "line L, column C" (1-based, columns in characters) of byte offset `at`.
pub(crate) fn line_and_column(text: &str, at: usize) -> String {
    let at = (0..=at.min(text.len()))
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    let before = text.get(..at).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declaration_blanked_in_place() {
        let text = "\n<?xml version=\"1.0\"\n encoding=\"ISO-8859-1\"?><rss/>";
        let blanked = without_declaration(text);
        assert_eq!(blanked.len(), text.len());
        assert!(blanked.ends_with("<rss/>"));
        assert_eq!(blanked.matches('\n').count(), 2);
        assert!(!blanked.contains("xml"));
        assert_eq!(without_declaration("<rss/>"), "<rss/>");
        assert_eq!(
            without_declaration("<?xml-stylesheet href=\"a\"?><rss/>"),
            "<?xml-stylesheet href=\"a\"?><rss/>"
        );
    }

    #[test]
    fn persons_feed_rs_would_cut_inside_a_character() {
        assert!(check_person("«ed@example.com»").is_err());
        assert!(check_person("Name Long—ed@example.com").is_err());
        for fine in [
            "Priya Raman",
            "ed@example.com (Ed)",
            "Jérôme <jerome@example.fr>",
            "José Pérez (jose@example.es)",
            "ed@example.com",
        ] {
            assert!(check_person(fine).is_ok(), "{fine}");
        }
    }

    #[test]
    fn times_feed_rs_would_fail_to_read() {
        assert!(check_time("٣").is_err());
        assert!(check_time("1234567890123456").is_err());
        for fine in ["01:02:03", "3600", "12.5", "", "about an hour"] {
            assert!(check_time(fine).is_ok(), "{fine}");
        }
    }
}
