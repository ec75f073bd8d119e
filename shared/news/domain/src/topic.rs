//! Topics: feed categories folded onto stable ids.
//!
//! Publishers spell the same category many ways ("Tech", " tech ", "TECH"); the topic id is a
//! slug that maps them onto one topic, while the name keeps a display form as the publisher
//! wrote it.

use serde::{Deserialize, Serialize};

/// Longest topic id, in characters.
pub const MAX_TOPIC_ID_LEN: usize = platform::topic::MAX_SLUG_CHARS;
/// Longest topic name, in characters.
pub const MAX_TOPIC_NAME_LEN: usize = 100;
/// Most topics kept for one entry.
pub const MAX_TOPICS_PER_ENTRY: usize = 10;

/// A topic an article belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Topic {
    /// Slug (`platform::topic::slug`): NFKC, lowercase, letters and digits of any script,
    /// `#`/`+` as `sharp`/`plus`, other runs one '-', at most 60 characters.
    pub id: String,
    /// Display name: trimmed, whitespace collapsed, letters' case kept as given.
    pub name: String,
}

/// The topic for a raw category label; `None` when the label is blank or has nothing a slug
/// can be made of.
pub fn normalise_topic(raw: &str) -> Option<Topic> {
    let name = crate::html::collapse_whitespace(&crate::html::decode_entities(raw));
    if name.is_empty() {
        return None;
    }
    let id = slug(&name);
    if id.is_empty() {
        return None;
    }
    let name = if name.chars().count() > MAX_TOPIC_NAME_LEN {
        name.chars()
            .take(MAX_TOPIC_NAME_LEN)
            .collect::<String>()
            .trim_end()
            .to_string()
    } else {
        name
    };
    Some(Topic { id, name })
}

/// Topics for a list of raw labels: normalised, deduplicated by id (the first spelling wins),
/// at most [`MAX_TOPICS_PER_ENTRY`].
pub fn normalise_topics<I, S>(raw: I) -> Vec<Topic>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut topics: Vec<Topic> = Vec::new();
    for label in raw {
        if topics.len() == MAX_TOPICS_PER_ENTRY {
            break;
        }
        if let Some(topic) = normalise_topic(label.as_ref()) {
            if !topics.iter().any(|t| t.id == topic.id) {
                topics.push(topic);
            }
        }
    }
    topics
}

/// The one slug rule of every system (`platform::topic`).
fn slug(name: &str) -> String {
    platform::topic::slug(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(raw: &str) -> Option<String> {
        normalise_topic(raw).map(|t| t.id)
    }

    #[test]
    fn normalisation_table() {
        let cases: &[(&str, Option<(&str, &str)>)] = &[
            ("Tech", Some(("tech", "Tech"))),
            (" tech ", Some(("tech", "tech"))),
            ("TECH", Some(("tech", "TECH"))),
            (
                "Science & Space",
                Some(("science-space", "Science & Space")),
            ),
            (
                "Science &amp; Space",
                Some(("science-space", "Science & Space")),
            ),
            ("  World\n\tNews  ", Some(("world-news", "World News"))),
            ("--Open-Source--", Some(("open-source", "--Open-Source--"))),
            ("C++", Some(("c-plus-plus", "C++"))),
            ("C#", Some(("c-sharp", "C#"))),
            ("AI/ML", Some(("ai-ml", "AI/ML"))),
            ("Économie", Some(("economie", "Économie"))),
            ("Straße", Some(("strasse", "Straße"))),
            ("2024 Elections", Some(("2024-elections", "2024 Elections"))),
            ("", None),
            ("   ", None),
            ("&nbsp;", None),
            ("!!!", None),
            ("日本", Some(("日本", "日本"))),
        ];
        for (raw, expected) in cases {
            let got = normalise_topic(raw);
            let expected = expected.map(|(id, name)| Topic {
                id: id.to_string(),
                name: name.to_string(),
            });
            assert_eq!(got, expected, "raw {raw:?}");
        }
    }

    #[test]
    fn ids_are_bounded() {
        let long = "word ".repeat(40);
        let topic = normalise_topic(&long).unwrap();
        assert!(topic.id.chars().count() <= MAX_TOPIC_ID_LEN);
        assert!(!topic.id.ends_with('-'));
        assert!(topic.name.chars().count() <= MAX_TOPIC_NAME_LEN);
        assert_eq!(id(&"a".repeat(80)).unwrap().len(), 60);
    }

    #[test]
    fn dedupes_and_caps() {
        let topics = normalise_topics(["Tech", "TECH", " tech", "Science", "", "science!"]);
        assert_eq!(
            topics,
            vec![
                Topic {
                    id: "tech".into(),
                    name: "Tech".into()
                },
                Topic {
                    id: "science".into(),
                    name: "Science".into()
                },
            ]
        );
        let many: Vec<String> = (0..25).map(|i| format!("topic {i}")).collect();
        assert_eq!(normalise_topics(&many).len(), MAX_TOPICS_PER_ENTRY);
    }
}
