//! What makes two logs "the same problem": service, type and message, the message
//! normalised so that what changes from one occurrence to the next does not count.
//!
//! Normalisation splits the message into tokens (runs of letters, digits and `-_.:/+`);
//! a token holding a digit (a number, a count, a duration, an id, a uuid, an IP address, a
//! timestamp, a path with an id in it) becomes `#`, and so does a hex run of 16 or more
//! characters without a digit; whitespace runs become one space; the result is at most 500
//! characters. `Timeout after 3012 ms calling 10.0.0.7 (req 5b0f3c1e-...)` and `Timeout
//! after 120 ms calling 10.0.0.9 (req 9d2e...)` are both `Timeout after # ms calling # (req #)`.
//! Case is kept: `Error` and `error` are different messages.

use ring::digest::{digest, SHA256};

/// The longest normalised message kept (and hashed), in characters.
pub const MAX_NORMALIZED_CHARS: usize = 500;

/// How logs were grouped, in words (each incident says it).
pub const GROUPED_BY: &str = "same serviceName, type and message once numbers, ids, \
    addresses and timestamps (every token holding a digit, and long hex runs) are replaced by #";

fn is_token_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '+')
}

fn normalize_token(token: &str, out: &mut String) {
    let has_digit = token.chars().any(|c| c.is_ascii_digit());
    let long_hex = token.chars().count() >= 16 && token.chars().all(|c| c.is_ascii_hexdigit());
    if has_digit || long_hex {
        out.push('#');
    } else {
        out.push_str(token);
    }
}

/// `message` normalised (see the module docs).
pub fn normalize(message: &str) -> String {
    let mut out = String::new();
    let mut token = String::new();
    let mut space = false;
    for c in message.chars() {
        if is_token_char(c) {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            token.push(c);
            continue;
        }
        if !token.is_empty() {
            normalize_token(&token, &mut out);
            token.clear();
        }
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    if !token.is_empty() {
        normalize_token(&token, &mut out);
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
    fn long_messages_are_cut() {
        let long = "word ".repeat(1000);
        assert_eq!(normalize(&long).chars().count(), MAX_NORMALIZED_CHARS);
    }
}
