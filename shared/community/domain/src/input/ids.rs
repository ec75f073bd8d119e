//! Ids (uuids kept lowercase) and the comma-separated id lists of cards and topic names.

use platform::Invalid;

use super::{MAX_CARD_IDS, MAX_TOPIC_NAME_IDS};

/// A lowercase uuid, from any case; anything else is `{field}: must be a UUID`.
fn uuid(field: &str, raw: &str) -> Result<String, Invalid> {
    uuid::Uuid::try_parse(raw.trim())
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| Invalid::field(field, "must be a UUID"))
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// A uuid in any case, kept lowercase; `field` names it in the error.
            pub fn parse(field: &str, raw: &str) -> Result<Self, Invalid> {
                uuid(field, raw).map(Self)
            }

            /// A new random (v4) id.
            pub fn generate() -> Self {
                Self(uuid::Uuid::new_v4().hyphenated().to_string())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// A post's id.
    PostId
);
id_type!(
    /// A topic's id.
    TopicId
);
id_type!(
    /// A user's id (the identity service's uuid).
    UserId
);
id_type!(
    /// A comment's id.
    CommentId
);

/// A comma-separated list of uuids: 1 to `max`, duplicates collapsed to the first.
fn id_list<T>(
    raw: Option<&str>,
    max: usize,
    parse: impl Fn(&str) -> Result<T, Invalid>,
) -> Result<Vec<T>, Invalid>
where
    T: PartialEq,
{
    let raw = raw.unwrap_or_default();
    let parts: Vec<&str> = raw.split(',').filter(|p| !p.trim().is_empty()).collect();
    if parts.is_empty() || parts.len() > max {
        return Err(Invalid::field(
            "ids",
            format!("must be 1 to {max} comma-separated UUIDs"),
        ));
    }
    let mut ids: Vec<T> = Vec::with_capacity(parts.len());
    for part in parts {
        let id = parse(part)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// The ids of a cards request: 1 to 50 post ids, in order, without repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardIds(Vec<PostId>);

impl CardIds {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        id_list(raw, MAX_CARD_IDS, |p| PostId::parse("ids", p)).map(Self)
    }

    pub fn ids(&self) -> &[PostId] {
        &self.0
    }
}

/// The ids of a topic-names request: 1 to 100 topic ids, in order, without repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicIds(Vec<TopicId>);

impl TopicIds {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        id_list(raw, MAX_TOPIC_NAME_IDS, |p| TopicId::parse("ids", p)).map(Self)
    }

    pub fn ids(&self) -> &[TopicId] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_uuids_in_any_case_kept_lowercase() {
        let id = PostId::parse("id", "5B0F3C1E-0000-4000-8000-00000000000A").unwrap();
        assert_eq!(id.as_str(), "5b0f3c1e-0000-4000-8000-00000000000a");
        for bad in ["", "x", "5b0f3c1e", "5b0f3c1e-0000-4000-8000-00000000000g"] {
            let e = PostId::parse("id", bad).unwrap_err();
            assert_eq!(e.to_string(), "validation failed: id: must be a UUID");
        }
    }

    #[test]
    fn id_lists_bounds_order_and_repeats() {
        let id = |i: usize| format!("00000000-0000-4000-8000-{i:012}");
        let fifty: Vec<String> = (0..50).map(id).collect();
        assert_eq!(
            CardIds::parse(Some(&fifty.join(","))).unwrap().ids().len(),
            50
        );
        let fifty_one: Vec<String> = (0..51).map(id).collect();
        assert!(CardIds::parse(Some(&fifty_one.join(","))).is_err());
        assert!(CardIds::parse(None).is_err());
        assert!(CardIds::parse(Some("")).is_err());
        assert!(CardIds::parse(Some("nope")).is_err());
        let ids = CardIds::parse(Some(&format!("{},{},{}", id(2), id(1), id(2)))).unwrap();
        assert_eq!(
            ids.ids().iter().map(PostId::as_str).collect::<Vec<_>>(),
            [id(2), id(1)]
        );
        let hundred: Vec<String> = (0..100).map(id).collect();
        assert!(TopicIds::parse(Some(&hundred.join(","))).is_ok());
        let hundred_one: Vec<String> = (0..101).map(id).collect();
        assert!(TopicIds::parse(Some(&hundred_one.join(","))).is_err());
    }
}
