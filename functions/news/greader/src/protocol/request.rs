//! What a Google Reader client sends: its `Authorization: GoogleLogin auth=…` header, the
//! action token `T`, form bodies with repeated keys, and the stream parameters (`n`, `c`, `r`,
//! `ot`, `nt`, `xt`, `it`, `ts`).

use platform::Invalid;

use super::ids::{label_name, ItemId, StreamId};

/// The `auth` value of an `Authorization: GoogleLogin auth={value}` header; `None` for any
/// other scheme or an empty value.
pub fn google_login_auth(header: &str) -> Option<&str> {
    let (scheme, rest) = header.trim().split_once(char::is_whitespace)?;
    if !scheme.eq_ignore_ascii_case("GoogleLogin") {
        return None;
    }
    let (key, value) = rest.trim().split_once('=')?;
    if !key.trim().eq_ignore_ascii_case("auth") {
        return None;
    }
    Some(value.trim()).filter(|v| !v.is_empty() && !v.contains(char::is_whitespace))
}

/// A request's parameters: its query's, then its form body's, every repeat kept in order
/// (`i=…&i=…`), as FreshRSS and Miniflux read them (both take a POST's parameters from
/// either place).
#[derive(Debug, Clone, Default)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// `query` (without `?`) and a form `body` (`application/x-www-form-urlencoded`).
    pub fn new(query: Option<&str>, body: Option<&str>) -> Self {
        let mut pairs = Vec::new();
        for raw in [query, body].into_iter().flatten() {
            pairs.extend(
                form_urlencoded::parse(raw.as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned())),
            );
        }
        Self { pairs }
    }

    /// The first value of `name`.
    pub fn first(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first non-blank value of `name`, trimmed.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.all(name)
            .into_iter()
            .map(str::trim)
            .find(|v| !v.is_empty())
    }

    /// Every value of `name`, in order.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// Whether the action token `T` a write carries is acceptable: the token
/// `reader/api/0/token` gave, or none at all (FeedMe sends `T=` and Reeder `T=x`, which
/// FreshRSS accepts from a request whose `Authorization` header is good: that header,
/// which no browser adds by itself, is what keeps another site from forging the write).
pub fn token_accepted(sent: Option<&str>, expected: &str) -> bool {
    match sent.map(str::trim) {
        None | Some("" | "x") => true,
        Some(token) => constant_time_eq(token.as_bytes(), expected.as_bytes()),
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The most items a stream answers at once (`n` above it is cut down to it, as Miniflux
/// cuts its own maximum; `continuation` gives the rest).
pub const MAX_COUNT: usize = 1000;
/// Items per answer when `n` is not given (FreshRSS's default).
pub const DEFAULT_COUNT: usize = 20;
/// The longest continuation a client may send back.
pub const MAX_CONTINUATION_CHARS: usize = 1024;
/// The most item ids one request may name (`i`), and the most stream ids (`s`).
pub const MAX_ITEMS: usize = 1000;

/// Which articles of a stream, by read state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFilter {
    Any,
    Unread,
    Read,
    /// `it` and `xt` exclude each other (`it=…/read&xt=…/read`): nothing.
    Neither,
}

impl ReadFilter {
    fn and(self, other: Self) -> Self {
        match (self, other) {
            (Self::Any, x) | (x, Self::Any) => x,
            (a, b) if a == b => a,
            _ => Self::Neither,
        }
    }
}

/// Where a stream's articles come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamScope {
    /// The reading list: every subscription.
    All,
    Feed(super::ids::FeedRef),
    Label(String),
    Starred,
}

/// A stream request (`stream/contents`, `stream/items/ids`), parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamRequest {
    pub stream: StreamId,
    pub scope: StreamScope,
    pub read: ReadFilter,
    /// `it=…/starred` on a stream other than the starred one.
    pub starred_only: bool,
    /// `xt=…/starred`.
    pub exclude_starred: bool,
    pub count: usize,
    pub continuation: Option<String>,
    pub oldest_first: bool,
    /// `ot`: only articles published at or after this time (seconds).
    pub newer_than: Option<i64>,
    /// `nt`: only articles published before this time (seconds).
    pub older_than: Option<i64>,
}

impl StreamRequest {
    /// The request for `stream` with the parameters of `params`.
    pub fn parse(stream: StreamId, params: &Params) -> Result<Self, Invalid> {
        let (scope, mut read) = match &stream {
            StreamId::ReadingList | StreamId::Ignored(_) => (StreamScope::All, ReadFilter::Any),
            StreamId::Read => (StreamScope::All, ReadFilter::Read),
            StreamId::KeptUnread => (StreamScope::All, ReadFilter::Unread),
            StreamId::Starred => (StreamScope::Starred, ReadFilter::Any),
            StreamId::Label(name) => (StreamScope::Label(name.clone()), ReadFilter::Any),
            StreamId::Feed(feed) => (StreamScope::Feed(feed.clone()), ReadFilter::Any),
        };
        let (mut starred_only, mut exclude_starred) = (false, false);
        for raw in params.all("it") {
            match StreamId::parse("it", raw)? {
                StreamId::Read => read = read.and(ReadFilter::Read),
                StreamId::KeptUnread => read = read.and(ReadFilter::Unread),
                StreamId::Starred => starred_only = true,
                // Another feed or label as a filter: Miniflux ignores these too.
                _ => {}
            }
        }
        for raw in params.all("xt") {
            match StreamId::parse("xt", raw)? {
                StreamId::Read => read = read.and(ReadFilter::Unread),
                StreamId::KeptUnread => read = read.and(ReadFilter::Read),
                StreamId::Starred => exclude_starred = true,
                _ => {}
            }
        }
        if scope == StreamScope::Starred {
            starred_only = false;
        }
        let count = match params.value("n") {
            None => DEFAULT_COUNT,
            Some(raw) => match raw.parse::<i64>() {
                Ok(n) if n >= 1 => usize::try_from(n).unwrap_or(MAX_COUNT).min(MAX_COUNT),
                Ok(_) => return Err(Invalid::field("n", "must be 1 or more")),
                Err(_) => return Err(Invalid::field("n", "must be a whole number")),
            },
        };
        let continuation = match params.value("c") {
            Some(c) if c.chars().count() > MAX_CONTINUATION_CHARS => {
                return Err(Invalid::field(
                    "c",
                    format!("must be at most {MAX_CONTINUATION_CHARS} characters"),
                ))
            }
            other => other.map(str::to_string),
        };
        Ok(Self {
            stream,
            scope,
            read,
            starred_only,
            exclude_starred,
            count,
            continuation,
            oldest_first: params.value("r") == Some("o"),
            newer_than: seconds("ot", params.value("ot"))?,
            older_than: seconds("nt", params.value("nt"))?,
        })
    }
}

/// A time in seconds since 1970 (`ot`, `nt`); 0 is no bound.
fn seconds(field: &str, raw: Option<&str>) -> Result<Option<i64>, Invalid> {
    let Some(raw) = raw else { return Ok(None) };
    match raw.parse::<i64>() {
        Ok(0) => Ok(None),
        Ok(s) if (1..=253_402_300_799).contains(&s) => Ok(Some(s)),
        Ok(_) => Err(Invalid::field(
            field,
            "must be a time in seconds since 1970",
        )),
        Err(_) => Err(Invalid::field(field, "must be a whole number of seconds")),
    }
}

/// `mark-all-as-read`'s `ts` as microseconds since 1970: clients send microseconds (16
/// digits, as `newestItemTimestampUsec`), some seconds, milliseconds or nanoseconds; the
/// number of digits tells which (Miniflux reads 16 digits or more as microseconds, fewer as
/// seconds). Absent or blank: `None` (now).
pub fn timestamp_micros(field: &str, raw: Option<&str>) -> Result<Option<i64>, Invalid> {
    let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    let bad = || {
        Invalid::field(
            field,
            "must be a time since 1970 in seconds, milliseconds or microseconds",
        )
    };
    if raw.len() > 19 || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let value = raw.parse::<i64>().map_err(|_| bad())?;
    let micros = match raw.len() {
        19.. => value / 1000,
        16..=18 => value,
        13..=15 => value.saturating_mul(1000),
        _ => value.saturating_mul(1_000_000),
    };
    Ok(Some(micros))
}

/// The item ids of a request's `i` values (each value may stand for two ids; see
/// [`ItemId::parse`]).
pub fn item_ids(params: &Params) -> Result<Vec<ItemId>, Invalid> {
    let values = params.all("i");
    if values.is_empty() {
        return Err(Invalid::field("i", "at least one item id is required"));
    }
    if values.len() > MAX_ITEMS {
        return Err(Invalid::field(
            "i",
            format!("at most {MAX_ITEMS} item ids at once"),
        ));
    }
    let mut ids = Vec::with_capacity(values.len());
    for raw in values {
        for id in ItemId::parse("i", raw)? {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// What `edit-tag` changes on its items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagEdit {
    /// `Some(true)`: mark read; `Some(false)`: mark unread.
    pub read: Option<bool>,
    pub starred: Option<bool>,
    /// Labels named on items: labels here are on subscriptions, so these change nothing.
    pub ignored: Vec<String>,
}

impl TagEdit {
    /// `a` (add) and `r` (remove), each repeatable: `…/read` marks read (removing it, unread),
    /// `…/kept-unread` the other way round, `…/starred` stars; a request that asks for both
    /// sides of one state is refused.
    pub fn parse(params: &Params) -> Result<Self, Invalid> {
        let mut edit = Self::default();
        let set = |field: &str, slot: &mut Option<bool>, value: bool| match slot {
            Some(v) if *v != value => {
                Err(Invalid::field(field, "asks for both sides of one state"))
            }
            _ => {
                *slot = Some(value);
                Ok(())
            }
        };
        for (field, adding) in [("a", true), ("r", false)] {
            for raw in params.all(field) {
                if raw.trim().is_empty() {
                    continue;
                }
                match StreamId::parse(field, raw)? {
                    StreamId::Read => set(field, &mut edit.read, adding)?,
                    StreamId::KeptUnread => set(field, &mut edit.read, !adding)?,
                    StreamId::Starred => set(field, &mut edit.starred, adding)?,
                    other => edit.ignored.push(other.render()),
                }
            }
        }
        Ok(edit)
    }
}

/// `subscription/edit`'s action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionAction {
    Subscribe,
    Unsubscribe,
    Edit,
}

/// A `subscription/edit` request: `ac`, the streams `s` (repeatable), the labels to add `a`
/// and remove `r` (repeatable), and a title `t`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionEdit {
    pub action: SubscriptionAction,
    pub streams: Vec<super::ids::FeedRef>,
    pub add_labels: Vec<String>,
    pub remove_labels: Vec<String>,
    pub title: Option<String>,
}

impl SubscriptionEdit {
    pub fn parse(params: &Params) -> Result<Self, Invalid> {
        let action = match params.value("ac") {
            Some("subscribe") => SubscriptionAction::Subscribe,
            Some("unsubscribe") => SubscriptionAction::Unsubscribe,
            Some("edit") => SubscriptionAction::Edit,
            Some(_) => {
                return Err(Invalid::field(
                    "ac",
                    "must be subscribe, unsubscribe or edit",
                ))
            }
            None => return Err(Invalid::field("ac", "is required")),
        };
        let values = params.all("s");
        if values.len() > MAX_ITEMS {
            return Err(Invalid::field(
                "s",
                format!("at most {MAX_ITEMS} streams at once"),
            ));
        }
        let mut streams = Vec::new();
        for raw in values.into_iter().filter(|v| !v.trim().is_empty()) {
            match StreamId::parse("s", raw)? {
                StreamId::Feed(feed) => streams.push(feed),
                _ => return Err(Invalid::field("s", "must be a feed stream (feed/…)")),
            }
        }
        if streams.is_empty() {
            return Err(Invalid::field("s", "at least one feed stream is required"));
        }
        Ok(Self {
            action,
            streams,
            add_labels: labels(params, "a")?,
            remove_labels: labels(params, "r")?,
            title: params.value("t").map(str::to_string),
        })
    }
}

/// The label names of `field`'s values (`user/-/label/{name}`).
pub fn labels(params: &Params, field: &str) -> Result<Vec<String>, Invalid> {
    let mut names = Vec::new();
    for raw in params
        .all(field)
        .into_iter()
        .filter(|v| !v.trim().is_empty())
    {
        match StreamId::parse(field, raw)? {
            StreamId::Label(name) => {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            _ => {
                return Err(Invalid::field(
                    field,
                    "must be a label (user/-/label/{name})",
                ))
            }
        }
    }
    Ok(names)
}

/// One label stream of `field` (`rename-tag`'s `s` and `dest`, `disable-tag`'s `s`); a
/// bare name is taken too (FreshRSS's `disable-tag` takes `t`).
pub fn one_label(params: &Params, field: &str) -> Result<String, Invalid> {
    let raw = params
        .value(field)
        .ok_or_else(|| Invalid::field(field, "is required"))?;
    if raw.starts_with("user/") {
        match StreamId::parse(field, raw)? {
            StreamId::Label(name) => Ok(name),
            _ => Err(Invalid::field(
                field,
                "must be a label (user/-/label/{name})",
            )),
        }
    } else {
        label_name(field, raw)
    }
}

/// Decodes a path's `%XX` escapes (a path keeps `+` as it is); `None` when they are not UTF-8.
pub fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::super::ids::FeedRef;
    use super::*;

    fn fields(error: Option<Invalid>) -> Vec<String> {
        error
            .map(|e| e.errors().iter().map(|f| f.field.clone()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn the_auth_value_of_a_google_login_header() {
        assert_eq!(
            google_login_auth("GoogleLogin auth=alice/0123abcd"),
            Some("alice/0123abcd")
        );
        assert_eq!(google_login_auth("GoogleLogin auth=a=b"), Some("a=b"));
        assert_eq!(google_login_auth("googlelogin  auth=tok"), Some("tok"));
        assert_eq!(google_login_auth("Bearer tok"), None);
        assert_eq!(google_login_auth("GoogleLogin auth="), None);
        assert_eq!(google_login_auth("GoogleLogin token=tok"), None);
        assert_eq!(google_login_auth("GoogleLogin"), None);
    }

    #[test]
    fn repeated_keys_keep_every_value_in_order() {
        // NetNewsWire's edit-tag body, as it writes it (values not escaped).
        let body = "T=tok&i=tag:google.com,2005:reader/item/000000000004c608&i=tag:google.com,2005:reader/item/2f2&a=user/-/state/com.google/read";
        let params = Params::new(Some("output=json"), Some(body));
        assert_eq!(params.first("T"), Some("tok"));
        assert_eq!(params.first("output"), Some("json"));
        assert_eq!(params.all("i").len(), 2);
        let ids = item_ids(&params).unwrap_or_default();
        assert_eq!(ids, vec![ItemId::new(0x4c608), ItemId::new(0x2f2)]);
        assert_eq!(
            TagEdit::parse(&params).ok(),
            Some(TagEdit {
                read: Some(true),
                ..TagEdit::default()
            })
        );
    }

    #[test]
    fn the_token_is_checked_unless_a_client_sends_none() {
        assert!(token_accepted(Some("tok"), "tok"));
        assert!(token_accepted(None, "tok"));
        assert!(token_accepted(Some(""), "tok"));
        assert!(token_accepted(Some("x"), "tok"));
        assert!(!token_accepted(Some("other"), "tok"));
        assert!(!token_accepted(Some("to"), "tok"));
    }

    #[test]
    fn tag_edits_as_clients_send_them() {
        let edit = |body: &str| TagEdit::parse(&Params::new(None, Some(body)));
        assert_eq!(
            edit("i=1&r=user/-/state/com.google/read")
                .ok()
                .and_then(|e| e.read),
            Some(false)
        );
        assert_eq!(
            edit("i=1&a=user/-/state/com.google/kept-unread")
                .ok()
                .and_then(|e| e.read),
            Some(false)
        );
        assert_eq!(
            edit("i=1&a=user%2F-%2Fstate%2Fcom.google%2Fstarred")
                .ok()
                .and_then(|e| e.starred),
            Some(true)
        );
        let both = edit("i=1&a=user/-/state/com.google/read&a=user/-/state/com.google/starred")
            .unwrap_or_default();
        assert_eq!((both.read, both.starred), (Some(true), Some(true)));
        let label = edit("i=1&a=user/-/label/Later").unwrap_or_default();
        assert_eq!(label.ignored, vec!["user/-/label/Later".to_string()]);
        assert_eq!(
            fields(edit("a=user/-/state/com.google/read&r=user/-/state/com.google/read").err()),
            vec!["r"]
        );
        assert_eq!(fields(edit("a=nonsense").err()), vec!["a"]);
    }

    #[test]
    fn item_ids_are_required_and_bounded() {
        assert_eq!(
            fields(item_ids(&Params::new(None, Some("T=x"))).err()),
            vec!["i"]
        );
        let many = (0..=MAX_ITEMS)
            .map(|n| format!("i={n}"))
            .collect::<Vec<_>>()
            .join("&");
        assert_eq!(
            fields(item_ids(&Params::new(None, Some(&many))).err()),
            vec!["i"]
        );
        assert_eq!(
            fields(item_ids(&Params::new(None, Some("i=zz"))).err()),
            vec!["i"]
        );
    }

    #[test]
    fn netnewswire_unread_ids_request() {
        let query = "n=1000&output=json&s=user/-/state/com.google/reading-list&xt=user/-/state/com.google/read";
        let params = Params::new(Some(query), None);
        let stream = StreamId::parse("s", params.first("s").unwrap_or_default()).ok();
        let request = stream.and_then(|s| StreamRequest::parse(s, &params).ok());
        let request = request.unwrap_or_else(unreachable_request);
        assert_eq!(request.scope, StreamScope::All);
        assert_eq!(request.read, ReadFilter::Unread);
        assert_eq!(request.count, 1000);
        assert!(!request.oldest_first);
        assert_eq!(request.continuation, None);
    }

    fn unreachable_request() -> StreamRequest {
        StreamRequest {
            stream: StreamId::Ignored(String::new()),
            scope: StreamScope::Starred,
            read: ReadFilter::Neither,
            starred_only: true,
            exclude_starred: true,
            count: 0,
            continuation: None,
            oldest_first: true,
            newer_than: None,
            older_than: None,
        }
    }

    #[test]
    fn stream_parameters_of_every_kind() {
        let parse = |stream: StreamId, query: &str| {
            StreamRequest::parse(stream, &Params::new(Some(query), None))
        };
        let r = parse(
            StreamId::Label("Tech".into()),
            "n=50&r=o&ot=1700000000&nt=1800000000&c=abc&it=user/-/state/com.google/starred",
        )
        .unwrap_or_else(|_| unreachable_request());
        assert_eq!(r.scope, StreamScope::Label("Tech".into()));
        assert_eq!((r.count, r.oldest_first), (50, true));
        assert_eq!(
            (r.newer_than, r.older_than),
            (Some(1_700_000_000), Some(1_800_000_000))
        );
        assert_eq!(r.continuation.as_deref(), Some("abc"));
        assert!(r.starred_only);
        // n above the maximum is cut down; the read stream is the reading list, read.
        let r = parse(StreamId::Read, "n=10000").unwrap_or_else(|_| unreachable_request());
        assert_eq!(
            (r.count, r.scope.clone(), r.read),
            (MAX_COUNT, StreamScope::All, ReadFilter::Read)
        );
        let r = parse(StreamId::ReadingList, "").unwrap_or_else(|_| unreachable_request());
        assert_eq!((r.count, r.read), (DEFAULT_COUNT, ReadFilter::Any));
        let r = parse(
            StreamId::ReadingList,
            "it=user/-/state/com.google/read&xt=user/-/state/com.google/read",
        )
        .unwrap_or_else(|_| unreachable_request());
        assert_eq!(r.read, ReadFilter::Neither);
        let r = parse(
            StreamId::Feed(FeedRef::Url("https://example.org/feed".into())),
            "xt=user/-/state/com.google/starred&ot=0",
        )
        .unwrap_or_else(|_| unreachable_request());
        assert!(r.exclude_starred);
        assert_eq!(r.newer_than, None);
        for (query, field) in [
            ("n=abc", "n"),
            ("n=0", "n"),
            ("ot=yesterday", "ot"),
            ("nt=-5", "nt"),
            ("xt=bogus", "xt"),
            ("it=feed/", "it"),
        ] {
            assert_eq!(
                fields(parse(StreamId::ReadingList, query).err()),
                vec![field],
                "{query}"
            );
        }
        let long = format!("c={}", "a".repeat(MAX_CONTINUATION_CHARS + 1));
        assert_eq!(fields(parse(StreamId::ReadingList, &long).err()), vec!["c"]);
    }

    #[test]
    fn mark_all_as_read_times_in_every_unit() {
        let us = |raw: &str| timestamp_micros("ts", Some(raw)).ok().flatten();
        assert_eq!(us("1700000000123456"), Some(1_700_000_000_123_456));
        assert_eq!(us("1700000000"), Some(1_700_000_000_000_000));
        assert_eq!(us("1700000000123"), Some(1_700_000_000_123_000));
        assert_eq!(us("1700000000123456789"), Some(1_700_000_000_123_456));
        assert_eq!(timestamp_micros("ts", None).ok(), Some(None));
        assert_eq!(timestamp_micros("ts", Some(" ")).ok(), Some(None));
        for bad in ["-1", "soon", "17000000001234567890"] {
            assert_eq!(
                fields(timestamp_micros("ts", Some(bad)).err()),
                vec!["ts"],
                "{bad}"
            );
        }
    }

    #[test]
    fn subscription_edits_as_netnewswire_sends_them() {
        let source = "0123456789abcdef0123456789abcdef";
        let body = format!(
            "T=tok&s=feed/{source}&ac=edit&r=user/-/label/Old%20Folder&a=user/-/label/Tech%20%26%20Science&t=My%20Feed"
        );
        let edit = SubscriptionEdit::parse(&Params::new(None, Some(&body))).ok();
        assert_eq!(
            edit,
            Some(SubscriptionEdit {
                action: SubscriptionAction::Edit,
                streams: vec![FeedRef::Source(source.into())],
                add_labels: vec!["Tech & Science".into()],
                remove_labels: vec!["Old Folder".into()],
                title: Some("My Feed".into()),
            })
        );
        let subscribe = SubscriptionEdit::parse(&Params::new(
            None,
            Some("ac=subscribe&s=feed%2Fhttps%3A%2F%2Fexample.org%2Ffeed.xml&a=user%2F-%2Flabel%2FNews"),
        ))
        .ok();
        assert_eq!(
            subscribe.map(|s| (s.action, s.streams, s.add_labels)),
            Some((
                SubscriptionAction::Subscribe,
                vec![FeedRef::Url("https://example.org/feed.xml".into())],
                vec!["News".to_string()]
            ))
        );
        let bad =
            |body: &str| fields(SubscriptionEdit::parse(&Params::new(None, Some(body))).err());
        assert_eq!(bad("s=feed/https://example.org/x"), vec!["ac"]);
        assert_eq!(bad("ac=rename&s=feed/https://example.org/x"), vec!["ac"]);
        assert_eq!(bad("ac=edit"), vec!["s"]);
        assert_eq!(bad("ac=edit&s=user/-/label/x"), vec!["s"]);
        assert_eq!(
            bad("ac=edit&s=feed/https://example.org/x&a=user/-/state/com.google/read"),
            vec!["a"]
        );
    }

    #[test]
    fn single_labels_take_stream_ids_or_names() {
        let one = |body: &str, field: &str| one_label(&Params::new(None, Some(body)), field);
        assert_eq!(
            one("s=user/-/label/Tech&dest=user/-/label/Science", "dest").ok(),
            Some("Science".into())
        );
        assert_eq!(one("t=Tech", "t").ok(), Some("Tech".into()));
        assert_eq!(
            fields(one("s=user/-/state/com.google/read", "s").err()),
            vec!["s"]
        );
        assert_eq!(fields(one("", "s").err()), vec!["s"]);
    }

    #[test]
    fn paths_decode_their_escapes_but_not_plus() {
        assert_eq!(
            percent_decode("feed/https%3A%2F%2Fexample.org%2Fa+b").as_deref(),
            Some("feed/https://example.org/a+b")
        );
        assert_eq!(
            percent_decode("user/-/label/Caf%C3%A9").as_deref(),
            Some("user/-/label/Café")
        );
        assert_eq!(percent_decode("100%").as_deref(), Some("100%"));
        assert_eq!(percent_decode("%ff"), None);
    }
}
