//! The Google Reader API's identifiers: item ids (long form, short form, bare hex) and stream
//! ids (`feed/…`, `user/-/label/…`, `user/-/state/com.google/…`).

use platform::Invalid;

/// The long form's prefix: `tag:google.com,2005:reader/item/{16 hex}`.
pub const ITEM_PREFIX: &str = "tag:google.com,2005:reader/item/";

/// The longest id value a client may send (`platform::validation::MAX_ID_CHARS`).
pub const MAX_ID_CHARS: usize = platform::validation::MAX_ID_CHARS;

/// The top bit of an item id, cleared on the wire: NetNewsWire reads the long form with
/// Swift's `Int(_, radix: 16)` and Java clients with `Long.parseLong(_, 16)`, which both
/// refuse a hex number over `i64::MAX`, so an id with its top bit set could never be marked.
const TOP_BIT: u64 = 1 << 63;

/// An article's Google Reader item id: the first 16 hex digits of its 32-hex id (the key of
/// its `ITEM#` alias), top bit cleared, so its signed decimal short form is never negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId(u64);

impl ItemId {
    /// The item id of any 64-bit value (its top bit cleared).
    pub fn new(value: u64) -> Self {
        Self(value & !TOP_BIT)
    }

    /// The item id of an article id (32 hex digits); `None` when it is not one.
    pub fn of_article(article_id: &str) -> Option<Self> {
        if article_id.len() != 32 || !article_id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let head = article_id.get(..16)?;
        u64::from_str_radix(head, 16).ok().map(Self::new)
    }

    /// `tag:google.com,2005:reader/item/{16 hex}`, as `stream/items/contents` and
    /// `stream/contents` answer.
    pub fn long_form(self) -> String {
        format!("{ITEM_PREFIX}{:016x}", self.0)
    }

    /// The signed decimal, as `stream/items/ids` answers.
    pub fn short_form(self) -> String {
        // The top bit is clear, so the value is an i64 as it is.
        i64::try_from(self.0).unwrap_or(i64::MAX).to_string()
    }

    /// The 16-hex alias keys of the articles this id may stand for: the top bit of the
    /// article's own prefix is unknown, so both.
    pub fn alias_keys(self) -> [String; 2] {
        [
            format!("{:016x}", self.0),
            format!("{:016x}", self.0 | TOP_BIT),
        ]
    }

    pub fn value(self) -> u64 {
        self.0
    }

    /// Every id an `i` value can mean, as FreshRSS and Miniflux read them: the long form
    /// (padded or not: NetNewsWire sends `…/item/2f2`), 16 bare hex digits (Reeder), or the
    /// signed decimal short form (Liferea, and every client echoing `stream/items/ids`). Sixteen
    /// decimal digits read both ways (`1234567890123456` is hex to Reeder and decimal to
    /// others); the reading that names no article resolves to nothing.
    pub fn parse(field: &str, raw: &str) -> Result<Vec<Self>, Invalid> {
        let raw = raw.trim();
        let bad = || {
            Invalid::field(
                field,
                "must be an item id: tag:google.com,2005:reader/item/{hex}, 16 hex digits or a decimal number",
            )
        };
        if raw.chars().count() > MAX_ID_CHARS {
            return Err(Invalid::field(
                field,
                format!("must be at most {MAX_ID_CHARS} characters"),
            ));
        }
        if let Some(hex) = raw.strip_prefix(ITEM_PREFIX) {
            return hex_value(hex).map(|v| vec![Self::new(v)]).ok_or_else(bad);
        }
        let decimal = decimal_value(raw).map(Self::new);
        if raw.len() == 16 {
            if let Some(hex) = hex_value(raw).map(Self::new) {
                return Ok(match decimal {
                    Some(d) if d != hex => vec![hex, d],
                    _ => vec![hex],
                });
            }
        }
        decimal.map(|d| vec![d]).ok_or_else(bad)
    }
}

/// 1 to 16 hex digits.
fn hex_value(hex: &str) -> Option<u64> {
    if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// A signed 64-bit decimal, as its two's complement bits.
fn decimal_value(raw: &str) -> Option<u64> {
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    raw.parse::<i64>()
        .ok()
        .map(|v| u64::from_ne_bytes(v.to_ne_bytes()))
}

/// The longest label name (the reader's rule).
pub const MAX_LABEL_CHARS: usize = 100;

/// A feed as a stream id names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedRef {
    /// `feed/{sourceId}`: what this server answers.
    Source(String),
    /// `feed/{url}`: what Google Reader answered, and what clients send to subscribe.
    Url(String),
}

/// A stream id: a feed, a label, or one of the person's states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamId {
    /// `user/-/state/com.google/reading-list`: every subscription's articles.
    ReadingList,
    /// `user/-/state/com.google/read`.
    Read,
    /// `user/-/state/com.google/kept-unread` (and FreshRSS's `…/unread`).
    KeptUnread,
    /// `user/-/state/com.google/starred`.
    Starred,
    /// `user/-/label/{name}`: a folder.
    Label(String),
    /// `feed/{sourceId}` or `feed/{url}`.
    Feed(FeedRef),
    /// A state clients send and this server keeps nothing for (`broadcast`, `like`, `fresh`,
    /// `tracking-…`): accepted and ignored, as Miniflux does.
    Ignored(String),
}

const STATE_PREFIX: &str = "state/com.google/";

impl StreamId {
    /// Reads a stream id; `user/{anything}/…` is the caller's own (`-`, their id or their
    /// name: every stream is read for the person the request authenticates).
    pub fn parse(field: &str, raw: &str) -> Result<Self, Invalid> {
        let raw = raw.trim();
        if raw.chars().count() > 2048 + 5 {
            return Err(Invalid::field(field, "is too long"));
        }
        if let Some(rest) = raw.strip_prefix("feed/") {
            // FreshRSS tolerates a doubled prefix (`feed/feed/…`) some clients send.
            let mut rest = rest;
            while let Some(inner) = rest.strip_prefix("feed/") {
                rest = inner;
            }
            return feed(field, rest).map(Self::Feed);
        }
        let Some(rest) = raw.strip_prefix("user/") else {
            return Err(unknown(field));
        };
        let Some((_, rest)) = rest.split_once('/') else {
            return Err(unknown(field));
        };
        if let Some(name) = rest.strip_prefix("label/") {
            return label_name(field, name).map(Self::Label);
        }
        match rest.strip_prefix(STATE_PREFIX) {
            Some("reading-list") => Ok(Self::ReadingList),
            Some("read") => Ok(Self::Read),
            Some("kept-unread" | "unread") => Ok(Self::KeptUnread),
            Some("starred") => Ok(Self::Starred),
            Some(
                other @ ("broadcast"
                | "broadcast-friends"
                | "like"
                | "fresh"
                | "tracking-kept-unread"
                | "tracking-body-link-used"
                | "tracking-emailed"
                | "tracking-item-link-used"),
            ) => Ok(Self::Ignored(other.to_string())),
            _ => Err(unknown(field)),
        }
    }

    /// The id as this server writes it (`user/-/…`, `feed/{sourceId}`).
    pub fn render(&self) -> String {
        match self {
            Self::ReadingList => state("reading-list"),
            Self::Read => state("read"),
            Self::KeptUnread => state("kept-unread"),
            Self::Starred => state("starred"),
            Self::Label(name) => label(name),
            Self::Feed(FeedRef::Source(id)) => feed_stream(id),
            Self::Feed(FeedRef::Url(url)) => format!("feed/{url}"),
            Self::Ignored(other) => state(other),
        }
    }
}

/// `user/-/state/com.google/{name}`.
pub fn state(name: &str) -> String {
    format!("user/-/{STATE_PREFIX}{name}")
}

/// `user/-/label/{name}`.
pub fn label(name: &str) -> String {
    format!("user/-/label/{name}")
}

/// `feed/{sourceId}`.
pub fn feed_stream(source_id: &str) -> String {
    format!("feed/{source_id}")
}

fn unknown(field: &str) -> Invalid {
    Invalid::field(
        field,
        "must be a stream id: feed/{id or url}, user/-/label/{name} or user/-/state/com.google/{state}",
    )
}

fn feed(field: &str, rest: &str) -> Result<FeedRef, Invalid> {
    if rest.len() == 32 && rest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(FeedRef::Source(rest.to_ascii_lowercase()));
    }
    let lower = rest.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        if rest.chars().count() > 2048 {
            return Err(Invalid::field(
                field,
                "the feed URL must be at most 2048 characters",
            ));
        }
        return Ok(FeedRef::Url(rest.to_string()));
    }
    Err(Invalid::field(
        field,
        "must be feed/{source id} or feed/{http(s) URL}",
    ))
}

/// A label name as the reader takes it: 1-100 characters, no control characters, no `/`.
pub fn label_name(field: &str, name: &str) -> Result<String, Invalid> {
    let count = name.chars().count();
    if count == 0 {
        return Err(Invalid::field(field, "the label name must not be empty"));
    }
    if count > MAX_LABEL_CHARS {
        return Err(Invalid::field(
            field,
            format!("the label name must be at most {MAX_LABEL_CHARS} characters"),
        ));
    }
    if name.chars().any(|c| c.is_control() || c == '/') {
        return Err(Invalid::field(
            field,
            "the label name must not hold control characters or '/'",
        ));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(raw: &str) -> ItemId {
        let ids = ItemId::parse("i", raw).unwrap_or_default();
        assert_eq!(ids.len(), 1, "{raw}: {ids:?}");
        ids.first().copied().unwrap_or(ItemId(0))
    }

    #[test]
    fn an_article_id_gives_its_first_64_bits_top_bit_cleared() {
        let id = ItemId::of_article("00000000148b9369ffffffffffffffff");
        assert_eq!(id, Some(ItemId(0x148b9369)));
        assert_eq!(
            ItemId::of_article("fb115bd6d34a8e9f0123456789abcdef").map(ItemId::value),
            Some(0x7b115bd6d34a8e9f)
        );
        assert_eq!(ItemId::of_article("not-an-article"), None);
        assert_eq!(ItemId::of_article("zz115bd6d34a8e9f0123456789abcdef"), None);
    }

    #[test]
    fn forms_are_the_ones_google_reader_documented() {
        // The pairs of the Google Reader API's own documentation.
        let id = ItemId(0x148b9369);
        assert_eq!(
            id.long_form(),
            "tag:google.com,2005:reader/item/00000000148b9369"
        );
        assert_eq!(id.short_form(), "344691561");
        let high = ItemId::new(0xfb115bd6d34a8e9f);
        assert_eq!(
            high.long_form(),
            "tag:google.com,2005:reader/item/7b115bd6d34a8e9f"
        );
        assert!(!high.short_form().starts_with('-'));
        assert_eq!(high.short_form().parse::<u64>().ok(), Some(high.value()));
    }

    #[test]
    fn every_form_clients_send_parses_to_the_same_id() {
        let id = ItemId(0x148b9369);
        // FreshRSS, Miniflux, Reeder's long form; NetNewsWire's unpadded long form.
        assert_eq!(one("tag:google.com,2005:reader/item/00000000148b9369"), id);
        assert_eq!(one("tag:google.com,2005:reader/item/148b9369"), id);
        // The short form, as stream/items/ids answered it.
        assert_eq!(one("344691561"), id);
        // 16 bare hex digits with a letter: Reeder.
        assert_eq!(one("00000000148b9369"), id);
        assert_eq!(one("00000000148B9369"), id);
        // NetNewsWire's long form of a negative short form is two's complement.
        assert_eq!(
            one("tag:google.com,2005:reader/item/fffffffffffffffe"),
            ItemId::new(u64::MAX - 1)
        );
        assert_eq!(one("-2"), ItemId::new(u64::MAX - 1));
    }

    #[test]
    fn sixteen_decimal_digits_are_read_both_ways() {
        let ids = ItemId::parse("i", "1234567890123456").unwrap_or_default();
        assert_eq!(
            ids,
            vec![ItemId(0x1234567890123456), ItemId(1_234_567_890_123_456)]
        );
    }

    #[test]
    fn ids_that_name_nothing_are_refused_naming_the_field() {
        for bad in [
            "",
            "tag:google.com,2005:reader/item/",
            "tag:google.com,2005:reader/item/xyz",
            "tag:google.com,2005:reader/item/00000000148b93690",
            "12ab",
            "99999999999999999999",
            "1.5",
            "--1",
        ] {
            let error = ItemId::parse("i", bad).err();
            assert!(
                error.is_some_and(|e| e.errors().iter().all(|f| f.field == "i")),
                "{bad:?}"
            );
        }
        assert!(ItemId::parse("i", &"1".repeat(201)).is_err());
    }

    #[test]
    fn alias_keys_cover_both_top_bits() {
        assert_eq!(
            ItemId(0x148b9369).alias_keys(),
            [
                "00000000148b9369".to_string(),
                "80000000148b9369".to_string()
            ]
        );
    }

    #[test]
    fn stream_ids_as_clients_send_them() {
        let parse = |raw: &str| StreamId::parse("s", raw);
        assert_eq!(
            parse("user/-/state/com.google/reading-list").ok(),
            Some(StreamId::ReadingList)
        );
        assert_eq!(
            parse("user/1/state/com.google/read").ok(),
            Some(StreamId::Read)
        );
        assert_eq!(
            parse("user/alice/state/com.google/starred").ok(),
            Some(StreamId::Starred)
        );
        assert_eq!(
            parse("user/-/state/com.google/kept-unread").ok(),
            Some(StreamId::KeptUnread)
        );
        assert_eq!(
            parse("user/-/state/com.google/broadcast").ok(),
            Some(StreamId::Ignored("broadcast".into()))
        );
        assert_eq!(
            parse("user/-/label/Tech News").ok(),
            Some(StreamId::Label("Tech News".into()))
        );
        assert_eq!(
            parse("user/01HV/label/Comics").ok(),
            Some(StreamId::Label("Comics".into()))
        );
        let source = "0123456789abcdef0123456789ABCDEF";
        assert_eq!(
            parse(&format!("feed/{source}")).ok(),
            Some(StreamId::Feed(FeedRef::Source(source.to_ascii_lowercase())))
        );
        assert_eq!(
            parse("feed/https://example.org/feed.xml").ok(),
            Some(StreamId::Feed(FeedRef::Url(
                "https://example.org/feed.xml".into()
            )))
        );
        assert_eq!(
            parse("feed/feed/http://example.org/rss").ok(),
            Some(StreamId::Feed(FeedRef::Url(
                "http://example.org/rss".into()
            )))
        );
    }

    #[test]
    fn bad_stream_ids_name_the_field() {
        for bad in [
            "",
            "feed/",
            "feed/42",
            "feed/ftp://example.org/x",
            "user/-/label/",
            "user/-/label/a/b",
            "user/-/label/bell\u{7}",
            "user/-/state/com.google/nonsense",
            "user/-",
            "splice/x",
        ] {
            let error = StreamId::parse("s", bad).err();
            assert!(
                error.is_some_and(|e| e.errors().iter().all(|f| f.field == "s")),
                "{bad:?}"
            );
        }
        assert!(StreamId::parse("s", &format!("user/-/label/{}", "x".repeat(101))).is_err());
        assert!(StreamId::parse("s", &format!("user/-/label/{}", "é".repeat(100))).is_ok());
    }

    #[test]
    fn stream_ids_render_as_this_server_writes_them() {
        assert_eq!(
            StreamId::ReadingList.render(),
            "user/-/state/com.google/reading-list"
        );
        assert_eq!(
            StreamId::Label("Comics".into()).render(),
            "user/-/label/Comics"
        );
        assert_eq!(
            StreamId::Feed(FeedRef::Source("ab".repeat(16))).render(),
            format!("feed/{}", "ab".repeat(16))
        );
    }
}
