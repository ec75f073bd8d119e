//! A post's fields, the post as created or replaced ([`PostInput`]) and a patch of it
//! ([`PostPatch`]).

use platform::{FieldErrors, Invalid};

use super::*;

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
    /// characters of the content as a reader sees it (its Markdown reduced to plain text,
    /// whitespace collapsed; the text as written when that leaves nothing), cut at a word, with
    /// `…` when cut.
    pub fn generated_excerpt(&self) -> String {
        let mut collapsed = crate::markdown::to_plain_text(&self.0);
        if collapsed.is_empty() {
            collapsed = self.0.split_whitespace().collect::<Vec<_>>().join(" ");
        }
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

/// An absolute http(s) URI of at most 2,048 characters, with a host (a name or an IPv4
/// address: no bracketed IPv6 literal).
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
        // No IP-literal hosts: a bracket in the authority is refused rather than half-checked
        // (`http://[a` is no URL, and clients that read it back fail to parse it).
        if authority.contains(['[', ']']) {
            return Err(refuse());
        }
        let host = authority.rsplit('@').next().unwrap_or_default();
        let host = match host.rsplit_once(':') {
            Some((h, port)) => {
                if !port.chars().all(|c| c.is_ascii_digit()) {
                    return Err(refuse());
                }
                h
            }
            None => host,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::tests::fields;

    fn raw(title: &str, content: &str) -> RawPost {
        RawPost {
            title: Some(title.into()),
            content: Some(content.into()),
            ..RawPost::default()
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
        let marked =
            Content::parse("## Why\n\nUse **`cargo`** and [docs](https://d.example).").unwrap();
        assert_eq!(marked.generated_excerpt(), "Why Use cargo and docs.");
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
}
