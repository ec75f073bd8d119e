//! Grouping a day's articles into events: the same story reported by several sources becomes
//! one event.
//!
//! The boundary is [`StoryGrouping`]: articles in, groups of indexes out (every article in
//! exactly one group, groups in order of their first article). [`SimilarStories`] is the
//! service's grouping: the crate `digest-stories` (TF-IDF over headline and text with names
//! weighted, average-linkage clustering at a threshold chosen on a labelled day; its docs give
//! the method and the measured precision and recall).

use chrono::{DateTime, Utc};
use digest_stories::{Article, ArticleId, SourceId, TopicId};

use crate::ports::ArticleRef;

/// Groups articles into stories.
pub trait StoryGrouping: Send + Sync {
    /// Groups of indexes into `articles`: each index exactly once, groups ordered by their
    /// first member, members in input order.
    fn group(&self, articles: &[ArticleRef]) -> Vec<Vec<usize>>;
}

/// Articles about the same event, by text similarity (`digest-stories` with its defaults).
#[derive(Debug, Clone, Copy, Default)]
pub struct SimilarStories;

/// The grouping the service uses.
pub fn default_grouping() -> SimilarStories {
    SimilarStories
}

impl StoryGrouping for SimilarStories {
    fn group(&self, articles: &[ArticleRef]) -> Vec<Vec<usize>> {
        // The index is the id, so every story maps back to its articles here.
        let input: Vec<Article> = articles
            .iter()
            .enumerate()
            .map(|(i, a)| Article {
                id: ArticleId::new(i.to_string()),
                source_id: SourceId::new(a.source_id.clone()),
                source_title: a.source_title.clone(),
                title: a.title.clone(),
                text: a.summary.clone(),
                link: a.link.clone(),
                published_at: DateTime::parse_from_rfc3339(&a.published_at)
                    .map_or(DateTime::<Utc>::UNIX_EPOCH, |t| t.with_timezone(&Utc)),
                topics: a
                    .topics
                    .iter()
                    .map(|t| TopicId::new(t.slug.clone()))
                    .collect(),
            })
            .collect();
        let mut groups: Vec<Vec<usize>> = digest_stories::cluster(input)
            .into_iter()
            .map(|story| {
                let mut members: Vec<usize> = story
                    .articles
                    .iter()
                    .filter_map(|a| a.id.as_str().parse().ok())
                    .collect();
                members.sort_unstable();
                members
            })
            .filter(|members| !members.is_empty())
            .collect();
        groups.sort_by_key(|members| members.first().copied());
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article(source: &str, title: &str, summary: &str) -> ArticleRef {
        ArticleRef {
            id: title.into(),
            title: title.into(),
            summary: summary.into(),
            source_id: source.into(),
            source_title: source.to_uppercase(),
            link: None,
            published_at: "2025-09-01T10:00:00.000Z".into(),
            topics: vec![],
        }
    }

    #[test]
    fn the_same_story_in_other_words_is_one_group() {
        let articles = [
            article(
                "harbour",
                "Harbour City opens its first tidal power station",
                "The station in Harbour City will power 40,000 homes from the tides.",
            ),
            article(
                "gazette",
                "Storm closes the coast road for two days",
                "Drivers are sent inland while the storm batters the coast.",
            ),
            article(
                "coast",
                "Tidal power station switched on in Harbour City",
                "Harbour City's tidal station, its first, now powers 40,000 homes.",
            ),
        ];
        assert_eq!(SimilarStories.group(&articles), vec![vec![0, 2], vec![1]]);
    }

    #[test]
    fn every_article_is_in_exactly_one_group() {
        let articles = [
            article("a", "!!", ""),
            article("b", "??", ""),
            article("c", "Markets rally", "Shares rose."),
        ];
        let mut seen: Vec<usize> = SimilarStories.group(&articles).concat();
        seen.sort_unstable();
        assert_eq!(seen, vec![0, 1, 2]);
    }
}
