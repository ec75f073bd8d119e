//! What the reader is asked, parsed: label names, a subscription's labels, Google Reader item
//! ids, mark-all-read scopes and stream queries. A bad input is an [`Invalid`] naming the field.

use chrono::{DateTime, Utc};
use platform::Invalid;

use super::{ArticleId, SourceId};
use crate::model::reader::{Order, StateFilter};
use crate::store::Continuation;

/// Most labels on one subscription.
pub const MAX_LABELS_PER_SUBSCRIPTION: usize = 10;
/// Most distinct labels one person uses.
pub const MAX_LABELS_PER_PERSON: usize = 100;
/// Longest label name, in characters.
pub const MAX_LABEL_CHARS: usize = 100;
/// Most articles one stream page holds (Google Reader clients ask for up to 1,000 ids).
pub const MAX_STREAM_COUNT: u32 = 1000;
/// Articles per stream page when none is asked for.
pub const DEFAULT_STREAM_COUNT: u32 = 20;
/// Most ids one mark request names.
pub const MAX_MARK_IDS: usize = 1000;
/// Longest continuation this service gives out, in characters.
pub const MAX_CONTINUATION_CHARS: usize = 300;

/// A label (folder) name: 1 to [`MAX_LABEL_CHARS`] characters, no control characters, no `/`
/// (Google Reader stream ids embed it), not blank; compared case-sensitively.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelName(String);

impl LabelName {
    pub fn parse(field: &str, raw: impl Into<String>) -> Result<Self, Invalid> {
        let raw = raw.into();
        let chars = raw.chars().count();
        let reason = if raw.trim().is_empty() {
            Some("must not be blank".to_string())
        } else if chars > MAX_LABEL_CHARS {
            Some(format!("must be at most {MAX_LABEL_CHARS} characters"))
        } else if raw.chars().any(char::is_control) {
            Some("must not contain control characters".to_string())
        } else if raw.contains('/') {
            Some("must not contain '/'".to_string())
        } else {
            None
        };
        match reason {
            Some(reason) => Err(Invalid::field(field, reason)),
            None => Ok(Self(raw)),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for LabelName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A subscription's labels: at most [`MAX_LABELS_PER_SUBSCRIPTION`] distinct names, in the
/// order first given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Labels(Vec<LabelName>);

impl Labels {
    pub fn parse(field: &str, raw: Vec<String>) -> Result<Self, Invalid> {
        let mut names: Vec<LabelName> = Vec::with_capacity(raw.len());
        for name in raw {
            let name = LabelName::parse(field, name)?;
            if !names.contains(&name) {
                names.push(name);
            }
        }
        if names.len() > MAX_LABELS_PER_SUBSCRIPTION {
            return Err(Invalid::field(
                field,
                format!("must name at most {MAX_LABELS_PER_SUBSCRIPTION} labels"),
            ));
        }
        Ok(Self(names))
    }

    pub fn as_slice(&self) -> &[LabelName] {
        &self.0
    }

    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|l| l.0.clone()).collect()
    }
}

/// A Google Reader item id: the first 16 hex digits (64 bits) of an article id. Clients send
/// the long form `tag:google.com,2005:reader/item/{16 hex}`, the short form (its signed
/// decimal), or the 16 hex digits alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemId(u64);

/// The long form's prefix.
pub const ITEM_ID_PREFIX: &str = "tag:google.com,2005:reader/item/";

impl ItemId {
    /// The item id of an article id (its first 16 hex digits); `None` for an id that does not
    /// start with 16 hex digits.
    pub fn of_article(article_id: &str) -> Option<Self> {
        let hex = article_id.get(..16)?;
        hex.bytes()
            .all(|b| b.is_ascii_hexdigit())
            .then(|| u64::from_str_radix(hex, 16).ok().map(Self))
            .flatten()
    }

    /// Any of the three forms.
    pub fn parse(field: &str, raw: &str) -> Result<Self, Invalid> {
        let bad = || {
            Invalid::field(
                field,
                "must be a Google Reader item id (long form, decimal or 16 hex digits)",
            )
        };
        if let Some(hex) = raw.strip_prefix(ITEM_ID_PREFIX) {
            return (hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| u64::from_str_radix(hex, 16).ok().map(Self))
                .flatten()
                .ok_or_else(bad);
        }
        if raw.len() == 16
            && raw.bytes().all(|b| b.is_ascii_hexdigit())
            && !raw.bytes().all(|b| b.is_ascii_digit())
        {
            return u64::from_str_radix(raw, 16).map(Self).map_err(|_| bad());
        }
        // Decimal: signed (as Google Reader writes it), or unsigned from clients that print u64.
        if let Ok(signed) = raw.parse::<i64>() {
            return Ok(Self(u64::from_ne_bytes(signed.to_ne_bytes())));
        }
        raw.parse::<u64>().map(Self).map_err(|_| bad())
    }

    /// The 16 lowercase hex digits.
    pub fn hex(self) -> String {
        format!("{:016x}", self.0)
    }

    /// The long form.
    pub fn long_form(self) -> String {
        format!("{ITEM_ID_PREFIX}{}", self.hex())
    }

    /// The short form: the 64 bits as a signed decimal.
    pub fn short_form(self) -> i64 {
        i64::from_ne_bytes(self.0.to_ne_bytes())
    }
}

/// What "mark all as read" covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkScope {
    All,
    Source(SourceId),
    Label(LabelName),
    /// One subscription, named with a label it must carry (a 404 when it does not).
    SourceInLabel(SourceId, LabelName),
}

/// What a stream lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamScope {
    /// Every subscription (the reading list).
    All,
    Source(SourceId),
    Label(LabelName),
    /// One subscription, named with a label it must carry (a 404 when it does not).
    SourceInLabel(SourceId, LabelName),
    /// The starred articles, by when they were starred.
    Starred,
}

/// A stream query: scope, state filter, a time window on publication (on starring for the
/// starred scope), order, page size and continuation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamQuery {
    pub scope: StreamScope,
    pub state: StateFilter,
    /// Only articles published after this.
    pub newer_than: Option<DateTime<Utc>>,
    /// Only articles published before this.
    pub older_than: Option<DateTime<Utc>>,
    pub order: Order,
    /// 1 to [`MAX_STREAM_COUNT`].
    pub count: u32,
    pub continuation: Option<Continuation>,
}

impl StreamQuery {
    /// The newest first page of `scope`, [`DEFAULT_STREAM_COUNT`] long, any state.
    pub fn new(scope: StreamScope) -> Self {
        Self {
            scope,
            state: StateFilter::Any,
            newer_than: None,
            older_than: None,
            order: Order::NewestFirst,
            count: DEFAULT_STREAM_COUNT,
            continuation: None,
        }
    }

    /// `count` checked (field `count_field`), and `continuation` read (field
    /// `continuation_field`): one this service gave out for the same order.
    pub fn with_page(
        mut self,
        count_field: &str,
        count: Option<u32>,
        continuation_field: &str,
        continuation: Option<&str>,
    ) -> Result<Self, Invalid> {
        let count = count.unwrap_or(DEFAULT_STREAM_COUNT);
        if !(1..=MAX_STREAM_COUNT).contains(&count) {
            return Err(Invalid::field(
                count_field,
                format!("must be between 1 and {MAX_STREAM_COUNT}"),
            ));
        }
        self.count = count;
        if let Some(text) = continuation {
            let parsed = (text.len() <= MAX_CONTINUATION_CHARS)
                .then(|| Continuation::decode(text))
                .flatten()
                .ok_or_else(|| {
                    Invalid::field(continuation_field, "is not a cursor this service gave out")
                })?;
            self.continuation = Some(parsed);
        }
        Ok(self)
    }
}

/// The articles one mark request names: 1 to [`MAX_MARK_IDS`] ids, each at most
/// [`platform::validation::MAX_ID_CHARS`] characters and not blank, without repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkIds(Vec<ArticleId>);

impl MarkIds {
    pub fn parse(field: &str, ids: Vec<String>) -> Result<Self, Invalid> {
        if ids.is_empty() {
            return Err(Invalid::field(field, "must name at least one article"));
        }
        if ids.len() > MAX_MARK_IDS {
            return Err(Invalid::field(
                field,
                format!("must name at most {MAX_MARK_IDS} articles"),
            ));
        }
        let mut out: Vec<ArticleId> = Vec::with_capacity(ids.len());
        for id in ids {
            if id.trim().is_empty() {
                return Err(Invalid::field(field, "must not contain blank ids"));
            }
            let id = ArticleId::parse(field, id)?;
            if !out.contains(&id) {
                out.push(id);
            }
        }
        Ok(Self(out))
    }

    pub fn as_slice(&self) -> &[ArticleId] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_ids_read_every_form_and_round_trip() {
        let id = ItemId::of_article("ffeeddccbbaa99887766554433221100").expect("hex");
        assert_eq!(id.hex(), "ffeeddccbbaa9988");
        assert_eq!(ItemId::parse("i", &id.long_form()).ok(), Some(id));
        assert_eq!(
            ItemId::parse("i", &id.short_form().to_string()).ok(),
            Some(id)
        );
        assert!(
            id.short_form() < 0,
            "the top bit set is negative, as Google Reader writes it"
        );
        assert_eq!(ItemId::parse("i", "ffeeddccbbaa9988").ok(), Some(id));
        assert_eq!(
            ItemId::parse("i", &u64::MAX.to_string())
                .ok()
                .map(ItemId::hex),
            Some("ffffffffffffffff".into())
        );
        for junk in ["", "tag:google.com,2005:reader/item/xyz", "12ab", "-"] {
            assert!(ItemId::parse("i", junk).is_err(), "{junk}");
        }
    }

    #[test]
    fn label_names_are_bounded() {
        assert!(LabelName::parse("name", "Tech news").is_ok());
        assert!(LabelName::parse("name", "Ünïcode ✓").is_ok());
        for bad in ["", "  ", "a/b", "tab\there", &"x".repeat(101)] {
            let err = LabelName::parse("name", bad).expect_err(bad);
            assert!(err.0.iter().all(|e| e.field == "name"), "{bad}");
        }
        let many: Vec<String> = (0..11).map(|i| format!("l{i}")).collect();
        assert!(Labels::parse("labels", many).is_err());
        let dup = Labels::parse("labels", vec!["a".into(), "a".into(), "B".into()]).expect("ok");
        assert_eq!(dup.names(), vec!["a", "B"]);
    }
}
