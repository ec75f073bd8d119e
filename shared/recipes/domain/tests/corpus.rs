//! The import corpus (`tests/fixtures/recipe-pages`: pages in the shapes recipe publishers
//! write, each beside the recipe expected of it) read by the import's structured reader,
//! without a stack: the per-field accuracy, printed (`cargo test -p recipes --test corpus --
//! --nocapture`). The stack test (`tests/tests/recipes/import.rs`) imports the same pages
//! through the route, the model's page included.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::path::PathBuf;

use recipes::import::{self, corpus::Score};
use recipes::model::ImportedBy;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/recipe-pages")
}

#[test]
fn structured_pages_read_as_expected() {
    let base = "http://127.0.0.1:8080";
    let mut score = Score::default();
    let mut pages = 0;
    for case in import::corpus::cases(&corpus_dir()).unwrap() {
        if case.expected["importedBy"] == "model" {
            continue;
        }
        pages += 1;
        let url = url::Url::parse(&format!("{base}/{}.html", case.name)).unwrap();
        let html = import::decode(&case.body, case.content_type.as_deref());
        let found = import::structured(&html, &url)
            .unwrap_or_else(|| panic!("{}: no structured recipe", case.name));
        let imported = import::into_recipe(found, url.as_str(), ImportedBy::Structured).unwrap();
        let got = import::corpus::actual(&imported.recipe);
        score.add(&case.name, &case.expected, &got, base);
    }
    println!("{}", score.report());
    assert!(pages >= 30, "{pages} structured pages");
    for miss in &score.misses {
        println!("miss: {miss}");
    }
    assert!(score.misses.len() <= 3, "{:#?}", score.misses);
}
