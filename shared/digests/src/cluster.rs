//! Grouping a day's articles into events: the same story reported by several sources becomes
//! one event.
//!
//! The boundary is [`StoryGrouping`]: articles in, groups of indexes out (every article in
//! exactly one group, groups in order of their first article). The real clustering is the
//! pure crate `digest-stories`, written elsewhere; it plugs in here by implementing this trait
//! (or replacing [`default_grouping`]).
//!
//! **PLACEHOLDER**: [`ExactHeadline`] groups articles whose headlines are equal once case,
//! punctuation and spacing are folded ("Harbour opens tidal station!" and "harbour opens
//! tidal station" are one story; a reworded headline is another). Its tests pin exactly that
//! and nothing smarter.

use crate::ports::ArticleRef;

/// Groups articles into stories.
pub trait StoryGrouping: Send + Sync {
    /// Groups of indexes into `articles`: each index exactly once, groups ordered by their
    /// first member, members in input order.
    fn group(&self, articles: &[ArticleRef]) -> Vec<Vec<usize>>;
}

/// PLACEHOLDER grouping: equal folded headlines are one story. Replace with `digest-stories`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExactHeadline;

/// The grouping the service uses.
pub fn default_grouping() -> ExactHeadline {
    ExactHeadline
}

/// A headline folded for comparison: lowercase alphanumeric words joined by one space.
pub fn fold_headline(title: &str) -> String {
    title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

impl StoryGrouping for ExactHeadline {
    fn group(&self, articles: &[ArticleRef]) -> Vec<Vec<usize>> {
        let mut keys: Vec<String> = Vec::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, article) in articles.iter().enumerate() {
            let key = fold_headline(&article.title);
            match keys.iter().position(|k| !key.is_empty() && *k == key) {
                Some(g) => {
                    if let Some(group) = groups.get_mut(g) {
                        group.push(i);
                    }
                }
                None => {
                    keys.push(key);
                    groups.push(vec![i]);
                }
            }
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article(title: &str) -> ArticleRef {
        ArticleRef {
            id: title.into(),
            title: title.into(),
            summary: String::new(),
            source_id: "s".into(),
            source_title: "S".into(),
            link: None,
            published_at: "2025-09-01T10:00:00.000Z".into(),
            topics: vec![],
        }
    }

    #[test]
    fn placeholder_groups_equal_folded_headlines_only() {
        let articles = [
            article("Harbour opens tidal station!"),
            article("Storm closes bridge"),
            article("harbour  opens tidal STATION"),
            article("Harbour's tidal station opens"),
        ];
        assert_eq!(
            ExactHeadline.group(&articles),
            vec![vec![0, 2], vec![1], vec![3]]
        );
    }

    #[test]
    fn blank_headlines_are_never_merged() {
        let articles = [article("!!"), article("??")];
        assert_eq!(ExactHeadline.group(&articles), vec![vec![0], vec![1]]);
    }
}
