//! A feed's details: a missing title, too many topics, long summaries, a declared encoding.

use news::parse_feed;

use super::topic_ids;

#[test]
fn feed_without_title_is_named_after_its_host() {
    let body = br#"<rss version="2.0"><channel><link>https://untitled.example.com/</link></channel></rss>"#;
    let feed = parse_feed(body, "https://untitled.example.com/rss").unwrap();
    assert_eq!(feed.title, "untitled.example.com");
    assert!(feed.entries.is_empty());
}

#[test]
fn topics_per_entry_are_capped() {
    let categories: String = (0..15)
        .map(|i| format!("<category>Topic {i}</category><category>TOPIC {i}</category>"))
        .collect();
    let body = format!(
        r#"<rss version="2.0"><channel><title>T</title><item><title>x</title><guid>g</guid>{categories}</item></channel></rss>"#
    );
    let feed = parse_feed(body.as_bytes(), "https://example.com/feed").unwrap();
    let ids = topic_ids(&feed.entries[0]);
    assert_eq!(ids.len(), 10);
    assert_eq!(ids[0], "topic-0");
    assert_eq!(ids[9], "topic-9");
}

#[test]
fn long_summaries_are_cut_at_a_word() {
    let words = "lorem ipsum dolor sit amet ".repeat(60);
    let body = format!(
        r#"<rss version="2.0"><channel><title>T</title><item><title>x</title><guid>g</guid><description>{words}</description></item></channel></rss>"#
    );
    let feed = parse_feed(body.as_bytes(), "https://example.com/feed").unwrap();
    let summary = feed.entries[0].summary.as_deref().unwrap();
    assert!(summary.chars().count() <= 500);
    assert!(summary.chars().count() > 400);
    assert!(summary.ends_with('…'));
    let before = summary.trim_end_matches('…');
    assert!(words.contains(before) && words[before.len()..].starts_with(' '));
    // The paragraphs keep the full text.
    assert_eq!(feed.entries[0].paragraphs[0], words.trim());
}

#[test]
fn declared_encodings_are_honoured() {
    let mut latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<rss version=\"2.0\"><channel><title>Caf".to_vec();
    latin1.push(0xE9);
    latin1.extend_from_slice(b" News</title><item><title>Cr");
    latin1.push(0xE8);
    latin1.extend_from_slice(b"me br");
    latin1.push(0xFB);
    latin1.extend_from_slice(b"l\xe9e</title><guid>1</guid></item></channel></rss>");
    let feed = parse_feed(&latin1, "https://example.com/feed").unwrap();
    assert_eq!(feed.title, "Café News");
    assert_eq!(feed.entries[0].title, "Crème brûlée");

    let utf16: Vec<u8> = std::iter::once(0xFEFF_u16)
        .chain(
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss version=\"2.0\"><channel><title>Wide</title></channel></rss>"
                .encode_utf16(),
        )
        .flat_map(|u| u.to_le_bytes())
        .collect();
    let feed = parse_feed(&utf16, "https://example.com/feed").unwrap();
    assert_eq!(feed.title, "Wide");
}
