//! What is not a feed, and documents built to hurt the parser: refused, in bounded time and
//! memory.

use news::{parse_feed, ParseError};

use super::{not_a_feed, PAGE};

#[test]
fn documents_that_are_not_feeds() {
    let cases: &[(&[u8], &str)] = &[
        (PAGE, "HTML page"),
        (b"", "empty"),
        (b"   \n ", "empty"),
        (b"hello, world", "neither XML nor JSON"),
        (b"\x00\x01\x02garbage", "neither XML nor JSON"),
        (br#"{"name": "not a feed", "items": []}"#, "not a JSON Feed"),
        (
            br#"{"version": "https://jsonfeed.org/version/9", "title": "x", "items": []}"#,
            "not a JSON Feed",
        ),
        (b"[1, 2, 3]", "neither XML nor JSON"),
        (
            b"<?xml version=\"1.0\"?><note><to>Tove</to></note>",
            "no <rss>",
        ),
        (
            b"<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>x</p></body></html>",
            "HTML page",
        ),
        (
            b"<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>",
            "no <rss>",
        ),
        (b"<rss version=\"2.0\"><item>", ""),
    ];
    for (body, reason) in cases {
        match parse_feed(body, "https://example.com/feed") {
            Err(ParseError::NotAFeed(why)) => {
                assert!(
                    why.contains(reason),
                    "{:?}: reason {why:?}",
                    String::from_utf8_lossy(body)
                );
            }
            Ok(feed) => panic!("{:?} parsed as {feed:?}", String::from_utf8_lossy(body)),
        }
    }
    let err = parse_feed(PAGE, "https://example.com/").unwrap_err();
    assert_eq!(
        err.to_string(),
        "not an RSS, Atom or JSON feed: the document is an HTML page, not a feed"
    );
}

#[test]
fn what_feed_rs_would_panic_on_is_not_a_feed() {
    let item = |inner: &str| {
        format!(
            r#"<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>T</title><item><guid>g</guid>{inner}</item></channel></rss>"#
        )
    };
    let cases = [
        (
            item("<author>«ed@example.com»</author>"),
            "unreadable person",
        ),
        (
            item("<dc:creator>Name Long—ed@example.com</dc:creator>"),
            "unreadable person",
        ),
        (
            item("<itunes:duration>٣</itunes:duration>"),
            "unreadable time",
        ),
        (
            item("<itunes:duration>&#x663;</itunes:duration>"),
            "unreadable time",
        ),
        (
            item("<itunes:duration>99999999999999999999999</itunes:duration>"),
            "unreadable time",
        ),
        (
            item(r#"<media:thumbnail url="https://example.com/t.jpg" time="٣"/>"#),
            "unreadable time",
        ),
        (
            item(r#"<media:text start="99999999999999999999">x</media:text>"#),
            "unreadable time",
        ),
        (
            item(&format!(
                r#"<title>{}</title><?xml version="1.0" encoding="ISO-8859-1"?>"#,
                "x".repeat(100)
            )),
            "XML declaration after its start",
        ),
    ];
    for (body, reason) in cases {
        let why = not_a_feed(body.as_bytes());
        assert!(why.contains(reason), "{body}: {why}");
    }
    let json = r#"{"version": "https://jsonfeed.org/version/1.1", "title": "T", "items": [{"id": "1", "authors": [{"name": "«ed@example.com»"}]}]}"#;
    assert!(not_a_feed(json.as_bytes()).contains("unreadable person"));
    // The same values, harmless, are read.
    let body = item(
        "<author>Jérôme &lt;jerome@example.fr&gt;</author><itunes:duration>01:02:03</itunes:duration>",
    );
    let feed = parse_feed(body.as_bytes(), "https://example.com/feed").unwrap();
    assert_eq!(feed.entries[0].author.as_deref(), Some("Jérôme"));
    // An Atom author's name is not read as "name <address>".
    let atom = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><id>1</id><author><name>«ed@example.com»</name></author></entry></feed>"#;
    let feed = parse_feed(atom.as_bytes(), "https://example.com/feed").unwrap();
    assert_eq!(feed.entries[0].author.as_deref(), Some("«ed@example.com»"));
}

#[test]
fn html_and_broken_xml_are_not_feeds() {
    let xhtml = b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>x</title></head><body/></html>";
    assert_eq!(
        not_a_feed(xhtml),
        "the document is an HTML page, not a feed"
    );

    let truncated = b"<rss version=\"2.0\"><channel><title>T</title>\n<item><title>Cut o";
    let why = not_a_feed(truncated);
    assert!(
        why.contains("<title> is closed") && why.contains("line 2, column 19"),
        "{why}"
    );

    let mismatched = b"<rss version=\"2.0\"><channel>\n  <title>T</channel></rss>";
    let why = not_a_feed(mismatched);
    assert!(why.starts_with("the XML is malformed at line 2"), "{why}");
    assert!(why.contains("channel"), "{why}");

    let json = br#"{"version": "https://jsonfeed.org/version/1.1", "items": [}"#;
    assert!(not_a_feed(json).contains("not a JSON Feed"));
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let depth = 200_000;
    let body = format!(
        r#"<rss version="2.0"><channel><item><description>{}x{}</description></item></channel></rss>"#,
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    let why = not_a_feed(body.as_bytes());
    assert!(why.contains("more than 256 deep"), "{why}");

    // Nesting under the bound is read, through every level.
    let depth = 200;
    let body = format!(
        r#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">{}deep{}</div></content></entry></feed>"#,
        "<span>".repeat(depth),
        "</span>".repeat(depth)
    );
    let feed = parse_feed(body.as_bytes(), "https://example.com/feed").unwrap();
    assert_eq!(feed.entries[0].paragraphs, vec!["deep"]);
    // JSON: serde_json's own recursion limit.
    let body = format!(
        r#"{{"version": "https://jsonfeed.org/version/1.1", "items": [], "x": {}}}"#,
        "[".repeat(200_000)
    );
    assert!(not_a_feed(body.as_bytes()).contains("not a JSON Feed"));
}

#[test]
fn huge_attribute_and_namespace_counts_take_linear_time() {
    let count = 100_000;
    let attributes: String = (0..count).map(|i| format!(" a{i}=\"v\"")).collect();
    let elements = "<x/>".repeat(count);
    let body = format!(
        r#"<rss version="2.0"><channel><title>T</title><item{attributes}><guid>g</guid>{elements}</item></channel></rss>"#
    );
    let started = std::time::Instant::now();
    let feed = parse_feed(body.as_bytes(), "https://example.com/feed").unwrap();
    assert_eq!(feed.entries[0].guid, "g");
    // Quadratic handling of 100 000 attributes would take minutes.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));

    // Namespaces: quick-xml (under feed-rs) allows 128 in scope at once.
    let namespaces: String = (0..count)
        .map(|i| format!(" xmlns:p{i}=\"urn:{i}\""))
        .collect();
    let body = format!(
        r#"<rss version="2.0"{namespaces}><channel><title>T</title><item><guid>g</guid></item></channel></rss>"#
    );
    let started = std::time::Instant::now();
    let why = not_a_feed(body.as_bytes());
    assert!(why.contains("more than 128 namespaces"), "{why}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn element_floods_are_refused_before_they_fill_memory() {
    // 5 MB of empty elements (the fetcher's cap) would be a tree of ~200 MB.
    let body = format!(
        r#"<rss version="2.0"><channel><title>T</title><item><guid>g</guid>{}</item></channel></rss>"#,
        "<x/>".repeat(5 * 1024 * 1024 / 4)
    );
    let why = not_a_feed(body.as_bytes());
    assert!(
        why.contains("more than 400000 elements and attributes"),
        "{why}"
    );
}
