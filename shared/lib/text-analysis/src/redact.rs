//! Secrets out of text before it reaches a model, an embeddings call or a table: every
//! ingested log (`incidents`), every analysed log and every runbook (`incidents-intelligence`)
//! passes through [`redact`] first, and only its output is sent or stored. Redacting twice
//! changes nothing, so a text may pass through it at each step.
//!
//! What is replaced (by `[REDACTED:kind]`), checked in this order, an earlier match winning
//! where two overlap:
//! - `private_key`: PEM and PGP private key blocks, `-----BEGIN ... PRIVATE KEY-----` to the
//!   matching `-----END ...-----` (to the end of the text when it is cut off);
//! - `password`: the password of a URL's user info (`postgres://app:s3cret@db/orders`);
//! - a value named like a secret (`password=`, `"api_key": "..."`, `DB_PASSWORD: ...`,
//!   `client_secret=`, `x-api-key: ...`, `access_token=`, `Authorization: ...`, ...), by
//!   `=`, `=>` or `:`, quoted or not: `password`, `secret`, `api_key`, `token`,
//!   `private_key` or `authorization`. A name matches a secret word exactly or ends with it
//!   after `_`, `-` or `.` (`db_password`, `spring.datasource.password`), never as part of a
//!   word (`max_tokens`, `secretary`, `passwordless`). References (`${DB_PASSWORD}`, `{{x}}`)
//!   and values already masked (`***`, `[REDACTED...]`) stay;
//! - `token`/`basic_auth`: the credential after `Bearer` or `Basic` in running text (a Basic
//!   credential only when it is base64 of `user:password`);
//! - `jwt`: three base64url parts, the first two JSON objects (`eyJ...`);
//! - `aws_access_key`: `AKIA`/`ASIA` and 16 capitals or digits;
//! - `token`/`api_key`: tokens with a vendor's prefix (GitHub `ghp_`, `github_pat_`, GitLab
//!   `glpat-`, Slack `xox?-`, Stripe `sk_live_`, OpenAI `sk-`, Google `AIza`);
//! - `aws_secret_key`: a standalone 40-character base64 word with capitals, small letters and
//!   digits (an AWS secret access key's shape; hex digests are not touched).

use std::collections::BTreeMap;

use base64::Engine;

/// Text with its secrets replaced, and how many of each kind were.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    pub found: BTreeMap<&'static str, usize>,
}

impl Redacted {
    /// Secrets replaced in all.
    pub fn count(&self) -> usize {
        self.found.values().sum()
    }
}

/// The placeholder that replaces a secret of `kind`.
pub fn placeholder(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
}

/// `text` with every secret it holds replaced.
pub fn redact(text: &str) -> Redacted {
    let passes: [fn(&str) -> Vec<Span>; 8] = [
        private_keys,
        url_passwords,
        named_values,
        auth_schemes,
        jwts,
        aws_access_keys,
        prefixed_tokens,
        aws_secret_keys,
    ];
    let mut kept: Vec<Span> = Vec::new();
    for pass in passes {
        for span in pass(text) {
            if span.start < span.end && !kept.iter().any(|k| overlaps(k, &span)) {
                kept.push(span);
            }
        }
    }
    kept.sort_by_key(|s| s.start);
    let mut out = String::with_capacity(text.len());
    let mut found: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut at = 0;
    for span in kept {
        out.push_str(slice(text, at, span.start));
        out.push_str(&placeholder(span.kind));
        *found.entry(span.kind).or_default() += 1;
        at = span.end;
    }
    out.push_str(slice(text, at, text.len()));
    Redacted { text: out, found }
}

fn overlaps(a: &Span, b: &Span) -> bool {
    a.start < b.end && b.start < a.end
}

/// `text[start..end]`, or empty where that is not a slice of it (never panics).
fn slice(text: &str, start: usize, end: usize) -> &str {
    text.get(start..end).unwrap_or("")
}

fn byte(text: &str, i: usize) -> Option<u8> {
    text.as_bytes().get(i).copied()
}

/// Every start of `needle` in `text` (ASCII needles, so every match is a char boundary).
fn find_all<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    text.match_indices(needle).map(|(i, _)| i)
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// True when position `i` starts a word (nothing alphanumeric or `_` just before it).
fn word_start(text: &str, i: usize) -> bool {
    i == 0 || byte(text, i - 1).is_none_or(|b| !is_word_byte(b))
}

/// The end of the run from `from` of bytes for which `member` holds.
fn run_end(text: &str, from: usize, member: impl Fn(u8) -> bool) -> usize {
    let bytes = text.as_bytes();
    let mut end = from;
    while bytes.get(end).is_some_and(|b| member(*b)) {
        end += 1;
    }
    end
}

fn is_base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b)
}

fn already_masked(value: &str) -> bool {
    value.starts_with("[REDACTED")
        || value.chars().all(|c| c == '*' || c == 'x' || c == 'X')
        || value.starts_with("${")
        || value.starts_with("{{")
        || value.starts_with("%(")
}

// ---- private key blocks -----------------------------------------------------------------

fn private_keys(text: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find("-----BEGIN ")) {
        let start = from + found;
        let label_start = start + "-----BEGIN ".len();
        let Some(label_len) = text.get(label_start..).and_then(|rest| rest.find("-----")) else {
            break;
        };
        let label = slice(text, label_start, label_start + label_len);
        let after_header = label_start + label_len + "-----".len();
        if !label.contains("PRIVATE KEY") || label.contains('\n') {
            from = label_start;
            continue;
        }
        let end = match text.get(after_header..).and_then(|r| r.find("-----END ")) {
            Some(i) => {
                let footer = after_header + i + "-----END ".len();
                text.get(footer..)
                    .and_then(|r| r.find("-----"))
                    .map_or(text.len(), |j| footer + j + "-----".len())
            }
            None => text.len(),
        };
        spans.push(Span {
            start,
            end,
            kind: "private_key",
        });
        from = end;
    }
    spans
}

// ---- URL user info ------------------------------------------------------------------------

/// How far after `://` the user info may end (an authority is short).
const MAX_AUTHORITY_BYTES: usize = 512;

fn url_passwords(text: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    for at in find_all(text, "://") {
        // A scheme: letters, then letters, digits, `+`, `-`, `.`.
        let scheme_ok = at > 0
            && byte(text, at - 1).is_some_and(|b| b.is_ascii_alphanumeric())
            && text.get(..at).is_some_and(|before| {
                before
                    .bytes()
                    .rev()
                    .take_while(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
                    .last()
                    .is_some_and(|b| b.is_ascii_alphabetic())
            });
        if !scheme_ok {
            continue;
        }
        let start = at + 3;
        let limit = (start + MAX_AUTHORITY_BYTES).min(text.len());
        let end = run_end(text, start, |b| {
            !b.is_ascii_whitespace() && !b"\"'<>`".contains(&b)
        })
        .min(limit);
        let candidate = slice(text, start, end);
        let Some(at_sign) = candidate.rfind('@') else {
            continue;
        };
        let userinfo = slice(candidate, 0, at_sign);
        let Some(colon) = userinfo.find(':') else {
            continue;
        };
        let user = slice(userinfo, 0, colon);
        let password = slice(userinfo, colon + 1, userinfo.len());
        let host = slice(candidate, at_sign + 1, candidate.len());
        if user.contains(['/', '?', '#', '@'])
            || password.is_empty()
            || host.is_empty()
            || already_masked(password)
        {
            continue;
        }
        spans.push(Span {
            start: start + colon + 1,
            end: start + at_sign,
            kind: "password",
        });
    }
    spans
}

// ---- values named like secrets -------------------------------------------------------------

/// Secret words and what a value named by them is; `exact` words match only as a suffix
/// after a separator (`db_pass`), never alone (`pass: 3 tests`).
const SECRET_NAMES: &[(&str, &str, bool)] = &[
    ("password", "password", false),
    ("passwd", "password", false),
    ("pwd", "password", false),
    ("passphrase", "password", false),
    ("pass", "password", true),
    ("secret", "secret", false),
    ("client_secret", "secret", false),
    ("secret_key", "secret", false),
    ("secret_access_key", "secret", false),
    ("api_key", "api_key", false),
    ("apikey", "api_key", false),
    ("api-key", "api_key", false),
    ("access_key", "api_key", false),
    ("private_key", "private_key", false),
    ("token", "token", false),
    ("access_token", "token", false),
    ("refresh_token", "token", false),
    ("auth_token", "token", false),
    ("session_token", "token", false),
    ("id_token", "token", false),
    ("authorization", "authorization", false),
];

/// What a value named `name` (lowercase) is, if a secret.
fn secret_kind(name: &str) -> Option<&'static str> {
    SECRET_NAMES
        .iter()
        .find(|(word, _, suffix_only)| {
            let suffix = name.strip_suffix(word).is_some_and(|head| {
                head.ends_with('_') || head.ends_with('-') || head.ends_with('.')
            });
            suffix || (!suffix_only && name == *word)
        })
        .map(|(_, kind, _)| *kind)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_-.".contains(&b)
}

fn named_values(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'=' && b != b':' {
            continue;
        }
        let next = byte(text, i + 1);
        let previous = i.checked_sub(1).and_then(|p| byte(text, p));
        // Comparisons (`==`, `!=`, `<=`), `::` paths and `://` are not assignments.
        if next == Some(b'=')
            || previous.is_some_and(|p| b"=!<>:".contains(&p))
            || (b == b':' && matches!(next, Some(b':') | Some(b'/')))
        {
            continue;
        }
        // The name, optionally quoted, then spaces, before the separator.
        let mut j = i;
        while j > 0 && byte(text, j - 1).is_some_and(|c| c == b' ' || c == b'\t') {
            j -= 1;
        }
        let quote = j
            .checked_sub(1)
            .and_then(|q| byte(text, q))
            .filter(|c| *c == b'"' || *c == b'\'');
        if quote.is_some() {
            j -= 1;
        }
        let name_end = j;
        while j > 0 && byte(text, j - 1).is_some_and(is_name_byte) {
            j -= 1;
        }
        if j == name_end || name_end - j > 64 {
            continue;
        }
        if let Some(q) = quote {
            if j == 0 || byte(text, j - 1) != Some(q) {
                continue;
            }
        }
        let name = slice(text, j, name_end).to_ascii_lowercase();
        let Some(kind) = secret_kind(&name) else {
            continue;
        };
        // The value, after `=`, `=>` or `:` and spaces; quoted, or up to a delimiter.
        let mut v = i + 1;
        if b == b'=' && next == Some(b'>') {
            v += 1;
        }
        while byte(text, v).is_some_and(|c| c == b' ' || c == b'\t') {
            v += 1;
        }
        let (start, end) = match byte(text, v) {
            Some(q) if q == b'"' || q == b'\'' => {
                let start = v + 1;
                let mut end = start;
                while let Some(c) = byte(text, end) {
                    if c == b'\\' {
                        end += 2;
                        continue;
                    }
                    if c == q || c == b'\n' {
                        break;
                    }
                    end += 1;
                }
                (start, end.min(text.len()))
            }
            _ if kind == "authorization" => (v, run_end(text, v, |c| c != b'\n' && c != b'\r')),
            _ => (v, unquoted_end(text, v)),
        };
        let value = slice(text, start, end);
        if value.trim().is_empty() || already_masked(value) {
            continue;
        }
        spans.push(Span { start, end, kind });
    }
    spans
}

/// The end of an unquoted value from `from`: whitespace, a delimiter, or `&` starting the next
/// `name=` of a query string (a `&` inside a password stays in it).
fn unquoted_end(text: &str, from: usize) -> usize {
    let mut end = from;
    while let Some(c) = byte(text, end) {
        if c.is_ascii_whitespace() || b",;)}]\"'<>".contains(&c) {
            break;
        }
        if c == b'&' {
            let name_end = run_end(text, end + 1, is_name_byte);
            if name_end > end + 1 && byte(text, name_end) == Some(b'=') {
                break;
            }
        }
        end += 1;
    }
    end
}

// ---- Bearer and Basic credentials in running text ------------------------------------------

fn auth_schemes(text: &str) -> Vec<Span> {
    let lower = text.to_ascii_lowercase();
    let mut spans = Vec::new();
    for (scheme, kind) in [("bearer", "token"), ("basic", "basic_auth")] {
        for at in find_all(&lower, scheme) {
            let after = at + scheme.len();
            if !word_start(text, at) || byte(text, after) != Some(b' ') {
                continue;
            }
            let start = run_end(text, after, |b| b == b' ');
            let end = run_end(text, start, is_token_byte);
            let credential = slice(text, start, end);
            let plausible = match kind {
                "basic_auth" => base64::engine::general_purpose::STANDARD
                    .decode(credential)
                    .ok()
                    .is_some_and(|decoded| decoded.contains(&b':')),
                _ => {
                    credential.len() >= 8
                        && (credential.bytes().any(|b| b.is_ascii_digit())
                            || credential.len() >= 20)
                }
            };
            if plausible && !already_masked(credential) {
                spans.push(Span { start, end, kind });
            }
        }
    }
    spans
}

// ---- words with a secret's shape ------------------------------------------------------------

fn jwts(text: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    for at in find_all(text, "eyJ") {
        if !(at == 0 || byte(text, at - 1).is_some_and(|b| !is_base64url(b))) {
            continue;
        }
        let mut end = at;
        let mut parts = Vec::new();
        for part in 0..3 {
            let part_end = run_end(text, end, is_base64url);
            parts.push(slice(text, end, part_end));
            end = part_end;
            if part < 2 {
                if byte(text, end) != Some(b'.') {
                    break;
                }
                end += 1;
            }
        }
        let is_jwt = parts.len() == 3
            && parts
                .first()
                .zip(parts.get(1))
                .is_some_and(|(h, p)| h.len() >= 10 && p.len() >= 10 && p.starts_with("eyJ"));
        if is_jwt {
            spans.push(Span {
                start: at,
                end,
                kind: "jwt",
            });
        }
    }
    spans
}

fn aws_access_keys(text: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    for prefix in ["AKIA", "ASIA"] {
        for at in find_all(text, prefix) {
            let end = run_end(text, at, |b| b.is_ascii_uppercase() || b.is_ascii_digit());
            let bounded = byte(text, end).is_none_or(|b| !b.is_ascii_alphanumeric());
            if word_start(text, at) && end - at == 20 && bounded {
                spans.push(Span {
                    start: at,
                    end,
                    kind: "aws_access_key",
                });
            }
        }
    }
    spans
}

/// Vendor prefixes, the kind of what follows, and how long the rest is at least.
const TOKEN_PREFIXES: &[(&str, &str, usize)] = &[
    ("ghp_", "token", 20),
    ("gho_", "token", 20),
    ("ghu_", "token", 20),
    ("ghs_", "token", 20),
    ("ghr_", "token", 20),
    ("github_pat_", "token", 20),
    ("glpat-", "token", 16),
    ("xoxb-", "token", 10),
    ("xoxp-", "token", 10),
    ("xoxa-", "token", 10),
    ("xoxr-", "token", 10),
    ("xoxs-", "token", 10),
    ("sk_live_", "api_key", 16),
    ("rk_live_", "api_key", 16),
    ("sk-", "api_key", 20),
    ("AIza", "api_key", 30),
];

fn prefixed_tokens(text: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    for (prefix, kind, min_rest) in TOKEN_PREFIXES {
        for at in find_all(text, prefix) {
            if !word_start(text, at) {
                continue;
            }
            let rest = at + prefix.len();
            let end = run_end(text, rest, is_base64url);
            if end - rest >= *min_rest {
                spans.push(Span {
                    start: at,
                    end,
                    kind,
                });
            }
        }
    }
    spans
}

fn aws_secret_keys(text: &str) -> Vec<Span> {
    let member = |b: u8| b.is_ascii_alphanumeric() || b == b'/' || b == b'+';
    let mut spans = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if !byte(text, i).is_some_and(member) {
            i += 1;
            continue;
        }
        let end = run_end(text, i, member);
        let word = slice(text, i, end);
        let bounded = i == 0 || byte(text, i - 1).is_some_and(|b| !is_token_byte(b) || b == b'=');
        let after_ok = byte(text, end).is_none_or(|b| !is_base64url(b) && b != b'=');
        if word.len() == 40
            && bounded
            && after_ok
            && word.bytes().any(|b| b.is_ascii_uppercase())
            && word.bytes().any(|b| b.is_ascii_lowercase())
            && word.bytes().any(|b| b.is_ascii_digit())
        {
            spans.push(Span {
                start: i,
                end,
                kind: "aws_secret_key",
            });
        }
        i = end;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        redact(text).text
    }

    #[test]
    fn secrets_are_replaced_by_kind() {
        let cases = [
            ("password=hunter2", "password=[REDACTED:password]"),
            ("DB_PASSWORD: 'p@ss w0rd'", "DB_PASSWORD: '[REDACTED:password]'"),
            (
                r#"{"user":"bob","password":"s3cr3t!","retries":3}"#,
                r#"{"user":"bob","password":"[REDACTED:password]","retries":3}"#,
            ),
            (
                "spring.datasource.password = Tr0ub4dor&3 next",
                "spring.datasource.password = [REDACTED:password] next",
            ),
            ("pwd=abc;uid=sa", "pwd=[REDACTED:password];uid=sa"),
            (
                "Server=db;User Id=sa;Password=hunter2;",
                "Server=db;User Id=sa;Password=[REDACTED:password];",
            ),
            ("smtp_pass=letmein", "smtp_pass=[REDACTED:password]"),
            ("api_key=abcd1234efgh", "api_key=[REDACTED:api_key]"),
            ("X-Api-Key: k-123456", "X-Api-Key: [REDACTED:api_key]"),
            ("apiKey => 'abc123'", "apiKey => '[REDACTED:api_key]'"),
            ("client_secret=xyz789", "client_secret=[REDACTED:secret]"),
            (
                "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws_secret_access_key=[REDACTED:secret]",
            ),
            ("access_token=ya29.a0AfH6", "access_token=[REDACTED:token]"),
            ("refresh_token: 1//0gabc", "refresh_token: [REDACTED:token]"),
            ("token=abc123&user=bob", "token=[REDACTED:token]&user=bob"),
            (
                "GET /callback?code=x&access_token=a1b2&state=y",
                "GET /callback?code=x&access_token=[REDACTED:token]&state=y",
            ),
            (
                "Authorization: Basic dXNlcjpwYXNz\nnext line",
                "Authorization: [REDACTED:authorization]\nnext line",
            ),
            (
                "calling with Bearer abc123def456ghi and retrying",
                "calling with Bearer [REDACTED:token] and retrying",
            ),
            (
                "curl -u x -H 'basic dXNlcjpwYXNz'",
                "curl -u x -H 'basic [REDACTED:basic_auth]'",
            ),
            (
                "connecting to postgres://app:s3cr3t@db.internal:5432/orders failed",
                "connecting to postgres://app:[REDACTED:password]@db.internal:5432/orders failed",
            ),
            (
                "jdbc:mysql://root:pa/ss@db/x",
                "jdbc:mysql://root:[REDACTED:password]@db/x",
            ),
            ("redis://:secret@cache:6379", "redis://:[REDACTED:password]@cache:6379"),
            (
                "user token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U expired",
                "user token [REDACTED:jwt] expired",
            ),
            (
                "key id AKIAIOSFODNN7EXAMPLE, region us-east-1",
                "key id [REDACTED:aws_access_key], region us-east-1",
            ),
            (
                "temp ASIAY34FZKBOKMUTVV7A used",
                "temp [REDACTED:aws_access_key] used",
            ),
            (
                "secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ok",
                "secret is [REDACTED:aws_secret_key] ok",
            ),
            (
                "pushed with ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                "pushed with [REDACTED:token]",
            ),
            (
                "OPENAI sk-proj-abcdefghijklmnopqrstuvwx1234",
                "OPENAI [REDACTED:api_key]",
            ),
            (
                "slack xoxb-123456789012-abcdefABCDEF rejected",
                "slack [REDACTED:token] rejected",
            ),
            (
                "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc failed",
                "stripe [REDACTED:api_key] failed",
            ),
            (
                "maps AIzaSyA1234567890abcdefghijklmnopqrstu",
                "maps [REDACTED:api_key]",
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(r(input), expected, "{input}");
        }
    }

    #[test]
    fn private_key_blocks_go_whole() {
        let text = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----\nafter";
        assert_eq!(r(text), "before\n[REDACTED:private_key]\nafter");
        let cut = "key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk";
        assert_eq!(r(cut), "key: [REDACTED:private_key]");
        let pgp =
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQdGBF\n-----END PGP PRIVATE KEY BLOCK-----";
        assert_eq!(r(pgp), "[REDACTED:private_key]");
        let public = "-----BEGIN PUBLIC KEY-----\nMCowBQ\n-----END PUBLIC KEY-----";
        assert_eq!(r(public), public, "a public key is no secret");
        let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assert_eq!(r(cert), cert);
    }

    #[test]
    fn ordinary_log_text_is_left_alone() {
        let untouched = [
            "token expired for user alice",
            "password reset requested for user bob",
            "passwordless login enabled",
            "max_tokens=512 temperature=0.2",
            "tokens: 42 prompt, 7 completion",
            "secretary: Jane Doe",
            "keyboard: us, layout: qwerty",
            "3 tests pass: 0 failures",
            "commit 3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6d7e8f9a0 deployed",
            "request_id=5b0f3c1e-0000-4000-8000-00000000000a user=alice",
            "GET https://example.com/login?next=/home 302",
            "ssh git@github.com:org/repo.git",
            "https://user@example.com/profile",
            "https://example.com/users/@bob:matrix.org",
            "mailto: ops@example.com",
            "Date: Mon, 24 Nov 2026 12:00:00 GMT",
            "if (a == b && c != d) return;",
            "std::io::Error occurred at 12:30:45",
            "password=${DB_PASSWORD}",
            "api_key: {{ secrets.API_KEY }}",
            "password=******",
            "basic authentication enabled",
            "bearer tokens are rotated hourly",
            "Bearer authentication failed for client",
            "AKIA is the prefix of an access key",
            "eyJ alone is not a token",
            "task-runner-sk-learn-1 finished",
            "the digest is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "",
        ];
        for text in untouched {
            let out = redact(text);
            assert_eq!(out.text, text, "{text}");
            assert_eq!(out.count(), 0, "{text}");
        }
    }

    #[test]
    fn redaction_is_idempotent_and_counts_by_kind() {
        let text = "password=a1 password=b2 AKIAIOSFODNN7EXAMPLE token: c3";
        let once = redact(text);
        assert_eq!(once.count(), 4);
        assert_eq!(once.found.get("password"), Some(&2));
        assert_eq!(once.found.get("aws_access_key"), Some(&1));
        assert_eq!(once.found.get("token"), Some(&1));
        let twice = redact(&once.text);
        assert_eq!(twice.text, once.text);
        assert_eq!(twice.count(), 0);
    }

    #[test]
    fn overlapping_matches_take_the_earlier_kind() {
        // The JWT is also a bearer credential and a named token: replaced once.
        let text = "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc";
        assert_eq!(r(text), "Authorization: [REDACTED:authorization]");
        let text = "token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc rest";
        assert_eq!(r(text), "token=[REDACTED:token] rest");
    }

    #[test]
    fn odd_input_never_panics() {
        for text in [
            "=",
            ":",
            "password=",
            "password=\"unterminated",
            "\"password\":",
            "://",
            "a://b:@",
            "-----BEGIN ",
            "-----BEGIN PRIVATE KEY",
            "eyJ.eyJ.",
            "bearer ",
            "ключ=значение пароль: секрет",
            "pässword=x",
            "🔑 password=🗝️ ok",
        ] {
            let once = redact(text);
            assert_eq!(redact(&once.text).text, once.text, "{text}");
        }
        assert_eq!(r("🔑 password=🗝️ ok"), "🔑 password=[REDACTED:password] ok");
    }
}
