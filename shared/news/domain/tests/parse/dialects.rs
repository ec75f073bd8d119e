//! What feeds in the wild do: other prefixes, JSON Feed 1.0, ISO-8859-1 and UTF-16, sloppy
//! dates, XHTML and xml:base, media and artwork, undeclared prefixes, entities and CDATA.

use news::parse_feed;

use super::{assert_clean, not_a_feed, utc, ATOM_XHTML, JSON_1_0, LATIN1, MEDIA, RDF};

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
