//! Feed documents as a small element tree: transcoded to UTF-8, read with quick-xml, with the
//! namespaces feeds use resolved to [`Ns`].
//!
//! Built without recursion and in time linear in the document: attributes are not checked for
//! duplicates (quick-xml's check is quadratic in their number), namespace bindings are looked
//! up in a map, and nesting deeper than [`MAX_DEPTH`] is refused. Memory is bounded too (a
//! tree costs more than its text): at most [`MAX_ATTRIBUTES`] attributes are kept per element
//! and [`MAX_NODES`] elements and attributes per document.

use std::borrow::Cow;
use std::collections::HashMap;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// Deepest element nesting accepted; real feeds, XHTML content included, stay far below.
pub(super) const MAX_DEPTH: usize = 256;
/// Attributes (namespace declarations included) kept per element; the rest are skipped.
pub(super) const MAX_ATTRIBUTES: usize = 64;
/// Elements and attributes kept per document (~60 MB at most): a 5 MB feed of real articles
/// has tens of thousands, a flood of `<x/>` over a million.
pub(super) const MAX_NODES: usize = 400_000;

/// The document as UTF-8: the encoding comes from the byte-order mark, else from the XML
/// declaration, else UTF-8; bytes that do not decode become U+FFFD.
pub(super) fn decode(body: &[u8]) -> Cow<'_, str> {
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

/// The namespaces the readers care about. Elements are matched on (namespace, local name):
/// the namespace comes from the document's own `xmlns` declarations, by URI, whatever prefix
/// the feed chose; a prefix the document forgot to declare falls back to the usual prefix of
/// that namespace (`content:`, `dc:`, `media:`...), as feeds that forget are common.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ns {
    /// No namespace, an RSS namespace, or an unknown default namespace: the document's own
    /// vocabulary (RSS elements in RSS, Atom ones in Atom).
    Plain,
    Atom,
    Content,
    DublinCore,
    Media,
    Itunes,
    Rdf,
    /// Any other prefixed namespace: ignored.
    Other,
}

impl Ns {
    fn from_uri(uri: &str) -> Option<Ns> {
        Some(match uri.trim() {
            "http://www.w3.org/2005/Atom" => Ns::Atom,
            "http://purl.org/rss/1.0/modules/content/" => Ns::Content,
            "http://purl.org/dc/elements/1.1/" | "http://purl.org/dc/terms/" => Ns::DublinCore,
            "http://search.yahoo.com/mrss/" | "http://search.yahoo.com/mrss" => Ns::Media,
            "http://www.itunes.com/dtds/podcast-1.0.dtd" => Ns::Itunes,
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#" => Ns::Rdf,
            "http://purl.org/rss/1.0/"
            | "http://my.netscape.com/rdf/simple/0.9/"
            | "http://backend.userland.com/rss2"
            | "http://backend.userland.com/rss" => Ns::Plain,
            _ => return None,
        })
    }

    fn from_usual_prefix(prefix: &str) -> Ns {
        match prefix {
            "atom" => Ns::Atom,
            "content" => Ns::Content,
            "dc" | "dcterms" => Ns::DublinCore,
            "media" => Ns::Media,
            "itunes" => Ns::Itunes,
            "rdf" => Ns::Rdf,
            _ => Ns::Other,
        }
    }
}

/// An element: its namespace, local name, qualified name (for re-serialising XHTML),
/// attributes (qualified names, values unescaped) and children.
#[derive(Debug)]
pub(super) struct Element {
    pub ns: Ns,
    /// The qualified name; the local name starts at `local`.
    qname: String,
    local: usize,
    attributes: Vec<(String, String)>,
    children: Vec<Node>,
}

#[derive(Debug)]
enum Node {
    Element(usize),
    Text(String),
}

impl Element {
    /// The local name (`encoded` of `content:encoded`).
    pub fn name(&self) -> &str {
        self.qname.get(self.local..).unwrap_or_default()
    }

    /// The value of the attribute with this qualified name (`href`, `xml:base`).
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn is(&self, ns: Ns, name: &str) -> bool {
        self.ns == ns && self.name() == name
    }
}

/// A parsed document: elements in an arena, the root first.
#[derive(Debug)]
pub(super) struct Document {
    elements: Vec<Element>,
}

/// Handle of an element of a [`Document`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Id(usize);

impl Document {
    pub fn root(&self) -> Id {
        Id(0)
    }

    pub fn get(&self, id: Id) -> Option<&Element> {
        self.elements.get(id.0)
    }

    /// The child elements of `id`, in order.
    pub fn children(&self, id: Id) -> impl Iterator<Item = (Id, &Element)> + '_ {
        self.get(id)
            .into_iter()
            .flat_map(|e| e.children.iter())
            .filter_map(|n| match n {
                Node::Element(i) => self.elements.get(*i).map(|e| (Id(*i), e)),
                Node::Text(_) => None,
            })
    }

    /// The text of an element; when it has child elements (markup left unescaped, or XHTML),
    /// its content re-serialised as markup instead. Trimmed.
    pub fn text(&self, id: Id) -> String {
        let Some(element) = self.get(id) else {
            return String::new();
        };
        if element.children.iter().all(|n| matches!(n, Node::Text(_))) {
            let mut out = String::new();
            for node in &element.children {
                if let Node::Text(t) = node {
                    out.push_str(t);
                }
            }
            return out.trim().to_string();
        }
        let mut out = String::new();
        self.serialize_children(id, &mut out);
        out.trim().to_string()
    }

    /// Atom XHTML: the content re-serialised, without the wrapping `<div>` the format requires.
    pub fn xhtml(&self, id: Id) -> String {
        let Some(element) = self.get(id) else {
            return String::new();
        };
        let significant: Vec<&Node> = element
            .children
            .iter()
            .filter(|n| !matches!(n, Node::Text(t) if t.trim().is_empty()))
            .collect();
        match significant.as_slice() {
            [Node::Element(div)] if self.elements.get(*div).is_some_and(|d| d.name() == "div") => {
                self.text(Id(*div))
            }
            _ => self.text(id),
        }
    }

    /// Appends the children of `id` as markup; iterative, with an explicit stack.
    fn serialize_children(&self, id: Id, out: &mut String) {
        enum Step<'a> {
            Node(&'a Node),
            Close(&'a str),
        }
        let Some(element) = self.get(id) else { return };
        let mut stack: Vec<Step<'_>> = element.children.iter().rev().map(Step::Node).collect();
        while let Some(step) = stack.pop() {
            match step {
                Step::Close(qname) => {
                    out.push_str("</");
                    out.push_str(qname);
                    out.push('>');
                }
                Step::Node(Node::Text(t)) => escape_into(t, false, out),
                Step::Node(Node::Element(i)) => {
                    let Some(child) = self.elements.get(*i) else {
                        continue;
                    };
                    out.push('<');
                    out.push_str(&child.qname);
                    for (name, value) in &child.attributes {
                        out.push(' ');
                        out.push_str(name);
                        out.push_str("=\"");
                        escape_into(value, true, out);
                        out.push('"');
                    }
                    out.push('>');
                    stack.push(Step::Close(&child.qname));
                    stack.extend(child.children.iter().rev().map(Step::Node));
                }
            }
        }
    }
}

fn escape_into(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// Why a document is not well-formed enough to read.
pub(super) fn parse(text: &str) -> Result<Document, String> {
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    config.expand_empty_elements = true;
    config.trim_text(false);

    let mut elements: Vec<Element> = Vec::new();
    // Open elements: arena index and the prefixes they bound (unbound again when they close).
    let mut open: Vec<(usize, Vec<String>)> = Vec::new();
    let mut bindings: HashMap<String, Vec<Option<Ns>>> = HashMap::new();
    let mut nodes = 0_usize;

    loop {
        let event = reader.read_event().map_err(|e| {
            let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
            format!("the XML is malformed at {}: {e}", line_and_column(text, at))
        })?;
        match event {
            Event::Start(start) => {
                if open.len() >= MAX_DEPTH {
                    return Err(format!("the XML nests elements more than {MAX_DEPTH} deep"));
                }
                let (element, bound) = element(&start, &mut bindings);
                nodes += 1 + element.attributes.len();
                if nodes > MAX_NODES {
                    return Err(format!(
                        "the XML has more than {MAX_NODES} elements and attributes"
                    ));
                }
                let index = elements.len();
                if let Some(parent) = open.last().and_then(|(p, _)| elements.get_mut(*p)) {
                    parent.children.push(Node::Element(index));
                }
                elements.push(element);
                open.push((index, bound));
            }
            Event::End(_) => {
                if let Some((_, bound)) = open.pop() {
                    for prefix in bound {
                        if let Some(stack) = bindings.get_mut(&prefix) {
                            stack.pop();
                        }
                    }
                }
                if open.is_empty() {
                    // The root is closed: whatever follows is not part of the feed.
                    break;
                }
            }
            Event::Text(t) => push_text(&mut elements, &open, &t.xml10_content()),
            Event::CData(t) => push_text(&mut elements, &open, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let resolved: Cow<'_, str> = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string().into(),
                    Err(_) => "\u{FFFD}".into(),
                    Ok(None) => match quick_xml::escape::resolve_predefined_entity(&r) {
                        Some(s) => s.into(),
                        // Entities of HTML (`&nbsp;`) are left for the HTML reader to decode.
                        None => format!("&{};", &*r).into(),
                    },
                };
                push_text(&mut elements, &open, &resolved);
            }
            Event::Eof => {
                if let Some((index, _)) = open.last() {
                    let name = elements.get(*index).map_or("", |e| e.qname.as_str());
                    return Err(format!(
                        "the XML ends before <{name}> is closed (at {})",
                        line_and_column(text, text.len())
                    ));
                }
                break;
            }
            Event::Empty(_)
            | Event::Comment(_)
            | Event::Decl(_)
            | Event::PI(_)
            | Event::DocType(_) => {}
        }
    }
    if elements.is_empty() {
        return Err("the document has no XML element".into());
    }
    Ok(Document { elements })
}

/// The element of a start tag, and the prefixes it binds (pushed on `bindings`).
fn element(
    start: &BytesStart<'_>,
    bindings: &mut HashMap<String, Vec<Option<Ns>>>,
) -> (Element, Vec<String>) {
    let mut attributes = Vec::new();
    let mut bound = Vec::new();
    for attribute in start
        .attributes()
        .with_checks(false)
        .flatten()
        .take(MAX_ATTRIBUTES)
    {
        let name: &str = attribute.key.as_ref();
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map(Cow::into_owned)
            .unwrap_or_else(|_| attribute.value.to_string());
        let prefix = if name == "xmlns" {
            Some("")
        } else {
            name.strip_prefix("xmlns:")
        };
        if let Some(prefix) = prefix {
            bindings
                .entry(prefix.to_string())
                .or_default()
                .push(Ns::from_uri(&value));
            bound.push(prefix.to_string());
        }
        attributes.push((name.to_string(), value));
    }
    let qname = start.name();
    let qname: &str = qname.as_ref();
    let (prefix, local) = match qname.split_once(':') {
        Some((prefix, _)) => (prefix, prefix.len() + 1),
        None => ("", 0),
    };
    let declared = bindings.get(prefix).and_then(|s| s.last()).copied();
    let ns = match (prefix, declared) {
        (_, Some(Some(ns))) => ns,
        ("", _) => Ns::Plain,
        (_, Some(None)) => Ns::Other,
        (prefix, None) => Ns::from_usual_prefix(prefix),
    };
    let element = Element {
        ns,
        qname: qname.to_string(),
        local,
        attributes,
        children: Vec::new(),
    };
    (element, bound)
}

fn push_text(elements: &mut [Element], open: &[(usize, Vec<String>)], text: &str) {
    let Some(element) = open.last().and_then(|(i, _)| elements.get_mut(*i)) else {
        return;
    };
    match element.children.last_mut() {
        Some(Node::Text(t)) => t.push_str(text),
        _ => element.children.push(Node::Text(text.to_string())),
    }
}

/// "line L, column C" (1-based, columns in characters) of byte offset `at`.
fn line_and_column(text: &str, at: usize) -> String {
    let at = (0..=at.min(text.len()))
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    let before = text.get(..at).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}")
}
