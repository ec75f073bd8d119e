//! The input: one news article as the digest builder has it, independent of the news crate's
//! types (the builder converts).

use std::fmt;

use chrono::{DateTime, Utc};

macro_rules! id_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Wraps an id as the caller has it (no validation: ids are only compared).
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self::new(id)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }
    };
}

id_newtype!(
    /// An article's id (the news reader's article id).
    ArticleId
);
id_newtype!(
    /// A source's (feed's) id: two articles of one source count once in a story's sources.
    SourceId
);
id_newtype!(
    /// A topic's id or slug, carried through to the story's topics.
    TopicId
);

/// One article of the day. Only `title` and `text` are read to compare articles; the rest is
/// carried through to the [`Story`](crate::Story).
///
/// The derived order (id first) is what makes the output independent of the input order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Article {
    pub id: ArticleId,
    pub source_id: SourceId,
    /// The source's display name (the digest's `sourceName`).
    pub source_title: String,
    /// The headline.
    pub title: String,
    /// The feed's summary or the article's plain text; only its first
    /// [`MAX_TEXT_TOKENS`](crate::MAX_TEXT_TOKENS) tokens are read. May be empty.
    pub text: String,
    pub link: Option<String>,
    pub published_at: DateTime<Utc>,
    pub topics: Vec<TopicId>,
}
