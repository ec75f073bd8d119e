//! Parsing realistic feeds (fixtures in `tests/fixtures`).

// All test code (helpers too): a failed unwrap, expect or index is a failed test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod details;
mod dialects;
mod formats;
mod refused;

use chrono::{TimeZone, Utc};
use news::{parse_feed, ParseError, ParsedEntry, ParsedFeed};

const RSS: &[u8] = include_bytes!("../fixtures/rss2.xml");
const ATOM: &[u8] = include_bytes!("../fixtures/atom.xml");
const JSON: &[u8] = include_bytes!("../fixtures/feed.json");
const PAGE: &[u8] = include_bytes!("../fixtures/page.html");
const RDF: &[u8] = include_bytes!("../fixtures/rss1.rdf");
const JSON_1_0: &[u8] = include_bytes!("../fixtures/feed-1.0.json");
const LATIN1: &[u8] = include_bytes!("../fixtures/latin1.xml");
const MEDIA: &[u8] = include_bytes!("../fixtures/media.xml");
const ATOM_XHTML: &[u8] = include_bytes!("../fixtures/atom-xhtml.xml");

fn topic_ids(entry: &ParsedEntry) -> Vec<&str> {
    entry.topics.iter().map(|t| t.id.as_str()).collect()
}

/// Nothing of the markup, scripts or styles may survive into the text.
fn assert_clean(feed: &ParsedFeed) {
    for entry in &feed.entries {
        let texts = entry
            .paragraphs
            .iter()
            .chain(entry.summary.iter())
            .chain(std::iter::once(&entry.title));
        for text in texts {
            for bad in [
                "<p",
                "</",
                "<script",
                "<img",
                "&amp;",
                "&mdash;",
                "&nbsp;",
                "&#",
                "window.",
                "track()",
                "display:",
                "display: none",
                "color:",
                "Enable JavaScript",
                "enable JavaScript",
                "affiliate",
            ] {
                assert!(!text.contains(bad), "{bad:?} leaked into {text:?}");
            }
            assert_eq!(text.trim(), text);
            assert!(!text.contains("  "), "uncollapsed whitespace in {text:?}");
            assert!(!text.is_empty());
        }
        if let Some(summary) = &entry.summary {
            assert!(summary.chars().count() <= 500);
        }
        if let Some(link) = &entry.link {
            assert!(link.starts_with("https://"), "{link}");
        }
        if let Some(image) = &entry.image_url {
            assert!(image.starts_with("https://"), "{image}");
        }
        assert!(entry.topics.len() <= 10);
        assert!(!entry.guid.is_empty());
    }
}

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> Option<chrono::DateTime<Utc>> {
    Some(Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap())
}

fn not_a_feed(body: &[u8]) -> String {
    match parse_feed(body, "https://example.com/feed") {
        Err(ParseError::NotAFeed(why)) => why,
        Ok(feed) => panic!("parsed as {feed:?}"),
    }
}
