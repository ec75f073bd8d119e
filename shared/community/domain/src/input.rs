//! Every input of the community service as a type that can only hold a valid value, each with
//! its `parse` (the design's section 6). A failed parse is an [`Invalid`] naming the field; the
//! edge renders it as a 400 before any table is read.

use platform::{FieldErrors, Invalid};

pub const TITLE_CHARS: std::ops::RangeInclusive<usize> = 5..=100;
pub const MAX_CONTENT_CHARS: usize = 50_000;
pub const MAX_EXCERPT_CHARS: usize = 500;
/// The generated excerpt: at most this many characters of the content, cut at a word.
pub const GENERATED_EXCERPT_CHARS: usize = 200;
pub const MAX_URL_CHARS: usize = 2_048;
pub const MAX_SOURCE_URLS: usize = 10;
pub const MAX_TOPICS_PER_POST: usize = 10;
pub const MAX_TOPIC_NAME_CHARS: usize = 50;
pub const MAX_PAGE: u32 = 49;
pub const MAX_PAGE_SIZE: u32 = 20;
pub const DEFAULT_PAGE_SIZE: u32 = 10;
pub const MAX_CARD_IDS: usize = 50;
pub const MAX_TOPIC_NAME_IDS: usize = 100;
/// One settings change can unfollow identity's 100 followed topics and follow 100 others.
pub const MAX_DELTA_NAMES: usize = 200;
pub const MAX_DELTA: i64 = 1_000;
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 100;
/// Words read per minute, for `readTimeMinutes`.
pub const WORDS_PER_MINUTE: usize = 200;

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

/// Whether a post is visible to everyone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostStatus {
    Draft,
    Published,
}

impl PostStatus {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        match raw {
            "DRAFT" => Ok(Self::Draft),
            "PUBLISHED" => Ok(Self::Published),
            _ => Err(Invalid::field("status", "must be DRAFT or PUBLISHED")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "DRAFT",
            Self::Published => "PUBLISHED",
        }
    }
}

/// A post's title: trimmed, 5 to 100 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title(String);

impl Title {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let title = raw.trim();
        if !TITLE_CHARS.contains(&title.chars().count()) || has_control(title, false) {
            return Err(Invalid::field(
                "title",
                format!(
                    "must be {} to {} characters, without control characters",
                    TITLE_CHARS.start(),
                    TITLE_CHARS.end()
                ),
            ));
        }
        Ok(Self(title.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// True when `text` holds a control character (line breaks and tabs allowed when `lines`).
fn has_control(text: &str, lines: bool) -> bool {
    text.chars()
        .any(|c| c.is_control() && !(lines && matches!(c, '\n' | '\r' | '\t')))
}

/// A post's body: 1 to 50,000 characters, not blank; control characters other than line
/// breaks and tabs are refused (so the JSON of a character stays within 4 bytes... and
/// escapes stay short).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content(String);

impl Content {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let chars = raw.chars().count();
        if chars == 0 || chars > MAX_CONTENT_CHARS || raw.trim().is_empty() {
            return Err(Invalid::field(
                "content",
                format!("must be 1 to {MAX_CONTENT_CHARS} characters, not blank"),
            ));
        }
        if has_control(raw, true) {
            return Err(Invalid::field(
                "content",
                "must not hold control characters other than line breaks and tabs",
            ));
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Words, as runs of non-whitespace.
    pub fn word_count(&self) -> usize {
        self.0.split_whitespace().count()
    }

    /// Minutes to read at [`WORDS_PER_MINUTE`], at least 1.
    pub fn read_time_minutes(&self) -> usize {
        self.word_count().div_ceil(WORDS_PER_MINUTE).max(1)
    }

    /// The excerpt written when none is given: the first [`GENERATED_EXCERPT_CHARS`]
    /// characters of the whitespace-collapsed content, cut at a word, with `…` when cut.
    pub fn generated_excerpt(&self) -> String {
        let collapsed = self.0.split_whitespace().collect::<Vec<_>>().join(" ");
        if collapsed.chars().count() <= GENERATED_EXCERPT_CHARS {
            return collapsed;
        }
        let mut out = String::new();
        for word in collapsed.split(' ') {
            let extra = usize::from(!out.is_empty()) + word.chars().count();
            // Room is kept for the ellipsis.
            if out.chars().count() + extra >= GENERATED_EXCERPT_CHARS {
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        if out.is_empty() {
            // One word longer than the excerpt: cut inside it.
            out = collapsed
                .chars()
                .take(GENERATED_EXCERPT_CHARS - 1)
                .collect();
        }
        out.push('…');
        out
    }
}

/// A post's excerpt as written: at most 500 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt(String);

impl Excerpt {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        if raw.chars().count() > MAX_EXCERPT_CHARS || has_control(raw, true) {
            return Err(Invalid::field(
                "excerpt",
                format!("must be at most {MAX_EXCERPT_CHARS} characters"),
            ));
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An absolute http(s) URI of at most 2,048 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebUrl(String);

impl WebUrl {
    pub fn parse(field: &str, raw: &str) -> Result<Self, Invalid> {
        let refuse = || {
            Invalid::field(
                field,
                format!(
                    "must be an absolute http or https URI of at most {MAX_URL_CHARS} characters"
                ),
            )
        };
        if raw.chars().count() > MAX_URL_CHARS
            || raw.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(refuse());
        }
        let lower = raw.to_ascii_lowercase();
        let rest = lower
            .strip_prefix("https://")
            .or_else(|| lower.strip_prefix("http://"))
            .ok_or_else(refuse)?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host = authority.rsplit('@').next().unwrap_or_default();
        let host = match host.rsplit_once(':') {
            Some((h, port)) if !h.ends_with(']') || port.chars().all(|c| c.is_ascii_digit()) => {
                if !port.chars().all(|c| c.is_ascii_digit()) {
                    return Err(refuse());
                }
                h
            }
            _ => host,
        };
        if host.is_empty() {
            return Err(refuse());
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The slug of a topic name (API.md), by the rule every system shares
/// (`platform::topic::slug`): "Public Transport" is `public-transport`, "C#" `c-sharp`,
/// "日本" `日本`.
pub fn slug(name: &str) -> String {
    platform::topic::slug(name)
}

/// A topic's name as given: trimmed, 1 to 50 characters, with a non-empty slug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicName {
    name: String,
    slug: String,
}

impl TopicName {
    pub fn parse(field: &str, raw: &str) -> Result<Self, Invalid> {
        let name = raw.trim();
        let slug = slug(name);
        if name.is_empty()
            || name.chars().count() > MAX_TOPIC_NAME_CHARS
            || slug.is_empty()
            || has_control(name, false)
        {
            return Err(Invalid::field(
                field,
                format!(
                    "must be 1 to {MAX_TOPIC_NAME_CHARS} characters with at least one letter or digit"
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

/// A post's source links: at most 10 URIs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceUrls(Vec<WebUrl>);

impl SourceUrls {
    pub fn parse(raw: &[String]) -> Result<Self, Invalid> {
        if raw.len() > MAX_SOURCE_URLS {
            return Err(Invalid::field(
                "sourceUrl",
                format!("must be at most {MAX_SOURCE_URLS} URIs"),
            ));
        }
        raw.iter()
            .map(|u| WebUrl::parse("sourceUrl", u))
            .collect::<Result<_, _>>()
            .map(Self)
    }

    pub fn urls(&self) -> &[WebUrl] {
        &self.0
    }
}

/// The body of a create or a full replace, as it arrived (JSON already typed).
#[derive(Debug, Clone, Default)]
pub struct RawPost {
    pub title: Option<String>,
    pub content: Option<String>,
    pub excerpt: Option<String>,
    pub cover_image_url: Option<String>,
    pub source_url: Option<Vec<String>>,
    pub topics: Option<Vec<String>>,
    pub status: Option<String>,
}

/// A valid create or replace: every field, status defaulting to PUBLISHED (also for replace,
/// as the API says).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostInput {
    pub title: Title,
    pub content: Content,
    /// `None`: generated from the content.
    pub excerpt: Option<Excerpt>,
    pub cover_image_url: Option<WebUrl>,
    pub source_urls: SourceUrls,
    pub topics: TopicNames,
    pub status: PostStatus,
}

impl PostInput {
    /// Every field checked; every problem reported at once.
    pub fn parse(raw: RawPost) -> Result<Self, Invalid> {
        let mut errors = FieldErrors::new();
        let title = match raw.title {
            Some(t) => one(&mut errors, Title::parse(&t)),
            None => {
                errors.add("title", "is required");
                None
            }
        };
        let content = match raw.content {
            Some(c) => one(&mut errors, Content::parse(&c)),
            None => {
                errors.add("content", "is required");
                None
            }
        };
        let excerpt = raw.excerpt.map(|e| one(&mut errors, Excerpt::parse(&e)));
        let cover = raw
            .cover_image_url
            .map(|u| one(&mut errors, WebUrl::parse("coverImageUrl", &u)));
        let sources = one(
            &mut errors,
            SourceUrls::parse(&raw.source_url.unwrap_or_default()),
        );
        let topics = one(
            &mut errors,
            TopicNames::parse(&raw.topics.unwrap_or_default()),
        );
        let status = match raw.status {
            Some(s) => one(&mut errors, PostStatus::parse(&s)),
            None => Some(PostStatus::Published),
        };
        errors.finish()?;
        match (title, content, sources, topics, status) {
            (Some(title), Some(content), Some(source_urls), Some(topics), Some(status)) => {
                Ok(Self {
                    title,
                    content,
                    excerpt: excerpt.flatten(),
                    cover_image_url: cover.flatten(),
                    source_urls,
                    topics,
                    status,
                })
            }
            _ => Err(Invalid::field("body", "is invalid")),
        }
    }
}

/// Records a parse's errors, keeping its value.
fn one<T>(errors: &mut FieldErrors, result: Result<T, Invalid>) -> Option<T> {
    match result {
        Ok(v) => Some(v),
        Err(invalid) => {
            for e in invalid.0 {
                errors.add(e.field, e.reason);
            }
            None
        }
    }
}

/// A patch as it arrived: absent (`None`) leaves a field unchanged, `Some(None)` is a JSON null.
#[derive(Debug, Clone, Default)]
pub struct RawPatch {
    pub title: Option<Option<String>>,
    pub content: Option<Option<String>>,
    pub excerpt: Option<Option<String>>,
    pub cover_image_url: Option<Option<String>>,
    pub source_url: Option<Option<Vec<String>>>,
    pub topics: Option<Option<Vec<String>>>,
    pub status: Option<Option<String>>,
}

/// What to set on an excerpt in a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExcerptChange {
    /// Written by the author.
    Given(Excerpt),
    /// `null`: generated from the content from now on.
    Generate,
}

/// A valid patch: `None` leaves a field unchanged. `title`, `content` and `status` may not be
/// null; `excerpt: null` regenerates it; `coverImageUrl: null` clears it; `topics` and
/// `sourceUrl` replace the post's (null: none).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PostPatch {
    pub title: Option<Title>,
    pub content: Option<Content>,
    pub excerpt: Option<ExcerptChange>,
    pub cover_image_url: Option<Option<WebUrl>>,
    pub source_urls: Option<SourceUrls>,
    pub topics: Option<TopicNames>,
    pub status: Option<PostStatus>,
}

impl PostPatch {
    pub fn parse(raw: RawPatch) -> Result<Self, Invalid> {
        let mut errors = FieldErrors::new();
        let mut patch = Self::default();
        match raw.title {
            Some(Some(t)) => patch.title = one(&mut errors, Title::parse(&t)),
            Some(None) => errors.add("title", "must not be null"),
            None => {}
        }
        match raw.content {
            Some(Some(c)) => patch.content = one(&mut errors, Content::parse(&c)),
            Some(None) => errors.add("content", "must not be null"),
            None => {}
        }
        match raw.status {
            Some(Some(s)) => patch.status = one(&mut errors, PostStatus::parse(&s)),
            Some(None) => errors.add("status", "must not be null"),
            None => {}
        }
        patch.excerpt = match raw.excerpt {
            Some(Some(e)) => one(&mut errors, Excerpt::parse(&e)).map(ExcerptChange::Given),
            Some(None) => Some(ExcerptChange::Generate),
            None => None,
        };
        patch.cover_image_url = match raw.cover_image_url {
            Some(Some(u)) => one(&mut errors, WebUrl::parse("coverImageUrl", &u)).map(Some),
            Some(None) => Some(None),
            None => None,
        };
        patch.source_urls = raw
            .source_url
            .and_then(|s| one(&mut errors, SourceUrls::parse(&s.unwrap_or_default())));
        patch.topics = raw
            .topics
            .and_then(|t| one(&mut errors, TopicNames::parse(&t.unwrap_or_default())));
        errors.finish()?;
        Ok(patch)
    }
}

/// A page of a list: `page` 0 to 49, `size` 1 to 20 (default 10), or the page after a
/// `cursor` (which wins over a `page` beside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub size: u32,
    /// The sort key of the previous page's last row: the page is the rows before it.
    pub after: Option<String>,
}

pub use platform::cursor::{decode_cursor, encode_cursor, MAX_CURSOR_CHARS};

impl PageRequest {
    pub fn parse(page: Option<i64>, size: Option<i64>) -> Result<Self, Invalid> {
        let mut errors = FieldErrors::new();
        let page = page.unwrap_or(0);
        let size = size.unwrap_or(i64::from(DEFAULT_PAGE_SIZE));
        let page = u32::try_from(page).ok().filter(|p| *p <= MAX_PAGE);
        if page.is_none() {
            errors.add("page", format!("must be between 0 and {MAX_PAGE}"));
        }
        let size = u32::try_from(size)
            .ok()
            .filter(|s| (1..=MAX_PAGE_SIZE).contains(s));
        if size.is_none() {
            errors.add("size", format!("must be between 1 and {MAX_PAGE_SIZE}"));
        }
        errors.finish()?;
        Ok(Self {
            page: page.unwrap_or(0),
            size: size.unwrap_or(DEFAULT_PAGE_SIZE),
            after: None,
        })
    }

    /// [`Self::parse`], or the page after a `cursor` (a `nextCursor`; empty is refused).
    pub fn parse_with_cursor(
        page: Option<i64>,
        size: Option<i64>,
        cursor: Option<&str>,
    ) -> Result<Self, Invalid> {
        let request = Self::parse(page, size)?;
        request.with_cursor(cursor)
    }

    /// This page, or the page after `cursor` instead when one is given.
    pub fn with_cursor(mut self, cursor: Option<&str>) -> Result<Self, Invalid> {
        let Some(text) = cursor else {
            return Ok(self);
        };
        let after = decode_cursor(text)
            .ok_or_else(|| Invalid::field("cursor", "is not a cursor this service gave out"))?;
        self.after = Some(after);
        self.page = 0;
        Ok(self)
    }

    /// The index of the page's first element among the rows read.
    pub fn offset(&self) -> usize {
        usize::try_from(self.page * self.size).unwrap_or(usize::MAX)
    }

    /// The elements to read to reach the end of the page.
    pub fn end(&self) -> usize {
        usize::try_from((self.page + 1) * self.size).unwrap_or(usize::MAX)
    }
}

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

    fn fields(e: Invalid) -> Vec<String> {
        e.0.into_iter().map(|f| f.field).collect()
    }

    fn raw(title: &str, content: &str) -> RawPost {
        RawPost {
            title: Some(title.into()),
            content: Some(content.into()),
            ..RawPost::default()
        }
    }

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
    fn title_edges_4_5_100_101() {
        assert!(Title::parse(&"a".repeat(4)).is_err());
        assert!(Title::parse(&"a".repeat(5)).is_ok());
        assert!(Title::parse(&"é".repeat(100)).is_ok());
        assert_eq!(
            fields(Title::parse(&"a".repeat(101)).unwrap_err()),
            ["title"]
        );
        // Trimmed before counting.
        assert!(Title::parse("  abcd  ").is_err());
    }

    #[test]
    fn content_edges_0_1_50000_50001() {
        assert!(Content::parse("").is_err());
        assert!(Content::parse("   ").is_err());
        assert!(Content::parse("a").is_ok());
        assert!(Content::parse(&"😀".repeat(MAX_CONTENT_CHARS)).is_ok());
        assert!(Content::parse(&"a".repeat(MAX_CONTENT_CHARS + 1)).is_err());
        assert!(Content::parse("line\nbreak\tok").is_ok());
        assert!(Content::parse("bell\u{7}").is_err());
    }

    #[test]
    fn excerpt_edges_500_501() {
        assert!(Excerpt::parse("").is_ok());
        assert!(Excerpt::parse(&"a".repeat(500)).is_ok());
        assert_eq!(
            fields(Excerpt::parse(&"a".repeat(501)).unwrap_err()),
            ["excerpt"]
        );
    }

    #[test]
    fn generated_excerpt_cuts_at_a_word() {
        let short = Content::parse("  one\n two  ").unwrap();
        assert_eq!(short.generated_excerpt(), "one two");
        let long = Content::parse(&"word ".repeat(100)).unwrap();
        let excerpt = long.generated_excerpt();
        assert!(excerpt.ends_with("word…"), "{excerpt}");
        assert!(excerpt.chars().count() <= GENERATED_EXCERPT_CHARS);
        let one_word = Content::parse(&"x".repeat(300)).unwrap();
        assert_eq!(
            one_word.generated_excerpt().chars().count(),
            GENERATED_EXCERPT_CHARS
        );
    }

    #[test]
    fn read_time_is_at_least_a_minute() {
        assert_eq!(Content::parse("a").unwrap().read_time_minutes(), 1);
        assert_eq!(
            Content::parse(&"w ".repeat(200))
                .unwrap()
                .read_time_minutes(),
            1
        );
        assert_eq!(
            Content::parse(&"w ".repeat(201))
                .unwrap()
                .read_time_minutes(),
            2
        );
    }

    #[test]
    fn urls_must_be_http_uris() {
        for good in [
            "https://example.com",
            "http://a.b/c?d#e",
            "https://h:8080/x",
        ] {
            assert!(WebUrl::parse("u", good).is_ok(), "{good}");
        }
        for bad in [
            "ftp://x",
            "example.com",
            "https://",
            "https:// x",
            "javascript:alert(1)",
            "https://h:po/",
        ] {
            assert!(WebUrl::parse("u", bad).is_err(), "{bad}");
        }
        let long = format!("https://e.com/{}", "a".repeat(MAX_URL_CHARS));
        assert!(WebUrl::parse("u", &long).is_err());
    }

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
    }

    #[test]
    fn post_input_defaults_and_reports_every_field() {
        let input = PostInput::parse(raw("Hello world", "Body")).unwrap();
        assert_eq!(input.status, PostStatus::Published);
        assert_eq!(input.excerpt, None);
        let bad = PostInput::parse(RawPost {
            status: Some("LIVE".into()),
            cover_image_url: Some("nope".into()),
            ..raw("x", "")
        })
        .unwrap_err();
        assert_eq!(fields(bad), ["title", "content", "coverImageUrl", "status"]);
        let missing = PostInput::parse(RawPost::default()).unwrap_err();
        assert_eq!(fields(missing), ["title", "content"]);
        let eleven = vec!["https://a.b".to_string(); 11];
        let urls = PostInput::parse(RawPost {
            source_url: Some(eleven),
            ..raw("Hello world", "b")
        });
        assert_eq!(fields(urls.unwrap_err()), ["sourceUrl"]);
    }

    #[test]
    fn patch_nulls() {
        let patch = PostPatch::parse(RawPatch {
            excerpt: Some(None),
            cover_image_url: Some(None),
            topics: Some(Some(vec!["A".into()])),
            ..RawPatch::default()
        })
        .unwrap();
        assert_eq!(patch.excerpt, Some(ExcerptChange::Generate));
        assert_eq!(patch.cover_image_url, Some(None));
        assert_eq!(patch.status, None);
        let nulls = PostPatch::parse(RawPatch {
            title: Some(None),
            content: Some(None),
            status: Some(None),
            ..RawPatch::default()
        })
        .unwrap_err();
        assert_eq!(fields(nulls), ["title", "content", "status"]);
    }

    #[test]
    fn a_cursor_wins_over_a_page_and_a_bad_one_names_cursor() {
        let sk = "2026-11-28T10:00:00.000Z#00000000-0000-4000-8000-000000000001";
        let text = encode_cursor(sk);
        let request = PageRequest::parse_with_cursor(Some(3), Some(5), Some(&text)).unwrap();
        assert_eq!(
            (request.page, request.size),
            (0, 5),
            "a cursor wins over a page"
        );
        assert_eq!(request.after.as_deref(), Some(sk));
        for bad in ["", "junk"] {
            assert_eq!(
                fields(PageRequest::parse_with_cursor(None, None, Some(bad)).unwrap_err()),
                ["cursor"]
            );
        }
    }

    #[test]
    fn page_edges() {
        assert_eq!(
            PageRequest::parse(None, None).unwrap(),
            PageRequest {
                page: 0,
                size: 10,
                after: None
            }
        );
        assert!(PageRequest::parse(Some(49), Some(20)).is_ok());
        assert!(PageRequest::parse(Some(0), Some(1)).is_ok());
        assert_eq!(
            fields(PageRequest::parse(Some(50), None).unwrap_err()),
            ["page"]
        );
        assert_eq!(
            fields(PageRequest::parse(Some(-1), None).unwrap_err()),
            ["page"]
        );
        assert_eq!(
            fields(PageRequest::parse(None, Some(0)).unwrap_err()),
            ["size"]
        );
        assert_eq!(
            fields(PageRequest::parse(None, Some(21)).unwrap_err()),
            ["size"]
        );
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
