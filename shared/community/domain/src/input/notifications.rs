//! The inbox's inputs: a page of it, and the notifications to mark read.

use platform::Invalid;

/// The most notifications one page answers, and one mark names.
pub const MAX_INBOX_LIMIT: usize = 100;
pub const DEFAULT_INBOX_LIMIT: usize = 20;

/// A page of the inbox: how many, after which (a cursor it gave out), unread ones only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxPage {
    pub limit: usize,
    /// The sort key the page starts after.
    pub after: Option<String>,
    pub unread_only: bool,
}

impl InboxPage {
    pub fn parse(
        limit: Option<&str>,
        cursor: Option<&str>,
        unread: Option<&str>,
    ) -> Result<Self, Invalid> {
        let limit = match limit.map(str::trim) {
            None => DEFAULT_INBOX_LIMIT,
            Some(raw) => match raw.parse::<usize>() {
                Ok(n) if (1..=MAX_INBOX_LIMIT).contains(&n) => n,
                _ => return Err(Invalid::field("limit", "must be from 1 to 100")),
            },
        };
        let after = cursor
            .map(|c| {
                platform::cursor::decode_cursor(c)
                    .filter(|sk| {
                        sk.strip_prefix(crate::keys::NOTIFICATION_PREFIX)
                            .is_some_and(is_notification_id)
                    })
                    .ok_or_else(|| {
                        Invalid::field("cursor", "is not a cursor this service gave out")
                    })
            })
            .transpose()?;
        let unread_only = match unread {
            None | Some("false") => false,
            Some("true") => true,
            Some(_) => return Err(Invalid::field("unread", "must be true or false")),
        };
        Ok(Self {
            limit,
            after,
            unread_only,
        })
    }
}

/// A notification's id: 13 digits of milliseconds, `-`, 16 lowercase hex digits.
pub fn is_notification_id(id: &str) -> bool {
    let Some((millis, hash)) = id.split_once('-') else {
        return false;
    };
    millis.len() == 13
        && millis.bytes().all(|b| b.is_ascii_digit())
        && hash.len() == 16
        && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The notifications to mark read: 1 to 100 ids (repeats counted once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotificationIds(Vec<String>);

impl NotificationIds {
    pub fn parse(ids: Option<Vec<String>>) -> Result<Self, Invalid> {
        let mut ids = ids.ok_or_else(|| Invalid::field("ids", "is required"))?;
        if ids.is_empty() || ids.len() > MAX_INBOX_LIMIT {
            return Err(Invalid::field("ids", "must hold 1 to 100 ids"));
        }
        if ids.iter().any(|id| !is_notification_id(id)) {
            return Err(Invalid::field("ids", "must be notification ids"));
        }
        ids.sort();
        ids.dedup();
        Ok(Self(ids))
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

/// The `@username`s a text names, in order, each once (case-insensitively), at most `max`:
/// `@` at the start or after a character that cannot be in an address or a name, then 3 to
/// 50 letters, digits, `_`, `.` or `-` (a trailing `.` or `-` is punctuation, not the name).
pub fn mentions(text: &str, max: usize) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    let mut i = 0;
    while i < chars.len() && found.len() < max {
        let at = chars.get(i).copied() == Some('@');
        let before_ok = i == 0
            || chars
                .get(i - 1)
                .is_some_and(|c| !c.is_alphanumeric() && !matches!(c, '_' | '.' | '-' | '@'));
        if !(at && before_ok) {
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while chars.get(end).is_some_and(|c| name_char(*c)) {
            end += 1;
        }
        let mut name: String = chars.get(i + 1..end).unwrap_or_default().iter().collect();
        while name.ends_with(['.', '-']) {
            name.pop();
        }
        let len = name.chars().count();
        if (3..=50).contains(&len) && !found.iter().any(|f| f.eq_ignore_ascii_case(&name)) {
            found.push(name);
        }
        i = end.max(i + 1);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_names_after_an_at_sign_each_once() {
        assert_eq!(
            mentions(
                "hi @alice, and @Bob.Smith. cc @ALICE me@mail.com @ab @x_y-z-",
                5
            ),
            vec!["alice", "Bob.Smith", "x_y-z"]
        );
        assert_eq!(mentions("@a1c @b2c @c3c", 2), vec!["a1c", "b2c"]);
        assert!(mentions("email@example.com", 5).is_empty());
    }

    #[test]
    fn ids_and_pages_are_bounded() {
        assert!(is_notification_id("1764745200123-0f3c1e5b0f3c1e5b"));
        assert!(!is_notification_id("1764745200123-0F3C1E5B0F3C1E5B"));
        assert!(!is_notification_id("x"));
        assert!(NotificationIds::parse(Some(vec![])).is_err());
        assert!(NotificationIds::parse(None).is_err());
        assert!(
            NotificationIds::parse(Some(vec!["1764745200123-0f3c1e5b0f3c1e5b".into(); 101]))
                .is_err()
        );
        assert!(InboxPage::parse(Some("0"), None, None).is_err());
        assert!(InboxPage::parse(Some("101"), None, None).is_err());
        assert!(InboxPage::parse(None, Some("zz"), None).is_err());
        // "N#x": a place in no inbox (the contract's pattern allows only a notification's).
        assert!(InboxPage::parse(None, Some("4e2378"), None).is_err());
        let cursor = platform::cursor::encode_cursor("N#1764745200123-0f3c1e5b0f3c1e5b");
        assert!(InboxPage::parse(None, Some(&cursor), None).is_ok());
        assert!(InboxPage::parse(None, None, Some("yes")).is_err());
        let page = InboxPage::parse(None, None, Some("true")).unwrap();
        assert_eq!((page.limit, page.unread_only), (20, true));
    }
}
