//! Atom 1.0 (`<feed>`, or a lone `<entry>`), with MediaRSS in entries.

use url::Url;

use super::date::parse_date;
use super::model::{element_base, Category, Entry, Feed, Link, Person, Text, TextKind};
use super::rss::read_media;
use super::xml::{Document, Element, Id, Ns};

/// Reads an Atom document; `base` is the feed URL.
pub(super) fn read(doc: &Document, base: Option<&Url>) -> Feed {
    let root = doc.root();
    let base = element_base(doc.get(root).and_then(|r| r.attr("xml:base")), base);
    let mut feed = Feed::default();
    if doc.get(root).is_some_and(|r| r.name() == "entry") {
        feed.entries.push(read_entry(doc, root, base.as_ref()));
        return feed;
    }
    for (id, child) in doc.children(root) {
        let base = element_base(child.attr("xml:base"), base.as_ref());
        let base = base.as_ref();
        match (atom_ns(child), child.name()) {
            (Ns::Atom, "title") => feed.title = Some(text_construct(doc, id, child)),
            (Ns::Atom, "subtitle") => {
                feed.description = Some(text_construct(doc, id, child));
            }
            (Ns::Atom, "link") => feed.links.extend(link(child, base)),
            (Ns::Atom, "author") => feed.authors.extend(person(doc, id)),
            (Ns::Atom, "entry") => feed.entries.push(read_entry(doc, id, base)),
            _ => {}
        }
    }
    feed
}

/// Unprefixed elements of an Atom document are Atom's, even when the namespace is missing.
fn atom_ns(element: &Element) -> Ns {
    match element.ns {
        Ns::Plain => Ns::Atom,
        other => other,
    }
}

fn read_entry(doc: &Document, entry_id: Id, base: Option<&Url>) -> Entry {
    let mut entry = Entry::default();
    for (id, child) in doc.children(entry_id) {
        let base = element_base(child.attr("xml:base"), base);
        let base = base.as_ref();
        match (atom_ns(child), child.name()) {
            (Ns::Atom, "id") => entry.id = doc.text(id),
            (Ns::Atom, "title") => entry.title = Some(text_construct(doc, id, child)),
            (Ns::Atom, "updated") => entry.updated = parse_date(&doc.text(id)),
            (Ns::Atom, "published" | "pubDate") => {
                entry.published = parse_date(&doc.text(id));
            }
            (Ns::Atom, "author") => entry.authors.extend(person(doc, id)),
            (Ns::Atom, "content") => entry.content = content(doc, id, child),
            (Ns::Atom, "summary") => entry.summary = Some(text_construct(doc, id, child)),
            (Ns::Atom, "link") => entry.links.extend(link(child, base)),
            (Ns::Atom, "category") => {
                if let Some(term) = child.attr("term") {
                    entry.categories.push(Category {
                        term: term.to_string(),
                        label: child.attr("label").map(str::to_string),
                    });
                }
            }
            (Ns::Media, _) => read_media(doc, id, base, &mut entry),
            _ => {}
        }
    }
    entry
}

/// An Atom `<link>` (also used for `atom:link` in RSS): `rel` defaults to `alternate`.
pub(super) fn link(element: &Element, base: Option<&Url>) -> Option<Link> {
    let mut link = Link::new(element.attr("href")?, base);
    link.rel = Some(
        element
            .attr("rel")
            .unwrap_or("alternate")
            .trim()
            .to_string(),
    );
    link.media_type = element.attr("type").map(str::to_string);
    Some(link)
}

/// `<author>`: its `name` and `email`, whatever their namespace.
fn person(doc: &Document, id: Id) -> Option<Person> {
    let mut person = Person {
        name: None,
        email: None,
    };
    for (child_id, child) in doc.children(id) {
        let text = Some(doc.text(child_id)).filter(|t| !t.is_empty());
        match child.name() {
            "name" => person.name = text,
            "email" => person.email = text,
            _ => {}
        }
    }
    (person.name.is_some() || person.email.is_some()).then_some(person)
}

/// A text construct: `type="text"` (the default), `"html"` (escaped markup) or `"xhtml"`
/// (inline markup inside a `<div>`).
fn text_construct(doc: &Document, id: Id, element: &Element) -> Text {
    match element
        .attr("type")
        .map(|t| t.trim().to_ascii_lowercase())
        .as_deref()
    {
        Some("html" | "text/html") => Text {
            content: doc.text(id),
            kind: TextKind::Html,
        },
        Some("xhtml") => Text {
            content: doc.xhtml(id),
            kind: TextKind::Html,
        },
        _ => Text {
            content: doc.text(id),
            kind: TextKind::Plain,
        },
    }
}

/// `<content>`: a text construct, other inline XML, or other text; `src` (content elsewhere)
/// and base64 media give no body.
fn content(doc: &Document, id: Id, element: &Element) -> Option<Text> {
    if element.attr("src").is_some() {
        return None;
    }
    match element.attr("type").map(|t| t.trim().to_ascii_lowercase()) {
        None => Some(text_construct(doc, id, element)),
        Some(t) if matches!(t.as_str(), "text" | "html" | "xhtml" | "text/html") => {
            Some(text_construct(doc, id, element))
        }
        Some(t) if t.ends_with("+xml") || t.ends_with("/xml") => Some(Text {
            content: doc.text(id),
            kind: TextKind::Html,
        }),
        Some(t) if t.starts_with("text/") => Some(Text {
            content: doc.text(id),
            kind: TextKind::Plain,
        }),
        Some(_) => None,
    }
}
