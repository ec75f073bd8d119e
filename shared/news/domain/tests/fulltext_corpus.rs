//! The extractor measured on saved article pages (`tests/pages`, 32 pages of eleven site
//! shapes: news, blogs, docs, press releases, magazines, opinion, reviews, a forum, a recipe,
//! a wiki, a newsletter): the share whose extracted text holds the article's first and last
//! paragraphs, and the share with boilerplate (navigation, cookie banners, related links,
//! comments, footers) left in. Prints both; fails when they fall below what was measured.
// Test code: a failed unwrap or assertion is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod support;
use support::manifest_dir;

#[derive(serde::Deserialize)]
struct Expected {
    page: String,
    shape: String,
    first: String,
    last: String,
    boilerplate: Vec<String>,
}

#[test]
fn extraction_keeps_the_article_and_drops_the_boilerplate() {
    let dir = manifest_dir().join("tests/pages");
    let expected: Vec<Expected> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    assert!(expected.len() >= 30, "at least 30 pages");
    let (mut whole, mut with_boilerplate) = (0usize, 0usize);
    for page in &expected {
        let html = std::fs::read_to_string(dir.join(&page.page)).unwrap();
        let url = format!("https://site.example/{}", page.page);
        let paragraphs = news::fulltext::extract_paragraphs(&html, &url);
        let text = paragraphs.join("\n");
        let has_both = text.contains(&page.first) && text.contains(&page.last);
        let left: Vec<&String> = page
            .boilerplate
            .iter()
            .filter(|b| text.contains(b.as_str()))
            .collect();
        if has_both {
            whole += 1;
        } else {
            println!(
                "{} ({}): first or last paragraph missing: {paragraphs:#?}",
                page.page, page.shape
            );
        }
        if !left.is_empty() {
            with_boilerplate += 1;
            println!(
                "{} ({}): boilerplate left in: {left:?}",
                page.page, page.shape
            );
        }
    }
    let n = expected.len();
    let share = |k: usize| k as f64 * 100.0 / n as f64;
    println!(
        "full text: {whole}/{n} pages ({:.0}%) hold their first and last paragraphs; \
         {with_boilerplate}/{n} ({:.0}%) have boilerplate left in",
        share(whole),
        share(with_boilerplate)
    );
    assert!(share(whole) >= 90.0, "{whole}/{n} whole");
    assert!(
        share(with_boilerplate) <= 10.0,
        "{with_boilerplate}/{n} with boilerplate"
    );
}
