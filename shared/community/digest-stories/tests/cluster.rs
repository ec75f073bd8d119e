//! The clustering's contract on small made-up days: order, sources, duplicates, bounds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use chrono::{DateTime, TimeZone, Utc};
use digest_stories::{
    cluster, cluster_with, Article, ArticleId, Linkage, Options, SourceId, Threshold, TopicId,
};

fn at(hour: u32, minute: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 5, 20, hour, minute, 0).unwrap()
}

fn article(id: &str, source: &str, when: DateTime<Utc>, title: &str, text: &str) -> Article {
    Article {
        id: ArticleId::new(id),
        source_id: SourceId::new(source),
        source_title: source.to_uppercase(),
        title: title.to_string(),
        text: text.to_string(),
        link: None,
        published_at: when,
        topics: vec![TopicId::new(format!("topic-{source}"))],
    }
}

fn day() -> Vec<Article> {
    vec![
        // Three sources, one of them twice.
        article(
            "q1",
            "reuters",
            at(3, 10),
            "Earthquake in Malatya kills three",
            "A magnitude 6.1 earthquake struck Malatya in eastern Turkey.",
        ),
        article(
            "q2",
            "bbc",
            at(3, 40),
            "Malatya earthquake: three dead",
            "Three people died when a 6.1 earthquake hit Malatya, Turkey.",
        ),
        article(
            "q3",
            "dw",
            at(4, 0),
            "Three killed by Malatya earthquake",
            "The 6.1 earthquake in Malatya, Turkey killed three people.",
        ),
        article(
            "q4",
            "bbc",
            at(5, 0),
            "Malatya earthquake death toll stays at three",
            "Rescuers in Malatya, Turkey ended the search after the 6.1 earthquake.",
        ),
        // Two sources, published late.
        article(
            "b1",
            "espn",
            at(18, 0),
            "Bellini reaches Wimbledon semi-final",
            "Marco Bellini beat Jonas Kral at Wimbledon.",
        ),
        article(
            "b2",
            "bbc",
            at(18, 30),
            "Wimbledon: Bellini beats Kral for semi-final place",
            "Bellini defeated Kral in four sets at Wimbledon.",
        ),
        // Two sources, published earlier.
        article(
            "o1",
            "sky",
            at(9, 0),
            "Okafor winner sinks Chelsea",
            "Daniel Okafor scored late as Arsenal beat Chelsea.",
        ),
        article(
            "o2",
            "espn",
            at(9, 30),
            "Arsenal beat Chelsea through late Okafor header",
            "Okafor headed the winner for Arsenal against Chelsea.",
        ),
        // Alone.
        article(
            "z1",
            "nature",
            at(12, 0),
            "Humpback whales recover in the South Atlantic",
            "A survey off Brazil counted 25,000 humpback whales.",
        ),
    ]
}

#[test]
fn nothing_in_nothing_out() {
    assert!(cluster(Vec::new()).is_empty());
}

#[test]
fn stories_are_ordered_by_sources_then_articles_then_recency() {
    let stories = cluster(day());
    let ids: Vec<Vec<&str>> = stories
        .iter()
        .map(|s| s.articles.iter().map(|a| a.id.as_str()).collect())
        .collect();
    assert_eq!(
        ids,
        [
            vec!["q1", "q2", "q3", "q4"],
            vec!["b1", "b2"],
            vec!["o1", "o2"],
            vec!["z1"]
        ]
    );
    let quake = &stories[0];
    let sources: Vec<(&str, usize)> = quake
        .sources
        .iter()
        .map(|s| (s.id.as_str(), s.articles))
        .collect();
    assert_eq!(sources, [("reuters", 1), ("bbc", 2), ("dw", 1)]);
    assert_eq!(quake.sources[1].title, "BBC");
    assert_eq!(quake.sources[1].first_published_at, at(3, 40));
    assert_eq!(quake.first_published_at, at(3, 10));
    assert_eq!(quake.last_published_at, at(5, 0));
    let topics: Vec<&str> = quake.topics.iter().map(TopicId::as_str).collect();
    assert_eq!(topics, ["topic-bbc", "topic-dw", "topic-reuters"]);
    let representative = quake
        .articles
        .iter()
        .find(|a| a.id == quake.representative)
        .unwrap();
    assert_eq!(representative.title, quake.headline);
}

#[test]
fn the_input_order_and_duplicates_do_not_matter() {
    let expected = cluster(day());
    let mut shuffled = day();
    shuffled.reverse();
    shuffled.rotate_left(4);
    // An article delivered twice (it was in two followed topics).
    shuffled.push(day()[2].clone());
    assert_eq!(cluster(shuffled), expected);
    assert_eq!(expected.iter().map(|s| s.articles.len()).sum::<usize>(), 9);
}

#[test]
fn thresholds_outside_zero_to_one_are_refused() {
    for bad in [0.0, -0.1, 1.01, f64::NAN, f64::INFINITY] {
        assert!(Threshold::new(bad).is_err(), "{bad}");
    }
    assert_eq!(Threshold::new(1.0).unwrap().get(), 1.0);
    // At 1.0 only identical texts join.
    let strict = Options {
        threshold: Threshold::new(1.0).unwrap(),
        linkage: Linkage::Average,
    };
    assert_eq!(cluster_with(day(), &strict).len(), 9);
}

/// A day of one topic: every article says "football", so that word is in more than `max(MAX_DF_FLOOR, n / MAX_DF_SHARE)` articles
/// and counts for nothing; the stories are still found through their own words, and two
/// articles sharing only common words stay apart.
#[test]
fn a_word_in_every_article_neither_joins_nor_hides_stories() {
    let mut articles = Vec::new();
    for story in 0..100_u32 {
        for source in 0..3_u32 {
            let name = format!("Club{story}");
            let rival = format!("Rival{story}");
            articles.push(article(
                &format!("s{story}-{source}"),
                &format!("source{source}"),
                at(10, source),
                &format!("Football: {name} beat {rival} in the league (report {source})"),
                &format!("Football match report: {name} beat {rival} at home, football league."),
            ));
        }
    }
    let stories = cluster(articles);
    assert_eq!(stories.len(), 100);
    for story in &stories {
        let prefix = story.articles[0]
            .id
            .as_str()
            .split('-')
            .next()
            .unwrap()
            .to_string();
        assert!(story
            .articles
            .iter()
            .all(|a| a.id.as_str().starts_with(&format!("{prefix}-"))));
        assert_eq!(story.sources.len(), 3);
    }
}
