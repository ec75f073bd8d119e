//! Clustering at the scale of a day: N synthetic articles (default 2,000) in stories of 1-6
//! sources, timed over a few runs, with the pairwise precision and recall against the
//! generator's own stories for both linkages.
//!
//! `cargo bench -p digest-stories --bench cluster [ARTICLES]`. The articles are made up, not
//! news: every story has two capitalised names and three event words of its own, its
//! articles pick different subsets of them among filler words drawn from a Zipf law over a
//! 20,000-word vocabulary (so common words are shared by hundreds of articles, as in a day of
//! one topic). The labelled day (`tests/labelled.rs`) measures the quality on real wording;
//! this measures time and memory bounds.
// A benchmark: printing is its output, and a failed setup ends it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use digest_stories::eval::pairwise;
use digest_stories::{cluster_with, Article, ArticleId, Linkage, Options, SourceId};

const VOCABULARY: u64 = 20_000;
const RUNS: usize = 5;

/// A deterministic generator (SplitMix64), so every run clusters the same articles.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A word rank from a Zipf law (s = 1) over the vocabulary.
    fn zipf(&mut self) -> u64 {
        let h = (VOCABULARY as f64).ln() + 0.5772;
        let target = self.unit() * h;
        ((target - 0.5772).exp().floor() as u64).clamp(1, VOCABULARY)
    }
}

/// The word of a rank: letters only, so stemming leaves it whole.
fn word(rank: u64) -> String {
    let mut n = rank;
    let mut out = String::new();
    loop {
        out.push(char::from(b"bcdfghjklmnpqrtvwxz"[(n % 19) as usize]));
        out.push(char::from(b"aou"[(n / 19 % 3) as usize]));
        n /= 57;
        if n == 0 {
            break;
        }
    }
    out
}

fn capitalised(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn day(articles: usize, rng: &mut Rng) -> (Vec<Article>, HashMap<ArticleId, usize>) {
    let mut out = Vec::with_capacity(articles);
    let mut labels = HashMap::new();
    let mut story = 0;
    while out.len() < articles {
        // Story words: rare ranks (beyond the Zipf head), distinct per story.
        let own: Vec<String> = (0..5)
            .map(|k| word(VOCABULARY + 1 + (story * 5 + k) as u64))
            .collect();
        let names = [capitalised(&own[0]), capitalised(&own[1])];
        let sources = 1 + rng.below(6) as usize;
        for source in 0..sources.min(articles - out.len()) {
            let pick = |rng: &mut Rng, n: usize| -> Vec<String> {
                (0..n)
                    .map(|_| own[2 + rng.below(3) as usize].clone())
                    .collect()
            };
            let filler = |rng: &mut Rng, n: usize| -> Vec<String> {
                (0..n).map(|_| word(rng.zipf())).collect()
            };
            let mut title = vec![names[rng.below(2) as usize].clone()];
            title.extend(pick(rng, 2));
            title.extend(filler(rng, 4));
            let mut text = filler(rng, 6);
            text.push(names[0].clone());
            text.extend(pick(rng, 2));
            text.push(names[1].clone());
            text.extend(filler(rng, 30));
            let id = ArticleId::new(format!("a{}", out.len()));
            labels.insert(id.clone(), story);
            out.push(Article {
                id,
                source_id: SourceId::new(format!("source{source}")),
                source_title: format!("Source {source}"),
                title: title.join(" "),
                text: text.join(" "),
                link: None,
                published_at: Utc
                    .timestamp_opt(1_747_700_000 + out.len() as i64 * 40, 0)
                    .unwrap(),
                topics: Vec::new(),
            });
        }
        story += 1;
    }
    (out, labels)
}

fn main() {
    let articles: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|a| a.parse().expect("ARTICLES"))
        .unwrap_or(2_000);
    let (day, labels) = day(articles, &mut Rng(2025));
    let events = labels
        .values()
        .collect::<std::collections::HashSet<_>>()
        .len();
    println!("{articles} articles in {events} stories");
    for linkage in [Linkage::Average, Linkage::Single] {
        let options = Options {
            linkage,
            ..Options::default()
        };
        let mut times: Vec<Duration> = Vec::new();
        let mut stories = Vec::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            stories = cluster_with(day.clone(), &options);
            times.push(start.elapsed());
        }
        times.sort();
        let scores = pairwise(&labels, &stories);
        println!(
            "{linkage:?}: median {:.1} ms (min {:.1}), {} stories, precision {:.3} recall {:.3}",
            times[RUNS / 2].as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            stories.len(),
            scores.precision(),
            scores.recall()
        );
    }
}
