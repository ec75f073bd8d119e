//! Topic names and slugs, the follower deltas a delivery carries, and its idempotency key.

use platform::Invalid;

use super::*;

/// The slug of a topic name (API.md), by the rule every system shares
/// (`platform::topic::slug`): "Public Transport" is `public-transport`, "C#" `c-sharp`,
/// "日本" `日本`.
pub fn slug(name: &str) -> String {
    platform::topic::slug(name)
}

/// A topic's name as given: at most 50 characters, trimmed, with a letter, mark or digit of
/// any script (Unicode general category L, M or N, which the slug keeps: so the slug is not
/// empty) and no control characters. The contract states it as a pattern
/// (`[\p{L}\p{M}\p{N}]` is the one part ECMA and Rust regexes share and no ASCII class can
/// say), which is why the length counts the name as given, not trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicName {
    name: String,
    slug: String,
}

impl TopicName {
    pub fn parse(field: &str, raw: &str) -> Result<Self, Invalid> {
        let name = raw.trim();
        let slug = slug(name);
        if raw.chars().count() > MAX_TOPIC_NAME_CHARS
            || !name.chars().any(platform::topic::is_letter_mark_or_digit)
            || slug.is_empty()
            || has_control(name, false)
        {
            return Err(Invalid::field(
                field,
                format!(
                    "must be at most {MAX_TOPIC_NAME_CHARS} characters with at least one letter or digit, without control characters"
                ),
            ));
        }
        Ok(Self {
            name: name.to_string(),
            slug,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn slug(&self) -> &str {
        &self.slug
    }
}

/// A post's topics: at most 10 names, one per slug (the first spelling kept).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicNames(Vec<TopicName>);

impl TopicNames {
    pub fn parse(raw: &[String]) -> Result<Self, Invalid> {
        if raw.len() > MAX_TOPICS_PER_POST {
            return Err(Invalid::field(
                "topics",
                format!("must be at most {MAX_TOPICS_PER_POST} names"),
            ));
        }
        let mut names: Vec<TopicName> = Vec::with_capacity(raw.len());
        for name in raw {
            let name = TopicName::parse("topics", name)?;
            if !names.iter().any(|n| n.slug == name.slug) {
                names.push(name);
            }
        }
        Ok(Self(names))
    }

    pub fn names(&self) -> &[TopicName] {
        &self.0
    }
}

/// Follower deltas: at most 100 names, each delta -1000 to 1000, summed per slug (the first
/// spelling names a topic it creates).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowerDeltas(Vec<(TopicName, i64)>);

impl FollowerDeltas {
    pub fn parse(raw: Vec<(String, i64)>) -> Result<Self, Invalid> {
        if raw.len() > MAX_DELTA_NAMES {
            return Err(Invalid::field(
                "deltas",
                format!("must name at most {MAX_DELTA_NAMES} topics"),
            ));
        }
        let mut out: Vec<(TopicName, i64)> = Vec::with_capacity(raw.len());
        for (name, delta) in raw {
            let topic = TopicName::parse("deltas", &name)?;
            if !(-MAX_DELTA..=MAX_DELTA).contains(&delta) {
                return Err(Invalid::field(
                    "deltas",
                    format!("each must be between -{MAX_DELTA} and {MAX_DELTA}"),
                ));
            }
            match out.iter_mut().find(|(t, _)| t.slug() == topic.slug()) {
                Some((_, d)) => *d += delta,
                None => out.push((topic, delta)),
            }
        }
        Ok(Self(out))
    }

    pub fn deltas(&self) -> &[(TopicName, i64)] {
        &self.0
    }
}

/// The `Idempotency-Key` of a delivery: 1 to 100 of `[A-Za-z0-9:._-]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let ok = !raw.is_empty()
            && raw.chars().count() <= MAX_IDEMPOTENCY_KEY_CHARS
            && raw
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '.' | '_' | '-'));
        if !ok {
            return Err(Invalid::field(
                "Idempotency-Key",
                format!("must be 1 to {MAX_IDEMPOTENCY_KEY_CHARS} of A-Z a-z 0-9 : . _ -"),
            ));
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::tests::fields;

    #[test]
    fn slugs_follow_api_md() {
        assert_eq!(slug("Public Transport"), "public-transport");
        assert_eq!(slug("  C++ & Rust!! "), "c-plus-plus-rust");
        assert_eq!(slug("Café"), "cafe");
        assert_eq!(slug("日本"), "日本");
        assert_eq!(slug("!!!"), "");
    }

    #[test]
    fn topics_at_most_10_one_per_slug() {
        let eleven: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
        assert_eq!(fields(TopicNames::parse(&eleven).unwrap_err()), ["topics"]);
        let names = TopicNames::parse(&["Rust".into(), "rust".into(), "Go".into()]).unwrap();
        assert_eq!(names.names().len(), 2);
        assert!(TopicNames::parse(&["".into()]).is_err());
        assert!(TopicNames::parse(&["!!".into()]).is_err());
        assert!(TopicNames::parse(&["a".repeat(51)]).is_err());
        assert!(TopicNames::parse(&["a".repeat(50)]).is_ok());
        // Counted as given; trimmed; a letter of any script; no control characters.
        assert!(TopicNames::parse(&[format!(" {}", "a".repeat(49))]).is_ok());
        assert!(TopicNames::parse(&[format!(" {}", "a".repeat(50))]).is_err());
        assert!(TopicNames::parse(&["\t日本 ".into()]).is_ok());
        assert!(TopicNames::parse(&["™".into()]).is_err());
        assert!(TopicNames::parse(&["a\u{7}b".into()]).is_err());
    }

    #[test]
    fn deltas_bounds_and_merge_by_slug() {
        let d = FollowerDeltas::parse(vec![("Space".into(), 1), ("space".into(), 2)]).unwrap();
        assert_eq!(d.deltas().len(), 1);
        assert_eq!(d.deltas()[0].1, 3);
        assert!(FollowerDeltas::parse(vec![("a".into(), 1001)]).is_err());
        assert!(FollowerDeltas::parse(vec![("a".into(), -1000)]).is_ok());
        let most: Vec<(String, i64)> = (0..200).map(|i| (format!("t{i}"), 1)).collect();
        assert!(FollowerDeltas::parse(most).is_ok());
        let many: Vec<(String, i64)> = (0..201).map(|i| (format!("t{i}"), 1)).collect();
        assert!(FollowerDeltas::parse(many).is_err());
        assert!(IdempotencyKey::parse("user:1.v_2-x").is_ok());
        assert!(IdempotencyKey::parse("").is_err());
        assert!(IdempotencyKey::parse("a b").is_err());
        assert!(IdempotencyKey::parse(&"k".repeat(101)).is_err());
    }
}

/// What a writer has typed of a topic's name, for suggestions: 1 to 50 characters with a
/// letter, mark or digit (so its slug is not empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicPrefix {
    slug: String,
}

/// The longest prefix a suggestion takes (a topic name's own bound).
pub const MAX_TOPIC_PREFIX_CHARS: usize = 50;

impl TopicPrefix {
    pub fn parse(field: &str, raw: Option<&str>) -> Result<Self, Invalid> {
        let raw = raw.unwrap_or_default();
        let slug = slug(raw);
        if raw.chars().count() > MAX_TOPIC_PREFIX_CHARS || slug.is_empty() {
            return Err(Invalid::field(
                field,
                format!("must be 1 to {MAX_TOPIC_PREFIX_CHARS} characters with a letter or digit"),
            ));
        }
        Ok(Self { slug })
    }

    /// The prefix folded as slugs are.
    pub fn slug(&self) -> &str {
        &self.slug
    }
}
