//! A digest's composition: its events grouped, written by the model, and their topics.

use std::collections::BTreeMap;

use super::{title, topic_uuid, Digests};
use crate::error::DigestError;
use crate::input::{bounds, source_of, DigestDate, DigestType};
use crate::model::{DigestDetail, DigestSummary, Event, TopicRef};
use crate::ports::{ArticleRef, CommunityTopics};
use crate::store::{digest_id_for, recount};
use crate::writer;

impl Digests {
    /// Groups `articles` into events, has the model write them (one call), and computes the
    /// rest: title, counts, reading time, previews, topics.
    pub(super) async fn compose<C: CommunityTopics>(
        &self,
        community: &C,
        kind: DigestType,
        date: DigestDate,
        followed: &[String],
        articles: &[ArticleRef],
    ) -> Result<DigestDetail, DigestError> {
        let events_articles = self.events_of(articles);
        let written = writer::write(&self.llm, kind, date, followed, &events_articles).await?;
        // Topics: each event's (a PERSONAL digest keeps the followed ones), by frequency.
        let relevant =
            |slug: &str| kind == DigestType::Public || followed.iter().any(|f| f == slug);
        let (names, slugs) = topics_by_frequency(&events_articles, &relevant);
        let topics = TopicRefs {
            known: known_topics(community, &slugs).await,
            names,
        };
        let events = events(&events_articles, written.events, &topics, &relevant);
        let now = self.store.clock().timestamp();
        let mut summary = DigestSummary {
            id: digest_id_for(kind, date).to_string(),
            digest_type: kind.as_str().into(),
            digest_date: date.to_string(),
            title: title(kind, date),
            subtitle: written.subtitle,
            summary: written.summary,
            event_count: 0,
            source_count: 0,
            read_time_minutes: 0,
            preview_headlines: Vec::new(),
            topics: slugs
                .iter()
                .take(bounds::TOPICS)
                .map(|s| topics.of(s))
                .collect(),
            generated_at: Some(now.clone()),
            created_at: now,
        };
        recount(&mut summary, &events);
        Ok(DigestDetail {
            summary,
            events,
            model: Some(written.model),
        })
    }

    /// The events' articles: `articles` grouped into stories, the most reported first, at
    /// most [`bounds::EVENTS`] of at most [`bounds::SOURCES_PER_EVENT`] articles.
    fn events_of<'a>(&self, articles: &'a [ArticleRef]) -> Vec<Vec<&'a ArticleRef>> {
        let mut groups = self.grouping.group(articles);
        // The stories most reported first; ties keep the newest first.
        groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
        groups.truncate(bounds::EVENTS);
        groups
            .iter()
            .map(|g| {
                g.iter()
                    .filter_map(|i| articles.get(*i))
                    .take(bounds::SOURCES_PER_EVENT)
                    .collect()
            })
            .filter(|g: &Vec<&ArticleRef>| !g.is_empty())
            .collect()
    }
}

/// The `relevant` topics of the events' articles: each slug's first name, and the slugs,
/// most frequent first.
fn topics_by_frequency(
    events_articles: &[Vec<&ArticleRef>],
    relevant: &impl Fn(&str) -> bool,
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    for a in events_articles.iter().flatten() {
        for t in a.topics.iter().filter(|t| relevant(&t.slug)) {
            names
                .entry(t.slug.clone())
                .or_insert_with(|| t.name.clone());
            match counts.iter_mut().find(|(s, _)| *s == t.slug) {
                Some((_, c)) => *c += 1,
                None => counts.push((t.slug.clone(), 1)),
            }
        }
    }
    counts.sort_by_key(|(_, c)| std::cmp::Reverse(*c));
    let slugs: Vec<String> = counts.iter().map(|(s, _)| s.clone()).collect();
    (names, slugs)
}

/// The community's ids of `slugs` (slug, id, name); none when the community does not answer.
async fn known_topics<C: CommunityTopics>(
    community: &C,
    slugs: &[String],
) -> Vec<(String, String, String)> {
    match community.ids_of(slugs).await {
        Ok(known) => known,
        Err(error) => {
            tracing::warn!(%error, "community topics unavailable; using name-based topic ids");
            Vec::new()
        }
    }
}

/// A digest's topics: the community's ids where it has them, else name-based ones.
struct TopicRefs {
    known: Vec<(String, String, String)>,
    names: BTreeMap<String, String>,
}

impl TopicRefs {
    fn of(&self, slug: &str) -> TopicRef {
        match self.known.iter().find(|(s, _, _)| s == slug) {
            Some((_, id, name)) => TopicRef {
                id: id.clone(),
                name: name.clone(),
            },
            None => TopicRef {
                id: topic_uuid(slug),
                name: self
                    .names
                    .get(slug)
                    .cloned()
                    .unwrap_or_else(|| slug.to_string()),
            },
        }
    }
}

/// The events as written: each with its `relevant` topics (at most [`bounds::TOPICS`]) and
/// its sources.
fn events(
    events_articles: &[Vec<&ArticleRef>],
    written: Vec<writer::WrittenEvent>,
    topics: &TopicRefs,
    relevant: &impl Fn(&str) -> bool,
) -> Vec<Event> {
    events_articles
        .iter()
        .zip(written)
        .map(|(articles, w)| {
            let mut topic_ids: Vec<String> = Vec::new();
            for t in articles.iter().flat_map(|a| a.topics.iter()) {
                let id = topics.of(&t.slug).id;
                if relevant(&t.slug) && !topic_ids.contains(&id) && topic_ids.len() < bounds::TOPICS
                {
                    topic_ids.push(id);
                }
            }
            Event {
                headline: w.headline,
                summary_bullets: w.bullets,
                topic_ids,
                sources: articles
                    .iter()
                    .map(|a| {
                        source_of(
                            &a.source_title,
                            a.link.as_deref(),
                            &a.published_at,
                            &a.title,
                        )
                    })
                    .collect(),
            }
        })
        .collect()
}
