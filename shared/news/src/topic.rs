//! Topics: feed categories folded onto stable ids.
//!
//! Publishers spell the same category many ways ("Tech", " tech ", "TECH"); the topic id is a
//! slug that maps them onto one topic, while the name keeps a display form as the publisher
//! wrote it.

use serde::{Deserialize, Serialize};

/// Longest topic id, in characters.
pub const MAX_TOPIC_ID_LEN: usize = 60;
/// Longest topic name, in characters.
pub const MAX_TOPIC_NAME_LEN: usize = 100;
/// Most topics kept for one entry.
pub const MAX_TOPICS_PER_ENTRY: usize = 10;

/// A topic an article belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Topic {
    /// Slug: lowercase ASCII letters and digits, runs of anything else replaced by one '-',
    /// no leading or trailing '-', at most 60 characters.
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

fn slug(name: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in name.chars() {
        let folded = fold_latin(c);
        for f in folded.chars() {
            if f.is_ascii_alphanumeric() {
                if dash && !out.is_empty() {
                    out.push('-');
                }
                dash = false;
                out.push(f.to_ascii_lowercase());
            } else {
                dash = true;
            }
        }
    }
    if out.len() > MAX_TOPIC_ID_LEN {
        out.truncate(MAX_TOPIC_ID_LEN);
        while out.ends_with('-') {
            out.pop();
        }
    }
    out
}

/// Latin letters with diacritics folded to their ASCII base ("é" → "e", "ß" → "ss"), so that
/// "Économie" and "economie" share a slug. Other characters are returned unchanged.
fn fold_latin(c: char) -> std::borrow::Cow<'static, str> {
    use std::borrow::Cow;
    let s = match c {
        'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' | 'Ā' | 'Ă' | 'Ą' => "A",
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'Æ' => "AE",
        'æ' => "ae",
        'Ç' | 'Ć' | 'Č' | 'Ĉ' | 'Ċ' => "C",
        'ç' | 'ć' | 'č' | 'ĉ' | 'ċ' => "c",
        'Ð' | 'Ď' | 'Đ' => "D",
        'ð' | 'ď' | 'đ' => "d",
        'È' | 'É' | 'Ê' | 'Ë' | 'Ē' | 'Ĕ' | 'Ė' | 'Ę' | 'Ě' => "E",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'Ğ' | 'Ĝ' | 'Ġ' | 'Ģ' => "G",
        'ğ' | 'ĝ' | 'ġ' | 'ģ' => "g",
        'Ì' | 'Í' | 'Î' | 'Ï' | 'Ī' | 'Į' | 'İ' => "I",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
        'Ł' | 'Ľ' | 'Ĺ' | 'Ļ' => "L",
        'ł' | 'ľ' | 'ĺ' | 'ļ' => "l",
        'Ñ' | 'Ń' | 'Ň' | 'Ņ' => "N",
        'ñ' | 'ń' | 'ň' | 'ņ' => "n",
        'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' | 'Ō' | 'Ő' => "O",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'Œ' => "OE",
        'œ' => "oe",
        'Ŕ' | 'Ř' => "R",
        'ŕ' | 'ř' => "r",
        'Ś' | 'Š' | 'Ş' | 'Ș' => "S",
        'ś' | 'š' | 'ş' | 'ș' => "s",
        'ß' => "ss",
        'Ť' | 'Ţ' | 'Ț' => "T",
        'ť' | 'ţ' | 'ț' => "t",
        'Þ' => "TH",
        'þ' => "th",
        'Ù' | 'Ú' | 'Û' | 'Ü' | 'Ū' | 'Ů' | 'Ű' | 'Ų' => "U",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
        'Ý' | 'Ÿ' => "Y",
        'ý' | 'ÿ' => "y",
        'Ź' | 'Ż' | 'Ž' => "Z",
        'ź' | 'ż' | 'ž' => "z",
        _ => return Cow::Owned(c.to_string()),
    };
    Cow::Borrowed(s)
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
            ("C++", Some(("c", "C++"))),
            ("AI/ML", Some(("ai-ml", "AI/ML"))),
            ("Économie", Some(("economie", "Économie"))),
            ("Straße", Some(("strasse", "Straße"))),
            ("2024 Elections", Some(("2024-elections", "2024 Elections"))),
            ("", None),
            ("   ", None),
            ("&nbsp;", None),
            ("!!!", None),
            ("日本", None),
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
        assert!(topic.id.len() <= MAX_TOPIC_ID_LEN);
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
