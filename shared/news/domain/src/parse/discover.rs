//! Feed discovery in a web page: the feeds a site's HTML names with
//! `<link rel="alternate" type="application/rss+xml|atom+xml|feed+json" href>`, and the usual
//! paths a site serves its feed at when it names none. Pure: fetching is the ingest's.

use url::Url;

use crate::html::{attribute, for_each_start_tag};
use crate::model::FeedKind;

/// Most feeds read from one page's links: a page naming more is listing, not offering.
pub const MAX_PAGE_FEEDS: usize = 10;

/// Where sites usually serve their feed, tried in this order when a page names none.
pub const USUAL_PATHS: [&str; 7] = [
    "/feed",
    "/rss",
    "/atom.xml",
    "/feed.xml",
    "/rss.xml",
    "/index.xml",
    "/feed/",
];

/// A feed a page links to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedLink {
    /// Absolute http(s) URL, resolved against the page's `<base href>` or address.
    pub url: String,
    /// The link's `title`, when it has one.
    pub title: Option<String>,
    pub kind: FeedKind,
}

/// The kind of feed a link's `type` names; `None` for anything else.
pub fn feed_kind_of_type(media_type: &str) -> Option<FeedKind> {
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "application/rss+xml" | "application/rdf+xml" => Some(FeedKind::Rss),
        "application/atom+xml" => Some(FeedKind::Atom),
        "application/feed+json" | "application/json" => Some(FeedKind::Json),
        _ => None,
    }
}

/// The feeds the HTML page fetched from `page_url` links to, in document order, without
/// repeats, at most [`MAX_PAGE_FEEDS`].
pub fn feed_links(html: &str, page_url: &str) -> Vec<FeedLink> {
    let Ok(page) = Url::parse(page_url) else {
        return Vec::new();
    };
    let mut base: Option<Url> = None;
    let mut found: Vec<FeedLink> = Vec::new();
    for_each_start_tag(html, |name, attributes| {
        if name == "base" && base.is_none() {
            base = attribute(attributes, "href").and_then(|href| page.join(href.trim()).ok());
            return;
        }
        if name != "link" || found.len() >= MAX_PAGE_FEEDS {
            return;
        }
        let rel = attribute(attributes, "rel").unwrap_or_default();
        if !rel
            .split_ascii_whitespace()
            .any(|r| r.eq_ignore_ascii_case("alternate"))
        {
            return;
        }
        let Some(kind) = attribute(attributes, "type")
            .as_deref()
            .and_then(feed_kind_of_type)
        else {
            return;
        };
        let Some(href) = attribute(attributes, "href") else {
            return;
        };
        let Some(url) = base
            .as_ref()
            .unwrap_or(&page)
            .join(href.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
        else {
            return;
        };
        let url = url.to_string();
        if found.iter().any(|f| f.url == url) {
            return;
        }
        let title = attribute(attributes, "title")
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty());
        found.push(FeedLink { url, title, kind });
    });
    found
}

/// The [`USUAL_PATHS`] at the origin of `page_url`.
pub fn usual_feed_urls(page_url: &str) -> Vec<String> {
    let Ok(page) = Url::parse(page_url) else {
        return Vec::new();
    };
    USUAL_PATHS
        .iter()
        .filter_map(|path| page.join(path).ok())
        .map(|u| u.to_string())
        .collect()
}

/// Whether a fetched body is an HTML page (by its media type, else by its first bytes).
pub fn is_html(body: &[u8], content_type: Option<&str>) -> bool {
    if let Some(media) = content_type {
        let essence = media
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if essence == "text/html" || essence == "application/xhtml+xml" {
            return true;
        }
    }
    let head: Vec<u8> = body
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(64)
        .map(u8::to_ascii_lowercase)
        .collect();
    head.starts_with(b"<!doctype html") || head.starts_with(b"<html")
}

/// The page as text (its declared or sniffed encoding).
pub fn page_text(body: &[u8]) -> String {
    super::prepare::decode(body).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_resolve_against_base_and_page() {
        let html = r#"<!doctype html><html><head>
            <link rel="stylesheet" href="/style.css">
            <link rel="alternate" type="application/rss+xml" title=" Posts  (RSS) " href="/feed.rss">
            <link rel="Alternate" type="application/atom+xml; charset=utf-8" href="atom.xml">
            <link rel="alternate" type="application/rss+xml" href="/feed.rss">
            <link rel="alternate" type="text/html" hreflang="fr" href="/fr/">
            <link rel="alternate" type="application/feed+json" href="https://cdn.example.net/feed.json">
            <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
            </head><body></body></html>"#;
        let links = feed_links(html, "https://example.org/blog/post.html");
        assert_eq!(
            links,
            vec![
                FeedLink {
                    url: "https://example.org/feed.rss".into(),
                    title: Some("Posts (RSS)".into()),
                    kind: FeedKind::Rss
                },
                FeedLink {
                    url: "https://example.org/blog/atom.xml".into(),
                    title: None,
                    kind: FeedKind::Atom
                },
                FeedLink {
                    url: "https://cdn.example.net/feed.json".into(),
                    title: None,
                    kind: FeedKind::Json
                },
            ]
        );
        let based = r#"<head><base href="https://static.example.org/x/"><link rel="alternate" type="application/rss+xml" href="rss"></head>"#;
        assert_eq!(
            feed_links(based, "https://example.org/")[0].url,
            "https://static.example.org/x/rss"
        );
    }

    #[test]
    fn usual_paths_are_at_the_origin() {
        let urls = usual_feed_urls("https://example.org/blog/2024/post?x=1");
        assert_eq!(urls[0], "https://example.org/feed");
        assert_eq!(urls[6], "https://example.org/feed/");
        assert_eq!(urls.len(), USUAL_PATHS.len());
    }

    #[test]
    fn html_by_type_or_content() {
        assert!(is_html(b"{}", Some("text/html; charset=utf-8")));
        assert!(is_html(b"\n  <!DOCTYPE html><p>", None));
        assert!(!is_html(
            b"<?xml version=\"1.0\"?><rss/>",
            Some("application/xml")
        ));
    }
}
