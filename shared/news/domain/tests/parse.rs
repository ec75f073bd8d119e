//! Parsing realistic feeds (fixtures in `tests/fixtures`).

// All test code (helpers too): a failed unwrap, expect or index is a failed test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use chrono::{TimeZone, Utc};
use news::{parse_feed, ParseError, ParsedEntry, ParsedFeed, Topic};

const RSS: &[u8] = include_bytes!("fixtures/rss2.xml");
const ATOM: &[u8] = include_bytes!("fixtures/atom.xml");
const JSON: &[u8] = include_bytes!("fixtures/feed.json");
const PAGE: &[u8] = include_bytes!("fixtures/page.html");
const RDF: &[u8] = include_bytes!("fixtures/rss1.rdf");
const JSON_1_0: &[u8] = include_bytes!("fixtures/feed-1.0.json");
const LATIN1: &[u8] = include_bytes!("fixtures/latin1.xml");
const MEDIA: &[u8] = include_bytes!("fixtures/media.xml");
const ATOM_XHTML: &[u8] = include_bytes!("fixtures/atom-xhtml.xml");

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

#[test]
fn rss2_feed() {
    let feed = parse_feed(RSS, "https://circuit.example.com/feed.xml").unwrap();
    assert_clean(&feed);
    assert_eq!(feed.title, "The Daily Circuit & Co.");
    assert_eq!(
        feed.site_url.as_deref(),
        Some("https://circuit.example.com/")
    );
    assert_eq!(
        feed.description.as_deref(),
        Some("Hardware, software & the people who make them.")
    );
    assert_eq!(feed.entries.len(), 6);

    let chips = &feed.entries[0];
    assert_eq!(chips.guid, "circuit-2025-0304-001");
    assert_eq!(chips.title, "Chipmakers race to 2 nm — and beyond");
    assert_eq!(
        chips.link.as_deref(),
        Some("https://circuit.example.com/2025/03/04/chipmakers-2nm")
    );
    assert_eq!(chips.author.as_deref(), Some("Priya Raman"));
    assert_eq!(
        chips.published_at,
        Some(Utc.with_ymd_and_hms(2025, 3, 4, 9, 30, 0).unwrap())
    );
    assert_eq!(
        chips.summary.as_deref(),
        Some("Three foundries say they will ship 2 nm parts next year.")
    );
    assert_eq!(
        chips.paragraphs,
        vec![
            "Three foundries say they will ship 2 nm parts next year — a claim analysts call “ambitious”.",
            "The first wafers are due in Q3… if the lithography tools arrive on time.",
            "A test wafer © Circuit",
        ]
    );
    // "Tech" and " tech " are one topic; "Science & Space" gets a slug.
    assert_eq!(
        chips.topics[0],
        Topic {
            id: "tech".into(),
            name: "Tech".into()
        }
    );
    assert_eq!(
        topic_ids(chips),
        vec!["tech", "semiconductors", "science-space"]
    );
    assert_eq!(chips.topics[2].name, "Science & Space");
    // media:thumbnail wins over the inline <img>.
    assert_eq!(
        chips.image_url.as_deref(),
        Some("https://cdn.circuit.example.com/thumbs/2nm.jpg")
    );

    let podcast = &feed.entries[1];
    assert_eq!(podcast.guid, "https://circuit.example.com/podcast/42");
    assert_eq!(podcast.author.as_deref(), Some("Sam Okafor"));
    // Double-escaped entity in a plain description.
    assert_eq!(
        podcast.paragraphs,
        vec!["We talk to three maintainers about sustainable open source & funding."]
    );
    assert_eq!(
        podcast.image_url, None,
        "an audio enclosure is not an image"
    );

    let photos = &feed.entries[2];
    // A relative link, resolved against the feed URL; it doubles as the guid.
    assert_eq!(
        photos.link.as_deref(),
        Some("https://circuit.example.com/2025/03/02/typewriters")
    );
    assert_eq!(
        photos.guid,
        "https://circuit.example.com/2025/03/02/typewriters"
    );
    assert_eq!(
        photos.paragraphs,
        vec![
            "In a back street in Leeds, one man still fixes typewriters.",
            "He has no plans to retire.",
        ]
    );
    assert_eq!(
        photos.image_url.as_deref(),
        Some("https://cdn.circuit.example.com/photos/typewriter.jpg"),
        "an image enclosure"
    );

    let quantum = &feed.entries[3];
    assert_eq!(quantum.title, "Quantum networking crosses 100 km");
    assert_eq!(
        quantum.published_at,
        Some(Utc.with_ymd_and_hms(2025, 3, 1, 7, 15, 0).unwrap()),
        "+0100 converted to UTC"
    );
    assert_eq!(topic_ids(quantum), vec!["science", "physics"]);
    assert_eq!(
        quantum.paragraphs,
        vec![
            "Entanglement, at distance",
            "Researchers kept photons entangled across 100 km of fibre.",
            "“It’s a milestone,” said the lead author. Read the paper.",
        ]
    );
    assert!(
        !quantum.paragraphs.iter().any(|p| p.contains("Video")),
        "iframe dropped"
    );
    assert_eq!(
        quantum.image_url.as_deref(),
        Some("https://circuit.example.com/img/fibre.png"),
        "first <img> of the body"
    );
    // No description: the summary comes from the body.
    assert!(quantum
        .summary
        .as_deref()
        .unwrap()
        .starts_with("Entanglement, at distance"));

    let review = &feed.entries[4];
    assert_eq!(review.title, "Review: the Framework 16, a year later");
    assert_eq!(
        review.published_at,
        Some(Utc.with_ymd_and_hms(2025, 2, 28, 21, 45, 0).unwrap())
    );
    assert_eq!(
        review.paragraphs,
        vec![
            "Twelve months, two mainboards and one very sticky keyboard later…",
            "Battery: 7½ hours",
            "Repairability: 10/10",
            "Verdict: still the laptop to beat ™.",
        ]
    );
    assert_eq!(topic_ids(review), vec!["reviews", "laptops", "tech"]);
    assert_eq!(
        review.image_url.as_deref(),
        Some("https://cdn.circuit.example.com/photos/fw16.webp"),
        "media:content image"
    );

    let note = &feed.entries[5];
    assert!(note
        .title
        .starts_with("Short note without a title: the office"));
    assert!(note.title.ends_with('…'));
    assert!(note.title.chars().count() <= 80);
    assert_eq!(note.link, None);
    assert!(note.guid.starts_with("sha256:") && note.guid.len() == 7 + 32);
    // Derived guids are stable across parses.
    let again = parse_feed(RSS, "https://circuit.example.com/feed.xml").unwrap();
    assert_eq!(again.entries[5].guid, note.guid);
}

#[test]
fn atom_feed() {
    let feed = parse_feed(ATOM, "https://climate.example.org/atom.xml").unwrap();
    assert_clean(&feed);
    assert_eq!(feed.title, "Field Notes on Climate");
    assert_eq!(
        feed.site_url.as_deref(),
        Some("https://climate.example.org/")
    );
    assert_eq!(
        feed.description.as_deref(),
        Some("Reporting from the front lines of a warming world")
    );
    assert_eq!(feed.entries.len(), 4);

    let glaciers = &feed.entries[0];
    assert_eq!(glaciers.guid, "tag:climate.example.org,2025:glaciers");
    assert_eq!(glaciers.title, "Glaciers & the summer melt");
    assert_eq!(glaciers.author.as_deref(), Some("Lena Halvorsen"));
    assert_eq!(
        glaciers.published_at,
        Some(Utc.with_ymd_and_hms(2025, 2, 20, 8, 0, 0).unwrap()),
        "published wins over updated"
    );
    assert_eq!(
        glaciers.summary.as_deref(),
        Some("Alpine glaciers lost a record share of their ice last summer.")
    );
    assert_eq!(
        glaciers.paragraphs,
        vec![
            "Alpine glaciers lost a record share of their ice last summer, according to new survey data.",
            "Scientists measured 37 glaciers — all of them shrank.",
        ]
    );
    assert_eq!(topic_ids(glaciers), vec!["climate", "glaciers"]);
    assert_eq!(
        glaciers.image_url.as_deref(),
        Some("https://climate.example.org/media/glacier.jpg")
    );

    let heat = &feed.entries[1];
    assert_eq!(
        heat.link.as_deref(),
        Some("https://climate.example.org/2025/heat-pumps")
    );
    assert_eq!(
        heat.published_at,
        Some(Utc.with_ymd_and_hms(2025, 2, 18, 11, 0, 0).unwrap()),
        "updated used when there is no published date"
    );
    assert_eq!(
        heat.author.as_deref(),
        Some("Field Notes Desk"),
        "feed author"
    );
    assert_eq!(
        heat.topics,
        vec![
            Topic {
                id: "energy".into(),
                name: "Energy".into()
            },
            Topic {
                id: "policy-law".into(),
                name: "Policy & Law".into()
            },
        ]
    );
    assert_eq!(
        heat.paragraphs,
        vec![
            "A turning point",
            "Sales figures for 2024 show heat pumps ahead in six countries."
        ]
    );

    let sea = &feed.entries[2];
    assert_eq!(sea.title, "Sea level: what the satellites say");
    assert_eq!(
        sea.paragraphs,
        vec![
            "Thirty years of altimetry show the rise is accelerating.",
            "The rate has doubled since 1993.",
        ]
    );
    assert_eq!(
        sea.image_url.as_deref(),
        Some("https://climate.example.org/media/sea-level-chart.png")
    );

    let wheat = &feed.entries[3];
    assert_eq!(
        wheat.paragraphs,
        vec!["“We planted three varieties,” she says."]
    );
    assert_eq!(topic_ids(wheat), vec!["agriculture", "food"]);
    assert_eq!(wheat.image_url, None);
}

#[test]
fn json_feed() {
    let feed = parse_feed(JSON, "https://smallbatch.example.net/feed.json").unwrap();
    assert_clean(&feed);
    assert_eq!(feed.title, "Small Batch Dev");
    assert_eq!(
        feed.site_url.as_deref(),
        Some("https://smallbatch.example.net/")
    );
    assert_eq!(feed.entries.len(), 3);

    let shipping = &feed.entries[0];
    assert_eq!(shipping.guid, "2025-01-15-shipping");
    assert_eq!(shipping.title, "Shipping small & often");
    assert_eq!(shipping.author.as_deref(), Some("Ada Example"));
    assert_eq!(shipping.summary.as_deref(), Some("Why small changes win."));
    assert_eq!(
        shipping.paragraphs,
        vec![
            "Small changes are easier to review.",
            "They are also easier to roll back…"
        ]
    );
    assert_eq!(topic_ids(shipping), vec!["engineering", "process"]);
    assert_eq!(
        shipping.image_url.as_deref(),
        Some("https://smallbatch.example.net/img/shipping.png")
    );

    let tests = &feed.entries[1];
    assert_eq!(
        tests.link.as_deref(),
        Some("https://smallbatch.example.net/posts/tests-as-docs")
    );
    assert_eq!(
        tests.paragraphs,
        vec![
            "Tests tell you what the code does.",
            "Docs tell you what it should do."
        ]
    );
    assert_eq!(
        tests.published_at,
        Some(Utc.with_ymd_and_hms(2025, 1, 9, 6, 30, 0).unwrap())
    );

    let untitled = &feed.entries[2];
    assert!(untitled.title.starts_with("No title on this one"));
    assert!(untitled.title.chars().count() <= 80);
}

#[test]
fn rss1_and_rss091() {
    let rdf = br#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
         xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://rdf.example.com/">
    <title>RDF News</title><link>https://rdf.example.com/</link><description>Old school</description>
  </channel>
  <item rdf:about="https://rdf.example.com/a">
    <title>First &amp; foremost</title><link>https://rdf.example.com/a</link>
    <description>Hello &lt;b&gt;world&lt;/b&gt;</description><dc:date>2024-05-01T10:00:00Z</dc:date>
    <dc:subject>History</dc:subject>
  </item>
</rdf:RDF>"#;
    let feed = parse_feed(rdf, "https://rdf.example.com/index.rdf").unwrap();
    assert_eq!(feed.title, "RDF News");
    assert_eq!(feed.entries.len(), 1);
    assert_eq!(feed.entries[0].title, "First & foremost");
    assert_eq!(feed.entries[0].paragraphs, vec!["Hello world"]);
    assert_eq!(
        feed.entries[0].published_at,
        Some(Utc.with_ymd_and_hms(2024, 5, 1, 10, 0, 0).unwrap())
    );

    let rss091 = br#"<rss version="0.91"><channel><title>Legacy</title><link>http://legacy.example.com/</link>
      <item><title>Item one</title><link>http://legacy.example.com/1</link><description>Body one</description></item>
    </channel></rss>"#;
    let feed = parse_feed(rss091, "http://legacy.example.com/rss").unwrap();
    assert_eq!(feed.title, "Legacy");
    assert_eq!(
        feed.entries[0].link.as_deref(),
        Some("http://legacy.example.com/1")
    );
    assert_eq!(feed.entries[0].guid, "http://legacy.example.com/1");
}

#[test]
fn feed_without_title_is_named_after_its_host() {
    let body = br#"<rss version="2.0"><channel><link>https://untitled.example.com/</link></channel></rss>"#;
    let feed = parse_feed(body, "https://untitled.example.com/rss").unwrap();
    assert_eq!(feed.title, "untitled.example.com");
    assert!(feed.entries.is_empty());
}

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

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> Option<chrono::DateTime<Utc>> {
    Some(Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap())
}

fn not_a_feed(body: &[u8]) -> String {
    match parse_feed(body, "https://example.com/feed") {
        Err(ParseError::NotAFeed(why)) => why,
        Ok(feed) => panic!("parsed as {feed:?}"),
    }
}

#[test]
fn rdf_feed_with_content_module_under_another_prefix() {
    let feed = parse_feed(RDF, "https://tides.example.org/index.rdf").unwrap();
    assert_clean(&feed);
    assert_eq!(feed.title, "Tide Tables & Notes");
    assert_eq!(feed.site_url.as_deref(), Some("https://tides.example.org/"));
    assert_eq!(
        feed.description.as_deref(),
        Some("Coastal observations, weekly.")
    );
    assert_eq!(feed.entries.len(), 2);

    let spring = &feed.entries[0];
    assert_eq!(spring.guid, "https://tides.example.org/notes/spring-tides");
    assert_eq!(spring.author.as_deref(), Some("Morag Innes"));
    assert_eq!(spring.published_at, utc(2024, 9, 14, 5, 0, 0));
    assert_eq!(
        spring.paragraphs,
        vec![
            "Expect the highest water of the year on Saturday.",
            "Move your car off the quay."
        ],
        "content:encoded (bound to the prefix enc:) is the body"
    );
    assert_eq!(
        spring.summary.as_deref(),
        Some("Expect the highest water of the year on Saturday.")
    );
    assert_eq!(
        spring.image_url.as_deref(),
        Some("https://tides.example.org/img/quay.jpg")
    );

    let fog = &feed.entries[1];
    assert_eq!(
        fog.link.as_deref(),
        Some("https://tides.example.org/notes/fog")
    );
    assert_eq!(
        fog.paragraphs,
        vec![
            "Visibility under 200 m until noon.",
            "Ferries are running late."
        ],
        "dc:description, plain text"
    );
    assert_eq!(
        fog.author.as_deref(),
        Some("Harbour Office"),
        "channel dc:creator"
    );
    assert_eq!(fog.published_at, utc(2024, 9, 10, 0, 0, 0), "a date alone");
}

#[test]
fn json_feed_1_0() {
    // feed-rs reads JSON Feed strictly: a numeric id, or tags that are not a list of strings,
    // make the document no JSON Feed.
    let why = not_a_feed(JSON_1_0);
    assert!(why.contains("expected a string"), "{why}");
    let fixed = String::from_utf8(JSON_1_0.to_vec())
        .unwrap()
        .replace(r#""id": 1017"#, r#""id": "1017""#)
        .replace(r#""tags": "not-a-list","#, "");
    let feed = parse_feed(fixed.as_bytes(), "https://bench.example.net/feed.json").unwrap();
    assert_clean(&feed);
    assert_eq!(feed.title, "Bench Notes");
    assert_eq!(feed.site_url.as_deref(), Some("https://bench.example.net/"));

    let solder = &feed.entries[0];
    assert_eq!(solder.guid, "1017");
    assert_eq!(
        solder.author.as_deref(),
        Some("Ola Nordmann"),
        "feed author"
    );
    assert_eq!(
        solder.link.as_deref(),
        Some("https://bench.example.net/1017")
    );
    assert_eq!(
        solder.paragraphs,
        vec!["Heat the joint, not the solder.", "Then wait."]
    );
    assert_eq!(solder.published_at, utc(2024, 12, 1, 14, 0, 0));
    assert_eq!(
        solder.image_url.as_deref(),
        Some("https://bench.example.net/img/1017.png"),
        "the image attachment, not the audio one"
    );

    let flux = &feed.entries[1];
    assert_eq!(
        flux.link.as_deref(),
        Some("https://elsewhere.example.com/flux")
    );
    assert_eq!(flux.paragraphs, vec!["Worth your time."]);
    assert_eq!(flux.summary.as_deref(), Some("Worth your time."));
    assert_eq!(
        flux.image_url.as_deref(),
        Some("https://bench.example.net/img/flux-banner.jpg")
    );
    assert!(flux.topics.is_empty());
    assert_eq!(flux.published_at, None, "an unreadable date is left out");
}

#[test]
fn iso_8859_1_feed() {
    let feed = parse_feed(LATIN1, "https://cafe.example.fr/rss").unwrap();
    assert_clean(&feed);
    assert_eq!(feed.title, "Le Café du Marché");
    let entry = &feed.entries[0];
    assert_eq!(entry.title, "Crème brûlée à volonté");
    assert_eq!(
        entry.paragraphs,
        vec!["Samedi, c'est gratuit. Réservez à l'accueil."]
    );
    assert_eq!(entry.topics[0].name, "Gâteaux");
    assert_eq!(entry.published_at, utc(2024, 12, 7, 9, 0, 0));
}

#[test]
fn utf16_feeds_with_and_without_byte_order_mark() {
    let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss version=\"2.0\"><channel><title>Ωmega ☂</title><item><title>Ça va</title><guid>1</guid></item></channel></rss>";
    let big_endian: Vec<u8> = std::iter::once(0xFEFF_u16)
        .chain(xml.encode_utf16())
        .flat_map(|u| u.to_be_bytes())
        .collect();
    let little_endian_no_bom: Vec<u8> = xml.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    for body in [big_endian, little_endian_no_bom] {
        let feed = parse_feed(&body, "https://example.com/feed").unwrap();
        assert_eq!(feed.title, "Ωmega ☂");
        assert_eq!(feed.entries[0].title, "Ça va");
    }
}

#[test]
fn sloppy_rfc2822_dates() {
    let dates = [
        ("Tue, 04 Mar 2025 09:30:00 GMT", utc(2025, 3, 4, 9, 30, 0)),
        ("4 Mar 2025 09:30:00 +0000", utc(2025, 3, 4, 9, 30, 0)),
        (
            "Tuesday, 4 March 2025 9:30:00 UT",
            utc(2025, 3, 4, 9, 30, 0),
        ),
        ("Tue, 04 Mar 2025 09:30 Z", utc(2025, 3, 4, 9, 30, 0)),
        ("Tue, 04 Mar 25 09:30:00 EST", utc(2025, 3, 4, 14, 30, 0)),
        ("Tue, 04 Mar 2025 09:30:00 PDT", utc(2025, 3, 4, 16, 30, 0)),
        ("Wed, 04 Mar 2025 09:30:00 UTC", utc(2025, 3, 4, 9, 30, 0)),
        ("Mar 4 2025 09:30:00 -0500", utc(2025, 3, 4, 14, 30, 0)),
        ("Tue, 04 Mar 2025 09:30:00", utc(2025, 3, 4, 9, 30, 0)),
        ("2025-03-04T09:30:00+0100", utc(2025, 3, 4, 8, 30, 0)),
        ("2025-03-04 09:30:00Z", utc(2025, 3, 4, 9, 30, 0)),
        ("sometime in March", None),
    ];
    let items: String = dates
        .iter()
        .enumerate()
        .map(|(i, (d, _))| {
            format!("<item><title>{i}</title><guid>{i}</guid><pubDate>{d}</pubDate></item>")
        })
        .collect();
    let body = format!(r#"<rss version="2.0"><channel><title>T</title>{items}</channel></rss>"#);
    let feed = parse_feed(body.as_bytes(), "https://example.com/feed").unwrap();
    for ((text, expected), entry) in dates.iter().zip(&feed.entries) {
        assert_eq!(&entry.published_at, expected, "{text}");
    }
}

#[test]
fn atom_xhtml_prefixed_namespace_and_xml_base() {
    let feed = parse_feed(ATOM_XHTML, "https://workshop.example.org/atom.xml").unwrap();
    assert_clean(&feed);
    assert_eq!(feed.title, "The Workshop Journal");
    assert_eq!(
        feed.site_url.as_deref(),
        Some("https://workshop.example.org/journal/"),
        "resolved against the feed's xml:base"
    );

    let dovetails = &feed.entries[0];
    assert_eq!(dovetails.title, "Dovetails & other joints, by hand");
    assert_eq!(
        dovetails.link.as_deref(),
        Some("https://workshop.example.org/journal/2025/dovetails.html"),
        "the entry's relative xml:base, on the feed's"
    );
    assert_eq!(dovetails.author.as_deref(), Some("Ines Duarte"));
    assert_eq!(dovetails.published_at, utc(2025, 4, 2, 8, 0, 0));
    assert_eq!(
        dovetails.paragraphs[0],
        "Mark the tails first & cut on the waste side."
    );
    // feed-rs 3.0 re-serialises XHTML without escaping attribute values: the `"` of
    // `title="a &quot;quoted&quot; &lt;title&gt;"` ends the value early, and the rest of the
    // tag shows in the text.
    assert_eq!(dovetails.paragraphs[1], "\">Pare to the line—slowly.");
    assert_eq!(
        dovetails.image_url.as_deref(),
        Some("https://workshop.example.org/journal/2025/img/tails.jpg")
    );

    let sharpening = &feed.entries[1];
    assert_eq!(sharpening.title, "Sharpening, again");
    assert_eq!(
        sharpening.link.as_deref(),
        Some("https://workshop.example.org/journal/sharpening")
    );
    assert_eq!(
        sharpening.author.as_deref(),
        Some("desk@workshop.example.org")
    );
    assert_eq!(sharpening.published_at, utc(2025, 3, 30, 8, 0, 0));
    assert_eq!(
        sharpening.paragraphs,
        vec!["Hone every session."],
        "content elsewhere (src): the summary is the body"
    );
}

#[test]
fn media_thumbnails_enclosures_and_artwork() {
    let feed = parse_feed(MEDIA, "https://photos.example.com/feed.xml").unwrap();
    assert_clean(&feed);
    let image = |guid: &str| {
        feed.entries
            .iter()
            .find(|e| e.guid == guid)
            .unwrap()
            .image_url
            .clone()
    };
    assert_eq!(
        image("standalone").as_deref(),
        Some("https://photos.example.com/blog/thumbs/standalone.jpg"),
        "a media:thumbnail on its own beats the inline <img>, resolved against xml:base"
    );
    assert_eq!(
        image("grouped").as_deref(),
        Some("https://photos.example.com/thumbs/clip.jpg")
    );
    assert_eq!(
        image("extension").as_deref(),
        Some("https://photos.example.com/full/harbour.JPEG"),
        "media:content without a type, known by its extension, before the enclosure"
    );
    assert_eq!(
        image("enclosure").as_deref(),
        Some("https://cdn.photos.example.com/2024/shot.webp")
    );
    let enclosure = feed.entries.iter().find(|e| e.guid == "enclosure").unwrap();
    assert_eq!(
        enclosure.link.as_deref(),
        Some("https://cdn.photos.example.com/2024/post.html")
    );
    assert_eq!(
        image("itunes").as_deref(),
        Some("https://photos.example.com/art.png")
    );
    assert_eq!(image("video"), None);
    let video = feed.entries.iter().find(|e| e.guid == "video").unwrap();
    assert_eq!(
        video.paragraphs,
        vec!["Plain words."],
        "content:encoded of another namespace is not the content module"
    );
}

#[test]
fn undeclared_prefixes_entities_and_cdata() {
    // No xmlns for content: or media: (a common mistake).
    let body = br#"<rss version="2.0"><channel>
      <title>Caf&eacute; &amp; bar&nbsp;&#x263A;</title>
      <item><guid>1</guid><title><![CDATA[Fish & <b>chips</b>]]></title>
        <content:encoded><![CDATA[<p>Body</p>]]></content:encoded>
        <description>Raw <b>markup</b> left unescaped</description>
        <media:thumbnail url="https://example.com/t.jpg"/>
      </item></channel></rss>"#;
    let feed = parse_feed(body, "https://example.com/feed").unwrap();
    assert_eq!(feed.title, "Café & bar ☺");
    let entry = &feed.entries[0];
    assert_eq!(entry.title, "Fish & chips");
    // feed-rs reads an undeclared `content:encoded` as no element of the content module, and
    // a description's text up to its first (unescaped) child element.
    assert_eq!(entry.paragraphs, vec!["Raw"]);
    assert_eq!(entry.summary.as_deref(), Some("Raw"));
    // The thumbnail is the scan's (by its local name).
    assert_eq!(
        entry.image_url.as_deref(),
        Some("https://example.com/t.jpg")
    );

    // RSS in the UserLand namespace: feed-rs reads none of its elements.
    let body = br#"<rss version="2.0" xmlns="http://backend.userland.com/rss2"><channel>
      <title>Named</title><item><guid>1</guid><title>x</title></item></channel></rss>"#;
    let feed = parse_feed(body, "https://example.com/feed").unwrap();
    assert_eq!(feed.title, "example.com");
    assert!(feed.entries.is_empty());
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
