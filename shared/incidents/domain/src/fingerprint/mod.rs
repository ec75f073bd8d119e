//! What makes two logs "the same problem": service, type and message, the message
//! normalised so that what changes from one occurrence to the next does not count; or the
//! grouping key the client sent (`fingerprint`, alias `dedup_key`), used as given.
//!
//! Normalisation splits the message into tokens (runs of letters, digits and `-_.:/+@`),
//! then folds to `#` what identifies one occurrence and keeps what names the problem:
//!
//! - folded: numbers, durations, timestamps, uuids, hex ids, IPs (any token holding a digit,
//!   and hex runs of 16 or more), e-mail addresses and `@handles`, host names (a dotted name
//!   ending in a known top-level or cluster domain), the host of a URL, the segments of a
//!   path that hold a digit (`/users/#/orders`; `v1` stays), and the word after `user`,
//!   `host`, `pod` and the like (`user=alice`, `host 'db-blue'`) unless it is a plain word;
//! - kept: a 3-digit HTTP status (100-599) after `status`, `HTTP`, `returned`, `code`, ...
//!   or before a reason phrase (`500 Internal Server Error`), a code after `errno` or
//!   `SQLSTATE`, and error names even when they hold digits (`Http2Exception`, `S3Error`,
//!   `E11000`, `ORA-00942`).
//!
//! Whitespace runs become one space; the result is at most 500 characters. `Timeout after
//! 3012 ms calling 10.0.0.7 (req 5b0f3c1e-...)` and `Timeout after 120 ms calling 10.0.0.9
//! (req 9d2e...)` are both `Timeout after # ms calling # (req #)`, while `GET /orders/7
//! returned 500` and `GET /orders/9 returned 404` stay apart. Case is kept.
//!
//! The word lists the rules read are in [`words`].

mod words;

use ring::digest::{digest, SHA256};

use words::{
    word_in, CODE_BEFORE, CODE_PREFIXES, HOST_SUFFIXES, NAME_BEFORE, PLAIN_WORDS, REASON_AFTER,
    STATUS_BEFORE, UNITS,
};

/// The longest normalised message kept (and hashed), in characters.
pub const MAX_NORMALIZED_CHARS: usize = 500;

/// How logs were grouped, in words (each incident says it).
pub const GROUPED_BY: &str = "same serviceName, type and message once numbers, ids, \
    addresses, e-mails, host and user names and timestamps are replaced by # (HTTP status \
    codes and error names kept)";

/// How logs carrying a client's grouping key were grouped, in words.
pub const GROUPED_BY_CLIENT: &str = "same serviceName and fingerprint (the grouping key the \
    client sent, used as given)";

/// The longest client grouping key (`fingerprint` / `dedup_key`), in characters.
pub const MAX_CLIENT_FINGERPRINT_CHARS: usize = 200;

/// True for a grouping key a client may send: 1 to [`MAX_CLIENT_FINGERPRINT_CHARS`]
/// visible ASCII characters (`!` to `~`, no spaces).
pub fn is_client_fingerprint(raw: &str) -> bool {
    !raw.is_empty()
        && raw.len() <= MAX_CLIENT_FINGERPRINT_CHARS
        && raw.bytes().all(|b| (b'!'..=b'~').contains(&b))
}

fn is_token_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '+' | '@')
}

fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit())
}

fn is_long_hex(s: &str) -> bool {
    s.len() >= 16 && s.chars().all(|c| c.is_ascii_hexdigit())
}

fn is_status(s: &str) -> bool {
    s.len() == 3
        && s.chars().all(|c| c.is_ascii_digit())
        && matches!(s.as_bytes().first(), Some(b'1'..=b'5'))
}

/// An error's name: `TimeoutError`, `Http2Exception`, `E11000`, `ECONNRESET`, `ORA-00942`.
fn is_error_name(s: &str) -> bool {
    let last = s.rsplit('.').next().unwrap_or(s);
    let named = [
        "Error",
        "Exception",
        "Fault",
        "Failure",
        "Panic",
        "Rejection",
    ]
    .iter()
    .any(|end| last.len() > end.len() && last.ends_with(end));
    let errno = last.len() >= 4
        && last.starts_with('E')
        && last.chars().skip(1).all(|c| c.is_ascii_uppercase())
        || last.len() >= 4
            && last.starts_with('E')
            && last.chars().skip(1).all(|c| c.is_ascii_digit());
    let vendor = last.split_once('-').is_some_and(|(prefix, code)| {
        word_in(prefix, CODE_PREFIXES)
            && !code.is_empty()
            && code.chars().all(|c| c.is_ascii_alphanumeric())
    });
    named || errno || vendor
}

fn is_email(s: &str) -> bool {
    s.split_once('@').is_some_and(|(user, domain)| {
        !user.is_empty() && domain.contains('.') && !domain.starts_with('.')
    })
}

fn is_host_name(s: &str) -> bool {
    let labels: Vec<&str> = s.split('.').collect();
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && labels.last().is_some_and(|l| word_in(l, HOST_SUFFIXES))
}

/// One path segment: folded when it holds a digit (but `v1`, `v2` stay) or is an id.
fn segment(s: &str, out: &mut String) {
    let version =
        s.len() >= 2 && s.starts_with(['v', 'V']) && s.chars().skip(1).all(|c| c.is_ascii_digit());
    if !s.is_empty()
        && !version
        && !is_error_name(s)
        && (has_digit(s) || is_long_hex(s) || is_email(s))
    {
        out.push('#');
    } else {
        out.push_str(s);
    }
}

fn path(s: &str, out: &mut String) {
    for (i, part) in s.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        segment(part, out);
    }
}

/// The words around a token, lower-cased, punctuation between them skipped.
struct Around<'a> {
    before: Option<&'a str>,
    after: Option<&'a str>,
}

/// True when `core` names the problem though it holds digits: an HTTP status in context, a
/// code after `errno`, an error's name.
fn names_problem(core: &str, before: &str, after: &str) -> bool {
    let status = is_status(core)
        && !word_in(after, UNITS)
        && (word_in(before, STATUS_BEFORE)
            || before.starts_with("http/")
            || word_in(after, REASON_AFTER));
    let code =
        core.len() <= 6 && core.chars().all(|c| c.is_ascii_digit()) && word_in(before, CODE_BEFORE);
    status || code || is_error_name(core)
}

/// True when `core` identifies one occurrence: a number or id, a host, a name after `user`.
fn identifies(core: &str, before: &str) -> bool {
    has_digit(core)
        || is_long_hex(core)
        || is_host_name(core)
        || (word_in(before, NAME_BEFORE)
            && !word_in(core, PLAIN_WORDS)
            && !word_in(core, NAME_BEFORE))
}

/// One token (trailing `.` and `:` kept apart) normalised in its context.
fn token(raw: &str, around: &Around<'_>, out: &mut String) {
    let core = raw.trim_end_matches(['.', ':']);
    let tail = raw.get(core.len()..).unwrap_or("");
    if core.is_empty() {
        out.push_str(raw);
        return;
    }
    let before = around.before.unwrap_or("");
    let after = around.after.unwrap_or("");
    let key_value = core
        .split_once(':')
        .filter(|(k, v)| !k.is_empty() && !v.is_empty() && k.chars().all(char::is_alphabetic));
    if names_problem(core, before, after) {
        out.push_str(core);
    } else if is_email(core) || core.starts_with('@') {
        out.push('#');
    } else if let Some((scheme, rest)) = core.split_once("://") {
        out.push_str(scheme);
        out.push_str("://#");
        if let Some(at) = rest.find('/') {
            path(rest.get(at..).unwrap_or(""), out);
        }
    } else if let Some((key, value)) = key_value {
        // `status:500`, `user:alice`: the key is the context of its value.
        out.push_str(key);
        out.push(':');
        let inner = Around {
            before: Some(key),
            after: around.after,
        };
        token(value, &inner, out);
    } else if core.contains('/') && !core.starts_with("http/") {
        path(core, out);
    } else if identifies(core, before) {
        out.push('#');
    } else {
        out.push_str(core);
    }
    out.push_str(tail);
}

enum Piece<'a> {
    Token(&'a str),
    Other(char),
    Space,
}

fn pieces(message: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in message.char_indices() {
        if is_token_char(c) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            pieces.push(Piece::Token(&message[s..i]));
        }
        if c.is_whitespace() {
            if !matches!(pieces.last(), Some(Piece::Space)) {
                pieces.push(Piece::Space);
            }
        } else {
            pieces.push(Piece::Other(c));
        }
    }
    if let Some(s) = start {
        pieces.push(Piece::Token(&message[s..]));
    }
    pieces
}

/// `message` normalised (see the module docs).
pub fn normalize(message: &str) -> String {
    let pieces = pieces(message);
    let words: Vec<String> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Token(t) => Some(t.trim_end_matches(['.', ':']).to_ascii_lowercase()),
            _ => None,
        })
        .collect();
    let mut out = String::new();
    let mut word: usize = 0;
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Token(t) => {
                let around = Around {
                    before: word
                        .checked_sub(1)
                        .and_then(|w| words.get(w))
                        .map(String::as_str),
                    after: words.get(word + 1).map(String::as_str),
                };
                token(t, &around, &mut out);
                word += 1;
            }
            Piece::Other(c) => out.push(*c),
            Piece::Space => {
                if !out.is_empty() && i + 1 < pieces.len() {
                    out.push(' ');
                }
            }
        }
    }
    out.chars().take(MAX_NORMALIZED_CHARS).collect()
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The fingerprint of a log: SHA-256 (hex) of service, type and normalised message.
pub fn fingerprint(service: &str, log_type: &str, normalized: &str) -> String {
    let text = format!("{service}\u{0}{log_type}\u{0}{normalized}");
    hex(digest(&SHA256, text.as_bytes()).as_ref())
}

/// The fingerprint of a log that carried a client's grouping key: SHA-256 (hex) of service
/// and the key, apart from every default fingerprint (the key is used as given).
pub fn client_fingerprint(service: &str, key: &str) -> String {
    let text = format!("client\u{0}{service}\u{0}{key}");
    hex(digest(&SHA256, text.as_bytes()).as_ref())
}

/// The incident of a fingerprint: its first 32 hex digits.
pub fn incident_id(fingerprint: &str) -> String {
    fingerprint.chars().take(32).collect()
}

/// A stable id of 32 hex digits for `parts` (alerts: rule, incident and reopen count).
pub fn stable_id(parts: &[&str]) -> String {
    let joined = parts.join("\u{0}");
    hex(digest(&SHA256, joined.as_bytes()).as_ref())
        .chars()
        .take(32)
        .collect()
}

/// True for 32 lower-case hex digits (incident and alert ids).
pub fn is_hex_id(raw: &str) -> bool {
    raw.len() == 32 && raw.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_ids_and_timestamps_do_not_count() {
        let a = normalize("Timeout after 3012 ms calling 10.0.0.7 (req 5b0f3c1e-0000-4000-8000-00000000000a) at 2026-11-24T10:00:01Z");
        let b = normalize("Timeout  after 120 ms calling 10.0.0.9 (req 9d2e3c1e-0000-4000-8000-00000000000b) at 2026-11-25T11:12:13.456Z");
        assert_eq!(a, b);
        assert_eq!(a, "Timeout after # ms calling # (req #) at #");
        assert_eq!(
            normalize("user deadbeefdeadbeefdead logged in"),
            "user # logged in"
        );
        assert_ne!(normalize("disk full"), normalize("disk empty"));
        assert_ne!(
            fingerprint("api", "APP", &a),
            fingerprint("billing", "APP", &a)
        );
        assert_eq!(incident_id(&fingerprint("api", "APP", &a)).len(), 32);
        assert!(is_hex_id(&stable_id(&["r", "i", "0"])));
    }

    #[test]
    fn status_codes_and_error_names_stay_apart() {
        assert_eq!(
            normalize("GET /api/v1/orders/81723 returned 500 in 32 ms"),
            "GET /api/v1/orders/# returned 500 in # ms"
        );
        assert_ne!(
            normalize("GET /orders/7 returned 500"),
            normalize("GET /orders/9 returned 404")
        );
        assert_eq!(normalize("status=503"), "status=503");
        assert_eq!(
            normalize("status:502 from upstream"),
            "status:502 from upstream"
        );
        assert_eq!(normalize("HTTP/1.1 404 Not Found"), "HTTP/# 404 Not Found");
        assert_eq!(
            normalize("retry with 500 ms backoff"),
            "retry with # ms backoff"
        );
        assert_eq!(
            normalize("Http2Exception: stream 3"),
            "Http2Exception: stream #"
        );
        assert_eq!(normalize("E11000 duplicate key"), "E11000 duplicate key");
        assert_eq!(normalize("ORA-00942: table"), "ORA-00942: table");
        assert_ne!(
            normalize("java.lang.NullPointerException at A.java:12"),
            normalize("java.lang.IllegalStateException at A.java:12")
        );
    }

    #[test]
    fn names_addresses_and_ids_are_folded() {
        assert_eq!(
            normalize("Login failed for user 'alice': bad password"),
            normalize("Login failed for user 'wei.zhang': bad password")
        );
        assert_eq!(normalize("user=bob logged out"), "user=# logged out");
        assert_eq!(normalize("User not found"), "User not found");
        assert_eq!(
            normalize("mail to ops+x@acme.io bounced"),
            "mail to # bounced"
        );
        assert_eq!(
            normalize("lookup db-primary.prod.example.com failed"),
            "lookup # failed"
        );
        assert_eq!(
            normalize("health check on host web-blue"),
            "health check on host #"
        );
        assert_eq!(
            normalize("POST https://hooks.slack.com/services/T0A1/B2C3 failed"),
            "POST https://#/services/#/# failed"
        );
        assert_eq!(normalize("rolled back by @mallory"), "rolled back by #");
        assert_eq!(
            normalize("read /var/lib/data/base/16384/2619"),
            "read /var/lib/data/base/#/#"
        );
    }

    #[test]
    fn client_keys_are_bounded_and_apart_from_default_fingerprints() {
        assert!(is_client_fingerprint("checkout:card-declined"));
        assert!(!is_client_fingerprint(""));
        assert!(!is_client_fingerprint("has space"));
        assert!(!is_client_fingerprint("é"));
        assert!(!is_client_fingerprint(
            &"k".repeat(MAX_CLIENT_FINGERPRINT_CHARS + 1)
        ));
        assert_ne!(
            client_fingerprint("api", "x"),
            fingerprint("api", "APP", "x")
        );
        assert_ne!(
            client_fingerprint("api", "x"),
            client_fingerprint("web", "x")
        );
    }

    #[test]
    fn long_messages_are_cut() {
        let long = "word ".repeat(1000);
        assert_eq!(normalize(&long).chars().count(), MAX_NORMALIZED_CHARS);
    }
}
