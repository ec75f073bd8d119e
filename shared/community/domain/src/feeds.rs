//! RSS 2.0 and Atom 1.0 documents of published posts (the site's, a topic's, an author's), as
//! the W3C feed validator wants them. Pure: the facade reads the posts
//! (`Community::feed`), this writes the XML.
//!
//! - RSS: `channel` with `title`, `link` (the web client's page), `description`,
//!   `lastBuildDate` and `atom:link rel="self"`; each `item` with `title`, `link` (the post's
//!   page), `guid isPermaLink="false"` (`urn:uuid:{postId}`: stable when the site moves),
//!   `pubDate` (RFC 822, first publication), `dc:creator`, a `category` per topic,
//!   `description` (the plain-text excerpt) and `content:encoded` (the post's safe HTML,
//!   escaped).
//! - Atom: `feed` with `id` (its own URL), `title`, `subtitle`, `updated` (the newest entry's),
//!   `link rel="self"` and `rel="alternate"`; each `entry` with `id` (`urn:uuid:{postId}`),
//!   `title`, `published`, `updated`, `author` (`name`, `uri`), `link rel="alternate"`, a
//!   `category` per topic, `summary` and `content type="html"`.
//!
//! At most [`MAX_ENTRIES`] entries, newest first; the rendered contents together stay within
//! [`CONTENT_BUDGET_BYTES`] (an entry past it carries only its summary), so a feed of the
//! longest posts stays a reasonable download and far under Lambda's 6 MB answer.

use chrono::{DateTime, Utc};

/// The most entries a feed holds.
pub const MAX_ENTRIES: usize = 50;
/// The bytes of (escaped) post content a feed carries at most; later entries carry summaries.
pub const CONTENT_BUDGET_BYTES: usize = 2 * 1024 * 1024;
/// Bumped when the documents' shape changes, so no reader keeps an old one by its `ETag`.
pub const FORMAT_VERSION: u32 = 1;

/// RSS 2.0 or Atom 1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedFormat {
    Rss,
    Atom,
}

impl FeedFormat {
    /// The format of a feed path's extension (`rss`, `atom`).
    pub fn from_extension(extension: &str) -> Option<Self> {
        match extension {
            "rss" => Some(Self::Rss),
            "atom" => Some(Self::Atom),
            _ => None,
        }
    }

    /// The extension of a feed path.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Rss => "rss",
            Self::Atom => "atom",
        }
    }

    /// The answer's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Rss => "application/rss+xml; charset=utf-8",
            Self::Atom => "application/atom+xml; charset=utf-8",
        }
    }
}

/// What a feed is about, and where it and its page are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedChannel {
    pub title: String,
    pub description: String,
    /// The feed's own URL (RSS `atom:link rel="self"`, Atom `link rel="self"` and `id`).
    pub self_url: String,
    /// The web client's page of the same posts.
    pub page_url: String,
}

/// One published post in a feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEntry {
    /// The post's id (a UUID).
    pub id: String,
    pub title: String,
    pub author_name: String,
    /// The author's page in the web client.
    pub author_url: String,
    /// When it was first published (RFC 3339).
    pub published: String,
    /// Its last change (RFC 3339).
    pub updated: String,
    /// The post's page in the web client.
    pub url: String,
    pub topics: Vec<String>,
    /// The plain-text excerpt.
    pub summary: String,
    /// The post's safe HTML (`crate::markdown`).
    pub content_html: String,
}

/// The feed document of `entries` (newest first, at most [`MAX_ENTRIES`] are written).
pub fn render(format: FeedFormat, channel: &FeedChannel, entries: &[FeedEntry]) -> String {
    let entries = entries.get(..MAX_ENTRIES).unwrap_or(entries);
    match format {
        FeedFormat::Rss => rss(channel, entries),
        FeedFormat::Atom => atom(channel, entries),
    }
}

/// Whether an `If-None-Match` header names `etag`: `*`, or one of its comma-separated tags
/// (weak ones too: RFC 9110 compares them weakly for `If-None-Match`).
pub fn etag_matches(header: &str, etag: &str) -> bool {
    let etag = etag.trim_start_matches("W/");
    header
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

fn parse_time(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
}

fn rfc822(text: &str) -> String {
    parse_time(text)
        .format("%a, %d %b %Y %H:%M:%S +0000")
        .to_string()
}

fn rfc3339(text: &str) -> String {
    parse_time(text).format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The newest `updated` of the entries (the epoch for an empty feed).
fn newest(entries: &[FeedEntry]) -> String {
    entries
        .iter()
        .map(|e| parse_time(&e.updated))
        .max()
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// Escapes `text` for XML content or a quoted attribute, leaving out the characters XML 1.0
/// cannot hold (C0 controls but tab and line ends, U+FFFE, U+FFFF).
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Each entry's escaped content while the budget lasts, `None` after.
fn contents(entries: &[FeedEntry]) -> Vec<Option<String>> {
    let mut left = CONTENT_BUDGET_BYTES;
    entries
        .iter()
        .map(|e| {
            let escaped = xml(&e.content_html);
            if escaped.len() <= left {
                left -= escaped.len();
                Some(escaped)
            } else {
                left = 0;
                None
            }
        })
        .collect()
}

fn rss(channel: &FeedChannel, entries: &[FeedEntry]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" \
         xmlns:atom=\"http://www.w3.org/2005/Atom\" \
         xmlns:content=\"http://purl.org/rss/1.0/modules/content/\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n<channel>\n",
    );
    let line = |out: &mut String, name: &str, value: &str| {
        out.push_str(&format!("<{name}>{}</{name}>\n", xml(value)));
    };
    line(&mut out, "title", &channel.title);
    line(&mut out, "link", &channel.page_url);
    line(&mut out, "description", &channel.description);
    out.push_str(&format!(
        "<atom:link href=\"{}\" rel=\"self\" type=\"application/rss+xml\"/>\n",
        xml(&channel.self_url)
    ));
    line(&mut out, "lastBuildDate", &rfc822(&newest(entries)));
    line(&mut out, "generator", "serverless-platform community");
    for (entry, content) in entries.iter().zip(contents(entries)) {
        out.push_str("<item>\n");
        line(&mut out, "title", &entry.title);
        line(&mut out, "link", &entry.url);
        out.push_str(&format!(
            "<guid isPermaLink=\"false\">urn:uuid:{}</guid>\n",
            xml(&entry.id)
        ));
        line(&mut out, "pubDate", &rfc822(&entry.published));
        line(&mut out, "dc:creator", &entry.author_name);
        for topic in &entry.topics {
            line(&mut out, "category", topic);
        }
        line(&mut out, "description", &entry.summary);
        if let Some(content) = content {
            out.push_str(&format!("<content:encoded>{content}</content:encoded>\n"));
        }
        out.push_str("</item>\n");
    }
    out.push_str("</channel>\n</rss>\n");
    out
}

fn atom(channel: &FeedChannel, entries: &[FeedEntry]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n",
    );
    let line = |out: &mut String, name: &str, value: &str| {
        out.push_str(&format!("<{name}>{}</{name}>\n", xml(value)));
    };
    line(&mut out, "id", &channel.self_url);
    out.push_str(&format!(
        "<title type=\"text\">{}</title>\n",
        xml(&channel.title)
    ));
    out.push_str(&format!(
        "<subtitle type=\"text\">{}</subtitle>\n",
        xml(&channel.description)
    ));
    line(&mut out, "updated", &newest(entries));
    out.push_str(&format!(
        "<link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
        xml(&channel.self_url)
    ));
    out.push_str(&format!(
        "<link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
        xml(&channel.page_url)
    ));
    line(&mut out, "generator", "serverless-platform community");
    for (entry, content) in entries.iter().zip(contents(entries)) {
        out.push_str("<entry>\n");
        out.push_str(&format!("<id>urn:uuid:{}</id>\n", xml(&entry.id)));
        out.push_str(&format!(
            "<title type=\"text\">{}</title>\n",
            xml(&entry.title)
        ));
        line(&mut out, "published", &rfc3339(&entry.published));
        line(&mut out, "updated", &rfc3339(&entry.updated));
        out.push_str(&format!(
            "<author>\n<name>{}</name>\n<uri>{}</uri>\n</author>\n",
            xml(&entry.author_name),
            xml(&entry.author_url)
        ));
        out.push_str(&format!(
            "<link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
            xml(&entry.url)
        ));
        for topic in &entry.topics {
            out.push_str(&format!("<category term=\"{}\"/>\n", xml(topic)));
        }
        out.push_str(&format!(
            "<summary type=\"text\">{}</summary>\n",
            xml(&entry.summary)
        ));
        if let Some(content) = content {
            out.push_str(&format!("<content type=\"html\">{content}</content>\n"));
        }
        out.push_str("</entry>\n");
    }
    out.push_str("</feed>\n");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn entry(n: usize, html: &str) -> FeedEntry {
        FeedEntry {
            id: format!("00000000-0000-4000-8000-{n:012}"),
            title: format!("Post <{n}> & more"),
            author_name: "Ann \u{1}O'Neil".into(),
            author_url: "https://x.example/community/users/u1".into(),
            published: "2026-12-01T10:00:00.123Z".into(),
            updated: format!("2026-12-0{}T10:00:00Z", 1 + n % 3),
            url: format!("https://x.example/community/posts/{n}"),
            topics: vec!["Rust & Go".into()],
            summary: "plain".into(),
            content_html: html.into(),
        }
    }

    fn channel() -> FeedChannel {
        FeedChannel {
            title: "Posts".into(),
            description: "All".into(),
            self_url: "https://x.example/api/v1/feeds/posts.atom?a=1&b=2".into(),
            page_url: "https://x.example/community".into(),
        }
    }

    #[test]
    fn escapes_and_dates() {
        let rss = render(FeedFormat::Rss, &channel(), &[entry(1, "<p>a]]>b</p>")]);
        assert!(
            rss.contains("<title>Post &lt;1&gt; &amp; more</title>"),
            "{rss}"
        );
        assert!(rss.contains("<pubDate>Tue, 01 Dec 2026 10:00:00 +0000</pubDate>"));
        assert!(rss.contains("<dc:creator>Ann O&apos;Neil</dc:creator>"));
        assert!(rss.contains("<content:encoded>&lt;p&gt;a]]&gt;b&lt;/p&gt;</content:encoded>"));
        assert!(rss.contains("href=\"https://x.example/api/v1/feeds/posts.atom?a=1&amp;b=2\""));
        let atom = render(
            FeedFormat::Atom,
            &channel(),
            &[entry(1, "<p>x</p>"), entry(2, "")],
        );
        assert!(atom.contains("<published>2026-12-01T10:00:00Z</published>"));
        assert!(
            atom.contains("<updated>2026-12-03T10:00:00Z</updated>\n<link rel=\"self\""),
            "{atom}"
        );
    }

    #[test]
    fn etags() {
        assert!(etag_matches("\"a\"", "\"a\""));
        assert!(etag_matches("\"b\", W/\"a\"", "\"a\""));
        assert!(etag_matches("*", "\"a\""));
        assert!(!etag_matches("\"ab\"", "\"a\""));
        assert!(!etag_matches("", "\"a\""));
    }

    #[test]
    fn bounded() {
        let big = "x".repeat(CONTENT_BUDGET_BYTES / 2);
        let many: Vec<FeedEntry> = (0..60).map(|n| entry(n, &big)).collect();
        let atom = render(FeedFormat::Atom, &channel(), &many);
        assert_eq!(atom.matches("<entry>").count(), MAX_ENTRIES);
        assert_eq!(atom.matches("<content ").count(), 2);
        assert_eq!(atom.matches("<summary ").count(), MAX_ENTRIES);
        let empty = render(FeedFormat::Rss, &channel(), &[]);
        assert!(empty.contains("<lastBuildDate>Thu, 01 Jan 1970 00:00:00 +0000</lastBuildDate>"));
    }
}
