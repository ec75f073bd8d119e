//! What the content service is asked, parsed: ids, a page, a list of saved articles, a feed
//! URL. Handlers build these before calling [`crate::News`]; a bad input is an [`Invalid`]
//! naming the field, with the messages clients already know.

use platform::Invalid;

use crate::store::{ArticleFilter, Cursor, Window};

pub mod reader;

/// Page size when none is asked for, and the largest allowed.
pub const DEFAULT_PAGE_SIZE: u32 = 20;
pub const MAX_PAGE_SIZE: u32 = 100;
/// The last page a list serves: a page is read through every entry before it, so the page
/// number bounds what one request reads (at most `(MAX_PAGE + 1) * MAX_PAGE_SIZE` index entries).
pub const MAX_PAGE: u32 = 49;
/// Most ids one saved-articles request may ask for.
pub const MAX_SAVED_IDS: usize = 100;
/// Most sources one personal feed merges.
pub const MAX_FEED_SOURCES: usize = 50;

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(String);

        impl $name {
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The id a client sent as `field`: at most [`platform::validation::MAX_ID_CHARS`]
            /// characters (a longer one names nothing and would break DynamoDB's key limit).
            pub fn parse(field: &str, raw: String) -> Result<Self, Invalid> {
                platform::validation::bounded_id(field, raw)
                    .map(Self)
                    .map_err(|e| Invalid(vec![e]))
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

id!(
    /// A source's id (from its normalised feed URL).
    SourceId
);
id!(
    /// An article's id (from its source and its entry's guid).
    ArticleId
);
id!(
    /// A subscribing user's id, as the users service knows it.
    UserId
);

/// Which page of a list, and how long a page is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// From 0.
    pub page: u32,
    /// From 1 to [`MAX_PAGE_SIZE`].
    pub size: u32,
    /// The page after the one that answered this `nextCursor` (instead of `page`).
    pub cursor: Option<Cursor>,
}

/// The longest cursor this service gives out, in characters.
pub const MAX_CURSOR_CHARS: usize = 420;

impl PageRequest {
    /// The page asked for by number (default the first) or by `cursor` (which wins over a
    /// `page`), with the size asked for (default [`DEFAULT_PAGE_SIZE`]).
    pub fn parse_with_cursor(
        page: Option<u32>,
        size: Option<u32>,
        cursor: Option<String>,
    ) -> Result<Self, Invalid> {
        let mut request = Self::parse(page, size)?;
        let Some(text) = cursor else {
            return Ok(request);
        };
        let cursor = (text.len() <= MAX_CURSOR_CHARS)
            .then(|| Cursor::decode(&text))
            .flatten()
            .ok_or_else(|| Invalid::field("cursor", "is not a cursor this service gave out"))?;
        request.cursor = Some(cursor);
        Ok(request)
    }

    /// The rows of the list this page takes.
    pub fn window(&self) -> Window {
        let size = usize::try_from(self.size).unwrap_or(usize::MAX);
        match &self.cursor {
            Some(cursor) => Window {
                cursor: Some(cursor.clone()),
                skip: 0,
                size,
            },
            None => Window {
                cursor: None,
                skip: usize::try_from(u64::from(self.page) * u64::from(self.size))
                    .unwrap_or(usize::MAX),
                size,
            },
        }
    }

    /// The page asked for (default the first) with the size asked for (default
    /// [`DEFAULT_PAGE_SIZE`]).
    pub fn parse(page: Option<u32>, size: Option<u32>) -> Result<Self, Invalid> {
        let size = size.unwrap_or(DEFAULT_PAGE_SIZE);
        if !(1..=MAX_PAGE_SIZE).contains(&size) {
            return Err(Invalid::field(
                "size",
                format!("must be between 1 and {MAX_PAGE_SIZE}"),
            ));
        }
        let page = page.unwrap_or(0);
        if page > MAX_PAGE {
            return Err(Invalid::field(
                "page",
                format!("must be between 0 and {MAX_PAGE}"),
            ));
        }
        Ok(Self {
            page,
            size,
            cursor: None,
        })
    }
}

/// The sources of a personal feed: 1 to [`MAX_FEED_SOURCES`] distinct ids, none blank, in the
/// order first given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedSources(Vec<String>);

impl FeedSources {
    pub fn parse(ids: Vec<String>) -> Result<Self, Invalid> {
        let mut errors = platform::FieldErrors::new();
        if ids.iter().any(|id| id.trim().is_empty()) {
            errors.add("sourceId", "must not be blank");
        }
        let mut unique: Vec<String> = Vec::with_capacity(ids.len());
        for id in ids {
            if !unique.contains(&id) {
                unique.push(id);
            }
        }
        if unique.is_empty() {
            errors.add("sourceId", "is required");
        }
        if unique.len() > MAX_FEED_SOURCES {
            errors.add(
                "sourceId",
                format!("must name at most {MAX_FEED_SOURCES} sources"),
            );
        }
        errors.finish()?;
        Ok(Self(unique))
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

impl ArticleFilter {
    /// Articles of these sources and/or this topic; a blank id filters nothing. Several
    /// sources without a topic are a personal feed ([`FeedSources`]), not a filter.
    pub fn parse(source_ids: Vec<String>, topic_id: Option<String>) -> Self {
        let mut sources: Vec<String> = Vec::with_capacity(source_ids.len());
        for id in source_ids {
            if !id.trim().is_empty() && !sources.contains(&id) {
                sources.push(id);
            }
        }
        Self {
            source_ids: sources,
            topic_id: topic_id.filter(|id| !id.trim().is_empty()),
        }
    }
}

/// The ids of a user's saved articles: at most [`MAX_SAVED_IDS`], none blank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedArticleIds(Vec<String>);

impl SavedArticleIds {
    pub fn parse(ids: Option<Vec<String>>) -> Result<Self, Invalid> {
        let Some(ids) = ids else {
            return Err(Invalid::field("ids", "is required"));
        };
        let mut errors = platform::FieldErrors::new();
        if ids.len() > MAX_SAVED_IDS {
            errors.add("ids", format!("must list at most {MAX_SAVED_IDS} ids"));
        }
        if ids.iter().any(|id| id.trim().is_empty()) {
            errors.add("ids", "must not contain blank ids");
        }
        if ids
            .iter()
            .any(|id| id.chars().count() > platform::validation::MAX_ID_CHARS)
        {
            errors.add(
                "ids",
                format!(
                    "ids must be at most {} characters",
                    platform::validation::MAX_ID_CHARS
                ),
            );
        }
        errors.finish()?;
        Ok(Self(ids))
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

/// A submitted feed URL, present and not blank (normalised and checked when submitted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedUrl(String);

/// The longest feed URL accepted, in characters (browsers and CDNs draw the line near here;
/// the source id is a hash of it, so the key stays short whatever its length).
pub const MAX_FEED_URL_CHARS: usize = 2048;

impl FeedUrl {
    pub fn parse(url: Option<String>) -> Result<Self, Invalid> {
        match url {
            Some(url) if url.chars().count() > MAX_FEED_URL_CHARS => Err(Invalid::field(
                "url",
                format!("must be at most {MAX_FEED_URL_CHARS} characters"),
            )),
            Some(url) => Ok(Self(url)),
            None => Err(Invalid::field("url", "must not be blank")),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_requests_keep_their_limits() {
        assert_eq!(
            PageRequest::parse(None, None),
            Ok(PageRequest {
                page: 0,
                size: 20,
                cursor: None
            })
        );
        assert_eq!(
            PageRequest::parse(Some(3), Some(100)),
            Ok(PageRequest {
                page: 3,
                size: 100,
                cursor: None
            })
        );
        for size in [0, 101] {
            assert_eq!(
                PageRequest::parse(None, Some(size))
                    .map_err(|e| e.to_string())
                    .err()
                    .as_deref(),
                Some("validation failed: size: must be between 1 and 100")
            );
        }
    }

    #[test]
    fn pages_past_the_last_are_refused() {
        assert!(PageRequest::parse(Some(MAX_PAGE), Some(100)).is_ok());
        assert_eq!(
            PageRequest::parse(Some(MAX_PAGE + 1), None)
                .map_err(|e| e.to_string())
                .err()
                .as_deref(),
            Some("validation failed: page: must be between 0 and 49")
        );
    }

    #[test]
    fn cursors_replace_page_numbers_and_junk_is_refused() {
        let cursor = Cursor {
            position: 40,
            before: "2025-09-01T10:00:00.000Z#ab".into(),
        };
        let request = PageRequest::parse_with_cursor(None, Some(20), Some(cursor.encode()));
        assert_eq!(request.as_ref().map(|r| r.window().skip), Ok(0));
        assert_eq!(request.map(|r| r.cursor), Ok(Some(cursor.clone())));
        let problem = |page, cursor: &str| {
            PageRequest::parse_with_cursor(page, None, Some(cursor.to_string()))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            problem(None, ""),
            "validation failed: cursor: is not a cursor this service gave out"
        );
        assert_eq!(
            problem(None, "junk"),
            "validation failed: cursor: is not a cursor this service gave out"
        );
        assert_eq!(
            problem(None, &format!("1.{}", "32".repeat(300))),
            "validation failed: cursor: is not a cursor this service gave out"
        );
        // A cursor wins over a page number.
        let both = PageRequest::parse_with_cursor(Some(2), None, Some(cursor.encode()));
        assert_eq!(both.map(|r| r.window().skip), Ok(0));
        // By number, the window skips the pages before.
        assert_eq!(
            PageRequest::parse(Some(3), Some(10)).map(|r| r.window().skip),
            Ok(30)
        );
    }

    #[test]
    fn feed_sources_are_distinct_bounded_and_not_blank() {
        assert_eq!(
            FeedSources::parse(vec!["a".into(), "b".into(), "a".into()])
                .map(|s| s.as_slice().to_vec()),
            Ok(vec!["a".to_string(), "b".to_string()])
        );
        let problem = |ids: Vec<String>| {
            FeedSources::parse(ids)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            problem(vec![" ".into()]),
            "validation failed: sourceId: must not be blank"
        );
        assert_eq!(
            problem((0..51).map(|i| i.to_string()).collect()),
            "validation failed: sourceId: must name at most 50 sources"
        );
    }

    #[test]
    fn saved_ids_are_required_bounded_and_not_blank() {
        assert!(SavedArticleIds::parse(Some(vec!["a".into()])).is_ok());
        let problems = |ids| {
            SavedArticleIds::parse(ids)
                .err()
                .map(|e| {
                    e.errors()
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        };
        assert_eq!(problems(None), vec!["ids: is required"]);
        let mut many = vec![" ".to_string()];
        many.extend((0..100).map(|i| i.to_string()));
        assert_eq!(
            problems(Some(many)),
            vec![
                "ids: must list at most 100 ids",
                "ids: must not contain blank ids"
            ]
        );
    }

    #[test]
    fn blank_filters_filter_nothing() {
        assert_eq!(
            ArticleFilter::parse(vec![" ".into()], Some("tech".into())),
            ArticleFilter {
                source_ids: Vec::new(),
                topic_id: Some("tech".into())
            }
        );
        assert_eq!(
            ArticleFilter::parse(vec!["a".into(), "".into(), "a".into(), "b".into()], None),
            ArticleFilter {
                source_ids: vec!["a".into(), "b".into()],
                topic_id: None
            }
        );
    }
}
