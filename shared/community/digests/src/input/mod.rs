//! Inputs of the digest service, parsed and bounded before any table is read. Every problem
//! names its field.

mod persist;

use chrono::{FixedOffset, NaiveDate, Offset, TimeZone, Utc};
use platform::validation::{FieldError, FieldErrors, Invalid};
use platform::{ConfigError, Env};

use crate::model::EventSource;

pub use self::persist::{PersistInput, RawPersist, MAX_PERSISTED_EVENTS};

/// `page` bounds of "my digests" (as the community's lists: 0 to 49).
pub const MAX_PAGE: i64 = 49;
/// `size` bounds of "my digests" (1 to 20, default 10).
pub const MAX_SIZE: i64 = 20;
pub const DEFAULT_SIZE: i64 = 10;

/// Bounds of a digest's text, applied to what the model writes and to a persisted digest.
pub mod bounds {
    /// Events of one digest.
    pub const EVENTS: usize = 30;
    /// Sources of one event.
    pub const SOURCES_PER_EVENT: usize = 10;
    /// Bullets of one event.
    pub const BULLETS_PER_EVENT: usize = 5;
    /// Topics of a digest, and of one event.
    pub const TOPICS: usize = 20;
    pub const HEADLINE_CHARS: usize = 300;
    pub const BULLET_CHARS: usize = 500;
    pub const SUBTITLE_CHARS: usize = 300;
    pub const SUMMARY_CHARS: usize = 2_000;
    /// A source's title and name.
    pub const SOURCE_TEXT_CHARS: usize = 500;
    /// The model id.
    pub const MODEL_CHARS: usize = 200;
}

/// A user id: a uuid, lowercased.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(String);

impl UserId {
    pub fn parse(field: &str, raw: &str) -> Result<Self, FieldError> {
        uuid_of(field, raw).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for UserId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A digest's or a job's id: a uuid, lowercased.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DigestId(String);

impl DigestId {
    pub fn parse(field: &str, raw: &str) -> Result<Self, FieldError> {
        uuid_of(field, raw).map(Self)
    }

    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    /// A name-based id (SHA-256 of `name`, as a version 8 uuid): the same name, the same id.
    pub fn named(name: &str) -> Self {
        Self(named_uuid(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for DigestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The SHA-256 of `name` as a version 8 (custom) uuid.
pub fn named_uuid(name: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, name.as_bytes());
    let mut bytes = [0u8; 16];
    for (b, d) in bytes.iter_mut().zip(digest.as_ref()) {
        *b = *d;
    }
    uuid::Builder::from_custom_bytes(bytes)
        .into_uuid()
        .to_string()
}

fn uuid_of(field: &str, raw: &str) -> Result<String, FieldError> {
    let raw = raw.trim();
    if raw.len() > 36 {
        return Err(FieldError::new(field, "must be a UUID"));
    }
    uuid::Uuid::parse_str(raw)
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| FieldError::new(field, "must be a UUID"))
}

/// A digest day: `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DigestDate(NaiveDate);

impl DigestDate {
    pub fn parse(field: &str, raw: &str) -> Result<Self, FieldError> {
        let raw = raw.trim();
        if raw.len() != 10 {
            return Err(FieldError::new(field, "must be a date (YYYY-MM-DD)"));
        }
        NaiveDate::parse_from_str(raw, "%Y-%m-%d")
            .map(Self)
            .map_err(|_| FieldError::new(field, "must be a date (YYYY-MM-DD)"))
    }

    pub fn new(date: NaiveDate) -> Self {
        Self(date)
    }

    pub fn date(&self) -> NaiveDate {
        self.0
    }

    /// The day's name in a title: `Monday, 1 September 2025`.
    pub fn long_name(&self) -> String {
        self.0.format("%A, %-d %B %Y").to_string()
    }
}

impl std::fmt::Display for DigestDate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.format("%Y-%m-%d"))
    }
}

/// `DIGEST_TIMEZONE`: where a digest day starts and ends. `UTC` (default) or a fixed offset
/// from UTC (`+02:00`, `-05:30`, `UTC+2`). IANA names (with daylight saving time) are not
/// accepted: they would need a time zone database in every bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DigestTimezone(FixedOffset);

impl Default for DigestTimezone {
    fn default() -> Self {
        Self(FixedOffset::east_opt(0).unwrap_or(Utc.fix()))
    }
}

impl DigestTimezone {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        match env.get("DIGEST_TIMEZONE") {
            None => Ok(Self::default()),
            Some(raw) => Self::parse(raw).ok_or_else(|| ConfigError::Invalid {
                name: "DIGEST_TIMEZONE".into(),
                reason: format!("{raw:?} is not UTC or an offset such as +02:00"),
            }),
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim();
        let rest = raw
            .strip_prefix("UTC")
            .or_else(|| raw.strip_prefix("GMT"))
            .unwrap_or(raw);
        if rest.is_empty() || rest == "Z" {
            return Some(Self::default());
        }
        let (sign, digits) = match rest.split_at_checked(1)? {
            ("+", d) => (1, d),
            ("-", d) => (-1, d),
            _ => return None,
        };
        let (hours, minutes) = match digits.split_once(':') {
            Some((h, m)) => (h.parse::<i32>().ok()?, m.parse::<i32>().ok()?),
            None => (digits.parse::<i32>().ok()?, 0),
        };
        if !(0..=14).contains(&hours) || !(0..60).contains(&minutes) {
            return None;
        }
        FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60)).map(Self)
    }

    pub fn offset(&self) -> FixedOffset {
        self.0
    }

    /// The day `now` falls on here.
    pub fn today(&self, now: chrono::DateTime<Utc>) -> DigestDate {
        DigestDate(now.with_timezone(&self.0).date_naive())
    }

    /// The day before [`Self::today`]: the default day of a generation (a day still
    /// accumulating news is not the default).
    pub fn yesterday(&self, now: chrono::DateTime<Utc>) -> DigestDate {
        let today = self.today(now).0;
        DigestDate(today.pred_opt().unwrap_or(today))
    }

    /// `[start, end)` of `day` here, in UTC.
    pub fn window(&self, day: DigestDate) -> (chrono::DateTime<Utc>, chrono::DateTime<Utc>) {
        let start = day
            .0
            .and_hms_opt(0, 0, 0)
            .and_then(|t| self.0.from_local_datetime(&t).single())
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        (start, start + chrono::Duration::days(1))
    }
}

/// The page of "my digests".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub size: u32,
    /// A page by cursor: the days before this one (the `nextCursor` of the page before).
    pub before: Option<DigestDate>,
}

impl PageRequest {
    /// `page` 0 to 49 (default 0), `size` 1 to 20 (default 10).
    pub fn parse(page: Option<i64>, size: Option<i64>) -> Result<Self, Invalid> {
        let mut errors = FieldErrors::new();
        let page = page.unwrap_or(0);
        let size = size.unwrap_or(DEFAULT_SIZE);
        if !(0..=MAX_PAGE).contains(&page) {
            errors.add("page", format!("must be from 0 to {MAX_PAGE}"));
        }
        if !(1..=MAX_SIZE).contains(&size) {
            errors.add("size", format!("must be from 1 to {MAX_SIZE}"));
        }
        errors.finish()?;
        Ok(Self {
            page: u32::try_from(page).unwrap_or(0),
            size: u32::try_from(size).unwrap_or(1),
            before: None,
        })
    }

    /// [`Self::parse`], or the page after a `cursor` (a `nextCursor`: a day), which wins over
    /// a `page` beside it.
    pub fn parse_with_cursor(
        page: Option<i64>,
        size: Option<i64>,
        cursor: Option<&str>,
    ) -> Result<Self, Invalid> {
        let mut request = Self::parse(page, size)?;
        let Some(raw) = cursor else {
            return Ok(request);
        };
        let day =
            DigestDate::parse("cursor", raw).map_err(|e| Invalid::field(e.field, e.reason))?;
        request.before = Some(day);
        request.page = 0;
        Ok(request)
    }
}

/// `PERSONAL` or `PUBLIC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestType {
    Personal,
    Public,
}

impl DigestType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Personal => "PERSONAL",
            Self::Public => "PUBLIC",
        }
    }

    pub fn parse(field: &str, raw: &str) -> Result<Self, FieldError> {
        match raw.trim() {
            "PERSONAL" => Ok(Self::Personal),
            "PUBLIC" => Ok(Self::Public),
            _ => Err(FieldError::new(field, "must be PERSONAL or PUBLIC")),
        }
    }
}

/// Keeps the first `max` characters of `text`.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => text.get(..end).unwrap_or(text).to_string(),
        None => text.to_string(),
    }
}

/// An event source as read from a news article.
pub fn source_of(
    source_name: &str,
    link: Option<&str>,
    published_at: &str,
    title: &str,
) -> EventSource {
    let provider = link
        .and_then(|l| l.split_once("://"))
        .map(|(_, rest)| rest.split(['/', '?', '#']).next().unwrap_or_default())
        .map(|host| host.rsplit('@').next().unwrap_or(host).to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| source_name.to_string());
    EventSource {
        source_name: clip(source_name, bounds::SOURCE_TEXT_CHARS),
        provider: clip(&provider, bounds::SOURCE_TEXT_CHARS),
        published_at: Some(published_at.to_string()),
        title: clip(title, bounds::SOURCE_TEXT_CHARS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timezones_are_utc_or_fixed_offsets() {
        assert_eq!(
            DigestTimezone::parse("UTC"),
            Some(DigestTimezone::default())
        );
        let plus2 = DigestTimezone::parse("+02:00").unwrap();
        assert_eq!(plus2.offset().local_minus_utc(), 7200);
        assert_eq!(
            DigestTimezone::parse("UTC-5")
                .unwrap()
                .offset()
                .local_minus_utc(),
            -18000
        );
        assert!(DigestTimezone::parse("Europe/Berlin").is_none());
        assert!(DigestTimezone::parse("+25:00").is_none());
        let now = chrono::DateTime::parse_from_rfc3339("2025-09-01T23:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            DigestTimezone::default().yesterday(now).to_string(),
            "2025-08-31"
        );
        assert_eq!(plus2.today(now).to_string(), "2025-09-02");
        let (start, end) = plus2.window(DigestDate::parse("d", "2025-09-02").unwrap());
        assert_eq!(platform::clock::rfc3339(start), "2025-09-01T22:00:00.000Z");
        assert_eq!(platform::clock::rfc3339(end), "2025-09-02T22:00:00.000Z");
    }

    #[test]
    fn named_ids_are_stable_uuids() {
        let a = DigestId::named("public:2025-09-01");
        assert_eq!(a, DigestId::named("public:2025-09-01"));
        assert_ne!(a, DigestId::named("public:2025-09-02"));
        assert!(DigestId::parse("id", a.as_str()).is_ok());
    }

    #[test]
    fn persist_checks_the_target_against_the_type() {
        let raw = |t: &str, user: Option<&str>| RawPersist {
            digest_type: Some(t.into()),
            target_user_id: user.map(str::to_string),
            digest_date: Some("2025-09-01".into()),
            events: Some(vec![]),
            ..RawPersist::default()
        };
        let user = "5b0f3c1e-0000-4000-8000-000000000001";
        assert!(PersistInput::parse(raw("PERSONAL", Some(user))).is_ok());
        assert!(PersistInput::parse(raw("PUBLIC", None)).is_ok());
        let err = PersistInput::parse(raw("PERSONAL", None)).unwrap_err();
        assert_eq!(err.errors()[0].field, "targetUserId");
        let err = PersistInput::parse(raw("PUBLIC", Some(user))).unwrap_err();
        assert_eq!(err.errors()[0].field, "targetUserId");
        let err = PersistInput::parse(raw("DAILY", None)).unwrap_err();
        assert_eq!(err.errors()[0].field, "digestType");
    }

    #[test]
    fn providers_are_link_hosts() {
        let s = source_of(
            "Harbour News",
            Some("https://news.example.com/a?b"),
            "2025-09-01T10:00:00.000Z",
            "T",
        );
        assert_eq!(s.provider, "news.example.com");
        let s = source_of("Harbour News", None, "2025-09-01T10:00:00.000Z", "T");
        assert_eq!(s.provider, "Harbour News");
        assert_eq!(clip("héllo", 2), "hé");
    }
}
