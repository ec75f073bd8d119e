//! RSS 2.0 and 0.9x (`<rss>`) and RSS 1.0 (`<rdf:RDF>`), with the extensions feeds use:
//! `content:encoded`, `dc:creator`, `dc:date`, MediaRSS, `itunes:image`, `atom:link`.

use url::Url;

use super::atom;
use super::date::parse_date;
use super::model::{
    element_base, resolve, Category, Entry, Feed, Link, Media, Person, Text, TextKind,
};
use super::xml::{Document, Element, Id, Ns};

/// Reads an `<rss>` or `<rdf:RDF>` document; `base` is the feed URL.
pub(super) fn read(doc: &Document, base: Option<&Url>) -> Feed {
    let root = doc.root();
    let base = element_base(doc.get(root).and_then(|r| r.attr("xml:base")), base);
    // RSS 1.0 descriptions are plain text; RSS 2.0 ones are HTML.
    let rdf = doc.get(root).is_some_and(|r| r.name() == "RDF");
    let mut feed = Feed::default();
    for (id, child) in doc.children(root) {
        let child_base = element_base(child.attr("xml:base"), base.as_ref());
        if child.is(Ns::Plain, "channel") {
            read_channel(doc, id, child_base.as_ref(), rdf, &mut feed);
        } else if child.is(Ns::Plain, "item") {
            // RSS 1.0 (and 0.90) items are siblings of the channel.
            feed.entries
                .push(read_item(doc, id, child_base.as_ref(), rdf));
        }
    }
    feed
}

fn read_channel(doc: &Document, channel: Id, base: Option<&Url>, rdf: bool, feed: &mut Feed) {
    for (id, child) in doc.children(channel) {
        let base = element_base(child.attr("xml:base"), base);
        let base = base.as_ref();
        match (child.ns, child.name()) {
            (Ns::Plain, "title") => feed.title = Some(plain(doc.text(id))),
            (Ns::Plain, "link") => feed.links.push(Link::new(&doc.text(id), base)),
            (Ns::Atom, "link") => feed.links.extend(atom::link(child, base)),
            (Ns::Plain, "description") => feed.description = Some(plain(doc.text(id))),
            (Ns::DublinCore, "creator") if rdf => feed.authors.push(Person::parse(&doc.text(id))),
            (Ns::Plain, "item") => feed.entries.push(read_item(doc, id, base, rdf)),
            _ => {}
        }
    }
}

fn read_item(doc: &Document, item: Id, base: Option<&Url>, rdf: bool) -> Entry {
    let mut entry = Entry::default();
    let mut itunes_images = Vec::new();
    for (id, child) in doc.children(item) {
        let base = element_base(child.attr("xml:base"), base);
        let base = base.as_ref();
        match (child.ns, child.name()) {
            (Ns::Plain, "title") => entry.title = Some(plain(doc.text(id))),
            (Ns::Plain, "link") => entry.links.push(Link::new(&doc.text(id), base)),
            (Ns::Plain, "description") => {
                let kind = if rdf { TextKind::Plain } else { TextKind::Html };
                entry.summary = Some(Text {
                    content: doc.text(id),
                    kind,
                });
            }
            (Ns::DublinCore, "description") if entry.summary.is_none() => {
                entry.summary = Some(plain(doc.text(id)));
            }
            (Ns::Content, "encoded") => {
                let body = doc.text(id);
                if !body.is_empty() {
                    entry.content = Some(Text {
                        content: body,
                        kind: TextKind::Html,
                    });
                }
            }
            (Ns::Plain, "author") | (Ns::DublinCore, "creator") => {
                entry.authors.push(Person::parse(&doc.text(id)));
            }
            (Ns::Plain, "category") => entry.categories.push(Category {
                term: doc.text(id),
                label: None,
            }),
            (Ns::Plain, "guid") => entry.id = doc.text(id),
            (Ns::Plain, "enclosure") => {
                if let Some(url) = child.attr("url") {
                    entry.media.push(Media {
                        url: resolve(url, base),
                        media_type: child.attr("type").map(str::to_string),
                    });
                }
            }
            (Ns::Plain, "pubDate") | (Ns::DublinCore, "date") => {
                entry.published = parse_date(&doc.text(id));
            }
            (Ns::Plain, "updated") | (Ns::Atom, "updated") => {
                entry.updated = parse_date(&doc.text(id));
            }
            (Ns::Media, _) => read_media(doc, id, base, &mut entry),
            (Ns::Itunes, "image") => {
                if let Some(href) = child.attr("href") {
                    itunes_images.push(resolve(href, base));
                }
            }
            _ => {}
        }
    }
    // MediaRSS thumbnails are the publisher's chosen picture; the podcast artwork comes after.
    entry.thumbnails.extend(itunes_images);
    entry
}

/// A MediaRSS element of an item or entry: `media:thumbnail`, `media:content` (with what it
/// nests) and `media:group`, walked with a work list rather than recursion.
pub(super) fn read_media(doc: &Document, element: Id, base: Option<&Url>, entry: &mut Entry) {
    let mut pending: Vec<(Id, Option<Url>)> = vec![(element, base.cloned())];
    while let Some((id, parent_base)) = pending.pop() {
        let Some(el) = doc.get(id) else { continue };
        let base = element_base(el.attr("xml:base"), parent_base.as_ref());
        match (el.ns, el.name()) {
            (Ns::Media, "thumbnail") => {
                if let Some(url) = el.attr("url") {
                    entry.thumbnails.push(resolve(url, base.as_ref()));
                }
            }
            (Ns::Media, "content") => {
                let url = el.attr("url").or_else(|| player_url(doc, id));
                if let Some(url) = url {
                    entry.media.push(Media {
                        url: resolve(url, base.as_ref()),
                        media_type: el.attr("type").map(str::to_string),
                    });
                }
                push_children(doc, id, &base, &mut pending);
            }
            (Ns::Media, "group") => push_children(doc, id, &base, &mut pending),
            _ => {}
        }
    }
}

fn push_children(doc: &Document, id: Id, base: &Option<Url>, pending: &mut Vec<(Id, Option<Url>)>) {
    let children: Vec<Id> = doc
        .children(id)
        .filter(|(_, c)| c.ns == Ns::Media)
        .map(|(i, _)| i)
        .collect();
    // Reversed: the work list pops them in document order.
    pending.extend(children.into_iter().rev().map(|i| (i, base.clone())));
}

/// A `media:content` without `url` must name a `media:player`.
fn player_url(doc: &Document, content: Id) -> Option<&str> {
    doc.children(content)
        .find(|(_, c): &(Id, &Element)| c.is(Ns::Media, "player"))
        .and_then(|(_, c)| c.attr("url"))
}

fn plain(content: String) -> Text {
    Text {
        content,
        kind: TextKind::Plain,
    }
}
