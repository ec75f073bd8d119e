//! The formats, each on a realistic feed: RSS 2.0, Atom, JSON Feed, RSS 1.0 and 0.91.

use chrono::{TimeZone, Utc};
use news::{parse_feed, Topic};

use super::{assert_clean, topic_ids, ATOM, JSON, RSS};

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
